"""``courtbench demo``: the example prediction set and the three metric modules end to end."""

from __future__ import annotations

import json

import pytest

from courtbench.cli import main
from courtbench.metric_modules import load_metric_module
from ecthr_npd.baselines import SYSTEMS
from ecthr_npd.metric_example import EXAMPLE_SIZE, example_predictions


def test_example_predictions_are_deterministic_and_ecthr_like():
    first, again, other = example_predictions(3), example_predictions(3), example_predictions(4)
    assert first == again and first != other
    references = first["references"]
    assert len(references) == EXAMPLE_SIZE == len(first["system_a"]) == len(first["system_b"])
    assert 0.30 < sum(r == 0 for r in references) / len(references) < 0.36
    assert min(min(values) for values in first.values()) >= 0.0


@pytest.mark.slow
def test_demo_runs_the_modules_and_writes_json(tmp_path, capsys):
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out), "--seed", "1", "--datasets"]) == 0
    printed = capsys.readouterr().out
    assert "system_a" in printed and "paired bootstrap (1,000 resamples" in printed
    written = json.loads((out / "metric_example/metric_results.json").read_text())
    example = json.loads((out / "metric_example/example_predictions.json").read_text())
    assert written["seed"] == example["seed"] == 1 and written["n"] == EXAMPLE_SIZE
    results = written["results"]
    # the numbers written are those of the plain functions on the written example
    npd = load_metric_module("npd_regression").npd_regression
    assert results["npd_regression"]["system_b"] == json.loads(json.dumps(
        npd(predictions=example["system_b"], references=example["references"])))
    paired = results["bootstrap_mae"]
    assert paired["systems"] == ["system_a", "system_b"]
    assert paired["mae1"] == results["npd_regression"]["system_a"]["mae"]
    assert paired["verdict"] == "1 better" and paired["n_resamples"] == 1000
    assert results["zero_f1"]["system_a"]["zero_f1"] \
        == results["npd_regression"]["system_a"]["zero_f1"]
    assert set(results["bootstrap_mae_single"]) == {"system_a", "system_b"}


@pytest.mark.slow
def test_whole_demo_on_a_reduced_size(tmp_path, capsys):
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out), "--scale", "0.02", "--skip-metric-example"]) == 0
    printed = capsys.readouterr().out
    assert "ECtHR-NPD (SYNTHETIC)" in printed and "SLDS (SYNTHETIC)" in printed
    for report in ("ecthr_npd_report", "slds_report"):
        assert (out / report / "report.md").is_file()
    ecthr_report = (out / "ecthr_npd_report" / "report.md").read_text(encoding="utf-8")
    assert "| hurdle |" in ecthr_report and "| gbt |" in ecthr_report
    assert sorted(p.name for p in (out / "slds_predictions").iterdir()) == [
        ".courtbench.json", "citation_lead.jsonl", "lead.jsonl", "settings.json"]
    # the text systems on the synthetic facts: bm25 with the baselines (bm25s installed), dense
    # on its own small build when the small model package is installed, else said so
    from ecthr_npd.baselines.run import selected_available
    from ecthr_npd.demo_text import bm25_available, dense_model

    expected = (set(SYSTEMS) | ({"bm25"} if bm25_available() else set())
                | ({"selected"} if selected_available() else set()))
    assert {p.stem for p in (out / "ecthr_npd_predictions").glob("*.csv")} == expected
    if dense_model(out)[0] is not None:
        assert (out / "ecthr_npd_text_predictions" / "dense.csv").is_file()
        assert (out / "ecthr_npd_text_report" / "report.md").is_file()
    else:
        assert "dense skipped" in printed


def test_the_dense_hint_names_what_works_from_a_clone(tmp_path, monkeypatch):
    """courtbench is not on PyPI: the hint names a make target of the clone."""
    import importlib.util

    from ecthr_npd.demo_text import dense_model

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *rest: None if name == "torch" else find_spec(name, *rest))
    folder, note = dense_model(tmp_path)
    assert folder is None and note.startswith("dense skipped: torch") and "not installed" in note
    assert "make embeddings demo" in note and "pip install 'courtbench" not in note


def test_demo_refuses_an_unknown_dataset(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path), "--datasets", "nope"]) == 1
    assert "no demo for ['nope']" in capsys.readouterr().err
