"""Hub Eval Results: ``courtbench submit --eval-results MODEL_REPO`` (entries built with
huggingface_hub's EvalResultEntry from verified records), the benchmarks' task choices and
the eval.yaml documented for their dataset repositories. Offline: the pull request goes to a
stand-in HfApi, the time bound is tested against a silent server on 127.0.0.1."""

from __future__ import annotations

import copy
import re
import shutil
import time
from pathlib import Path

import huggingface_hub
import numpy as np
import pytest
import yaml
from hub_fakes import commit_info
from huggingface_hub import EvalResultEntry, parse_eval_result_entries
from leaderboard_records import (
    build,
    ecthr_gold,
    page_records,
    skeleton,
    slds_gold,
    write_changed_predictions,
)

from courtbench.boundary import BoundaryError
from courtbench.cli import main
from courtbench.errors import CourtbenchError
from courtbench.hub import read_card_metadata
from courtbench.leaderboard.eval_results import (
    HubBenchmark,
    HubTask,
    benchmark_spec,
    check_entries_text,
    dumps_entries,
    eval_yaml,
    export_record,
)
from courtbench.leaderboard.eval_results_submit import record_url
from courtbench.leaderboard.hub import create_pull_request
from courtbench.leaderboard.records import verified_records
from courtbench.output_files import write_output_file

ROOT = Path(__file__).resolve().parents[2]
DATASET = {"ecthr_npd": "org/ecthr_npd", "slds": "org/slds"}


@pytest.fixture(scope="module")
def records() -> dict[str, dict]:
    return page_records()


def _export(record, source_url="https://huggingface.co/datasets/org/res/blob/main/x.json"):
    return export_record(record, benchmark_spec(record["benchmark"]),
                         dataset_id=DATASET[record["benchmark"]], source_url=source_url)


def _values(export) -> dict[str, float]:
    return {entry.task_id: entry.value for entry in export.entries}


# ----------------------------------------------------------------- entries from records

def test_ecthr_entries_are_the_recomputed_figures_and_read_back_through_huggingface_hub(
        records):
    gold = ecthr_gold()
    export = _export(records["big_llm"])
    text = dumps_entries(export.entries)
    assert parse_eval_result_entries(yaml.safe_load(text)) == export.entries
    assert check_entries_text(text, "file") == export.entries
    # an independent computation from the record's predictions and the gold awards
    errors = np.abs(np.asarray(records["big_llm"]["predicted_values"]) - gold["values"])
    views = gold["groups"]["MAE by test view"]
    expected = {"test_mae": errors.mean(), "test_mae_id": errors[views["ID"]].mean(),
                "test_mae_ood": errors[views["OOD"]].mean(),
                "test_mae_challenging": errors[views["Challenging"]].mean()}
    values = _values(export)
    assert set(values) == {*expected, "test_zero_f1"} and export.left_out == {}
    for task, value in expected.items():
        assert values[task] == pytest.approx(value, rel=1e-12)
    y, p = np.asarray(gold["values"]) < 0.5, np.asarray(records["big_llm"]["predicted_values"]) < 0.5
    from sklearn.metrics import f1_score
    assert values["test_zero_f1"] == pytest.approx(f1_score(y, p))
    assert {e.dataset_id for e in export.entries} == {"org/ecthr_npd"}
    assert export.path == ".eval_results/courtbench_ecthr_npd_big_llm.yaml"


def test_only_the_error_tasks_say_lower_is_better(records):
    export = _export(records["big_llm"])
    for entry in export.entries:
        lower = entry.task_id.startswith("test_mae")
        assert ("lower is better" in entry.notes) is lower, entry
        assert ("higher is better" in entry.notes) is not lower, entry
        assert "big_llm" in entry.notes and entry.source_url and entry.date == "2026-12-01"


