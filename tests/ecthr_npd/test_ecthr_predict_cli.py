"""``courtbench predict ecthr_npd`` end to end (through Inspect AI's ``openai-api`` provider)
against the loopback scripted chat server: every prompt kind on a synthetic build, no audit
value in any request, the key in no file (the Inspect log decompressed, the cache),
failures and fallbacks, resumption from Inspect's cache, refusal to overwrite, and
``courtbench evaluate`` reading the CSV and the Inspect log."""

from __future__ import annotations

import csv
import hashlib
import json
import re
import zipfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from fake_chat_server import FakeChatServer, Reply

from courtbench.cli import main
from ecthr_npd.build import build_synthetic
from ecthr_npd.data import load_benchmark

pytestmark = pytest.mark.slow
AUDIT_SENTINEL = "AUDITSENTINEL"


def _case_block(body: dict) -> str:
    """The serialised target case in a request's user message."""
    return body["messages"][-1]["content"].split("\nCase:\n", 1)[1].split("\n\n", 1)[0]


def _digest(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)


def scripted_award(body: dict) -> float:
    """The award the scripted model predicts for a request: a function of the case text."""
    applicants = int(re.search(r"Number of applicants: ([\d,]+)", _case_block(body))
                     .group(1).replace(",", ""))
    return 1000.0 * (1 + _digest(_case_block(body)) % 20) * min(applicants, 5)


