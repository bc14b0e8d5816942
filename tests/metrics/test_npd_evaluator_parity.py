"""npd_regression against a re-implementation of the ECtHR-NPD authors' evaluator.

The reference below is written here from the evaluator's published description (the issue
and DESIGN.md: MAE, RMSE, R², MedAE, 95AE, Pearson r, Spearman ρ, the F1 of the zero class,
positive-class F1, zero/positive accuracy, MAE on positive-award cases, MAPE on positive
awards with +1 EUR in the denominator, MAE by target range; a value is zero when y ≤ 0.5 EUR,
positive when > 0.5), with plain numpy / scipy / scikit-learn calls — no code of the authors.

Deliberate differences (documented in metrics/npd_regression/README.md):

- a correlation with a constant side (a constant predictor such as ``train_median``) is
  undefined; scipy returns nan, courtbench reports 0.0 (the benchmark's tables print 0 for
  constant predictors, and nan would not survive strict JSON). Compared as "nan ↔ 0.0".
"""

from __future__ import annotations

import csv
import math
import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import f1_score, median_absolute_error, r2_score

from courtbench.metric_modules import load_metric_module

TOLERANCE = 1e-9
ZERO_AT_OR_BELOW = 0.5
SCALAR_KEYS = ("mae", "rmse", "r2", "medae", "p95_ae", "pearson_r", "spearman_rho", "zero_f1",
               "positive_f1", "zero_positive_accuracy", "mae_positive_only", "mape_positive")


def authors_evaluator(y_pred, y_true) -> dict:
    """The published evaluator's figures, from its description."""
    y_pred, y_true = np.asarray(y_pred, float), np.asarray(y_true, float)
    error = np.abs(y_pred - y_true)
    true_positive, pred_positive = y_true > ZERO_AT_OR_BELOW, y_pred > ZERO_AT_OR_BELOW
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", stats.ConstantInputWarning)
        pearson = (stats.pearsonr(y_pred, y_true)[0] if y_true.size > 1 else math.nan)
        spearman = (stats.spearmanr(y_pred, y_true)[0] if y_true.size > 1 else math.nan)
    ranges = {"zero": ~true_positive,
              "up_to_10k": true_positive & (y_true <= 10_000),
              "10k_to_50k": (y_true > 10_000) & (y_true <= 50_000),
              "over_50k": y_true > 50_000}
    return {
        "mae": float(error.mean()),
        "rmse": float(np.sqrt(np.mean((y_pred - y_true) ** 2))),
        "r2": float(r2_score(y_true, y_pred)),
        "medae": float(median_absolute_error(y_true, y_pred)),
        "p95_ae": float(np.percentile(error, 95)),
        "pearson_r": float(pearson),
        "spearman_rho": float(spearman),
        "zero_f1": float(f1_score(~true_positive, ~pred_positive, zero_division=0.0)),
        "positive_f1": float(f1_score(true_positive, pred_positive, zero_division=0.0)),
        "zero_positive_accuracy": float(np.mean(true_positive == pred_positive)),
        "mae_positive_only": float(error[true_positive].mean()) if true_positive.any() else None,
        "mape_positive": (float(100 * np.mean(error[true_positive] / (y_true[true_positive] + 1)))
                          if true_positive.any() else None),
        "bucket_mae": {name: float(error[mask].mean()) if mask.any() else None
                       for name, mask in ranges.items()},
    }


def differences(ours: dict, theirs: dict) -> list[str]:
    """Keys where the two disagree beyond TOLERANCE (relative for large figures), except
    the documented nan ↔ 0.0 of undefined correlations."""
    found = []
    pairs = [(key, ours[key], theirs[key]) for key in SCALAR_KEYS]
    pairs += [(f"bucket_mae.{k}", ours["bucket_mae"][k]["mae"], v)
              for k, v in theirs["bucket_mae"].items()]
    for key, a, b in pairs:
        if a is None or b is None:
            if a is not b:
                found.append(f"{key}: {a!r} vs {b!r}")
        elif math.isnan(b):
            if not (key in ("pearson_r", "spearman_rho") and a == 0.0):
                found.append(f"{key}: {a!r} vs nan")
        elif not math.isclose(a, b, rel_tol=TOLERANCE, abs_tol=TOLERANCE):
            found.append(f"{key}: {a!r} vs {b!r}")
    return found