def test_slds_macro_is_the_mean_of_the_nine_exported_pairs(records):
    export = _export(records["lead"])
    values = _values(export)
    pairs = [v for task, v in values.items() if re.fullmatch(r"test_rouge_l_[a-z]{2}_[a-z]{2}",
                                                             task)]
    assert len(pairs) == 9 and export.left_out == {}
    assert values["test_rouge_l"] == pytest.approx(np.mean(pairs), rel=1e-12)
    assert set(values) == {"test_rouge_l", "test_bleu", *(f"test_rouge_l_{d}_{h}"
                                                          for d in "de fr it".split()
                                                          for h in "de fr it".split())}


def test_a_macro_over_fewer_pairs_is_not_exported_but_the_covered_pairs_are():
    gold = slds_gold()
    labels = gold["labels"]
    texts = [t[:20] if d == "de" else None for t, d in zip(gold["texts"],
                                                           labels["decision_language"],
                                                           strict=True)]
    record, _ = build(skeleton("slds", "german_only", texts=texts), gold)
    export = _export(record)
    assert set(_values(export)) == {"test_rouge_l_de_de", "test_rouge_l_de_fr",
                                    "test_rouge_l_de_it"}
    assert "an average over fewer parts" in export.left_out["test_rouge_l"]
    assert "an average over fewer parts" in export.left_out["test_bleu"]
    assert "no value at ROUGE-L F1 / fr / de" in export.left_out["test_rouge_l_fr_de"]


def test_unofficial_records_and_non_finite_values_are_refused(records):
    with pytest.raises(CourtbenchError, match="no unofficial table"):
        _export(records["few_resamples"])
    broken = copy.deepcopy(records["big_llm"])
    broken["metrics"][0]["value"] = float("nan")
    with pytest.raises(BoundaryError, match="big_llm: test_mae"):
        _export(broken)
    for text, reason in (("- dataset: {id: a/b, task_id: t}\n  value: .nan\n", "finite"),
                         ("- dataset: {id: a/b}\n  value: 1\n", "task_id"),
                         ("- [\n", "valid YAML"), ("a: 1\n", "a list of entries")):
        with pytest.raises(BoundaryError, match=reason):
            check_entries_text(text, "f.yaml")


def test_task_specs_refuse_bad_ids_sources_and_repeats():
    with pytest.raises(ValueError, match="task id"):
        HubTask("../x", "default", "test", ("metric", "MAE"), "r")
    with pytest.raises(ValueError, match="source"):
        HubTask("x", "default", "test", ("metrics", "MAE"), "r")
    task = HubTask("x", "default", "test", ("metric", "MAE"), "r")
    with pytest.raises(ValueError, match="repeat"):
        HubBenchmark("b", "d", (task, task))


# ------------------------------------------------------- eval.yaml and the dataset configs

def _documented_eval_yaml() -> dict[str, str]:
    """``{benchmark name: eval.yaml text}`` of the YAML blocks in docs/eval_results.md."""
    page = (ROOT / "docs" / "eval_results.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(name: .*?)```", page, flags=re.S)
    return {yaml.safe_load(block)["name"]: block for block in blocks}


def test_the_documented_eval_yaml_is_what_the_plugins_export():
    documented = _documented_eval_yaml()
    for benchmark in ("ecthr_npd", "slds"):
        spec = benchmark_spec(benchmark)
        assert documented[spec.name] == eval_yaml(spec, framework="courtbench"), benchmark
        task_ids = [t["id"] for t in yaml.safe_load(documented[spec.name])["tasks"]]
        assert len(task_ids) == len(set(task_ids)) == len(spec.tasks)


def test_every_task_names_a_config_and_split_of_the_built_folder(ecthr_report):
    """ECtHR-NPD from a synthetic build; SLDS configs from its schema's pairs."""
    from slds.assemble import DEFAULT_CONFIG
    from slds.schema import PAIRS, pair_name

    card = read_card_metadata(ecthr_report / "data")
    splits = {c["config_name"]: {f["split"] for f in c["data_files"]} for c in card["configs"]}
    for task in benchmark_spec("ecthr_npd").tasks:
        assert task.split in splits[task.config], task
    slds_configs = {DEFAULT_CONFIG, *(pair_name(*pair) for pair in PAIRS)}
    assert {t.config for t in benchmark_spec("slds").tasks} == slds_configs