def answering(body: dict, attempt: int) -> Reply:
    """JSON only for zero_shot; for the CoT prompts a <think> block, a rationale and the JSON;
    every 10th case (by case text) an answer without any award."""
    award = scripted_award(body)
    if _digest(_case_block(body)) % 10 == 0:
        return Reply("I cannot determine the award from this information.")
    if "Think step by step" not in body["messages"][-1]["content"]:
        return Reply(json.dumps({"award_eur": award}))
    return Reply(f"<think>weighing the factors</think>The violations are serious.\n\n"
                 f'{{"award_eur": {award}}}')


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A synthetic build of 150 cases whose audit-side configs hold sentinel strings."""
    out = tmp_path_factory.mktemp("ecthr_predict") / "built"
    build_synthetic(out, n=150, seed=1)
    planted = 0
    for path in sorted((out / "data").glob("*/*.parquet")):
        if path.parent.name not in ("audit", "applicants"):
            continue
        table = pq.read_table(path)
        for index, field in enumerate(table.schema):
            if field.name == "case_id":
                continue
            if pa.types.is_string(field.type):
                values = [f"{AUDIT_SENTINEL}-{field.name}-{i}" for i in range(table.num_rows)]
            elif pa.types.is_list(field.type) and pa.types.is_string(field.type.value_type):
                values = [[f"{AUDIT_SENTINEL}-{field.name}-{i}"] for i in range(table.num_rows)]
            else:
                continue
            table = table.set_column(index, field, pa.array(values, field.type))
            planted += 1
        pq.write_table(table, path)
    assert planted >= 1
    return out


def _run(folder: Path, server: FakeChatServer, out: Path, *extra: str) -> int:
    return main(["predict", "ecthr_npd", "--data", str(folder), "--out", str(out),
                 "--base-url", server.url, "--model", "scripted-model", "--api-key-env",
                 "COURTBENCH_TEST_KEY", "--max-retries", "0", *extra])


def written_bytes(folder: Path):
    """Every file below ``folder`` (Inspect logs decompressed, member by member)."""
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix == ".eval":
            with zipfile.ZipFile(path) as archive:
                for name in archive.namelist():
                    yield f"{path}:{name}", archive.read(name)
        elif path.is_file():
            yield str(path), path.read_bytes()


def _rows(path: Path) -> dict[str, float]:
    with open(path, newline="", encoding="utf-8") as handle:
        return {row["case_id"]: float(row["prediction"]) for row in csv.DictReader(handle)}


@pytest.fixture(autouse=True)
def _api_key(monkeypatch):
    monkeypatch.setenv("COURTBENCH_TEST_KEY", "sk-test-not-a-secret")


@pytest.mark.parametrize("kind", ["zero_shot", "cot", "few_shot"])
def test_each_prompt_kind_predicts_then_evaluates(folder, tmp_path, kind, capsys):
    data = load_benchmark(folder)
    held_out = data.ids("validation") + data.ids("test")
    out = tmp_path / "preds" / f"llm_{kind}.csv"
    with FakeChatServer(answering) as server:
        # some answers are unparsable on purpose: allowed here by the failure share
        assert _run(folder, server, out, "--prompt", kind, "--max-failure-share", "0.5") == 0
    bodies = [request.body for request in server.requests]
    assert len(bodies) == len(held_out)
    text = json.dumps(bodies)
    assert AUDIT_SENTINEL not in text and "sk-test-not-a-secret" not in text
    assert {b["temperature"] for b in bodies} == {0.0} and {b["seed"] for b in bodies} == {42}
    assert {b["max_tokens"] for b in bodies} == {4096}
    by_case = {_case_block(b): b for b in bodies}

    rows = _rows(out)
    assert list(rows) == held_out
    manifest = json.loads(out.with_name(f"llm_{kind}.csv.manifest.json").read_text())
    failed = {f["case_id"] for f in manifest["failures"]}
    assert manifest["llm_run"]["fallback_share"] == len(failed) / len(held_out)
    assert manifest["llm_run"]["complete"] is manifest["complete"] is True
    assert failed and all(f["failure"] == "answer_failed" for f in manifest["failures"])
    responses = [json.loads(line) for line in
                 out.with_name(f"llm_{kind}.responses.jsonl").read_text().splitlines()]
    assert [r["case_id"] for r in responses] == held_out
    for record in responses:
        if record["case_id"] in failed:
            assert record["prediction_source"] == "fallback_train_median"
            assert rows[record["case_id"]] == manifest["fallback"]["train_median_eur"]
        else:
            assert record["prediction_source"] == "model"
            assert record["parse_method"] == "json"
            if kind != "zero_shot":
                assert record["reasoning"] == "weighing the factors"
                assert record["rationale"] == "The violations are serious."
    assert manifest["fallback"]["train_median_eur"] == float(np.median(data.target("train")))
    # the predictions are the scripted model's awards, case by case
    model_awards = sorted(r for c, r in rows.items() if c not in failed)
    assert model_awards == sorted(scripted_award(b) for block, b in by_case.items()
                                  if _digest(block) % 10)
    counts = manifest["counts"]
    assert counts["cases"] == counts["written"] == len(held_out)
    assert counts["answer_failed"] == counts["filled"] == len(failed)
    assert counts["parsed"] + len(failed) == len(held_out) and counts["request_failed"] == 0
    assert manifest["prompt"]["kind"] == kind and manifest["complete"] is True
    assert manifest["endpoint_host"] == server.url.removesuffix("/v1")
    assert manifest["model"] == "scripted-model"
    assert (out.with_name(f"llm_{kind}.inspect") / "cache" / "generate").is_dir()  # the default
    logs = list((out.with_name(f"llm_{kind}.inspect") / "logs").glob("*.eval"))
    assert [p.name for p in logs] == [manifest["llm_run"]["inspect_log"]]
    assert manifest["parameters"] == {"temperature": 0.0, "seed": 42, "max_tokens": 4096}
    assert "failed cases" in capsys.readouterr().out
    files = dict(written_bytes(out.parent))  # the API key is written nowhere
    assert len(files) > 5 and not [f for f, data in files.items() if b"sk-test-not-a-secret" in data]
    if kind == "few_shot":
        assert manifest["prompt"]["k"] == 5
        assert sum("Reference 1:" in b["messages"][-1]["content"] for b in bodies) > 0
        assert all(len(r["references"]) <= 5 for r in responses)
    else:
        assert all(r["references"] == [] for r in responses)

    if kind != "few_shot":  # one end-to-end evaluation is enough
        return
    # the Inspect log is a predictions file too: the same predictions, the same report rows
    log = tmp_path / "preds" / "inspect_log.eval"
    log.write_bytes(logs[0].read_bytes())
    report = tmp_path / "report"
    assert main(["evaluate", "ecthr_npd", "--data", str(folder), "--predictions", str(out),
                 str(log), "--splits", "validation,test", "--out", str(report),
                 "--no-figures", "--resamples", "50"]) == 0
    rows_by_system = {row[0]: row[1:15] for row in json.loads(
        (report / "report.json").read_text())["tables"]["main"]["rows"]}
    assert rows_by_system[f"llm_{kind}"] == rows_by_system["inspect_log"]


def test_failures_fallback_none_resume_and_determinism(folder, tmp_path, capsys):
    data = load_benchmark(folder)
    held_out = data.ids("validation") + data.ids("test")
    broken = {"state": True}

    def flaky(body: dict, attempt: int) -> Reply:
        if broken["state"] and _digest(_case_block(body)) % 7 == 0:
            return Reply(status=500)
        return Reply(json.dumps({"award_eur": scripted_award(body)}))

    out, cache = tmp_path / "llm.csv", tmp_path / "cache"
    server = FakeChatServer(flaky).__enter__()  # one server: Inspect's cache key holds the URL
    try:
        _failures_then_resume(folder, server, out, cache, held_out, broken, capsys)
    finally:
        server.__exit__(None, None, None)


def _failures_then_resume(folder, server, out, cache, held_out, broken, capsys):
    tmp_path = out.parent
    assert _run(folder, server, out, "--prompt", "zero_shot", "--fallback", "none",
                "--cache", str(cache)) == 1
    first_sent = len(server.requests)
    manifest = json.loads(out.with_name("llm.csv.manifest.json").read_text())
    failed = [f["case_id"] for f in manifest["failures"]]
    assert failed and {f["failure"] for f in manifest["failures"]} == {"request_failed"}
    assert manifest["complete"] is False and manifest["counts"]["filled"] == 0
    rows = _rows(out)
    assert set(rows) == set(held_out) - set(failed)  # incomplete, nothing made up
    assert first_sent == len(held_out)
    assert "incomplete" in capsys.readouterr().err
    # evaluate refuses the incomplete file and names the missing cases
    assert main(["evaluate", "ecthr_npd", "--data", str(folder), "--predictions", str(out),
                 "--splits", "validation,test", "--out", str(tmp_path / "r"),
                 "--no-figures"]) == 1
    assert failed[0] in capsys.readouterr().err

    # resumed from the cache: only the failed cases are sent again
    broken["state"] = False
    before = len(server.requests)
    assert _run(folder, server, out, "--prompt", "zero_shot", "--fallback", "none",
                "--cache", str(cache)) == 0
    assert len(server.requests) - before == len(failed)
    complete = out.read_bytes()
    responses = out.with_name("llm.responses.jsonl").read_bytes()
    assert list(_rows(out)) == held_out
    # a rerun sends nothing and writes byte-identical predictions and responses
    before = len(server.requests)
    assert _run(folder, server, out, "--prompt", "zero_shot", "--cache", str(cache)) == 0
    assert len(server.requests) == before
    assert out.read_bytes() == complete
    assert out.with_name("llm.responses.jsonl").read_bytes() == responses
    manifest = json.loads(out.with_name("llm.csv.manifest.json").read_text())
    assert manifest["counts"]["cached"] == len(held_out) and manifest["counts"]["sent"] == 0


def test_refuses_to_overwrite_a_foreign_file_and_dry_run_sends_nothing(folder, tmp_path,
                                                                          capsys):
    foreign = tmp_path / "mine.csv"
    foreign.write_text("precious\n")
    with FakeChatServer(answering) as server:
        assert _run(folder, server, foreign, "--prompt", "cot") == 1
        assert "exists and was not written by a courtbench" in capsys.readouterr().err
        assert foreign.read_text() == "precious\n"
        out = tmp_path / "dry.csv"
        assert _run(folder, server, out, "--prompt", "few_shot", "--dry-run") == 0
        assert server.requests == []
    assert not out.exists() and not out.with_name("dry.inspect").exists()
    printed = capsys.readouterr().out
    assert '"role": "user"' in printed and "Think step by step" in printed
    assert re.search(r"dry run: \d+ sample\(s\), model openai-api/courtbench/scripted-model; "
                     r"nothing sent", printed)


@pytest.mark.parametrize("arguments, message", [
    (["--prompt", "cot", "--splits", "train"], "--splits 'train'"),
    (["--prompt", "cot", "--cache", "notes.txt"], "--cache notes.txt: is a file; expected a folder"),
    (["--prompt", "cot", "--extra-body", '{"model": "other", "messages": []}'],
     "messages, model is set by courtbench"),
])
def test_bad_arguments_are_one_line_errors(folder, tmp_path, capsys, arguments, message,
                                           monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("my notes\n")
    with FakeChatServer(answering) as server:
        assert _run(folder, server, tmp_path / "x.csv", *arguments) == 1
        assert server.requests == []
    error = capsys.readouterr().err.strip()
    assert message in error and "Traceback" not in error and len(error.splitlines()) == 1


@pytest.mark.parametrize("arguments, message", [
    (["--temperature", "nan"], "argument --temperature: expected a finite temperature (>= 0 "
                               "and <= 100), got 'nan'"),
    (["--header", "no colon"], "argument --header: expected 'Name: value'"),
    (["--header", "Authorization: Bearer x"], "give the key in the variable named by --api-key-env"),
    (["--max-failure-share", "2"], "argument --max-failure-share: expected a share"),
    (["--limit", "0"], "argument --limit: expected a number of samples in [1, 10,000,000]"),
    (["--k", "0"], "argument --k: expected a number of references in [1, 100], got '0'"),
    (["--max-tokens", "0"], "argument --max-tokens: expected a length in [1, 10,000,000]"),
])
def test_option_values_are_refused_by_the_parser_in_one_line(folder, tmp_path, capsys,
                                                             arguments, message):
    with FakeChatServer(answering) as server, pytest.raises(SystemExit) as exit_info:
        _run(folder, server, tmp_path / "x.csv", "--prompt", "cot", *arguments)
    assert exit_info.value.code == 2 and server.requests == []
    error = capsys.readouterr().err
    assert message in error.splitlines()[-1] and "Traceback" not in error
