"""The runners' own outputs go straight into ``evaluate`` and ``judge`` for every scope, and
every decoding option changes the request body as it says (scripted server on 127.0.0.1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_chat_server import FakeChatServer, Reply, judgement
from slds_fixtures import pair_rows, pair_table, write_configs_folder

from courtbench.cli import main
from courtbench.errors import CourtbenchError
from courtbench.hub import ConfigSpec
from courtbench.inspect_glue.options import ModelOptions, extra_body
from tests.slds.test_generate_slds import _args


@pytest.fixture(scope="module")
def slds_folder(tmp_path_factory) -> Path:
    """default (test + validation, nine pairs, one row each) and the nine pair configs with
    their test row and one-shot example, as a build writes them."""
    root = tmp_path_factory.mktemp("slds_scopes")
    test, validation = pair_rows(1000, "test"), pair_rows(2000, "validation")
    configs = [ConfigSpec("default", {"test": pair_table(test), "validation": pair_table(validation)},
                          default=True)]
    for test_row, shot in zip(test, validation, strict=True):
        pair = f"{test_row['decision_language']}_{test_row['headnote_language']}"
        configs.append(ConfigSpec(pair, {"test": pair_table([test_row]),
                                         "one_shot_examples": pair_table([shot])}))
    return write_configs_folder(root, configs)


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv("GEN_TEST_KEY", "sk-gen-secret-never-written")


def _headnote(request, attempt):
    return Reply("Art. 1 ZGB; generiert.")


def _bodies(server: FakeChatServer) -> list[dict]:
    return [r.body for r in server.requests]


# ----------------------------------------------------------------------------- decoding


def test_published_preset_sends_the_published_decoding_with_server_fields_top_level(
        slds_folder, tmp_path):
    out = tmp_path / "pub.jsonl"
    with FakeChatServer(_headnote) as server:
        assert main(_args(slds_folder, server.url, out, "--config", "de_fr",
                          "--preset", "published")) == 0
    body = _bodies(server)[0]
    assert {k: body[k] for k in ("temperature", "top_p", "seed", "max_tokens", "stop")} == {
        "temperature": 0.7, "top_p": 0.8, "seed": 2025, "max_tokens": 512, "stop": ["</s>"]}
    # extra_body fields arrive merged into the JSON body, as vLLM reads them
    assert body["top_k"] == 20 and body["repetition_penalty"] == 1.05
    assert "extra_body" not in body
    manifest = json.loads((tmp_path / "pub.jsonl.manifest.json").read_text())
    assert manifest["preset"] == "published" and manifest["parameters_dropped"] == []


def test_reasoning_multiplies_the_budget_and_explicit_options_override_the_preset(
        slds_folder, tmp_path):
    with FakeChatServer(_headnote) as server:
        assert main(_args(slds_folder, server.url, tmp_path / "r.jsonl", "--config", "de_fr",
                          "--preset", "published", "--reasoning", "--temperature", "0.2",
                          "--top-k", "5", "--repetition-penalty", "1.2", "--stop", "###",
                          "--stop", "END", "--extra-body", '{"min_p": 0.05}')) == 0
    body = _bodies(server)[0]
    assert body["max_tokens"] == 5120 and body["temperature"] == 0.2
    assert body["top_k"] == 5 and body["repetition_penalty"] == 1.2 and body["min_p"] == 0.05
    assert body["stop"] == ["###", "END"]


def test_default_preset_sends_no_server_fields(slds_folder, tmp_path):
    with FakeChatServer(_headnote) as server:
        assert main(_args(slds_folder, server.url, tmp_path / "d.jsonl", "--config", "de_fr")) == 0
    body = _bodies(server)[0]
    assert not {"top_k", "repetition_penalty", "stop"} & set(body)
    assert body["max_tokens"] == 1024


def test_a_family_that_refuses_top_k_and_repetition_penalty_does_not_get_them(slds_folder,
                                                                              tmp_path):
    """By the model's name, whatever the host: a GPT name at a local server loses both."""
    out = tmp_path / "gpt.jsonl"
    with FakeChatServer(_headnote) as server:
        args = _args(slds_folder, server.url, out, "--config", "de_fr", "--preset", "published")
        args[args.index("--model") + 1] = "gpt-4o-mini"
        assert main(args) == 0
    body = _bodies(server)[0]
    assert not {"top_k", "repetition_penalty"} & set(body) and body["stop"] == ["</s>"]
    manifest = json.loads((tmp_path / "gpt.jsonl.manifest.json").read_text())
    assert manifest["parameters_dropped"] == ["top_k", "repetition_penalty"]


@pytest.mark.parametrize("option, message", [
    (dict(top_k=0), "--top-k 0"), (dict(repetition_penalty=0.0), "--repetition-penalty"),
    (dict(stop=("",)), "--stop"),
])
def test_bad_decoding_options_are_one_line_errors(option, message):
    with pytest.raises(CourtbenchError, match=message.replace("-", r"\-")):
        ModelOptions("m", **option).check_decoding()


@pytest.mark.parametrize("text, message", [("[1]", "expected a JSON object"),
                                           ("{", "--extra-body")])