@pytest.fixture(scope="module")
def npd_regression():
    return load_metric_module("npd_regression").npd_regression


@pytest.fixture(scope="module")
def release(shared_data):
    """Targets of the real release by split and view."""
    with (shared_data / "ecthr_npd" / "case_level.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    target = {}
    for row in rows:
        target.setdefault(row["split"], []).append(float(row["y_amount_eur"]))
        if row["split"] == "test":
            target.setdefault(f"test_{row['test_view']}", []).append(float(row["y_amount_eur"]))
            if row["test_challenging_view"] == "yes":
                target.setdefault("test_challenging", []).append(float(row["y_amount_eur"]))
    return {name: np.asarray(values) for name, values in target.items()}


def _systems(train: np.ndarray, y: np.ndarray, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    noisy = np.clip(y * rng.lognormal(0.0, 0.6, y.size) + rng.normal(0, 500, y.size), 0, None)
    return {
        "train_median": np.full(y.size, float(np.median(train))),
        "train_mean": np.full(y.size, float(train.mean())),
        "zero": np.zeros(y.size),
        "noisy": noisy,
        "noisy_with_half_euros": np.where(rng.random(y.size) < 0.2, 0.5, noisy),
        "gate": np.where(y <= 0.5, rng.choice([0.0, 0.5, 3_000.0], y.size), noisy),
    }


def test_npd_regression_matches_the_authors_evaluator_on_the_real_release(release,
                                                                           npd_regression):
    checked = 0
    for scope in ("test", "validation", "test_ID", "test_OOD", "test_challenging"):
        y = release[scope]
        for name, prediction in _systems(release["train"], y, seed=len(y)).items():
            ours = npd_regression(predictions=prediction, references=y)
            assert differences(ours, authors_evaluator(prediction, y)) == [], (scope, name)
            checked += 1
    assert checked == 30


@pytest.mark.parametrize("y_pred, y_true", [
    ([0.5, 0.5, 1.0, 0.0], [0.5, 0.6, 0.5, 0.0]),         # 0.5 exactly is a zero award
    ([0.5, 0.50001], [0.49999, 0.5]),
    ([3200.0] * 4, [0.0, 0.5, 9_000.0, 120_000.0]),        # constant predictor
    ([0.0, 10.0, 5_000.0], [7_500.0] * 3),                 # constant references
    ([7_500.0] * 3, [7_500.0] * 3),                        # both constant, exact
    ([0.0, 0.0], [0.0, 0.0]),                              # nothing positive
    ([0.0, 100.0, 200.0, 50_001.0], [1.0, 0.4, 10_000.0, 50_000.0]),
])
def test_npd_regression_matches_the_authors_evaluator_on_edge_cases(npd_regression, y_pred,
                                                                     y_true):
    ours = npd_regression(predictions=y_pred, references=y_true)
    assert differences(ours, authors_evaluator(y_pred, y_true)) == []


def test_half_a_euro_is_a_zero_award_on_both_sides(npd_regression):
    result = npd_regression(predictions=[0.5, 0.6], references=[0.5, 0.5])
    assert result["zero_f1"] == pytest.approx(2 / 3)
    assert result["bucket_mae"]["zero"]["n"] == 2
    assert result["mae_positive_only"] is None and result["mape_positive"] is None
    zero_f1 = load_metric_module("zero_f1").zero_f1
    assert zero_f1(predictions=[0.5], references=[0.5])["zero_f1"] == 1.0


def test_mape_positive_adds_one_euro_to_the_reference(npd_regression):
    result = npd_regression(predictions=[0.0, 10.0, 0.0], references=[0.0, 9.0, 1.0])
    # positive cases: |10 - 9| / 10 and |0 - 1| / 2 → mean 0.3 → 30 %
    assert result["mape_positive"] == pytest.approx(30.0)
    assert result["mae_positive_only"] == pytest.approx(1.0)
    assert result["positive_f1"] == pytest.approx(2 / 3)
    assert result["zero_positive_accuracy"] == pytest.approx(2 / 3)
