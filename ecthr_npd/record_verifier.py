"""Recompute an ECtHR-NPD leaderboard record from its predictions and the test awards.

The verifier of :mod:`courtbench.leaderboard.record_check` for ECtHR-NPD (see there for the
contract). Self-contained: it imports numpy and ``boundary.py`` only, so ``courtbench
leaderboard space`` copies it into the leaderboard Space as ``verifier_ecthr_npd.py``, where
it runs without courtbench.

From the record's ``predicted_values`` (one award in EUR per test case, in the gold file's
order; each an amount within the shared validator's range) and the gold file's test awards
it recomputes:

- ``per_item``: each case's absolute error (EUR);
- MAE (primary) with its 95% bootstrap percentile interval (the record's ``resamples`` and
  the ``seed`` of its evaluation options: bootstrap_mae's ``single`` config; the check draws
  it, for every record at once), RMSE, MedAE,
  Zero-F1 (an amount at or below the options' ``zero_threshold`` is a zero award) and R²,
  each as npd_regression defines it;
- breakdowns: MAE on the ID / OOD / Challenging views (the gold file's groups) and the
  scope (the number of test cases).
"""

from __future__ import annotations

import json
import math
import sys

import numpy as np

try:
    from courtbench.boundary import (
        AMOUNT_CEILING,
        BoundaryError,
        check_amount,
        check_count,
        check_number,
        check_seed,
    )
except ImportError:  # the leaderboard Space: the validator is a sibling file
    from boundary import (
        AMOUNT_CEILING,
        BoundaryError,
        check_amount,
        check_count,
        check_number,
        check_seed,
    )

BENCHMARK = "ecthr_npd"
VERSION = "ecthr_npd-verifier/1"
AS_SUBMITTED: tuple[str, ...] = ()
#: The reference baselines (what ``courtbench baselines ecthr_npd`` writes): only
#: ``courtbench leaderboard init`` writes a record under one of these names.
RESERVED_NAMES = ("train_median", "train_mean", "zero", "train_positive_median",
                  "train_positive_mean", "knn", "knn-metadata", "gbt", "hurdle", "catboost",
                  "xgboost", "lightgbm", "ensemble", "selected", "bm25", "dense", "sparse")
PER_ITEM_NAME = "absolute error on the test split (EUR)"
VIEWS_TABLE = "MAE by test view"
SCOPE_TABLE = "Scope"
#: (displayed name, lower is better) of the recomputed metrics, the primary one first.
METRICS = (("MAE", True), ("RMSE", True), ("MedAE", True), ("Zero-F1", False), ("R²", False))
MAX_RESAMPLES = 100_000


def _predictions(values, n: int) -> np.ndarray:
    """The record's predicted awards as a float64 array of length ``n``; BoundaryError
    naming the first entry that is not an amount."""
    if len(values) != n:
        raise BoundaryError("predicted_values", f"<{len(values):,} values>",
                            f"one award per test case of the gold file ({n:,})")
    if not set(map(type, values)) <= {float, int}:
        index = next(i for i, v in enumerate(values) if type(v) not in (float, int))
        check_amount(values[index], f"predicted_values[{index}]")  # raises: not a number
    array = np.asarray(values, dtype=np.float64)
    bad = ~(np.isfinite(array) & (array >= 0) & (array <= AMOUNT_CEILING))
    if bad.any():
        index = int(np.flatnonzero(bad)[0])
        check_amount(values[index], f"predicted_values[{index}]")
    return array


def _options(record: dict) -> tuple[int, int, float]:
    """``(resamples, seed, zero_threshold)`` of the record's evaluation."""
    options = json.loads(record["options_json"])
    resamples = check_count(record["resamples"], "resamples", low=2, high=MAX_RESAMPLES,
                            what="a number of bootstrap resamples")
    seed = check_seed(options.get("seed"), "options_json.seed")
    threshold = check_number(options.get("zero_threshold"), "options_json.zero_threshold",
                             low=0, high=AMOUNT_CEILING, low_open=True, what="a zero-award threshold")
    return resamples, seed, threshold


#: The leaderboard protocol of a ranked (main-table) record.
PROTOCOL_ZERO_THRESHOLD = 0.5
PROTOCOL_MIN_RESAMPLES = 1000


def protocol_problems(record: dict) -> list[str]:
    """How a record's evaluation differs from the protocol of the ranked table: the test
    split, a zero threshold of 0.5 EUR, at least 1,000 bootstrap resamples."""
    options = json.loads(record["options_json"])
    return protocol_differences(
        {"split": record["split"], "zero_threshold": options.get("zero_threshold"),
         "resamples": record["resamples"]},
        test_scored=record["split"] == "test", named=lambda key, value: f"{key} {value!r}")


