"""npd_regression: regression metrics for non-pecuniary damage (NPD) awards in euros.

The ECtHR-NPD benchmark (European Court of Human Rights, non-pecuniary damage) asks for one
non-negative euro amount per judgment. The target is zero-inflated and heavy-tailed, so the
benchmark reports a panel of numbers instead of one: MAE (primary), RMSE, R², MedAE, the 95th
percentile of absolute errors, Pearson r, Spearman rho, the F1 of the zero-award class, MAE by
target range and error buckets.

The computation is the plain function :func:`npd_regression`; :class:`NpdRegression` is a thin
``evaluate.Metric`` wrapper around it. This file imports nothing from the repository it was
written in, so that it also runs from a Hugging Face Space.
"""

import math
import sys

import datasets
import evaluate
import numpy as np
from scipy.stats import rankdata

from .npd_amounts import (
    _CITATION,
    CheckedAmountPairs,
    _check_pair,
    _check_threshold,
    _rescale_exponent,
    _unscale,
    _zero_mask,
)

_DESCRIPTION = """\
Regression metrics for euro award predictions (ECtHR-NPD): mae, rmse, r2, medae, p95_ae,
pearson_r, spearman_rho, zero-award F1/precision/recall, positive-award F1, zero/positive
accuracy, MAE on positive awards, MAPE on positive awards (+1 EUR in the denominator), MAE by
target range (bucket_mae) and relative-error buckets (error_buckets). A value at or below
`zero_threshold` (default 0.5 EUR) counts as a zero award, as in the authors' evaluator. Optional `groups` give the same report per group (e.g. per violated article).
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of float): predicted awards in EUR, finite and >= 0, one per case.
    references (list of float): awarded amounts in EUR, finite and >= 0, same length >= 1.
    zero_threshold (float, keyword-only): amounts at or below it count as a zero award
        (default 0.5 EUR); must be finite and > 0.
    groups (list, keyword-only, optional): one entry per case, either a string label or a
        list of string labels (multi-label groups such as violated articles). Adds a
        ``groups`` key with the same report for every label, sorted by label.
Returns:
    dict with mae, rmse, r2, medae, p95_ae, pearson_r, spearman_rho, zero_f1,
    zero_precision, zero_recall, positive_f1, zero_positive_accuracy, mae_positive_only,
    mape_positive, bucket_mae, error_buckets, n and zero_threshold
    (see the metric card for every key's range and direction).
Examples:
    >>> result = npd_regression(predictions=[0, 1000, 5000, 40000],
    ...                         references=[0, 1500, 5000, 60000])
    >>> result["mae"], result["zero_f1"], result["n"]
    (5125.0, 1.0, 4)
    >>> result["bucket_mae"]["over_50k"]
    {'mae': 20000.0, 'n': 1}
    >>> result["error_buckets"]
    {'exact': 2, 'within_10pct': 0, '10_to_50pct': 2, 'over_50pct': 0}
"""

#: Upper bounds (EUR, inclusive) of the non-zero target ranges of ``bucket_mae``.
TARGET_RANGE_BOUNDS = (10_000.0, 50_000.0)
TARGET_RANGES = ("zero", "up_to_10k", "10k_to_50k", "over_50k")
#: Relative-error bounds (inclusive) of ``error_buckets``.
RELATIVE_ERROR_BOUNDS = (0.10, 0.50)
ERROR_BUCKETS = ("exact", "within_10pct", "10_to_50pct", "over_50pct")
#: Figures in EUR (scaled back after rescaling); the others are ratios or counts.
EURO_FIGURES = ("mae", "rmse", "medae", "p95_ae")
#: Added to a positive reference in MAPE's denominator (EUR), as the authors' evaluator does.
MAPE_OFFSET_EUR = 1.0


def _group_indices(groups, n):
    """Map every label in ``groups`` (one str or list of str per case) to its case indices."""
    if isinstance(groups, np.ndarray):
        groups = groups.tolist()
    if not isinstance(groups, (list, tuple)):
        raise ValueError(f"groups: expected a list with one label (or list of labels) per case, "
                         f"got {type(groups).__name__}")
    if len(groups) != n:
        raise ValueError(f"groups has {len(groups)} entries but predictions has {n}: "
                         "expected one entry per case")
    members = {}
    for index, entry in enumerate(groups):
        labels = [entry] if isinstance(entry, str) else entry
        if not isinstance(labels, (list, tuple)) or not all(isinstance(x, str) for x in labels):
            raise ValueError(f"groups[{index}] = {entry!r}: expected a string or a list of strings")
        for label in set(labels):
            members.setdefault(label, []).append(index)
    return {label: np.asarray(members[label], dtype=np.intp) for label in sorted(members)}


