"""The report's bar table (selected against the paper's best rows and the authors' public code)
and the constant baselines on the release's labels against the paper-time labels."""

from __future__ import annotations

import dataclasses

import numpy as np
import pyarrow as pa
import pytest

from ecthr_npd.baselines.constant_baselines import STATISTICS
from ecthr_npd.data import from_canonical
from ecthr_npd.paper_comparison import BEST_PAPER_MAE, bar_table, paper_tables
from ecthr_npd.paper_constants import (
    PAPER_TABLE_19,
    PAPER_TIME_LABELS,
    constant_figures,
    constants_table,
    paper_time_targets,
    table19_mismatches,
)
from ecthr_npd.reader import read_case_level
from ecthr_npd.synthetic import write_synthetic


@pytest.fixture(scope="module")
def release(shared_data):
    """The real release, loaded once for this file's slow tests."""
    return from_canonical(read_case_level(shared_data / "ecthr_npd" / "case_level.csv"))


def _scores(**systems):
    return {name: {"test": {"mae": mae, "zero_f1": f1}, "validation": {"mae": 1.0}}
            for name, (mae, f1) in systems.items()}


def test_bar_table_rows_and_flags():
    scores = _scores(selected=(9_800.4, 0.55), gbt=(10_413.0, 0.01), zero=(11_713.0, 0.495),
                     knn=(20_000.0, 0.2))
    variants = {"selected": {"system": "selected", "selection": "rolling", "refit": True},
                "gbt": {"system": "gbt", "selection": "validation"}}
    table = bar_table(scores, variants)
    rows = {row[0]: row for row in table.rows}
    assert list(rows)[:3] == ["selected", "gbt", "zero"]
    assert rows["selected"][3] == "rolling, refit on train+validation"
    assert rows["selected"][4:] == [9_800, 0.55, "yes", "yes"]
    assert rows["gbt"][1].endswith("lowest test MAE of the others")
    assert rows["zero"][1].endswith("highest Zero-F1 of the others")
    assert rows["zero"][6:] == ["no", "no"]
    assert "knn" not in rows
    paper = rows["CatBoost, X1 (historical matrix)"]
    assert paper[4] == BEST_PAPER_MAE and paper[6] == "no"
    assert rows["BGE-M3 sparse retrieval"][5:] == [0.530, "no", "no"]
    assert rows["authors' public tree code"][4] == "10,759–10,945"
    assert "allocation-derived" in table.note and "two different systems" in table.note
    assert bar_table({}, {}) is None


def test_bar_table_needs_the_selected_system():
    assert bar_table(_scores(gbt=(10_413.0, 0.01)), {}) is None
    only = bar_table(_scores(best=(9_000.0, 0.6)), {"best": {"system": "selected"}})
    assert [row[0] for row in only.rows][0] == "best" and len(only.rows) == 6


def _with_paper_labels(tmp_path):
    """A synthetic release whose first train and validation cases carry the two case ids with
    the release's corrected amounts."""
    data = from_canonical(read_case_level(write_synthetic(tmp_path / "c.csv", n=400, seed=5)))
    splits = dict(data.splits)
    for case_id, (split, _, corrected) in PAPER_TIME_LABELS.items():
        table = splits[split]
        ids = table.column("case_id").to_pylist()
        ids[0] = case_id
        y = table.column("y_amount_eur").to_numpy().astype(float)
        y[0] = corrected
        table = table.set_column(table.column_names.index("case_id"), "case_id", pa.array(ids))
        splits[split] = table.set_column(table.column_names.index("y_amount_eur"),
                                         "y_amount_eur", pa.array(y))
    return data, dataclasses.replace(data, splits=splits)


def test_paper_time_labels_restore_exactly_two_cases(tmp_path):
    synthetic, release_like = _with_paper_labels(tmp_path)
    assert paper_time_targets(synthetic) is None
    restored = paper_time_targets(release_like)
    for split in ("train", "validation", "test"):
        changed = np.flatnonzero(restored[split] != release_like.target(split))
        assert changed.tolist() == ([] if split == "test" else [0])
    assert restored["train"][0] == 12_000.0 and restored["validation"][0] == 800.0
    figures = constant_figures(restored)
    y_train = restored["train"]
    assert figures["train_mean"]["value"] == pytest.approx(y_train.mean())
    assert figures["zero"]["validation"] == pytest.approx(restored["validation"].mean())
    assert figures["train_positive_median"]["test"] == pytest.approx(
        np.mean(np.abs(restored["test"] - np.median(y_train[y_train > 0]))))
    table = constants_table(release_like, {"zero": {}})
    assert [row[0] for row in table.rows] == list(STATISTICS)
    assert "001-142400" in table.note and "001-210465" in table.note
    assert constants_table(release_like, {"gbt": {}}) is None
    assert constants_table(synthetic, {"zero": {}}) is None


