"""The report's comparisons with the paper: the reference systems, and the bar to clear.

:func:`paper_tables` gives every such table the report shows (see :func:`reference_table`,
:func:`bar_table` and :func:`ecthr_npd.paper_constants.constants_table`).

"Reference systems" (:func:`reference_table`): courtbench's tree systems next to the paper's.

The paper's test MAE (EUR) of its three reference systems, by feature set (:data:`PAPER`):
Table 20 (X1 "applicant-enhanced") and Table 28 (X0 "case metadata"). A row per library
system (and per ``ensemble``) that ``courtbench baselines`` wrote — recognised by the
``variant`` it recorded in ``settings.json`` — with its validation and test MAE, the paper's
figure, the gap (courtbench − paper), and the spread over the seeds of ``--seeds`` (files
``NAME.seedS``, kept out of every other table). The gap is shown as measured: no setting is
chosen by looking at test.

The paper's X1 figures are context, not a like-for-like target: the authors' own
documentation says the historical X1 matrix held two allocation-derived predictors that the
public release excludes, so no result on the public table is "historical X1". courtbench's
X1 rows are therefore labelled ``X1 (public, 20 predictors)`` (:data:`FEATURE_LABELS`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from courtbench.report import Table

# (library, feature set) → (test MAE in EUR, the paper's table)
PAPER: dict[tuple[str, str], tuple[float, str]] = {
    ("catboost", "X1"): (9_881.0, "Table 20"),
    ("xgboost", "X1"): (10_117.0, "Table 20"),
    ("lightgbm", "X1"): (10_240.0, "Table 20"),
    ("catboost", "X0"): (10_424.0, "Table 28"),
    ("xgboost", "X0"): (10_922.0, "Table 28"),
    ("lightgbm", "X0"): (10_346.0, "Table 28"),
}
REFERENCE_SYSTEMS = ("catboost", "xgboost", "lightgbm", "ensemble")
#: How the table names courtbench's feature sets: X1 built from the public release is not the
#: paper's historical X1 matrix.
FEATURE_LABELS = {"X1": "X1 (public, 20 predictors)", "X0": "X0"}
X1_CAVEAT = (
    "The paper's X1 figures (Table 20) come from a matrix with two allocation-derived "
    "predictors that the public release excludes (the authors' documentation says so, and "
    "that no result on the public table is historical X1): they are context, not a "
    "like-for-like target computed on the same inputs; courtbench's X1 rows use the release's "
    "20 public predictors.")
NOTE = (
    "MAE in EUR. Paper: the ECtHR-NPD paper's test MAE of the same library and feature set "
    "(Table 20: X1 applicant-enhanced; Table 28: X0 case metadata); gap = courtbench − paper "
    "(positive: courtbench is worse). Selection: how hyper-parameters and the number of trees "
    "were chosen — validation MAE (MedAE tie-break), or rolling-origin folds over the last "
    "three judgment years of train+validation; never test. Fitted on: train, or "
    "train+validation for +refit rows (their validation MAE is in-sample). Seeds: test MAE "
    "over the seeds of --seeds (mean ± standard deviation, min–max). The paper's X2/X3 "
    "feature sets add merits-reasoning features that the public release does not carry, so "
    "they cannot be built from it. " + X1_CAVEAT)


def is_replica(variant: dict[str, Any] | None) -> bool:
    """Whether a system's recorded variant is an extra seed of another system."""
    return bool(variant and variant.get("replica_of"))


def selection_label(variant: dict[str, Any] | None) -> str | None:
    """The selection protocol of a system, as the report states it (None when unknown)."""
    if not variant:
        return None
    label = variant.get("selection")
    if label and variant.get("refit"):
        label += ", refit on train+validation"
    return label


