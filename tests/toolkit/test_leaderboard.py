"""Leaderboard: verified submissions (courtbench submit), the results folder (leaderboard init
and check), runner manifests, Hub time bounds, publish checks.

The record check itself is tested in ``test_leaderboard_records.py``, the page in
``test_leaderboard_space.py``.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import datasets
import huggingface_hub
import pytest
from hub_fakes import commit_info
from leaderboard_records import page_records, write_changed_predictions
from slds_fixtures import write_slds_folder

from courtbench.boundary import BoundaryError
from courtbench.cli import main
from courtbench.errors import CourtbenchError
from courtbench.hub import read_card_metadata
from courtbench.hub.offline import hub_offline
from courtbench.leaderboard import results_schema
from courtbench.leaderboard.folders import read_results_folder, results_card
from courtbench.leaderboard.hub import open_pull_request
from courtbench.leaderboard.records import model_size_from_name, verified_records
from courtbench.output_files import write_output_file
from courtbench.publish import detect_kind
from courtbench.publish.plan import make_plan
from slds.data import read_split

ECTHR_BASELINES = ("train_median", "zero", "train_mean")



@pytest.fixture(scope="module")
def ecthr_report(tmp_path_factory) -> Path:
    """A synthetic ECtHR-NPD build, three baselines, a user's system ``mymodel`` and their
    evaluation report."""
    root = tmp_path_factory.mktemp("ecthr")
    assert main(["build", "ecthr_npd", "--synthetic", "--n", "400", "--out",
                 str(root / "data")]) == 0
    assert main(["baselines", "ecthr_npd", "--data", str(root / "data"), "--out",
                 str(root / "preds"), "--systems", ",".join(ECTHR_BASELINES)]) == 0
    write_changed_predictions(root / "preds" / "train_mean.csv", root / "preds" / "mymodel.csv",
                       lambda v: round(v * 0.8 + 150.0, 2))
    assert main(["evaluate", "ecthr_npd", "--data", str(root / "data"), "--predictions",
                 *[str(root / "preds" / f"{s}.csv") for s in (*ECTHR_BASELINES, "mymodel")],
                 "--out", str(root / "report"), "--no-figures"]) == 0
    return root


@pytest.fixture(scope="module")
def slds_report(tmp_path_factory) -> Path:
    """A tiny SLDS folder, the lead baseline and one 'model', and their report."""
    root = tmp_path_factory.mktemp("slds")
    decisions = [(f"Sachverhalt {i}. Das Gericht prüft Art. {i} BV und entscheidet E. {i}.", "de")
                 for i in range(6)]
    data = write_slds_folder(root, decisions, {"de": "Art. 1 BV: Regeste.",
                                                "fr": "Art. 1 Cst.: résumé."})
    rows = read_split(data, "test", columns=("decision",))
    for system, make in (("lead", lambda d: d[:40]),
                         ("mymodel", lambda d: "Art. 1 BV: Regeste zu " + d[:20])):
        with open(root / f"{system}.jsonl", "w", encoding="utf-8") as handle:
            for sample_id, decision in zip(rows["sample_id"], rows["decision"], strict=True):
                handle.write(json.dumps({"sample_id": sample_id, "prediction": make(decision)})
                             + "\n")
    assert main(["evaluate", "slds", "--data", str(data), "--predictions",
                 str(root / "lead.jsonl"), str(root / "mymodel.jsonl"), "--out",
                 str(root / "report")]) == 0
    return root


@pytest.fixture(scope="module")
def results(ecthr_report, slds_report, tmp_path_factory) -> Path:
    """The results folder ``leaderboard init`` writes from both reports."""
    out = tmp_path_factory.mktemp("results-parent") / "results"
    assert main(["leaderboard", "init", str(out), "--reference-report",
                 str(ecthr_report / "report"), "--reference-report",
                 str(slds_report / "report")]) == 0
    return out


def _copy(source: Path, tmp_path: Path) -> Path:
    """A copy of a fixture folder whose report names the copied files."""
    target = tmp_path / source.name
    shutil.copytree(source, target)
    report_path = target / "report" / "report.json"
    text = report_path.read_text(encoding="utf-8").replace(str(source.resolve()),
                                                           str(target.resolve()))
    report_path.write_text(text, encoding="utf-8")
    return target


def _rerun(root: Path) -> dict:
    return json.loads((root / "report" / "report.json").read_text())["provenance"]["rerun"]


def _accepted(root: Path, kind: str = "synthetic") -> dict:
    rerun = _rerun(root)
    return {rerun["dataset"]: {rerun["data_fingerprint"]: kind}}


class RecordingApi:
    """Stands in for HfApi: records create_commit calls."""

    def __init__(self):
        self.calls = []

    def create_commit(self, repo_id, operations, **kwargs):
        self.calls.append((repo_id, operations, kwargs))
        return commit_info(f"https://huggingface.co/datasets/{repo_id}",
                           kwargs["commit_message"], pull_request=1)


# ------------------------------------------------------------ init: reference rows and gold

def test_init_writes_reference_rows_gold_and_pins_and_says_what_it_left_out(
        ecthr_report, results, capsys, tmp_path):
    records = read_results_folder(results)
    assert sorted((r["benchmark"], r["system"]) for r in records) == sorted(
        [("ecthr_npd", s) for s in ECTHR_BASELINES] + [("slds", "lead")])
    assert all(r["reference"] and r["family"] == "baseline" for r in records)
    card = read_card_metadata(results)
    rerun = _rerun(ecthr_report)
    assert card[results_schema.ACCEPTED_KEY]["ecthr_npd"] == {rerun["data_fingerprint"]:
                                                               "synthetic"}
    gold = results / "gold" / "ecthr_npd" / f"{rerun['data_fingerprint']}.json"
    assert card[results_schema.GOLD_KEY]["ecthr_npd"][rerun["data_fingerprint"]] == \
        __import__("hashlib").sha256(gold.read_bytes()).hexdigest()
    assert set(card[results_schema.REFERENCES_KEY]["ecthr_npd"]) == set(ECTHR_BASELINES)
    zero = next(r for r in records if r["system"] == "zero")
    report = json.loads((ecthr_report / "report" / "report.json").read_text())
    assert results_schema.primary_metric(zero)["value"] == pytest.approx(
        report["scores"]["zero"]["test"]["mae"], rel=1e-12)
    assert len(zero["predicted_values"]) == len(zero["per_item"]) == \
        report["provenance"]["data"]["rows"]["test"]
    assert {b["row"] for b in zero["breakdowns"]} == {"ID", "OOD", "Challenging", "test"}
    out = tmp_path / "again"
    assert main(["leaderboard", "init", str(out), "--reference-report",
                 str(ecthr_report / "report")]) == 0
    printed = capsys.readouterr().out
    assert "left out of" in printed and "mymodel: not a reference baseline" in printed


def test_results_folder_loads_as_one_table_and_publishes_with_its_gold(results):
    records = read_results_folder(results)
    with hub_offline():
        table = datasets.load_dataset(str(results), split="train")
    assert table.num_rows == len(records)
    assert set(table.column_names) == set(results_schema.FIELDS)
    assert detect_kind(results) == "results"
    plan = make_plan(results, "org/courtbench-results")
    paths = sorted(entry.path for entry in plan.files)
    assert "README.md" in paths and all(results_schema.record_path(r) in paths for r in records)
    assert sum(p.startswith("gold/") for p in paths) == 2


def test_leaderboard_check_recomputes_and_refuses_an_edited_record(results, tmp_path, capsys):
    folder = tmp_path / "results"
    shutil.copytree(results, folder)
    assert main(["leaderboard", "check", str(folder)]) == 0
    assert "every number recomputed" in capsys.readouterr().out
    path = folder / "results" / "ecthr_npd" / "zero.json"
    record = json.loads(path.read_text())
    record["metrics"][1]["value"] = 1e20  # RMSE
    path.write_text(results_schema.dumps_record(record))
    assert main(["leaderboard", "check", str(folder)]) == 1
    err = capsys.readouterr().err
    assert "zero.json: metrics ('RMSE').value: the record says 1e+20, recomputed" in err
    assert len(err.strip().splitlines()) == 1


# ------------------------------------------------------------------------------ submit

def test_submitted_records_recompute_and_are_never_reference_rows(ecthr_report, results):
    [record] = verified_records(ecthr_report / "report", systems=["mymodel"],
                                accepted=_accepted(ecthr_report),
                                references=read_card_metadata(results)[
                                    results_schema.REFERENCES_KEY])
    assert not record["reference"] and record["leaderboard_table"] == "main"
    assert [t["against"] for t in record["paired_tests"]] == ["train_median"]
    report = json.loads((ecthr_report / "report" / "report.json").read_text())
    test = next(row for row in report["bootstrap"]
                if row["system"] == "mymodel" and row["against"] == "train_median")
    assert record["paired_tests"][0]["delta"] == pytest.approx(test["delta"], rel=1e-9)
    assert record["paired_tests"][0]["p_better"] == test["prob_1_better"]
    folder = results.parent / "with-submission"
    shutil.copytree(results, folder, dirs_exist_ok=True)
    (folder / results_schema.record_path(record)).write_text(results_schema.dumps_record(record))
    assert {r["system"] for r in read_results_folder(folder)} >= {"mymodel", "zero"}


def test_a_system_named_like_a_reference_baseline_is_refused(ecthr_report, tmp_path):
    """A user's predictions under a reference's name, in another case (the exact name and
    others are covered by select_systems in test_leaderboard_records.py)."""
    system = "ZERO"
    root = _copy(ecthr_report, tmp_path)
    source = root / "preds" / "mymodel.csv"  # a user's predictions under a reference's name
    (root / "preds" / "zero.csv").unlink()
    shutil.move(source, root / "preds" / f"{system}.csv")
    shutil.rmtree(root / "report")
    assert main(["evaluate", "ecthr_npd", "--data", str(root / "data"), "--predictions",
                 *[str(root / "preds" / f"{s}.csv") for s in ("train_median", "train_mean",
                                                              system)],
                 "--out", str(root / "report"), "--no-figures"]) == 0
    with pytest.raises(CourtbenchError, match="the name of a reference baseline"):
        verified_records(root / "report", systems=[system], accepted=_accepted(root))
    with pytest.raises(CourtbenchError, match=f"no system to turn into records.*{system}: a "
                                              "reference baseline"):
        verified_records(root / "report", accepted=_accepted(root), unofficial=True)


def test_submit_dry_run_prints_a_summary_and_writes_the_plan(ecthr_report, results, capsys,
                                                            monkeypatch, tmp_path):
    def refuse(*args, **kwargs):
        raise AssertionError("dry run must not contact the Hub")

    monkeypatch.setattr("courtbench.leaderboard.hub.HfApi", refuse)
    plan = tmp_path / "plan.json"
    assert main(["submit", str(ecthr_report / "report"), "--repo-id", "org/res",
                 "--results-folder", str(results), "--dry-run", "--plan-out", str(plan)]) == 0
    out = capsys.readouterr().out
    assert "would open a pull request on dataset org/res" in out
    assert "results/ecthr_npd/mymodel.json  main  MAE" in out
    assert "left out: zero (a reference baseline" in out
    assert f"full plan (pull request text and every record): {plan}" in out
    assert len(out) < 3000
    document = json.loads(plan.read_text())
    [entry] = document["files"]
    assert entry["path"] == "results/ecthr_npd/mymodel.json"
    assert results_schema.validate_result(entry["record"]) == []
    assert main(["submit", str(ecthr_report / "report"), "--repo-id", "org/res",
                 "--results-folder", str(results), "--dry-run", "--plan-out", str(plan)]) == 0
    plan.write_text("mine")  # a file courtbench did not write is never overwritten
    assert main(["submit", str(ecthr_report / "report"), "--repo-id", "org/res",
                 "--results-folder", str(results), "--dry-run", "--plan-out", str(plan)]) == 1
    assert "was changed since courtbench wrote it" in capsys.readouterr().err


def test_submit_opens_exactly_one_pull_request_with_one_file_per_system(ecthr_report):
    records = verified_records(ecthr_report / "report", systems=["mymodel"])
    api = RecordingApi()
    url = open_pull_request(records, "org/courtbench-results", api=api)
    assert url.endswith("/discussions/1")
    [(repo_id, operations, kwargs)] = api.calls
    assert repo_id == "org/courtbench-results"
    assert kwargs["create_pr"] is True and kwargs["repo_type"] == "dataset"
    [operation] = operations
    assert operation.path_in_repo == "results/ecthr_npd/mymodel.json"
    assert results_schema.validate_result(json.loads(operation.path_or_fileobj)) == []


@pytest.mark.parametrize("arguments, message", [
    (["nope/report"], "REPORT_DIR nope/report: no such folder"),
    (["REPORT", "--repo-id", "../../x"], "--repo-id '../../x': expected ORG/NAME"),
    (["REPORT", "--repo-id", "org/..x"], "is not a valid Hub repo id"),
])
def test_submit_refuses_a_missing_report_and_a_bad_repo_id_at_once(ecthr_report, capsys,
                                                                  arguments, message):
    arguments = [str(ecthr_report / "report") if a == "REPORT" else a for a in arguments]
    if "--repo-id" not in arguments:
        arguments += ["--repo-id", "org/res"]
    started = time.monotonic()
    assert main(["submit", *arguments, "--dry-run"]) == 1
    assert time.monotonic() - started < 5
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_tampered_predictions_are_refused(ecthr_report, tmp_path):
    root = _copy(ecthr_report, tmp_path)
    path = root / "preds" / "mymodel.csv"
    rows = list(csv.reader(path.open(encoding="utf-8")))
    rows[1][1] = "12345"
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)
    with pytest.raises(CourtbenchError, match="predictions of system 'mymodel' differ"):
        verified_records(root / "report")


def test_changed_dataset_fingerprint_is_refused(ecthr_report, tmp_path):
    root = _copy(ecthr_report, tmp_path)
    with (root / "data" / "README.md").open("a", encoding="utf-8") as handle:
        handle.write("\nedited\n")
    with pytest.raises(CourtbenchError, match="data fingerprint differs"):
        verified_records(root / "report")


def test_edited_numbers_are_refused_naming_the_cell(ecthr_report, tmp_path):
    root = _copy(ecthr_report, tmp_path)
    report_path = root / "report" / "report.json"
    report = json.loads(report_path.read_text())
    main_table = report["tables"]["main"]
    row = next(r for r in main_table["rows"] if r[0] == "mymodel")
    row[2] = row[2] - 1000.0
    report_path.write_text(json.dumps(report))
    column = main_table["columns"][2]
    with pytest.raises(CourtbenchError, match=f"table 'main', row 'mymodel', column '{column}'"):
        verified_records(root / "report")


def test_changed_metric_settings_and_unknown_systems_are_refused(ecthr_report, tmp_path):
    with pytest.raises(CourtbenchError, match="--systems nope: not in the report"):
        verified_records(ecthr_report / "report", systems=["nope"])
    root = _copy(ecthr_report, tmp_path)
    report_path = root / "report" / "report.json"
    report = json.loads(report_path.read_text())
    report["provenance"]["rerun"]["options"]["top_articles"] = 3
    report_path.write_text(json.dumps(report))
    with pytest.raises(CourtbenchError, match="metric signature differs"):
        verified_records(root / "report")
    (tmp_path / "report.json").write_text(json.dumps({"provenance": {}}))
    with pytest.raises(CourtbenchError, match="no provenance.rerun block"):
        verified_records(tmp_path)


def test_data_the_results_dataset_does_not_accept_is_refused_even_unofficially(ecthr_report,
                                                                              tmp_path):
    with pytest.raises(CourtbenchError, match="is not among the accepted ecthr_npd data"):
        verified_records(ecthr_report / "report", systems=["mymodel"],
                         accepted={"ecthr_npd": {}}, unofficial=True)
    with pytest.raises(CourtbenchError, match="card says 'synthetic'.*as 'real' data"):
        verified_records(ecthr_report / "report", systems=["mymodel"],
                         accepted=_accepted(ecthr_report, "real"))


@pytest.mark.parametrize("options, named", [
    (("--zero-threshold", "1000000"), "--zero-threshold 1000000.0: the protocol uses 0.5"),
    (("--resamples", "2"), "--resamples 2: the protocol needs at least 1,000"),
])
def test_scores_off_the_protocol_go_to_the_unofficial_table_and_still_recompute(
        ecthr_report, tmp_path, options, named):
    report = tmp_path / "report"
    assert main(["evaluate", "ecthr_npd", "--data", str(ecthr_report / "data"), "--predictions",
                 *[str(ecthr_report / "preds" / f"{s}.csv") for s in ("train_median", "mymodel")],
                 "--out", str(report), "--no-figures", *options]) == 0
    with pytest.raises(CourtbenchError, match=re.escape(named)):
        verified_records(report, systems=["mymodel"], accepted=_accepted(ecthr_report))
    [record] = verified_records(report, systems=["mymodel"], accepted=_accepted(ecthr_report),
                                unofficial=True)
    assert record["leaderboard_table"] == "unofficial" and named in record["unofficial_reason"]
    assert json.loads(record["options_json"])["resamples"] == record["resamples"]


def test_slds_submission_recomputes_and_a_validation_report_is_refused(slds_report, tmp_path):
    [record] = verified_records(slds_report / "report")
    assert record["system"] == "mymodel" and not record["reference"]
    assert results_schema.primary_metric(record)["name"] == "ROUGE-L F1"
    grid = [b for b in record["breakdowns"] if b["table"] == "ROUGE-L F1"]
    assert len(grid) == 9 and {b["column"] for b in grid} == {"de", "fr", "it"}
    assert [t["against"] for t in record["paired_tests"]] == ["lead"]
    assert len(record["per_item"]) == 12 and len(record["predicted_texts"]) == 12
    root = tmp_path / "slds_val"
    root.mkdir()
    decisions = [(f"Sachverhalt {i}. Das Gericht prüft Art. {i} BV.", "de") for i in range(4)]
    data = write_slds_folder(root, decisions, {"de": "Art. 1 BV: Regeste."}, split="validation")
    rows = read_split(data, "validation", columns=("decision",))
    with open(root / "mine.jsonl", "w", encoding="utf-8") as handle:
        for sample_id, decision in zip(rows["sample_id"], rows["decision"], strict=True):
            handle.write(json.dumps({"sample_id": sample_id, "prediction": decision[:30]}) + "\n")
    assert main(["evaluate", "slds", "--data", str(data), "--predictions",
                 str(root / "mine.jsonl"), "--out", str(root / "report"), "--splits",
                 "validation", "--rouge-tokenizer", "rouge_score"]) == 0
    with pytest.raises(CourtbenchError, match="--splits validation: the protocol uses"):
        verified_records(root / "report")
    with pytest.raises(CourtbenchError, match="recomputes records against gold values of the "
                                              "data, and this data has none: split 'test'"):
        verified_records(root / "report", unofficial=True)


def test_model_size_is_read_from_common_model_names():
    assert model_size_from_name("Qwen2.5-7B-Instruct") == 7.0
    assert model_size_from_name("meta-llama/Llama-3.1-70b") == 70.0
    assert model_size_from_name("gpt-4o") is None


def test_a_report_naming_the_root_as_its_data_is_refused_without_hashing(ecthr_report, tmp_path,
                                                                        monkeypatch):
    root = _copy(ecthr_report, tmp_path)
    path = root / "report" / "report.json"
    report = json.loads(path.read_text())
    report["provenance"]["rerun"]["data"] = "/"
    path.write_text(json.dumps(report))

    def no_hashing(*args, **kwargs):
        raise AssertionError("the data folder must not be hashed")

    monkeypatch.setattr("courtbench.leaderboard.records.list_files", no_hashing)
    with pytest.raises(CourtbenchError, match="the report's data folder: --data /"):
        verified_records(root / "report")


@pytest.mark.parametrize("change, message", [
    (lambda p: p.update(rerun=[1, 2]), "provenance.rerun is a list"),
    (lambda p: p["rerun"].pop("options"), "provenance.rerun has no 'options'"),
    (lambda p: p["rerun"]["options"].update(splits="test"),
     "provenance.rerun.options.splits = 'test'; expected a list of texts"),
    (lambda p: p["rerun"]["predictions"].update(zero="x.csv"), r"predictions\['zero'\]"),
])
def test_a_malformed_rerun_block_is_one_clear_line(ecthr_report, results, tmp_path, capsys,
                                                    change, message):
    root = _copy(ecthr_report, tmp_path)
    path = root / "report" / "report.json"
    report = json.loads(path.read_text())
    change(report["provenance"])
    path.write_text(json.dumps(report))
    assert main(["submit", str(root / "report"), "--repo-id", "org/res", "--results-folder",
                 str(results), "--dry-run"]) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and re.search(message, err), err


# ------------------------------------------------------------------------ runner manifests

def _run_folder(ecthr_report: Path, tmp_path: Path, manifest: dict) -> Path:
    """A copy of the ECtHR fixture whose ``mymodel`` predictions come from a runner with
    ``manifest`` beside them, and its report."""
    root = _copy(ecthr_report, tmp_path)
    runs = root / "runs"
    runs.mkdir()
    data = (root / "preds" / "mymodel.csv").read_bytes()
    write_output_file(runs / "mymodel.csv", data, manifest, kind="ecthr_npd-predictions")
    shutil.rmtree(root / "report")
    assert main(["evaluate", "ecthr_npd", "--data", str(root / "data"), "--predictions",
                 str(root / "preds" / "train_median.csv"), str(runs / "mymodel.csv"),
                 "--out", str(root / "report"), "--no-figures"]) == 0
    return root


def test_an_incomplete_fallback_filled_run_is_no_official_record(ecthr_report, tmp_path):
    manifest = {"model": "org/model-7B", "complete": True,  # the agent's old claim
                "counts": {"cases": 80, "request_failed": 0, "filled": 80, "written": 80},
                "parameters": {"temperature": 0}}
    root = _run_folder(ecthr_report, tmp_path, manifest)
    report = json.loads((root / "report" / "report.json").read_text())
    assert report["provenance"]["fallback_share"]["mymodel"] == 1.0  # not "0.00 %"
    assert "high fallback / failure share" in (root / "report" / "report.md").read_text()
    with pytest.raises(CourtbenchError, match="100.0% of its cases hold the fallback's "
                                              "prediction"):
        verified_records(root / "report", systems=["mymodel"], accepted=_accepted(root))
    [record] = verified_records(root / "report", systems=["mymodel"], accepted=_accepted(root),
                                unofficial=True)
    assert record["leaderboard_table"] == "unofficial" and record["fallback_share"] == 1.0
    assert record["model_name"] == "org/model-7B" and record["model_size_b"] == 7.0
    manifest = {**manifest, "complete": False, "counts": {**manifest["counts"], "filled": 0}}
    root = _run_folder(ecthr_report, tmp_path / "incomplete", manifest)
    assert "incomplete run(s)" in (root / "report" / "report.md").read_text()
    with pytest.raises(CourtbenchError, match="its run is incomplete"):
        verified_records(root / "report", systems=["mymodel"], accepted=_accepted(root))


@pytest.mark.parametrize("manifest, field", [
    ({"counts": {"cases": 80, "filled": -1}}, "counts.filled"),
    ({"llm_run": {"failure_share": 1.5}}, "llm_run.failure_share"),
    ({"complete": "yes"}, "field complete"),
    ({"counts": {"cases": 2**64}}, "counts.cases"),
])
def test_a_manifest_out_of_range_is_refused_in_one_line(ecthr_report, tmp_path, capsys,
                                                        manifest, field):
    root = ecthr_report
    out = tmp_path / "preds2" / "mymodel.csv"
    out.parent.mkdir()
    write_output_file(out, (root / "preds" / "mymodel.csv").read_bytes(), manifest,
                      kind="ecthr_npd-predictions")
    with pytest.raises(BoundaryError, match=re.escape(field)):
        from courtbench.output_files import read_manifest

        read_manifest(out)
    if field == "counts.filled":  # through the command: one line, no report
        assert main(["evaluate", "ecthr_npd", "--data", str(root / "data"), "--predictions",
                     str(out), "--out", str(tmp_path / "r"), "--no-figures"]) == 1
        err = capsys.readouterr().err
        assert field in err and len(err.strip().splitlines()) == 1
        assert not (tmp_path / "r").exists()


# ------------------------------------------------------------------------- Hub time bounds



def test_submit_against_a_hub_that_never_answers_fails_within_seconds(ecthr_report, silent_hub):
    env = {**os.environ, "HF_ENDPOINT": silent_hub, "COURTBENCH_HUB_TIMEOUT": "2",
           "HF_TOKEN": "hf_test"}
    env.pop("HF_HUB_OFFLINE", None)
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "courtbench", "submit",
                           str(ecthr_report / "report"), "--repo-id", "org/res", "--dry-run"],
                          capture_output=True, text=True, env=env, timeout=120)
    elapsed = time.monotonic() - started
    assert done.returncode == 1 and elapsed < 45, (elapsed, done.stderr)
    assert "could not reach the Hub" in done.stderr and "Traceback" not in done.stderr


def test_a_pull_request_to_a_hub_that_never_answers_fails_within_seconds(silent_hub,
                                                                          monkeypatch):
    monkeypatch.setenv("COURTBENCH_HUB_TIMEOUT", "1")
    records = [page_records()["big_llm"]]
    api = huggingface_hub.HfApi(endpoint=silent_hub, token="hf_test")
    started = time.monotonic()
    with pytest.raises(CourtbenchError, match="org/res: (could not reach the Hub|opening the "
                                              "pull request: the Hub gave no complete answer)"):
        open_pull_request(records, "org/res", api=api, seconds=10)
    assert time.monotonic() - started < 20


# ------------------------------------------------------------------------ the Space folder

def test_leaderboard_space_folder_carries_the_verifiers_and_passes_its_publish_checks(tmp_path):
    out = tmp_path / "space"
    assert main(["leaderboard", "space", str(out), "--results-repo", "org/res"]) == 0
    assert detect_kind(out) == "leaderboard Space"
    plan = make_plan(out, "org/leaderboard")
    assert plan.repo_type == "space"
    assert {e.path for e in plan.files} == {
        "README.md", "app.py", "results_schema.py", "record_check.py", "boundary.py",
        "paired_bootstrap.py", "requirements.txt", "results_repo.txt", "verifier_ecthr_npd.py",
        "verifier_slds.py", "headnote_similarity.py", "checked_wrapper.py", "slds_languages.py",
        "evaluate_import.py"}
    assert "sacrebleu" in (out / "requirements.txt").read_text()
    (out / "app.py").write_text((out / "app.py").read_text() + "\nimport plotly\n")
    with pytest.raises(CourtbenchError, match="app.py imports 'plotly'"):
        make_plan(out, "org/leaderboard")
    assert main(["leaderboard", "space", str(tmp_path / "s2"), "--results-repo",
                 "../../x"]) == 1


def test_leaderboard_check_names_a_folder_called_json_and_deep_nesting(tmp_path, capsys):
    folder = tmp_path / "results"
    (folder / "results" / "ecthr_npd" / "x.json").mkdir(parents=True)
    (folder / "README.md").write_text(results_card(), encoding="utf-8")
    assert main(["leaderboard", "check", str(folder)]) == 1
    assert "x.json: not a regular file" in capsys.readouterr().err
    (folder / "results" / "ecthr_npd" / "x.json").rmdir()
    (folder / "results" / "ecthr_npd" / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    assert main(["leaderboard", "check", str(folder)]) == 1
    err = capsys.readouterr().err
    assert "nested too deeply" in err and len(err.strip().splitlines()) == 1