def protocol_differences(values: dict, *, test_scored: bool, named) -> list[str]:
    """The one statement of the protocol, for a record and for a report's options alike:
    how ``values`` (``split``, ``zero_threshold``, ``resamples``) differ from it (empty: they
    follow it). ``test_scored``: whether the test split was scored; ``named(key, value)``: how
    the message names a value (a record's field or a command-line option)."""
    differences = []
    if not test_scored:
        differences.append(f"{named('split', values['split'])}: the protocol scores the test "
                           "split")
    if values["zero_threshold"] != PROTOCOL_ZERO_THRESHOLD:
        differences.append(f"{named('zero_threshold', values['zero_threshold'])}: the protocol "
                           f"uses {PROTOCOL_ZERO_THRESHOLD}")
    if values["resamples"] < PROTOCOL_MIN_RESAMPLES:
        differences.append(f"{named('resamples', values['resamples'])}: the protocol needs at "
                           f"least {PROTOCOL_MIN_RESAMPLES:,}")
    return differences


def _r2(y: np.ndarray, squared: float) -> float:
    """R² as npd_regression computes it (constant references: 1 if exact, else 0)."""
    work = y - y.mean()
    total = float(np.einsum("i,i->", work, work))
    if total == 0.0 or y[0] == y.min() == y.max():
        return 1.0 if squared == 0.0 else 0.0
    return max(1.0 - squared / total, -sys.float_info.max)


def _zero_f1(y: np.ndarray, p: np.ndarray, threshold: float) -> float:
    true_zero, pred_zero = y <= threshold, p <= threshold
    denominator = int(np.count_nonzero(true_zero)) + int(np.count_nonzero(pred_zero))
    return 2 * int(np.count_nonzero(true_zero & pred_zero)) / denominator if denominator else 0.0


def _median(sorted_values: np.ndarray) -> float:
    middle = sorted_values.size // 2
    if sorted_values.size % 2:
        return float(sorted_values[middle])
    return (float(sorted_values[middle - 1]) + float(sorted_values[middle])) / 2


def _metric(name: str, lower: bool, value: float, ci=None) -> dict:
    return {"name": name, "value": value, "ci_low": ci[0] if ci else None,
            "ci_high": ci[1] if ci else None, "lower_is_better": lower,
            "primary": name == METRICS[0][0], "as_submitted": None}


def recompute(record: dict, gold: dict) -> dict:
    """Every number of an ECtHR-NPD record from its predictions (see the module docstring).

    Args:
        record: a record of valid shape (``results_schema.validate_result``).
        gold: the accepted data's gold file (test awards, the views as item groups).

    Returns:
        The verifier result of ``record_check``; the MAE interval is asked for as
        ``intervals`` (the bootstrap of the absolute errors), which the check resamples.

    Raises:
        BoundaryError: a prediction or option out of range (names it).
    """
    if record["predicted_texts"]:
        raise BoundaryError("predicted_texts", "<texts>", "award predictions in "
                            "predicted_values (ECtHR-NPD predicts amounts)")
    y = np.asarray(gold["values"], dtype=np.float64)
    p = _predictions(record["predicted_values"], y.size)
    resamples, seed, threshold = _options(record)
    difference = p - y
    errors = np.abs(difference)
    squared = float(np.einsum("i,i->", difference, difference))
    ordered = np.sort(errors)
    figures = (float(errors.mean()), math.sqrt(squared / y.size), _median(ordered),
               _zero_f1(y, p, threshold), _r2(y, squared))
    metrics = [_metric(name, lower, value) for (name, lower), value in zip(METRICS, figures,
                                                                             strict=True)]
    groups = gold.get("groups", {}).get(VIEWS_TABLE, {})
    breakdowns = [{"table": VIEWS_TABLE, "row": view, "column": "MAE",
                   "value": float(errors[index].mean()) if index else None}
                  for view, index in groups.items()]
    breakdowns.append({"table": SCOPE_TABLE, "row": gold["split"], "column": "cases",
                       "value": float(y.size)})
    return {"metrics": metrics, "breakdowns": breakdowns, "per_item": errors.tolist(),
            "item_index": list(range(y.size)), "per_item_name": PER_ITEM_NAME,
            "per_item_lower_is_better": True, "resamples": resamples, "seed": seed,
            "intervals": {"MAE": errors}}