def _replicas(scores: dict[str, dict[str, Any]],
              variants: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    """``file stem → the stems of its extra seeds`` (only those that were scored)."""
    replicas: dict[str, list[str]] = {}
    for stem, variant in variants.items():
        if is_replica(variant) and stem in scores:
            replicas.setdefault(variant["replica_of"], []).append(stem)
    return replicas


def _seed_spread(seeds: list[float]) -> str | None:
    """``mean ± sd (min–max)`` of the test MAE over the seeds (None for a single seed)."""
    if len(seeds) <= 1:
        return None
    return (f"{np.mean(seeds):,.0f} ± {np.std(seeds, ddof=1):,.0f} "
            f"({min(seeds):,.0f}–{max(seeds):,.0f})")


def _reference_row(stem: str, variant: dict[str, Any] | None,
                   scores: dict[str, dict[str, Any]], replicas: list[str]) -> list | None:
    """The table's row of one file (None for a non-reference system, a replica or a
    validation-only file: nothing to set beside the paper's test MAE)."""
    if not variant or variant.get("system") not in REFERENCE_SYSTEMS or is_replica(variant):
        return None
    if scores[stem]["test"] is None:
        return None
    library, feature_set = variant["system"], variant.get("feature_set")
    paper, source = PAPER.get((library, feature_set), (None, None))
    test_mae = scores[stem]["test"]["mae"]
    seeds = [test_mae] + [scores[r]["test"]["mae"] for r in replicas
                          if scores[r]["test"] is not None]
    validation = scores[stem]["validation"]
    gap = None if paper is None else test_mae - paper
    return [stem, library, FEATURE_LABELS.get(feature_set, feature_set),
            variant.get("objective"), selection_label(variant),
            "train+validation" if variant.get("refit") else "train",
            validation["mae"] if validation else None, test_mae, paper, source,
            gap, None if paper is None else 100.0 * gap / paper,
            len(seeds), _seed_spread(seeds)]


def reference_table(scores: dict[str, dict[str, Any]],
                    variants: dict[str, dict[str, Any]]) -> Table | None:
    """The table (None when no reference system was evaluated).

    Args:
        scores: ``file stem → pool → npd_regression result`` (replicas included).
        variants: ``file stem → variant`` recorded by ``courtbench baselines``.
    """
    replicas = _replicas(scores, variants)
    rows = [row for stem in scores
            if (row := _reference_row(stem, variants.get(stem), scores,
                                      replicas.get(stem, []))) is not None]
    if not rows:
        return None
    return Table("reference", "Reference systems: courtbench against the paper",
                 ["System", "Library", "Features", "Loss on log1p(y)", "Selection", "Fitted on",
                  "Val MAE", "Test MAE", "Paper test MAE (context)", "Paper table", "Gap",
                  "Gap %",
                  "Seeds", "Test MAE over seeds"], rows, note=NOTE, digits=0)


#: The bar: the paper's best rows (test MAE, Zero-F1 or None where the paper gives none),
#: and what the authors' current public tree code gives on the public release.
PAPER_BAR: tuple[tuple[str, str, str, float | str, float | None], ...] = (
    ("CatBoost, X1 (historical matrix)", "paper, Table 20", "structured (X1 with two "
     "allocation-derived predictors)", 9_881.0, None),
    ("BGE-M3 sparse retrieval", "paper, Table 3", "reviewed Facts text", 10_226.0, 0.530),
    ("BGE-M3 dense retrieval", "paper, Table 3", "reviewed Facts text", 10_177.0, 0.425),
    ("CatBoost, X0", "paper, Table 28", "structured (case metadata)", 10_424.0, None),
    ("authors' public tree code", "authors' current code on the public release",
     "structured (20 public predictors)", "10,759–10,945", None),
)
SELECTED_LABEL = "courtbench, selected on folds"
BEST_PAPER_MAE = 9_881.0
BEST_PAPER_ZERO_F1 = 0.530
BAR_NOTE = (
    "Test pool. The bar: the paper's best test MAE (9,881 EUR, CatBoost on its X1 matrix) and "
    "best Zero-F1 (0.530, BGE-M3 sparse retrieval over the Facts text) come from two different "
    "systems; no row of the paper holds both. The authors' current public tree code gives "
    "10,759–10,945 on the public release (its tree systems). courtbench rows: `selected` (the "
    "configuration chosen on rolling-origin folds over train+validation, refitted on "
    "train+validation; test read once after the choice was frozen), and the other courtbench "
    "systems with the lowest test MAE and the highest Zero-F1 in this report. Below / above: "
    "whether a row clears the paper's best figure. " + X1_CAVEAT)


def _courtbench_bar_rows(scores: dict[str, dict[str, Any]],
                         variants: dict[str, dict[str, Any]]) -> list[list]:
    """``selected`` rows, then the best other system by test MAE and by Zero-F1."""
    tested = {stem: s["test"] for stem, s in scores.items()
              if s.get("test") is not None and not is_replica(variants.get(stem))}
    chosen = [stem for stem in tested if (variants.get(stem) or {}).get("system") == "selected"]
    others = [stem for stem in tested if stem not in chosen]
    labels = {stem: SELECTED_LABEL for stem in chosen}
    if others:
        best_mae = min(others, key=lambda stem: (tested[stem]["mae"], stem))
        best_f1 = max(others, key=lambda stem: (tested[stem]["zero_f1"], stem))
        labels.setdefault(best_mae, "courtbench, lowest test MAE of the others")
        labels.setdefault(best_f1, "courtbench, highest Zero-F1 of the others")
    return [[stem, labels[stem], "structured (21 permitted inputs)" if stem in chosen else
             None, selection_label(variants.get(stem)), round(tested[stem]["mae"]),
             tested[stem]["zero_f1"], "yes" if tested[stem]["mae"] < BEST_PAPER_MAE else "no",
             "yes" if tested[stem]["zero_f1"] > BEST_PAPER_ZERO_F1 else "no"]
            for stem in labels]


def bar_table(scores: dict[str, dict[str, Any]],
              variants: dict[str, dict[str, Any]]) -> Table | None:
    """The bar table (see :data:`BAR_NOTE`); None unless ``selected`` was scored on test."""
    ours = _courtbench_bar_rows(scores, variants)
    if not any(row[1] == SELECTED_LABEL for row in ours):
        return None
    paper = [[name, source, inputs, None, mae if isinstance(mae, str) else round(mae), zero_f1,
              None if isinstance(mae, str) else ("yes" if mae < BEST_PAPER_MAE else "no"),
              None if zero_f1 is None else ("yes" if zero_f1 > BEST_PAPER_ZERO_F1 else "no")]
             for name, source, inputs, mae, zero_f1 in PAPER_BAR]
    return Table("paper_bar", "The bar: courtbench's selected system against the paper's best "
                 "rows", ["System", "Source", "Inputs", "Selection", "Test MAE", "Zero-F1",
                          "MAE below 9,881", "Zero-F1 above 0.530"], ours + paper,
                 note=BAR_NOTE, digits=3)


def paper_tables(data, scores: dict[str, dict[str, Any]],
                 variants: dict[str, dict[str, Any]]) -> list[Table]:
    """The report's paper comparisons, in order: reference systems, the bar, the constant
    baselines against the paper's labels (each left out when it has nothing to show)."""
    from ecthr_npd.paper_constants import constants_table

    tables = [reference_table(scores, variants), bar_table(scores, variants),
              constants_table(data, scores)]
    return [table for table in tables if table is not None]