def test_bad_extra_body_is_a_one_line_error(text, message):
    with pytest.raises(CourtbenchError, match=message):
        extra_body(text)


def test_a_system_prompt_file_reaches_the_endpoint_byte_for_byte(slds_folder, tmp_path):
    prompt = tmp_path / "published_system.txt"
    text = "Line one of a prompt file\r\nwith CRLF, trailing blanks   \n\nand ünïcödé.\n"
    prompt.write_bytes(text.encode("utf-8"))
    with FakeChatServer(_headnote) as server:
        assert main(_args(slds_folder, server.url, tmp_path / "p.jsonl", "--config", "de_fr",
                          "--system-prompt", str(prompt))) == 0
    for body in _bodies(server):
        assert body["messages"][0] == {"role": "system", "content": text}


def test_predict_ecthr_gets_the_shared_decoding_options(tmp_path):
    """predict names sampling top-k --sampling-top-k: its --top-k counts the agent's references."""
    from ecthr_npd.build import build_synthetic

    folder = tmp_path / "built"
    build_synthetic(folder, n=120, seed=3)
    with FakeChatServer(lambda body, attempt: Reply('{"award_eur": 1000}')) as server:
        assert main(["predict", "ecthr_npd", "--data", str(folder), "--out",
                     str(tmp_path / "llm.csv"), "--base-url", server.url, "--model", "m",
                     "--prompt", "zero_shot", "--splits", "test", "--stop", "</s>", "--sampling-top-k",
                     "40", "--extra-body", '{"repetition_penalty": 1.1}']) == 0
    body = _bodies(server)[0]
    assert body["stop"] == ["</s>"] and body["top_k"] == 40 and body["repetition_penalty"] == 1.1
    assert body["temperature"] == 0.0 and body["seed"] == 42


# ----------------------------------------------------------------------------- scopes


@pytest.mark.parametrize("config", ["de_fr", "fr_fr", "all"])
def test_generate_output_goes_into_evaluate_and_judge_for_every_scope(slds_folder, tmp_path,
                                                                      config):
    out = tmp_path / "gen.jsonl"
    with FakeChatServer(_headnote) as server:
        assert main(_args(slds_folder, server.url, out, "--config", config)) == 0
    report = tmp_path / "report"
    assert main(["evaluate", "slds", "--data", str(slds_folder), "--predictions", str(out),
                 "--out", str(report), "--resamples", "10"]) == 0
    document = json.loads((report / "report.json").read_text())
    expected = ([f"{d}_{h}" for d in ("de", "fr", "it") for h in ("de", "fr", "it")]
                if config == "all" else [config])
    assert document["provenance"]["scope"] == {"gen": expected}
    assert document["tables"]["main"]["rows"][0][1] == "+".join(expected)
    assert document["tables"]["main"]["rows"][0][-1] == 0.0  # failed %: from the manifest
    # the judge takes the rows of one pair, also from a multi-pair file
    judged = tmp_path / "judge.json"
    with FakeChatServer(lambda body, attempt: Reply(judgement([3, 3, 3, 2, 2]))) as judge:
        assert main(["judge", "slds", "--data", str(slds_folder), "--config",
                     "fr_fr" if config == "fr_fr" else "de_fr", "--predictions", str(out),
                     "--base-url", judge.url, "--model", "j", "--out", str(judged),
                     "--no-progress"]) == 0
        assert len(judge.requests) == 1
    assert json.loads(judged.read_text())["n_scored"] == 1


@pytest.mark.slow
@pytest.mark.parametrize("splits", ["test", "validation", "validation,test"])
def test_predict_output_goes_into_evaluate_for_every_scope(tmp_path, splits):
    from ecthr_npd.build import build_synthetic

    folder = tmp_path / "built"
    build_synthetic(folder, n=150, seed=4)

    def answer(body, attempt):  # every 4th case fails: the fallback share is reported
        return Reply("no idea" if len(body["messages"][-1]["content"]) % 4 == 0
                     else '{"award_eur": 2500}')

    out = tmp_path / "llm.csv"
    with FakeChatServer(answer) as server:
        assert main(["predict", "ecthr_npd", "--data", str(folder), "--out", str(out),
                     "--base-url", server.url, "--model", "m", "--prompt", "zero_shot",
                     "--splits", splits, "--max-failure-share", "1"]) == 0
    report = tmp_path / "report"
    assert main(["evaluate", "ecthr_npd", "--data", str(folder), "--predictions", str(out),
                 "--out", str(report), "--no-figures", "--resamples", "20"]) == 0
    document = json.loads((report / "report.json").read_text())
    assert document["provenance"]["scope"] == {"llm": splits.replace(",", "+")}
    manifest = json.loads(out.with_name("llm.csv.manifest.json").read_text())
    share = (manifest["counts"]["answer_failed"] + manifest["counts"]["request_failed"]) \
        / manifest["counts"]["cases"]
    assert 0 < share < 1
    row = document["tables"]["main"]["rows"][0]
    assert row[1] == splits.replace(",", "+") and row[15] == pytest.approx(100 * share)
    assert ("high fallback / failure share" in (report / "report.md").read_text()) == (share > 0.05)