def _pearson(x, y):
    """Pearson correlation; 0.0 when either side is constant (including n = 1)."""
    if x[0] == x.max() == x.min() or y[0] == y.max() == y.min():
        return 0.0
    dx = x - x.mean()
    dy = y - y.mean()
    dx /= np.abs(dx).max()  # scale to [-1, 1] so that the dot products cannot under/overflow
    dy /= np.abs(dy).max()
    r = float(np.dot(dx, dy) / math.sqrt(float(np.dot(dx, dx)) * float(np.dot(dy, dy))))
    return max(-1.0, min(1.0, r))


def _ratio(numerator, denominator):
    return float(numerator / denominator) if denominator else 0.0


def _error_figures(y_true, y_pred, abs_error):
    """mae, rmse, r2, medae, p95_ae, pearson_r and spearman_rho of validated arrays."""
    n = y_true.size
    error = y_pred - y_true
    squared = float(np.dot(error, error))
    deviation = y_true - y_true.mean()
    total = float(np.dot(deviation, deviation))
    if total == 0.0 or y_true[0] == y_true.min() == y_true.max():
        r2 = 1.0 if squared == 0.0 else 0.0  # constant references (R² undefined): sklearn's rule
    else:
        r2 = max(1.0 - squared / total, -sys.float_info.max)  # finite even if the ratio is not
    return {
        "mae": float(abs_error.mean()),
        "rmse": math.sqrt(squared / n),
        "r2": r2,
        "medae": float(np.median(abs_error)),
        "p95_ae": float(np.percentile(abs_error, 95)),
        "pearson_r": _pearson(y_pred, y_true),
        "spearman_rho": _pearson(rankdata(y_pred), rankdata(y_true)),
    }


def _zero_class(true_zero, pred_zero):
    """F1, precision and recall of the class "award is zero" (0.0 where undefined)."""
    tp = int(np.count_nonzero(true_zero & pred_zero))
    n_true_zero = int(np.count_nonzero(true_zero))
    n_pred_zero = int(np.count_nonzero(pred_zero))
    return {
        "zero_f1": _ratio(2 * tp, n_pred_zero + n_true_zero),
        "zero_precision": _ratio(tp, n_pred_zero),
        "zero_recall": _ratio(tp, n_true_zero),
    }


def _positive_class(true_zero, pred_zero):
    """F1 of the class "award is positive" and the accuracy of the zero/positive call."""
    true_positive, pred_positive = ~true_zero, ~pred_zero
    tp = int(np.count_nonzero(true_positive & pred_positive))
    return {
        "positive_f1": _ratio(2 * tp, int(np.count_nonzero(true_positive))
                              + int(np.count_nonzero(pred_positive))),
        "zero_positive_accuracy": float(np.count_nonzero(true_zero == pred_zero) / true_zero.size),
    }


def _positive_errors(y_true, true_zero, abs_error, exponent):
    """MAE (EUR) and MAPE (%) on the positive-award cases; ``None`` when there are none.
    ``abs_error`` is in units of 2**exponent EUR; MAPE divides by reference + 1 EUR."""
    positive = ~true_zero
    if not positive.any():
        return {"mae_positive_only": None, "mape_positive": None}
    with np.errstate(over="ignore"):
        relative = np.ldexp(abs_error[positive], exponent) / (y_true[positive] + MAPE_OFFSET_EUR)
    return {"mae_positive_only": _unscale(float(abs_error[positive].mean()), exponent),
            "mape_positive": float(100.0 * relative.mean()) if np.isfinite(relative).all()
            else sys.float_info.max}


def _bucket_mae(y_true, true_zero, abs_error, exponent):
    """MAE and count per target range; ``abs_error`` is in units of 2**exponent EUR."""
    low, high = TARGET_RANGE_BOUNDS
    target_range = np.where(true_zero, 0, 1 + (y_true > low) + (y_true > high))
    range_counts = np.bincount(target_range, minlength=4)
    range_sums = np.bincount(target_range, weights=abs_error, minlength=4)
    return {name: {"mae": _unscale(float(range_sums[i] / range_counts[i]), exponent)
                   if range_counts[i] else None,
                   "n": int(range_counts[i])}
            for i, name in enumerate(TARGET_RANGES)}


def _error_buckets(y_true, true_zero, abs_error, zero_threshold):
    """Counts of exact / within 10% / 10-50% / over 50% relative errors (EUR inputs)."""
    within, moderate = RELATIVE_ERROR_BOUNDS
    with np.errstate(over="ignore"):  # an infinite ratio of huge amounts is still "over 50%"
        relative = abs_error / np.maximum(y_true, zero_threshold)
    bucket = np.where(abs_error < zero_threshold, 0,
                      np.where(true_zero, 3, 1 + (relative > within) + (relative > moderate)))
    bucket_counts = np.bincount(bucket, minlength=4)
    return {name: int(bucket_counts[i]) for i, name in enumerate(ERROR_BUCKETS)}