# --------------------------------------------------------------------- the command, offline


@pytest.fixture(scope="module")
def ecthr_report(tmp_path_factory) -> Path:
    """A synthetic ECtHR-NPD build, the train_median baseline, two user systems and their
    report, and the results folder ``leaderboard init`` writes from it."""
    root = tmp_path_factory.mktemp("ecthr")
    assert main(["build", "ecthr_npd", "--synthetic", "--n", "300", "--out",
                 str(root / "data")]) == 0
    assert main(["baselines", "ecthr_npd", "--data", str(root / "data"), "--out",
                 str(root / "preds"), "--systems", "train_median"]) == 0
    median = root / "preds" / "train_median.csv"
    write_changed_predictions(median, root / "preds" / "mymodel.csv", lambda v: round(v * 0.8 + 150, 2))
    write_changed_predictions(median, root / "preds" / "other.csv", lambda v: round(v * 1.1, 2))
    assert main(["evaluate", "ecthr_npd", "--data", str(root / "data"), "--predictions",
                 *[str(root / "preds" / f"{s}.csv") for s in ("train_median", "mymodel",
                                                              "other")],
                 "--out", str(root / "report"), "--no-figures"]) == 0
    assert main(["leaderboard", "init", str(root / "results"), "--reference-report",
                 str(root / "report")]) == 0
    return root


def _submit(root: Path, *extra: str) -> int:
    return main(["submit", str(root / "report"), "--repo-id", "org/res", "--results-folder",
                 str(root / "results"), "--eval-results", "org/my-model",
                 "--benchmark-dataset", "org/ecthr_npd", *extra])


class RecordingApi:
    """Stands in for HfApi: records create_commit calls."""

    calls: list = []

    def __init__(self, token=None):
        self.token = token

    def create_commit(self, repo_id, operations, **kwargs):
        RecordingApi.calls.append((repo_id, operations, kwargs))
        return commit_info(f"https://huggingface.co/{repo_id}", kwargs["commit_message"],
                           pull_request=7)


@pytest.fixture(scope="module")
def mymodel_record(ecthr_report) -> dict:
    """The verified record of ``mymodel``, built as ``courtbench submit`` builds it."""
    return verified_records(ecthr_report / "report", systems=["mymodel"])[0]


