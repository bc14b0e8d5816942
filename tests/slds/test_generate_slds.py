"""``courtbench generate slds`` against the scripted chat server: exact prompts (with and
without the one-shot example), output + manifest, failed/empty rows, cache, cut decisions,
prompt overrides, --out ownership, and the file going straight into ``evaluate slds``."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from fake_chat_server import FakeChatServer, Reply, written_secrets
from slds_fixtures import LANGS, pair_rows, write_pair_folder

from courtbench.cli import main
from slds.generate import build_messages, cut_decision, load_prompts, render_user


@pytest.fixture(scope="module")
def slds_folder(tmp_path_factory) -> Path:
    return write_pair_folder(tmp_path_factory.mktemp("slds_generate"))


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv("GEN_TEST_KEY", "sk-gen-secret-never-written")


def _args(folder: Path, url: str, out: Path, *extra: str) -> list[str]:
    return ["generate", "slds", "--data", str(folder), "--base-url", url, "--model", "gen-m",
            "--out", str(out), "--api-key-env", "GEN_TEST_KEY", *extra]


def _sample(request: dict) -> str:
    """The first line of the target decision, e.g. 'test decision 1 (fr).'"""
    return request["messages"][-1]["content"].split("```")[1].split("\n")[0]


# ----------------------------------------------------------------------------- prompts


SYSTEM = (Path(__file__).resolve().parents[2] / "slds" / "prompts" / "headnote_system.txt").read_text()


def test_rendered_prompts_of_one_pair_with_and_without_the_one_shot_example():
    prompts = load_prompts()
    zero = build_messages(prompts, "Sachverhalt.\n\nErwägungen {language} $x.", "fr")
    one = build_messages(prompts, "Sachverhalt.", "fr", ("Beispiel.", "Art. 1 CC; regeste."))
    assert zero == (
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Leading decision:\n```Sachverhalt.\n\nErwägungen {language} $x.```"
                                    "\n\nGenerate a headnote in French for the leading decision above."},
    )
    assert one == (
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Leading decision:\n```Beispiel.```\n\nGenerate a headnote in "
                                    "French for the leading decision above."},
        {"role": "assistant", "content": "Art. 1 CC; regeste."},
        {"role": "user", "content": "Leading decision:\n```Sachverhalt.```\n\nGenerate a headnote "
                                    "in French for the leading decision above."},
    )
    for phrase in ("Swiss Federal Supreme Court", '"Art."', '"E." in German',
                   '"consid." in French and Italian', "headnote only"):
        assert phrase in SYSTEM


@pytest.mark.parametrize("text, limit, expected", [
    ("short", 10, ("short", False)),
    ("Para one.\n\nPara two is long.", 15, ("Para one.", True)),
    ("Para one.\nline two\nline three", 20, ("Para one.\nline two", True)),
    ("no breaks at all here", 11, ("no breaks", True)),
    ("abcdefghijklmnop", 5, ("abcde", True)),
])
def test_cut_decision_at_a_paragraph_boundary(text, limit, expected):
    cut = cut_decision(text, limit)
    assert cut == expected and len(cut[0]) <= limit


def test_render_user_fills_placeholders_once():
    assert render_user("{language}: {decision}", "{language} {decision}", "it") \
        == "Italian: {language} {decision}"


# ----------------------------------------------------------------------------- end to end


def _script(request, attempt):
    sample = _sample(request)
    if sample == "test decision 0 (de).":      # the de_* rows: a reasoning model
        return Reply("<think>Which articles?</think>Art. 1 ZGB; generiert.",
                     usage={"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110})
    if sample == "test decision 1 (fr).":      # the fr_* rows: always 500 -> failed
        return Reply(status=500)
    return Reply("", finish_reason="length")   # the it_* rows: empty


def test_generate_all_pairs_writes_every_row_marks_failures_and_reruns_from_cache(
        slds_folder, tmp_path, capsys):
    out = tmp_path / "preds.jsonl"
    args = _args(slds_folder, "http://127.0.0.1:{port}/v1", out, "--config", "all",
                 "--max-retries", "1")
    with FakeChatServer(_script) as server:
        args[args.index("--base-url") + 1] = server.url
        assert main(args) == 1  # three rows failed after retries
        first_requests = list(server.requests)
        captured = capsys.readouterr()
        assert main(args) == 1  # failures are not cached: only they are sent again
        resent = server.requests[len(first_requests):]
    assert "incomplete: 3 sample(s) failed (33.3% > --max-failure-share 0)" in captured.err
    assert "3 answer(s) cut at the token limit" in captured.err
    assert "no one_shot_examples row for it_it: those ran zero-shot" in captured.err
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["sample_id"] for r in records] == [1000 + 10 * i + j for i in range(3) for j in range(3)]
    assert [r["config"] for r in records] == [f"{d}_{h}" for d in LANGS for h in LANGS]
    assert records[0]["prediction"] == "Art. 1 ZGB; generiert." and records[0]["reasoning"] == "Which articles?"
    assert records[0]["usage"] == {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
    failed = records[3:6]
    assert all(r["prediction"] is None and r["error"].startswith("InternalServerError") for r in failed)
    assert all(r["prediction"] == "" and r["finish_reason"] == "length" for r in records[6:])
    assert len(first_requests) == 3 + 3 * 2 + 3 and len(resent) == 3 * 2
    # one-shot: de_fr carries its validation row as a user/assistant exchange; it_it has none
    by_sample = {(_sample(r.body), r.body["messages"][-1]["content"][-50:]): r.body
                 for r in first_requests}
    de_fr = next(b for b in by_sample.values() if "in French" in b["messages"][-1]["content"]
                 and _sample(b) == "test decision 0 (de).")
    assert [m["role"] for m in de_fr["messages"]] == ["system", "user", "assistant", "user"]
    assert de_fr["messages"][2]["content"] == "Art. 1 ZGB; validation headnote 0/fr."
    it_it = next(b for b in by_sample.values() if "in Italian" in b["messages"][-1]["content"]
                 and _sample(b) == "test decision 2 (it).")
    assert [m["role"] for m in it_it["messages"]] == ["system", "user"]
    assert {k: de_fr[k] for k in ("temperature", "top_p", "seed", "max_tokens")} \
        == {"temperature": 0.7, "top_p": 0.8, "seed": 2025, "max_tokens": 1024}
    manifest = json.loads((tmp_path / "preds.jsonl.manifest.json").read_text())
    assert manifest["endpoint_host"] == server.url.rsplit("/", 1)[0] and manifest["model"] == "gen-m"
    assert manifest["counts"]["failed"] == 3 and manifest["counts"]["empty"] == 3
    assert manifest["counts"]["ok"] == 3 and manifest["counts"]["failed_sample_ids"] == [1010, 1011, 1012]
    assert manifest["counts"]["cached"] == 6 and manifest["counts"]["sent"] == len(resent) == 6
    assert manifest["prompts"]["system_prompt_sha256"] == hashlib.sha256(SYSTEM.encode()).hexdigest()
    assert manifest["usage"]["total_tokens"] == 330 and manifest["courtbench_version"]
    assert written_secrets(tmp_path, b"sk-gen-secret") == []  # output, manifest, cache, log
    assert manifest["llm_run"]["complete"] is False and manifest["llm_run"]["failed"] == 3
    assert manifest["llm_run"]["failures_by_kind"] == {"request_failed": 3}
    assert manifest["llm_run"]["inspect_log"].endswith(".eval")


def test_cut_decisions_are_counted_and_prompt_overrides_hashed(slds_folder, tmp_path, capsys):
    system, user = tmp_path / "sys.txt", tmp_path / "user.txt"
    system.write_text("Be brief.")
    user.write_text("{decision}\nHeadnote in {language}:")
    out = tmp_path / "p.jsonl"
    args = ["--config", "de_fr", "--shots", "0", "--max-input-chars", "30", "--system-prompt",
            str(system), "--user-prompt", str(user)]
    with FakeChatServer(lambda request, attempt: Reply("ok")) as server:
        code = main(_args(slds_folder, server.url, out, *args))
        body = server.requests[0].body
        first = out.read_bytes()
        assert main(_args(slds_folder, server.url, out, *args)) == 0  # own output: replaced
        assert len(server.requests) == 1 and out.read_bytes() == first  # from cache, identical
    assert code == 0
    assert body["messages"] == [{"role": "system", "content": "Be brief."},
                                {"role": "user", "content": "test decision 0 (de).\nHeadnote in French:"}]
    manifest = json.loads((tmp_path / "p.jsonl.manifest.json").read_text())
    assert manifest["counts"]["cut_decisions"] == 1 and manifest["max_input_chars"] == 30
    assert manifest["prompts"]["user_prompt_sha256"] == hashlib.sha256(b"{decision}\nHeadnote in {language}:").hexdigest()
    assert "1 decisions cut at 30 characters" in capsys.readouterr().out


@pytest.mark.parametrize("extra, message", [
    (["--config", "de_xx"], "--config 'de_xx': expected one of de_de"),
    (["--config", "de_de", "--max-input-chars", "0"],
     "argument --max-input-chars: expected a length in [1, 10,000,000], got '0'"),
    (["--config", "de_de", "--user-prompt", "{user}"], "never uses {decision}"),
    (["--config", "de_de", "--concurrency", "0"],
     "argument --concurrency: expected a number of requests in [1, 1,024], got '0'"),
])
def test_bad_options_are_one_line_errors_before_any_request(slds_folder, tmp_path, capsys, extra, message):
    if "{user}" in extra:
        (tmp_path / "u.txt").write_text("no placeholder")
        extra = [e.replace("{user}", str(tmp_path / "u.txt")) for e in extra]
    with FakeChatServer(lambda request, attempt: Reply("ok")) as server:
        try:
            code = main(_args(slds_folder, server.url, tmp_path / "p.jsonl", *extra))
        except SystemExit as exit_info:  # a bad option value: refused while parsing
            code = exit_info.code
        assert code == (2 if message.startswith("argument ") else 1)
        assert server.requests == []
    assert message in capsys.readouterr().err


def test_foreign_out_is_refused_and_dry_run_sends_nothing(slds_folder, tmp_path, capsys):
    foreign = tmp_path / "notes.jsonl"
    foreign.write_text('{"mine": true}\n')
    with FakeChatServer(lambda request, attempt: Reply("ok")) as server:
        assert main(_args(slds_folder, server.url, foreign, "--config", "de_de")) == 1
        assert "was not written by a courtbench run" in capsys.readouterr().err
        assert main(_args(slds_folder, server.url, tmp_path / "d.jsonl", "--config", "all",
                          "--dry-run")) == 0
        assert server.requests == []
    out = capsys.readouterr().out
    assert "dry run: 9 request(s)" in out and '"seed": 2025' in out
    assert foreign.read_text() == '{"mine": true}\n' and not (tmp_path / "d.jsonl").exists()


def test_generation_output_goes_straight_into_evaluate(slds_folder, tmp_path, capsys):
    out = tmp_path / "model.jsonl"
    with FakeChatServer(_script) as server:
        assert main(_args(slds_folder, server.url, out, "--config", "all", "--max-retries", "0")) == 1
    capsys.readouterr()
    code = main(["evaluate", "slds", "--data", str(slds_folder), "--predictions", str(out),
                 "--out", str(tmp_path / "report"), "--resamples", "20"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "model: 3 failed generation(s) (scored as empty predictions), 3 empty prediction(s)" in err
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    assert report["provenance"]["failed_predictions"] == {"model": 3}
    assert report["provenance"]["empty_predictions"] == {"model": 3}


# ----------------------------------------------------------------------------- run controls and files


def test_limit_decoding_headers_and_a_run_summary_that_counts_truncated_answers(slds_folder, tmp_path,
                                                                                capsys):
    out = tmp_path / "g.jsonl"
    with FakeChatServer(lambda request, attempt: Reply("cut", finish_reason="length")) as server:
        assert main(_args(slds_folder, server.url, out, "--config", "all", "--limit", "2",
                          "--temperature", "0.1", "--header", "X-Run: r1")) == 0
        bodies, headers = [r.body for r in server.requests], server.requests[0].headers
    assert len(bodies) == 2 and {b["temperature"] for b in bodies} == {0.1}
    assert headers["x-run"] == "r1"
    manifest = json.loads((tmp_path / "g.jsonl.manifest.json").read_text())
    assert manifest["llm_run"]["limit"] == 2 and manifest["llm_run"]["truncated_answers"] == 2
    assert manifest["header_names"] == ["X-Run"] and "r1" not in json.dumps(manifest)
    assert "2 answer(s) cut at the token limit" in capsys.readouterr().err


def test_generation_and_judge_outputs_of_one_name_keep_their_own_manifests(slds_folder, tmp_path,
                                                                           capsys):
    out = tmp_path / "x.jsonl"
    with FakeChatServer(lambda request, attempt: Reply("Art. 1 ZGB.")) as server:
        assert main(_args(slds_folder, server.url, out, "--config", "de_de")) == 0
        (tmp_path / "x.json").write_text("{}")  # a file named like a judge output beside it
        assert main(_args(slds_folder, server.url, out, "--config", "de_de")) == 0  # own: replaced
    assert (tmp_path / "x.jsonl.manifest.json").is_file()
    assert not (tmp_path / "x.manifest.json").exists()


def test_a_courtbench_file_of_another_kind_is_refused_without_suggesting_overwrite(slds_folder,
                                                                                   tmp_path, capsys):
    from courtbench.output_files import write_output_file
    out = tmp_path / "j.jsonl"
    write_output_file(out, b"{}\n", {}, kind="slds-judge")
    with FakeChatServer(lambda request, attempt: Reply("x")) as server:
        assert main(_args(slds_folder, server.url, out, "--config", "de_de")) == 1
        assert server.requests == []
    error = capsys.readouterr().err
    assert "output of a courtbench slds-judge run" in error and "--overwrite" not in error


def test_a_full_disk_while_writing_the_output_is_one_line_and_a_rerun_sends_nothing(
        slds_folder, tmp_path, capsys, monkeypatch):
    import errno

    import courtbench.output_files as output_files
    out = tmp_path / "g.jsonl"

    def full(stream, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    real = output_files._write_bytes
    with FakeChatServer(lambda request, attempt: Reply("Art. 1 ZGB.")) as server:
        monkeypatch.setattr(output_files, "_write_bytes", full)
        assert main(_args(slds_folder, server.url, out, "--config", "de_de")) == 1
        error = capsys.readouterr().err.strip().splitlines()[-1]  # after the progress bar
        assert "g.jsonl: no space left on the device while writing it" in error
        assert "bytes needed" in error and "Traceback" not in error and not out.exists()
        monkeypatch.setattr(output_files, "_write_bytes", real)
        sent = len(server.requests)
        assert main(_args(slds_folder, server.url, out, "--config", "de_de")) == 0
        assert len(server.requests) == sent  # every answer came from the cache


@pytest.mark.models
def test_decisions_are_cut_by_the_tokens_of_a_local_tokenizer(slds_folder, tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    words = sorted({w for r in pair_rows(1000, "test") for w in r["decision"].split()})
    model = tokenizers.models.WordLevel({w: i for i, w in enumerate(["[UNK]", *words])},
                                        unk_token="[UNK]")
    tokenizer = tokenizers.Tokenizer(model)
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    tokenizer.save(str(tmp_path / "tokenizer.json"))
    out = tmp_path / "t.jsonl"
    with FakeChatServer(lambda request, attempt: Reply("ok")) as server:
        assert main(_args(slds_folder, server.url, out, "--config", "de_de", "--shots", "0",
                          "--tokenizer", str(tmp_path), "--max-input-tokens", "6")) == 0
        user = server.requests[0].body["messages"][-1]["content"]
    assert "test decision 0 (de)." in user and "Second paragraph" not in user
    manifest = json.loads((tmp_path / "t.jsonl.manifest.json").read_text())
    assert manifest["counts"]["cut_decisions"] == 1 and manifest["max_input_tokens"] == 6


def test_tokenizer_options_go_together_and_a_missing_path_is_one_line(slds_folder, tmp_path, capsys):
    assert main(_args(slds_folder, "http://127.0.0.1:9/v1", tmp_path / "a.jsonl", "--config",
                      "de_de", "--max-input-tokens", "5")) == 1
    assert "--tokenizer and --max-input-tokens go together" in capsys.readouterr().err
    assert main(_args(slds_folder, "http://127.0.0.1:9/v1", tmp_path / "a.jsonl", "--config",
                      "de_de", "--tokenizer", str(tmp_path / "none"), "--max-input-tokens", "5")) == 1
    assert "--tokenizer" in capsys.readouterr().err