def test_table19_mismatches_rounds_half_up():
    figures = {"zero": {"validation": 21_257.5, "test": 11_713.4}}
    assert table19_mismatches({("zero", "validation"): 21_258, ("zero", "test"): 11_713},
                              figures) == []
    assert table19_mismatches({("zero", "test"): 11_714}, figures) == [
        ("zero", "test", 11_714, 11_713)]


@pytest.mark.slow
def test_release_differs_from_paper_time_labels_by_one_to_eight_euros(release):
    """On the release: the two changelog corrections are in the data, and restoring them moves
    exactly the MAEs they touch, each by 1–8 EUR (every MAE of the train mean and the positive
    mean, every validation MAE); the other cells stay."""
    data = release
    restored = paper_time_targets(data)
    assert restored is not None
    release = constant_figures({s: data.target(s) for s in ("train", "validation", "test")})
    paper_time = constant_figures(restored)
    means = {"train_mean", "train_positive_mean"}  # the constants the train label moves
    for name in STATISTICS:
        assert (release[name]["value"] != paper_time[name]["value"]) == (name in means)
        for split in ("validation", "test"):
            delta = abs(release[name][split] - paper_time[name][split])
            if split == "validation" or name in means:
                assert 1.0 <= delta <= 8.0, (name, split, delta)
            else:
                assert delta == 0.0, (name, split, delta)
    # the test MAE the issue quotes for the train median holds on both label sets
    assert round(release["train_median"]["test"]) == 11_006
    table = paper_tables(data, {"zero": {"test": {"mae": 1.0, "zero_f1": 0.5},
                                         "validation": None}}, {})
    assert [t.name for t in table] == ["paper_constants"]


def _csv_targets(path) -> dict[str, list[tuple[str, float]]]:
    """(case_id, y_amount_eur) per split, read with the csv module (independent of the reader)."""
    import csv

    rows: dict[str, list[tuple[str, float]]] = {"train": [], "validation": [], "test": []}
    with open(path, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            rows[row["split"]].append((row["case_id"], float(row["y_amount_eur"])))
    return rows


@pytest.mark.slow
def test_paper_time_constants_match_a_plain_recomputation(shared_data, release):
    """The paper-time constants (the two changelog corrections undone) against a plain
    re-implementation: the csv module, the two labels swapped by case id, the statistics
    module's mean and median. Every figure agrees to the cent, so the restoration changes
    exactly those two labels and nothing else."""
    import statistics

    path = shared_data / "ecthr_npd" / "case_level.csv"
    rows = _csv_targets(path)
    paper = {case_id: old for case_id, (_, old, _) in PAPER_TIME_LABELS.items()}
    y = {split: [paper.get(case_id, amount) for case_id, amount in pairs]
         for split, pairs in rows.items()}
    changed = sum(amount != paper_amount for split, pairs in rows.items()
                  for (_, amount), paper_amount in zip(pairs, y[split], strict=True))
    assert changed == 2
    positive = [v for v in y["train"] if v > 0]
    values = {"train_median": statistics.median(y["train"]),
              "train_mean": statistics.fmean(y["train"]), "zero": 0.0,
              "train_positive_median": statistics.median(positive),
              "train_positive_mean": statistics.fmean(positive)}
    ours = constant_figures(paper_time_targets(release))
    assert set(ours) == set(values)
    for name, value in values.items():
        assert ours[name]["value"] == pytest.approx(value, abs=0.005)
        for split in ("validation", "test"):
            expected = statistics.fmean(abs(v - value) for v in y[split])
            assert ours[name][split] == pytest.approx(expected, abs=0.005), (name, split)


@pytest.mark.slow
def test_table19_is_reproduced_but_for_one_cell(release):
    """The issue's check: the paper-time constants, rounded to whole EUR, give every printed
    Table 19 cell but one — the train-median test MAE, which the authors document as a 1-EUR
    rounding difference (the two corrections cannot move it: the train median and the test
    labels stay). Runs once PAPER_TABLE_19 holds the printed figures."""
    if not PAPER_TABLE_19:
        pytest.skip("PAPER_TABLE_19 is empty: the paper's printed Table 19 figures are in no "
                    "source courtbench may cite; fill them from the paper")
    mismatches = table19_mismatches(PAPER_TABLE_19,
                                    constant_figures(paper_time_targets(release)))
    assert [(name, split) for name, split, _, _ in mismatches] == [("train_median", "test")]
    assert abs(mismatches[0][2] - mismatches[0][3]) == 1