def test_dry_run_prints_entries_that_read_back_and_sends_nothing(ecthr_report, mymodel_record,
                                                                 capsys, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a dry run must not contact the Hub")

    monkeypatch.setattr("courtbench.leaderboard.hub.HfApi", refuse)
    assert _submit(ecthr_report, "--systems", "mymodel", "--dry-run") == 0
    out = capsys.readouterr().out
    assert "dry run: would open a pull request on model org/my-model" in out
    assert out.rstrip().endswith("nothing was sent")
    header = "--- .eval_results/courtbench_ecthr_npd_mymodel.yaml (5 entries)\n"
    text = out.split(header, 1)[1].split("nothing was sent")[0]
    entries = parse_eval_result_entries(yaml.safe_load(text))
    assert [e.task_id for e in entries] == [t.task_id for t in benchmark_spec("ecthr_npd").tasks]
    record = mymodel_record
    mae = next(m["value"] for m in record["metrics"] if m["name"] == "MAE")
    assert entries[0] == EvalResultEntry(
        dataset_id="org/ecthr_npd", task_id="test_mae", value=mae, date=record["date"],
        source_url="https://huggingface.co/datasets/org/res/blob/main/results/ecthr_npd/"
                   "mymodel.json", source_name="courtbench verified record",
        notes=entries[0].notes)
    assert not list(ecthr_report.glob("*.submission.json"))  # no plan file either


def test_the_pull_request_adds_one_yaml_file_to_the_model_repository(ecthr_report,
                                                                     mymodel_record, capsys,
                                                                     monkeypatch):
    RecordingApi.calls = []
    monkeypatch.setattr("courtbench.leaderboard.hub.HfApi", RecordingApi)
    monkeypatch.setenv("HF_TOKEN", "hf_test")
    assert _submit(ecthr_report, "--systems", "mymodel") == 0
    assert "pull request opened: https://huggingface.co/org/my-model/discussions/7" in \
        capsys.readouterr().out
    [(repo_id, operations, kwargs)] = RecordingApi.calls
    assert repo_id == "org/my-model"
    assert kwargs["repo_type"] == "model" and kwargs["create_pr"] is True
    assert "lower is better" in kwargs["commit_description"]
    [operation] = operations
    assert operation.path_in_repo == ".eval_results/courtbench_ecthr_npd_mymodel.yaml"
    entries = check_entries_text(operation.path_or_fileobj.decode("utf-8"), "sent file")
    record = mymodel_record
    assert entries == export_record(record, benchmark_spec("ecthr_npd"),
                                    dataset_id="org/ecthr_npd",
                                    source_url=record_url("org/res", record)).entries


@pytest.mark.parametrize("extra, message", [
    (["--eval-results", "../../x"], "--eval-results '../../x': expected ORG/NAME"),
    (["--eval-results", "org/..x"], "--eval-results 'org/..x' is not a valid Hub repo id"),
    (["--eval-results", "org/m"], "--eval-results needs --benchmark-dataset"),
    (["--eval-results", "org/m", "--benchmark-dataset", "../../x"],
     "--benchmark-dataset '../../x': expected ORG/NAME"),
    (["--benchmark-dataset", "org/d"], "--benchmark-dataset: only has an effect with --eval-results"),
    (["--eval-results", "org/m", "--benchmark-dataset", "org/d", "--unofficial"],
     "no unofficial table"),
    (["--eval-results", "org/m", "--benchmark-dataset", "org/d", "--systems", "a,b"],
     "--eval-results exports one system"),
])
def test_bad_options_are_refused_in_one_line_before_anything_is_read(capsys, extra, message,
                                                                     tmp_path):
    started = time.monotonic()
    assert main(["submit", str(tmp_path / "absent"), "--repo-id", "org/res", *extra,
                 "--dry-run"]) == 1
    assert time.monotonic() - started < 5
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_a_report_with_two_systems_needs_the_model_system_named(ecthr_report, capsys):
    assert _submit(ecthr_report, "--dry-run") == 1
    err = capsys.readouterr().err
    assert "gives 2 systems (mymodel, other); choose the model's system with --systems" in err


def test_an_incomplete_or_fallback_filled_run_is_not_exported(ecthr_report, tmp_path, capsys):
    root = tmp_path / "run"
    for name in ("data", "results"):
        shutil.copytree(ecthr_report / name, root / name)
    runs = root / "runs"
    runs.mkdir()
    write_output_file(runs / "mymodel.csv", (ecthr_report / "preds" / "mymodel.csv").read_bytes(),
                      {"model": "org/my-model", "complete": False,
                       "counts": {"cases": 60, "request_failed": 0, "filled": 60,
                                  "written": 60}},
                      kind="ecthr_npd-predictions")
    assert main(["evaluate", "ecthr_npd", "--data", str(root / "data"), "--predictions",
                 str(runs / "mymodel.csv"), "--out", str(root / "report"), "--no-figures"]) == 0
    capsys.readouterr()
    assert _submit(root, "--dry-run") == 1
    err = capsys.readouterr().err
    assert "its run is incomplete" in err and "fallback" in err
    assert len(err.strip().splitlines()) == 1


# ------------------------------------------------------------------------ Hub time bound



def test_a_model_pull_request_to_a_hub_that_never_answers_fails_within_seconds(silent_hub,
                                                                               monkeypatch):
    monkeypatch.setenv("COURTBENCH_HUB_TIMEOUT", "1")
    api = huggingface_hub.HfApi(endpoint=silent_hub, token="hf_test")
    started = time.monotonic()
    with pytest.raises(CourtbenchError, match="org/m: (could not reach the Hub|opening the "
                                              "pull request: the Hub gave no complete answer)"):
        create_pull_request("org/m", "model", {".eval_results/x.yaml": "[]\n"}, "t", "b",
                            api=api, seconds=5)
    assert time.monotonic() - started < 15
