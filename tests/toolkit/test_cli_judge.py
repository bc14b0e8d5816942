"""``courtbench judge slds`` and ``courtbench.predictions.read_predictions``, offline, against a
scripted chat-completions server (tests/helpers/fake_chat_server.py) and a tiny SLDS-like Hub folder."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import datasets
import pytest
from fake_chat_server import FakeChatServer, Reply, generated_headnote, judgement, written_secrets

from courtbench.cli import main
from courtbench.errors import CourtbenchError, SourceError
from courtbench.hub import ConfigSpec, write_hub_folder
from courtbench.predictions import read_predictions

SECRET = "sk-cli-5d1e0b77-do-not-persist"
FEATURES = datasets.Features({
    "sample_id": datasets.Value("string"),
    "decision_id": datasets.Value("string"),
    "decision": datasets.Value("string"),
    "decision_language": datasets.Value("string"),
    "headnote": datasets.Value("string"),
    "headnote_language": datasets.Value("string"),
    "law_area": datasets.Value("string"),
    "year": datasets.Value("int32"),
})


def _rows(pair: str, n: int, split: str) -> datasets.Dataset:
    decision, headnote = pair.split("_")
    return datasets.Dataset.from_dict({
        "sample_id": [f"{split}-{pair}-{i}" for i in range(n)],
        "decision_id": [f"BGE 150 II {100 + i}" for i in range(n)],
        "decision": [f"Sachverhalt {i} ... (decision text never shown to the judge)" for i in range(n)],
        "decision_language": [decision] * n,
        "headnote": [f"Art. {i + 1} ZGB; Beweislast, E. {i}.\nZweiter Absatz für {i}." for i in range(n)],
        "headnote_language": [headnote] * n,
        "law_area": ["civil"] * n,
        "year": [2023] * n,
    }, features=FEATURES)


@pytest.fixture(scope="module")
def hub_folder(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("slds_like")
    template = root / "card.md"
    template.write_text("# SLDS-like test folder\n")
    configs = [ConfigSpec(pair, {"validation": _rows(pair, 2, "val"), "test": _rows(pair, n, "test")},
                          default=pair == "de_fr")
               for pair, n in (("de_fr", 40), ("it_it", 3))]
    write_hub_folder(root / "hub", configs, card_template=template, card_context={},
                     card_metadata={"pretty_name": "SLDS-like", "courtbench_dataset": "slds"})
    return root / "hub"


def _write_jsonl(path: Path, ids, text=lambda i: f"gen-{i}") -> Path:
    path.write_text("".join(json.dumps({"sample_id": sample_id, "prediction": text(i)}) + "\n"
                            for i, sample_id in enumerate(ids)), encoding="utf-8")
    return path


def _test_ids(pair="de_fr", n=40):
    return [f"test-{pair}-{i}" for i in range(n)]


def _scripted(request, attempt):
    """gen-<i>: i % 3 == 0 -> all 3 (100); 1 -> all 2 (50); 2 -> unparsable answer."""
    i = int(generated_headnote(request).rsplit("-", 1)[1])
    return Reply({0: judgement([3] * 5), 1: judgement([2] * 5), 2: "I cannot rate this."}[i % 3])


def _args(hub_folder, predictions, server_url, out, *extra):
    return ["judge", "slds", "--data", str(hub_folder), "--config", "de_fr", "--split", "test",
            "--predictions", str(predictions), "--base-url", server_url, "--model", "judge-m",
            "--out", str(out), "--no-progress", "--max-failure-share", "0.5", *extra]


def test_judge_writes_scores_failures_and_provenance(hub_folder, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("JUDGE_API_KEY", SECRET)
    predictions = _write_jsonl(tmp_path / "preds.jsonl", _test_ids())
    out = tmp_path / "results" / "judge.json"
    with FakeChatServer(_scripted) as server:
        code = main(_args(hub_folder, predictions, server.url, out, "--api-key-env", "JUDGE_API_KEY"))
        sent = list(server.requests)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "(0-100; 27 of 40 samples, 13 excluded; parse strict)" in captured.out
    result = json.loads(out.read_text(encoding="utf-8"))
    # i % 3 over range(40): 14 samples score 100, 13 score 50, 13 answers are unparsable
    assert result["n_samples"] == 40 and result["n_failed"] == 13 and result["n_unparsed"] == 13
    assert result["score"] == pytest.approx((14 * 100 + 13 * 50) / 27)
    assert list(result["by_language_pair"]) == ["de_fr"]
    assert result["macro_score"] == pytest.approx(result["score"])
    assert result["run"]["config"] == "de_fr" and result["run"]["split"] == "test"
    assert len(result["run"]["predictions_sha256"]) == 64
    assert result["reproducibility"]["model"] == "judge-m"
    assert [s["sample_id"] for s in result["samples"]] == sorted(_test_ids())  # sample_id order
    by_id = {s["sample_id"]: s for s in result["samples"]}
    assert by_id["test-de_fr-2"]["raw_response"] == "I cannot rate this."
    # the judge saw the gold headnote (in French: headnote language of de_fr) but not the decision
    user = sent[0].body["messages"][1]["content"]
    assert "Gold headnote (French)" in user and "Art. " in user and "Sachverhalt" not in user
    assert sent[0].headers["authorization"] == f"Bearer {SECRET}"
    assert "judge score" in captured.out and "13 sample(s) failed (13 unparsed" in captured.err
    inspect_dir = out.with_suffix(".judge-inspect")  # Inspect's cache and log beside --out
    assert any((inspect_dir / "cache").rglob("*")) and any((inspect_dir / "logs").glob("*.eval"))
    assert written_secrets(tmp_path, SECRET.encode()) == []
    assert SECRET not in captured.out + captured.err


def test_csv_predictions_give_the_same_result(hub_folder, tmp_path):
    ids = _test_ids("it_it", 3)
    with open(tmp_path / "preds.csv", "w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["prediction", "sample_id"])
        for i, sample_id in enumerate(ids):
            writer.writerow([f"gen-{i}", sample_id])
    _write_jsonl(tmp_path / "preds.jsonl", ids)
    results = []
    with FakeChatServer(_scripted) as server:
        for name in ("preds.csv", "preds.jsonl"):
            out = tmp_path / f"{name}.json"
            args = _args(hub_folder, tmp_path / name, server.url, out, "--cache",
                         str(tmp_path / "c"))
            args[args.index("--config") + 1] = "it_it"
            assert main(args) == 0
            results.append(json.loads(out.read_text()))
        assert len(server.requests) == 3  # the second run came from the shared cache
    assert results[0]["score"] == results[1]["score"] == pytest.approx(75.0)
    assert results[1]["n_cached"] == 3 and list(results[0]["by_language_pair"]) == ["it_it"]


def test_unknown_missing_and_duplicate_ids_are_listed(hub_folder, tmp_path, capsys):
    ids = _test_ids()[:38] + ["test-de_fr-0", "nope-1"]
    predictions = _write_jsonl(tmp_path / "preds.jsonl", ids)
    assert main(_args(hub_folder, predictions, "http://127.0.0.1:9/v1", tmp_path / "o.json")) == 1
    err = capsys.readouterr().err
    assert "1 unknown sample id(s) not in the split: 'nope-1' (line 40)" in err
    assert "1 duplicate sample id(s): 'test-de_fr-0' (line 39, first on line 1)" in err
    assert "2 of 40 sample id(s) of the split have no prediction: 'test-de_fr-38', 'test-de_fr-39'" in err
    assert not (tmp_path / "o.json").exists()


@pytest.mark.parametrize("extra, message", [
    (["--api-key-env", "COURTBENCH_TEST_UNSET_KEY"], "COURTBENCH_TEST_UNSET_KEY: the environment variable"),
    (["--config", "fr_fr"], "cannot load config 'fr_fr'"),
    (["--demonstration", "de"], "expected LANG=FILE"),
    (["--concurrency", "0"], "argument --concurrency: expected a number of requests in [1, "
                             "1,024], got '0'"),
    (["--system-template", "/nonexistent/sys.txt"], "--system-template /nonexistent/sys.txt: not a file"),
    (["--max-tokens", "0"], "argument --max-tokens: expected a length in [1, 10,000,000], "
                            "got '0'"),
])
def test_bad_arguments_are_one_line_errors(hub_folder, tmp_path, capsys, extra, message):
    predictions = _write_jsonl(tmp_path / "preds.jsonl", _test_ids())
    try:
        code = main(_args(hub_folder, predictions, "http://127.0.0.1:9/v1", tmp_path / "o.json",
                          *extra))
    except SystemExit as exit_info:  # a bad option value: refused while parsing
        code = exit_info.code
    assert code == (2 if message.startswith("argument ") else 1)
    err = capsys.readouterr().err
    assert message in err.strip().splitlines()[-1] and "Traceback" not in err


@pytest.mark.parametrize("language", ["xx", "en", "DE"])
def test_a_demonstration_for_a_language_that_is_no_slds_headnote_language_is_refused(
        hub_folder, tmp_path, capsys, language):
    predictions = _write_jsonl(tmp_path / "preds.jsonl", _test_ids())
    demo = tmp_path / "demo.txt"
    demo.write_text("A judged example.\n", encoding="utf-8")
    item = f"{language}={demo}"
    with FakeChatServer(_scripted) as server:
        code = main(_args(hub_folder, predictions, server.url, tmp_path / "o.json",
                          "--demonstration", f"de={demo}", "--demonstration", item))
        sent = len(server.requests)
    err = capsys.readouterr().err
    assert code == 1 and sent == 0 and not (tmp_path / "o.json").exists()
    assert "Traceback" not in err and len([line for line in err.splitlines() if "error" in line]) == 1
    assert (f"--demonstration {item!r}: language {language!r} is not a headnote language of "
            "SLDS; expected one of de, fr, it") in err


def test_killed_run_resumes_with_only_the_remaining_requests(hub_folder, tmp_path, repo_root):
    predictions = _write_jsonl(tmp_path / "preds.jsonl", _test_ids())
    out, cache = tmp_path / "judge.json", tmp_path / "cache"

    def slow(request, attempt):
        return Reply(_scripted(request, attempt).content, delay=0.15)

    with FakeChatServer(slow) as server:
        args = _args(hub_folder, predictions, server.url, out, "--cache", str(cache),
                     "--concurrency", "2")
        process = subprocess.Popen([sys.executable, "-m", "courtbench", *args], cwd=repo_root,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   env={**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"})
        deadline = time.monotonic() + 240
        while len(server.requests) < 12 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        process.kill()  # SIGKILL: no cleanup handler runs
        _, err = process.communicate(timeout=60)
        assert process.returncode != 0, err.decode()
        assert not out.exists()
        stored = sum(p.is_file() for p in (cache / "generate").rglob("*"))  # Inspect's cache
        assert 10 <= stored < 40
        before = len(server.requests)
        assert main(args) == 0
        resent = len(server.requests) - before
    result = json.loads(out.read_text())
    assert resent == 40 - stored
    assert result["n_cached"] == stored and result["n_requested"] == 40 - stored
    assert result["n_samples"] == 40 and result["n_unparsed"] == 13


# ----------------------------------------------------------------------------- --out and exit codes


def test_out_is_checked_before_loading_and_any_request(hub_folder, tmp_path, capsys, monkeypatch):
    import slds.judge

    def no_loading(*args, **kwargs):
        raise AssertionError("the split was loaded before --out was checked")

    monkeypatch.setattr(slds.judge, "read_split", no_loading)
    predictions = _write_jsonl(tmp_path / "preds.jsonl", _test_ids())
    foreign = tmp_path / "thesis.json"
    foreign.write_text('{"chapter": 1}\n')
    (tmp_path / "folder.json").mkdir()
    with FakeChatServer(_scripted) as server:
        assert main(_args(hub_folder, predictions, server.url, foreign)) == 1
        assert "was not written by a courtbench run" in capsys.readouterr().err
        assert main(_args(hub_folder, predictions, server.url, tmp_path / "folder.json")) == 1
        assert "is a directory" in capsys.readouterr().err
        assert server.requests == []
    assert foreign.read_text() == '{"chapter": 1}\n'


def test_own_output_is_replaced_and_foreign_only_with_overwrite(hub_folder, tmp_path):
    predictions = _write_jsonl(tmp_path / "preds.jsonl", _test_ids())
    out = tmp_path / "judge.json"
    with FakeChatServer(_scripted) as server:
        assert main(_args(hub_folder, predictions, server.url, out)) == 0
        manifest = json.loads((tmp_path / "judge.json.manifest.json").read_text())
        assert manifest["courtbench_output"]["kind"] == "slds-judge"
        assert main(_args(hub_folder, predictions, server.url, out)) == 0  # ours: replaced
        out.write_text("edited by hand\n")
        assert main(_args(hub_folder, predictions, server.url, out)) == 1  # changed since
        assert main(_args(hub_folder, predictions, server.url, out, "--overwrite")) == 0
    assert json.loads(out.read_text())["n_samples"] == 40


def test_failed_requests_or_nothing_scored_exit_non_zero(hub_folder, tmp_path, capsys):
    predictions = _write_jsonl(tmp_path / "preds.jsonl", _test_ids())
    out = tmp_path / "judge.json"
    # the first 8 rows (--limit): each failed sample costs Inspect a rendered traceback
    with FakeChatServer(lambda request, attempt: Reply(status=500)) as server:
        code = main(_args(hub_folder, predictions, server.url, out, "--max-retries", "0",
                          "--limit", "8"))
    assert code == 1 and "8 judge request(s) could not be completed" in capsys.readouterr().err
    result = json.loads(out.read_text())  # still written, every row marked
    assert result["n_request_failed"] == 8 and result["score"] is None
    with FakeChatServer(lambda request, attempt: Reply("no scores at all")) as server:
        code = main(_args(hub_folder, predictions, server.url, out, "--cache", str(tmp_path / "c2"),
                          "--limit", "8"))
    err = capsys.readouterr().err
    assert code == 1 and "no sample was scored" in err and "8 unparsed" in err


def test_dry_run_sends_nothing_and_writes_nothing(hub_folder, tmp_path, capsys):
    predictions = _write_jsonl(tmp_path / "preds.jsonl", _test_ids())
    with FakeChatServer(_scripted) as server:
        assert main(_args(hub_folder, predictions, server.url, tmp_path / "j.json", "--dry-run")) == 0
        assert server.requests == []
    out = capsys.readouterr().out
    assert '"temperature": 0' in out and "dry run: 40 request(s)" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["preds.jsonl"]


# ----------------------------------------------------------------------------- read_predictions


def test_read_predictions_parses_values_in_split_order(tmp_path):
    path = tmp_path / "awards.csv"
    path.write_text("case_id,award\n001-2,0\n001-1,\"1,500.5\"\n\n", encoding="utf-8")
    with pytest.raises(SourceError, match=r"awards.csv, line 3, column 'award': bad value '1,500.5'"):
        read_predictions(path, "case_id", "award", ["001-1", "001-2"], float)
    path.write_text("case_id,award\n001-2,0\n001-1,1500.5\n", encoding="utf-8")
    values = read_predictions(path, "case_id", "award", ["001-1", "001-2"], float)
    assert list(values.items()) == [("001-1", 1500.5), ("001-2", 0.0)]
    jsonl = tmp_path / "ints.jsonl"
    jsonl.write_text('{"id": 7, "y": 1}\n\n{"id": "8", "y": 2}\n', encoding="utf-8")
    assert read_predictions(jsonl, "id", "y", [8, 7], int) == {8: 2, 7: 1}  # ids matched by text


@pytest.mark.parametrize("name, text, message", [
    ("p.jsonl", '{"sample_id": "a", "prediction": "x"}\n{"sample_id": "b", "prediction": \n',
     r"p.jsonl, line 2: invalid JSON"),
    ("p.jsonl", '["a", "x"]\n', r"line 1: expected a JSON object per line, got list"),
    ("p.jsonl", '{"sample_id": "a", "pred": "x"}\n', r"line 1, column 'prediction': field missing"),
    ("p.jsonl", '{"sample_id": null, "prediction": "x"}\n', r"column 'sample_id': invalid sample id None"),
    ("p.jsonl", '{"sample_id": "a", "prediction": 3}\n', r"column 'prediction': bad value 3"),
    ("p.csv", "id,prediction\na,x\n", r"p.csv, line 1: header \['id', 'prediction'\] lacks column\(s\) sample_id"),
    ("p.csv", "sample_id,prediction\na,x,extra\n", r"line 2: row has 3 fields, expected 2"),
    ("p.csv", "sample_id,prediction\na,\"x\"y\n", r"line 2: malformed CSV"),
    ("p.csv", "", r"p.csv, line 1: file is empty"),
    ("p.txt", "a\tx\n", r"unknown predictions format '.txt'"),
])
def test_read_predictions_errors_name_file_line_and_column(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")

    def text_only(value):
        if not isinstance(value, str):
            raise TypeError("expected a string")
        return value

    with pytest.raises(SourceError, match=message):
        read_predictions(path, "sample_id", "prediction", ["a"], text_only)


def test_read_predictions_multiline_csv_values_and_mismatch_listing(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text('sample_id,prediction\na,"line one\nline two"\nb,y\nzz,q\n', encoding="utf-8")
    with pytest.raises(CourtbenchError) as error:
        read_predictions(path, "sample_id", "prediction", ["a", "b", "c"], str)
    assert "'zz' (line 5)" in str(error.value) and "have no prediction: 'c'" in str(error.value)
    path.write_text('sample_id,prediction\na,"line one\nline two"\nb,y\n', encoding="utf-8")
    assert read_predictions(path, "sample_id", "prediction", ["a", "b"], str)["a"] == "line one\nline two"
    with pytest.raises(SourceError, match="file not found"):
        read_predictions(tmp_path / "none.jsonl", "sample_id", "prediction", ["a"], str)


def test_failed_share_above_the_threshold_exits_non_zero_and_is_recorded(hub_folder, tmp_path, capsys):
    predictions = _write_jsonl(tmp_path / "preds.jsonl", _test_ids())
    out = tmp_path / "judge.json"
    with FakeChatServer(_scripted) as server:
        assert main(_args(hub_folder, predictions, server.url, out, "--max-failure-share", "0")) == 1
    assert "13 of 40 sample(s) failed (32.5% > --max-failure-share 0)" in capsys.readouterr().err
    manifest = json.loads((tmp_path / "judge.json.manifest.json").read_text())
    assert manifest["complete"] is False and manifest["summary"]["n_excluded"] == 13


def test_config_rows_are_taken_from_a_multi_pair_file_with_limit_and_decoding(hub_folder, tmp_path,
                                                                              capsys):
    everything = _test_ids("de_fr", 40) + _test_ids("it_it", 3)
    predictions = _write_jsonl(tmp_path / "all.jsonl", everything)
    out = tmp_path / "judge.json"
    with FakeChatServer(lambda request, attempt: Reply(judgement([2] * 5))) as server:
        assert main(_args(hub_folder, predictions, server.url, out, "--config", "it_it",
                          "--limit", "2", "--temperature", "0.3", "--seed", "7",
                          "--max-tokens", "99", "--header", "X-Team: courts")) == 0
        bodies = [r.body for r in server.requests]
        headers = server.requests[0].headers
    assert len(bodies) == 2 and {(b["temperature"], b["seed"], b["max_tokens"]) for b in bodies} \
        == {(0.3, 7, 99)}
    assert headers["x-team"] == "courts"
    result = json.loads(out.read_text())
    assert [s["sample_id"] for s in result["samples"]] == ["test-it_it-0", "test-it_it-1"]
    assert result["run"]["limit"] == 2 and result["parse"] == "strict"


def test_published_parse_mode_is_named_in_the_output(hub_folder, tmp_path, capsys):
    predictions = _write_jsonl(tmp_path / "preds.jsonl", _test_ids("it_it", 3))
    out = tmp_path / "judge.json"
    with FakeChatServer(lambda request, attempt: Reply("ARTICLES_SCORE: 3\nARTICLES_SCORE: 3")) as server:
        assert main(_args(hub_folder, predictions, server.url, out, "--config", "it_it",
                          "--parse", "published")) == 0
    result = json.loads(out.read_text())
    assert result["parse"] == "published" and result["run"]["parse"] == "published"
    # every score line counts, a repeated one too (the published judge sums all matches):
    # 10 * ((3 - 1) + (3 - 1))
    assert result["score"] == 40.0 and result["n_excluded"] == 0
    assert "parse published" in capsys.readouterr().out


def test_config_all_judges_every_pair_in_one_run(hub_folder, tmp_path):
    ids = _test_ids("de_fr", 40) + _test_ids("it_it", 3)
    predictions = _write_jsonl(tmp_path / "all.jsonl", ids)
    out = tmp_path / "judge.json"
    with FakeChatServer(lambda request, attempt: Reply(judgement([2] * 5))) as server:
        args = _args(hub_folder, predictions, server.url, out)
        args[args.index("--config") + 1] = "all"
        assert main(args) == 0
        assert len(server.requests) == 43
    result = json.loads(out.read_text())
    assert sorted(s["sample_id"] for s in result["samples"]) == sorted(ids)
    assert sorted(result["by_language_pair"]) == ["de_fr", "it_it"]
    assert result["macro_score"] == result["score"] == pytest.approx(50.0)