def _r2_rescaled(y_true, y_pred):
    """R² for amounts above RESCALE_ABOVE: the residual and the total sum of squares each on
    values divided by their own power of two (a common one would let the references'
    squares underflow to 0), combined exactly; at least -sys.float_info.max."""
    if y_true[0] == y_true.min() == y_true.max():
        return 1.0 if np.array_equal(y_true, y_pred) else 0.0
    error = y_pred - y_true
    error_exponent = math.frexp(float(np.abs(error).max()))[1]
    true_exponent = math.frexp(float(y_true.max()))[1]
    error = np.ldexp(error, -error_exponent)
    deviation = np.ldexp(y_true, -true_exponent)
    deviation -= deviation.mean()
    ratio = float(np.dot(error, error)) / float(np.dot(deviation, deviation))
    ratio = _unscale(ratio, 2 * (error_exponent - true_exponent))
    return max(1.0 - ratio, -sys.float_info.max)


def _report(y_true, y_pred, zero_threshold):
    """All figures for one set of cases (arrays already validated, same length >= 1).

    Amounts above RESCALE_ABOVE are divided by a power of two before any sum (so that no
    figure overflows) and the euro figures multiplied back; below it nothing changes.
    """
    exponent = _rescale_exponent(y_true, y_pred)
    abs_error = np.abs(y_pred - y_true)  # finite: both are in [0, max float]
    if exponent:
        scaled = _error_figures(np.ldexp(y_true, -exponent), np.ldexp(y_pred, -exponent),
                                np.ldexp(abs_error, -exponent))
        figures = {key: _unscale(value, exponent) if key in EURO_FIGURES else value
                   for key, value in scaled.items()}
        figures["r2"] = _r2_rescaled(y_true, y_pred)
    else:
        figures = _error_figures(y_true, y_pred, abs_error)
    true_zero = _zero_mask(y_true, zero_threshold)
    pred_zero = _zero_mask(y_pred, zero_threshold)
    scaled_error = np.ldexp(abs_error, -exponent)
    return {
        **figures,
        **_zero_class(true_zero, pred_zero),
        **_positive_class(true_zero, pred_zero),
        **_positive_errors(y_true, true_zero, scaled_error, exponent),
        "bucket_mae": _bucket_mae(y_true, true_zero, scaled_error, exponent),
        "error_buckets": _error_buckets(y_true, true_zero, abs_error, zero_threshold),
        "n": y_true.size,
    }


def npd_regression(*, predictions, references, zero_threshold=0.5, groups=None):
    """Score euro award predictions against references.

    Args:
        predictions: predicted awards (EUR), a list/tuple/1-D array of finite numbers >= 0.
        references: awarded amounts (EUR), same length >= 1, finite numbers >= 0.
        zero_threshold: an amount at or below it (EUR) counts as a zero award (positive
            means above it, the authors' rule); finite, > 0.
        groups: optional, one entry per case: a label (str) or a list of labels; when given,
            the result has a ``groups`` dict mapping each label (sorted) to the same report
            computed on that label's cases.

    Returns:
        dict of plain Python numbers: mae, rmse, medae, p95_ae (EUR, lower is better), r2,
        pearson_r, spearman_rho, zero_f1, zero_precision, zero_recall, positive_f1,
        zero_positive_accuracy (higher is better), mae_positive_only (EUR) and mape_positive
        (%, reference + 1 EUR in the denominator; both lower is better, None without a
        positive reference),
        bucket_mae ({range: {"mae": EUR or None when empty, "n": count}}), error_buckets
        ({bucket: count}), n, zero_threshold (and groups when requested).

    Raises:
        ValueError: naming the argument, the first offending index and value, for invalid
            input (see the metric card).
    """
    y_pred, y_true = _check_pair(predictions, references)
    threshold = _check_threshold(zero_threshold)
    members = None if groups is None else _group_indices(groups, y_pred.size)
    result = _report(y_true, y_pred, threshold)
    result["zero_threshold"] = threshold
    if members is not None:
        result["groups"] = {label: _report(y_true[index], y_pred[index], threshold)
                            for label, index in members.items()}
    return result


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class NpdRegression(CheckedAmountPairs, evaluate.Metric):
    """``evaluate`` wrapper of :func:`npd_regression`."""

    def _info(self):
        return evaluate.MetricInfo(
            module_type="metric",
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            # no format="numpy": datasets' numpy formatter would hand back float32 arrays
            features=datasets.Features({"predictions": datasets.Value("float64"),
                                        "references": datasets.Value("float64")}),
            reference_urls=["https://github.com/YanyiPU/ECtHR-NPD"],
        )

    def _compute(self, predictions, references, zero_threshold=0.5, groups=None):
        return npd_regression(predictions=predictions, references=references,
                              zero_threshold=zero_threshold, groups=groups)
