"""The report's "Reference systems" table: courtbench's tree systems next to the paper's.

The paper's test MAE (EUR) of its three reference systems, by feature set (:data:`PAPER`):
Table 20 (X1 "applicant-enhanced") and Table 28 (X0 "case metadata"). A row per library
system (and per ``ensemble``) that ``courtbench baselines`` wrote — recognised by the
``variant`` it recorded in ``settings.json`` — with its validation and test MAE, the paper's
figure, the gap (courtbench − paper), and the spread over the seeds of ``--seeds`` (files
``NAME.seedS``, kept out of every other table). The gap is shown as measured: no setting is
chosen by looking at test.
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
NOTE = (
    "MAE in EUR. Paper: the ECtHR-NPD paper's test MAE of the same library and feature set "
    "(Table 20: X1 applicant-enhanced; Table 28: X0 case metadata); gap = courtbench − paper "
    "(positive: courtbench is worse). Selection: how hyper-parameters and the number of trees "
    "were chosen — validation MAE (MedAE tie-break), or rolling-origin folds over the last "
    "three judgment years of train+validation; never test. Fitted on: train, or "
    "train+validation for +refit rows (their validation MAE is in-sample). Seeds: test MAE "
    "over the seeds of --seeds (mean ± standard deviation, min–max). The paper's X2/X3 "
    "feature sets add merits-reasoning features that the public release does not carry, so "
    "they cannot be built from it.")


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


def reference_table(scores: dict[str, dict[str, Any]],
                    variants: dict[str, dict[str, Any]]) -> Table | None:
    """The table (None when no reference system was evaluated).

    Args:
        scores: ``file stem → pool → npd_regression result`` (replicas included).
        variants: ``file stem → variant`` recorded by ``courtbench baselines``.
    """
    replicas: dict[str, list[str]] = {}
    for stem, variant in variants.items():
        if is_replica(variant) and stem in scores:
            replicas.setdefault(variant["replica_of"], []).append(stem)
    rows = []
    for stem in scores:
        variant = variants.get(stem)
        if not variant or variant.get("system") not in REFERENCE_SYSTEMS or is_replica(variant):
            continue
        library, feature_set = variant["system"], variant.get("feature_set")
        paper, source = PAPER.get((library, feature_set), (None, None))
        test_mae = scores[stem]["test"]["mae"]
        seeds = [test_mae] + [scores[r]["test"]["mae"] for r in replicas.get(stem, [])]
        spread = (f"{np.mean(seeds):,.0f} ± {np.std(seeds, ddof=1):,.0f} "
                  f"({min(seeds):,.0f}–{max(seeds):,.0f})" if len(seeds) > 1 else None)
        rows.append([stem, library, feature_set, variant.get("objective"),
                     selection_label(variant), "train+validation" if variant.get("refit")
                     else "train", scores[stem]["validation"]["mae"], test_mae, paper, source,
                     None if paper is None else test_mae - paper,
                     None if paper is None else 100.0 * (test_mae - paper) / paper,
                     len(seeds), spread])
    if not rows:
        return None
    return Table("reference", "Reference systems: courtbench against the paper",
                 ["System", "Library", "Features", "Loss on log1p(y)", "Selection", "Fitted on",
                  "Val MAE", "Test MAE", "Paper test MAE", "Paper table", "Gap", "Gap %",
                  "Seeds", "Test MAE over seeds"], rows, note=NOTE, digits=0)
