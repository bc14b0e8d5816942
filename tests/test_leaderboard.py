"""Leaderboard: verified submissions (courtbench submit), results folder, publish checks.

The page itself is tested in ``test_leaderboard_space.py``.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import datasets
import huggingface_hub
import pytest
from slds_fixtures import write_slds_folder

from courtbench.cli import main
from courtbench.errors import CourtbenchError
from courtbench.hub.offline import hub_offline
from courtbench.leaderboard import results_schema
from courtbench.leaderboard.folders import read_results_folder, results_card
from courtbench.leaderboard.hub import open_pull_request
from courtbench.leaderboard.records import model_size_from_name, verified_records
from courtbench.publish import detect_kind
from courtbench.publish.plan import make_plan
from slds.data import read_split

ECTHR_SYSTEMS = ("train_median", "zero", "train_mean")


@pytest.fixture(scope="module")
def ecthr_report(tmp_path_factory) -> Path:
    """A synthetic ECtHR-NPD build, three baselines and their evaluation report."""
    root = tmp_path_factory.mktemp("ecthr")
    assert main(["build", "ecthr_npd", "--synthetic", "--n", "400", "--out",
                 str(root / "data")]) == 0
    assert main(["baselines", "ecthr_npd", "--data", str(root / "data"), "--out",
                 str(root / "preds"), "--systems", ",".join(ECTHR_SYSTEMS)]) == 0
    assert main(["evaluate", "ecthr_npd", "--data", str(root / "data"), "--predictions",
                 *[str(root / "preds" / f"{s}.csv") for s in ECTHR_SYSTEMS],
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


def _copy(source: Path, tmp_path: Path) -> Path:
    """A copy of a fixture folder whose report names the copied files."""
    target = tmp_path / source.name
    shutil.copytree(source, target)
    report_path = target / "report" / "report.json"
    text = report_path.read_text(encoding="utf-8").replace(str(source.resolve()),
                                                           str(target.resolve()))
    report_path.write_text(text, encoding="utf-8")
    return target


class RecordingApi:
    """Stands in for HfApi: records create_commit calls."""

    def __init__(self):
        self.calls = []

    def create_commit(self, repo_id, operations, **kwargs):
        self.calls.append((repo_id, operations, kwargs))
        return huggingface_hub.CommitInfo(
            commit_url=f"https://huggingface.co/datasets/{repo_id}/commit/abc",
            commit_message=kwargs["commit_message"], commit_description="", oid="abc",
            pr_url=f"https://huggingface.co/datasets/{repo_id}/discussions/1")


def test_ecthr_records_are_valid_and_match_the_report(ecthr_report):
    records = verified_records(ecthr_report / "report")
    assert [r["system"] for r in records] == sorted(ECTHR_SYSTEMS)
    report = json.loads((ecthr_report / "report" / "report.json").read_text())
    for record in records:
        assert results_schema.validate_result(record) == []
        primary = results_schema.primary_metric(record)
        assert primary["name"] == "MAE"
        assert primary["value"] == report["scores"][record["system"]]["test"]["mae"]
        assert primary["ci_low"] <= primary["value"] <= primary["ci_high"]
        assert record["reference"] and record["family"] == "baseline"
        assert record["data_kind"] == "synthetic"
        assert len(record["per_item"]) == report["provenance"]["data"]["rows"]["test"]
        assert {b["row"] for b in record["breakdowns"]} == {"ID", "OOD", "Challenging",
                                                            "validation", "test"}
        assert all(b["value"] is not None for b in record["breakdowns"])
        scope = {b["row"]: b["value"] for b in record["breakdowns"] if b["table"] == "Scope"}
        assert scope == {"validation": report["provenance"]["data"]["rows"]["validation"],
                         "test": report["provenance"]["data"]["rows"]["test"]}


def test_slds_records_carry_the_language_grid_and_paired_tests(slds_report):
    records = {r["system"]: r for r in verified_records(slds_report / "report")}
    model, lead = records["mymodel"], records["lead"]
    assert lead["reference"] and not model["reference"]
    assert results_schema.primary_metric(model)["name"] == "ROUGE-L F1"
    grid = [b for b in model["breakdowns"] if b["table"] == "ROUGE-L F1"]
    assert len(grid) == 9 and {b["column"] for b in grid} == {"de", "fr", "it"}
    assert [t["against"] for t in model["paired_tests"]] == ["lead"]
    assert len(model["per_item"]) == 12


def test_submit_opens_exactly_one_pull_request_with_one_file_per_system(ecthr_report):
    records = verified_records(ecthr_report / "report", systems=["zero"])
    api = RecordingApi()
    url = open_pull_request(records, "org/courtbench-results", api=api)
    assert url.endswith("/discussions/1")
    [(repo_id, operations, kwargs)] = api.calls
    assert repo_id == "org/courtbench-results"
    assert kwargs["create_pr"] is True and kwargs["repo_type"] == "dataset"
    [operation] = operations
    assert operation.path_in_repo == "results/ecthr_npd/zero.json"
    record = json.loads(operation.path_or_fileobj.decode("utf-8"))
    assert results_schema.validate_result(record) == []


def accepting_folder(root: Path, tmp_path: Path, kind: str = "synthetic") -> Path:
    """A local results folder whose card accepts the data of the report in ``root``."""
    rerun = json.loads((root / "report" / "report.json").read_text())["provenance"]["rerun"]
    folder = tmp_path / "accepting-results"
    folder.mkdir(exist_ok=True)
    (folder / "README.md").write_text(results_card(
        {rerun["dataset"]: {rerun["data_fingerprint"]: kind}}), encoding="utf-8")
    return folder


def test_submit_cli_dry_run_sends_nothing(ecthr_report, capsys, monkeypatch, tmp_path):
    def refuse(*args, **kwargs):
        raise AssertionError("dry run must not contact the Hub")

    monkeypatch.setattr("courtbench.leaderboard.hub.HfApi", refuse)
    assert main(["submit", str(ecthr_report / "report"), "--repo-id", "org/res",
                 "--results-folder", str(accepting_folder(ecthr_report, tmp_path)),
                 "--system", "zero", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "would open a pull request on dataset org/res" in out
    record = json.loads(out.split("--- results/ecthr_npd/zero.json\n", 1)[1].splitlines()[0])
    assert record["system"] == "zero"


def test_tampered_predictions_are_refused(ecthr_report, tmp_path):
    root = _copy(ecthr_report, tmp_path)
    path = root / "preds" / "zero.csv"
    rows = list(csv.reader(path.open(encoding="utf-8")))
    rows[1][1] = "12345"
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)
    with pytest.raises(CourtbenchError, match="predictions of system 'zero' differ"):
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
    row = next(r for r in main_table["rows"] if r[0] == "zero")
    row[2] = row[2] - 1000.0
    report_path.write_text(json.dumps(report))
    column = main_table["columns"][2]
    with pytest.raises(CourtbenchError, match=f"table 'main', row 'zero', column '{column}'"):
        verified_records(root / "report")


def test_changed_metric_settings_are_refused(ecthr_report, tmp_path):
    root = _copy(ecthr_report, tmp_path)
    report_path = root / "report" / "report.json"
    report = json.loads(report_path.read_text())
    report["provenance"]["rerun"]["options"]["top_articles"] = 3
    report_path.write_text(json.dumps(report))
    with pytest.raises(CourtbenchError, match="metric signature differs"):
        verified_records(root / "report")


def test_unknown_system_and_old_report_are_clear_errors(ecthr_report, tmp_path):
    with pytest.raises(CourtbenchError, match="--systems nope: not in the report"):
        verified_records(ecthr_report / "report", systems=["nope"])
    (tmp_path / "report.json").write_text(json.dumps({"provenance": {}}))
    with pytest.raises(CourtbenchError, match="no provenance.rerun block"):
        verified_records(tmp_path)


@pytest.mark.parametrize("mutate, message", [
    (lambda r: r.pop("system"), "missing field 'system'"),
    (lambda r: r.update(extra=1), "unknown field 'extra'"),
    (lambda r: r.update(data_kind="fake"), "data_kind: 'fake'"),
    (lambda r: r.update(date="yesterday"), "date: 'yesterday'"),
    (lambda r: r["metrics"][0].update(value="1"), r"metrics\[0\]\.value: str"),
    (lambda r: r["per_item"].__setitem__(0, float("inf")), r"per_item\[0\]: inf"),
    (lambda r: r.update(parameters_json="{"), "parameters_json: not valid JSON"),
    (lambda r: [m.update(primary=True) for m in r["metrics"]], "exactly one primary"),
])
def test_validator_names_what_is_wrong(ecthr_report, mutate, message):
    record = verified_records(ecthr_report / "report", systems=["zero"])[0]
    mutate(record)
    assert any(__import__("re").search(message, p) for p in
               results_schema.validate_result(record)), results_schema.validate_result(record)


def test_model_size_is_read_from_common_model_names():
    assert model_size_from_name("Qwen2.5-7B-Instruct") == 7.0
    assert model_size_from_name("meta-llama/Llama-3.1-70b") == 70.0
    assert model_size_from_name("gpt-4o") is None


def test_results_folder_loads_as_one_table_and_publishes(ecthr_report, slds_report, tmp_path):
    out = tmp_path / "results"
    assert main(["leaderboard", "init", str(out), "--reference-report",
                 str(ecthr_report / "report"), "--reference-report",
                 str(slds_report / "report")]) == 0
    records = read_results_folder(out)
    assert sorted((r["benchmark"], r["system"]) for r in records) == sorted(
        [("ecthr_npd", s) for s in ECTHR_SYSTEMS] + [("slds", "lead")])
    with hub_offline():
        table = datasets.load_dataset(str(out), split="train")
    assert table.num_rows == len(records)
    assert set(table.column_names) == set(results_schema.FIELDS)
    assert detect_kind(out) == "results"
    plan = make_plan(out, "org/courtbench-results")
    assert plan.repo_type == "dataset"
    assert sorted(entry.path for entry in plan.files) == sorted(
        ["README.md", *[results_schema.record_path(r) for r in records]])


def test_leaderboard_space_folder_passes_its_publish_checks(tmp_path):
    out = tmp_path / "space"
    assert main(["leaderboard", "space", str(out), "--results-repo", "org/res"]) == 0
    assert detect_kind(out) == "leaderboard Space"
    plan = make_plan(out, "org/leaderboard")
    assert plan.repo_type == "space"
    assert {e.path for e in plan.files} == {"README.md", "app.py", "results_schema.py",
                                            "requirements.txt", "results_repo.txt"}
    (out / "app.py").write_text((out / "app.py").read_text() + "\nimport plotly\n")
    with pytest.raises(CourtbenchError, match="app.py imports 'plotly'"):
        make_plan(out, "org/leaderboard")


# ------------------------------------------- comparable records: accepted data and protocol

def _evaluate_ecthr(root: Path, out: Path, *options: str) -> Path:
    assert main(["evaluate", "ecthr_npd", "--data", str(root / "data"), "--predictions",
                 *[str(root / "preds" / f"{s}.csv") for s in ECTHR_SYSTEMS],
                 "--out", str(out), "--no-figures", *options]) == 0
    return out


def _rewrite_rerun(report_dir: Path, change) -> None:
    path = report_dir / "report.json"
    report = json.loads(path.read_text())
    change(report["provenance"])
    path.write_text(json.dumps(report))


def test_leaderboard_init_pins_the_reference_data_fingerprints(ecthr_report, tmp_path):
    from courtbench.hub import read_card_metadata
    from courtbench.leaderboard.protocol import ACCEPTED_KEY

    out = tmp_path / "results"
    assert main(["leaderboard", "init", str(out), "--reference-report",
                 str(ecthr_report / "report")]) == 0
    rerun = json.loads((ecthr_report / "report" / "report.json").read_text())["provenance"][
        "rerun"]
    assert read_card_metadata(out)[ACCEPTED_KEY] == {
        "ecthr_npd": {rerun["data_fingerprint"]: "synthetic"}}


def test_submit_refuses_data_the_results_dataset_does_not_accept(ecthr_report, tmp_path,
                                                                 capsys):
    doctored = _copy(ecthr_report, tmp_path)  # a copy of the built data, changed, re-evaluated
    with (doctored / "data" / "README.md").open("a", encoding="utf-8") as handle:
        handle.write("\nmy own edit of the card\n")
    shutil.rmtree(doctored / "report")
    _evaluate_ecthr(doctored, doctored / "report")
    results = accepting_folder(ecthr_report, tmp_path)
    assert main(["submit", str(doctored / "report"), "--repo-id", "org/res", "--results-folder",
                 str(results), "--dry-run"]) == 1
    err = capsys.readouterr().err
    assert "is not among the accepted ecthr_npd data" in err and "--unofficial" in err
    assert main(["submit", str(doctored / "report"), "--repo-id", "org/res", "--results-folder",
                 str(results), "--dry-run", "--unofficial", "--system", "zero"]) == 0
    record = json.loads(capsys.readouterr().out.split("--- results/ecthr_npd/zero.json\n")[1]
                        .splitlines()[0])
    assert record["leaderboard_table"] == "unofficial"
    assert "not among the accepted" in record["unofficial_reason"]


def test_data_kind_comes_from_the_data_card_and_must_match_the_accepted_kind(ecthr_report,
                                                                             tmp_path):
    records = verified_records(ecthr_report / "report", systems=["zero"],
                               accepted={"ecthr_npd": {}}, unofficial=True)
    assert records[0]["data_kind"] == "synthetic"
    rerun = json.loads((ecthr_report / "report" / "report.json").read_text())["provenance"][
        "rerun"]
    with pytest.raises(CourtbenchError, match="card says 'synthetic'.*as 'real' data"):
        verified_records(ecthr_report / "report", systems=["zero"],
                         accepted={"ecthr_npd": {rerun["data_fingerprint"]: "real"}})


@pytest.mark.parametrize("options, named", [
    (("--zero-threshold", "1000000"), "--zero-threshold 1000000.0: the protocol uses 0.5"),
    (("--resamples", "2"), "--resamples 2: the protocol needs at least 1,000"),
])
def test_submit_refuses_scores_off_the_protocol_naming_the_option(ecthr_report, tmp_path,
                                                                  options, named):
    report = _evaluate_ecthr(ecthr_report, tmp_path / "report", *options)
    accepted = {"ecthr_npd": {json.loads((report / "report.json").read_text())[
        "provenance"]["rerun"]["data_fingerprint"]: "synthetic"}}
    with pytest.raises(CourtbenchError, match=__import__("re").escape(named)):
        verified_records(report, systems=["zero"], accepted=accepted)
    record = verified_records(report, systems=["zero"], accepted=accepted, unofficial=True)[0]
    assert record["leaderboard_table"] == "unofficial" and named in record["unofficial_reason"]
    assert json.loads(record["options_json"])["resamples"] == record["resamples"]


def test_records_on_the_protocol_go_to_the_main_table(ecthr_report):
    rerun = json.loads((ecthr_report / "report" / "report.json").read_text())["provenance"][
        "rerun"]
    record = verified_records(ecthr_report / "report", systems=["zero"], accepted={
        "ecthr_npd": {rerun["data_fingerprint"]: "synthetic"}})[0]
    assert (record["leaderboard_table"], record["unofficial_reason"]) == ("main", None)
    assert (record["split"], record["resamples"]) == ("test", 1000)
    assert "ID, OOD and Challenging" in record["scope"]


def test_slds_validation_split_and_ascii_tokenizer_are_named_and_per_item_follows_the_split(
        slds_report, tmp_path):
    from slds_fixtures import write_slds_folder

    root = tmp_path / "slds_val"
    root.mkdir()
    decisions = [(f"Sachverhalt {i}. Das Gericht prüft Art. {i} BV.", "de") for i in range(4)]
    data = write_slds_folder(root, decisions, {"de": "Art. 1 BV: Regeste."}, split="validation")
    rows = read_split(data, "validation", columns=("decision",))
    with open(root / "lead.jsonl", "w", encoding="utf-8") as handle:
        for sample_id, decision in zip(rows["sample_id"], rows["decision"], strict=True):
            handle.write(json.dumps({"sample_id": sample_id, "prediction": decision[:30]}) + "\n")
    assert main(["evaluate", "slds", "--data", str(data), "--predictions",
                 str(root / "lead.jsonl"), "--out", str(root / "report"), "--splits",
                 "validation", "--rouge-tokenizer", "rouge_score"]) == 0
    with pytest.raises(CourtbenchError) as refused:
        verified_records(root / "report", accepted={"slds": {}})
    assert "--splits validation: the protocol uses --splits test" in str(refused.value)
    assert "--rouge-tokenizer rouge_score" in str(refused.value)
    record = verified_records(root / "report", accepted={"slds": {}}, unofficial=True)[0]
    assert record["split"] == "validation"
    assert record["per_item_name"] == "ROUGE-L F1 ×100 per validation sample"


def test_constant_baselines_record_no_selection(ecthr_report):
    records = {r["system"]: r for r in verified_records(ecthr_report / "report")}
    assert records["zero"]["selection"] is None and records["train_median"]["selection"] is None


def test_a_report_naming_the_root_as_its_data_is_refused_without_hashing(ecthr_report, tmp_path,
                                                                        monkeypatch):
    root = _copy(ecthr_report, tmp_path)
    _rewrite_rerun(root / "report", lambda p: p["rerun"].update(data="/"))

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
    (lambda p: p["rerun"]["options"].pop("resamples"), "options has no 'resamples'"),
    (lambda p: p["rerun"]["predictions"].update(zero="x.csv"), r"predictions\['zero'\]"),
])
def test_a_malformed_rerun_block_is_one_clear_line(ecthr_report, tmp_path, capsys, change,
                                                    message):
    root = _copy(ecthr_report, tmp_path)
    _rewrite_rerun(root / "report", change)
    assert main(["submit", str(root / "report"), "--repo-id", "org/res", "--results-folder",
                 str(accepting_folder(ecthr_report, tmp_path)), "--dry-run"]) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and __import__("re").search(message, err), err


def test_submit_with_the_hub_down_is_one_line(ecthr_report, tmp_path, capsys, monkeypatch):
    import requests

    from courtbench.leaderboard.hub import read_accepted_data

    def down(*args, **kwargs):
        raise requests.exceptions.ConnectionError("connection refused")

    with pytest.raises(CourtbenchError, match="could not reach the Hub to read the accepted"):
        read_accepted_data("org/res", download=down)
    records = verified_records(ecthr_report / "report", systems=["zero"])

    class DownApi:
        def create_commit(self, *args, **kwargs):
            down()

    with pytest.raises(CourtbenchError, match="could not reach the Hub to open the pull"):
        open_pull_request(records, "org/res", api=DownApi())
    monkeypatch.setattr("courtbench.leaderboard.hub.hf_hub_download", down)
    assert main(["submit", str(ecthr_report / "report"), "--repo-id", "org/res"]) == 1
    assert "could not reach the Hub" in capsys.readouterr().err


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
