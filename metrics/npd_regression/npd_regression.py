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

import evaluate
import numpy as np

from .npd_amounts import (
    CheckedAmountPairs,
    _check_pair,
    _check_threshold,
    _rescale_exponent,
    _unscale,
    _zero_mask,
    amount_pairs_info,
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


def _dot(x, y):
    """Sum of ``x * y`` over two 1-D float64 arrays of one size, as a numpy float64.

    numpy's own loop (einsum), not BLAS: np.dot hands arrays above 10,000 values to
    OpenBLAS threads, and waking them on a busy machine took milliseconds per call.
    """
    return np.einsum("i,i->", x, y)


def _pearson(x, y, x_work=None, y_work=None):
    """Pearson correlation of two float64 arrays of one size; 0.0 when either side is constant
    (including n = 1). The centred values go to ``x_work`` / ``y_work`` (arrays of the same
    size, which may be ``x`` and ``y`` themselves, then overwritten; new arrays when None)."""
    if x[0] == x.max() == x.min() or y[0] == y.max() == y.min():
        return 0.0
    dx = np.subtract(x, x.mean(), out=x_work)
    dy = np.subtract(y, y.mean(), out=y_work)
    dx /= max(dx.max(), -dx.min())  # scale to [-1, 1] so that the dot products cannot
    dy /= max(dy.max(), -dy.min())  # under/overflow
    r = float(_dot(dx, dy) / math.sqrt(float(_dot(dx, dx)) * float(_dot(dy, dy))))
    return max(-1.0, min(1.0, r))


def _positions(buffer):
    """Fill a float64 array with 1, 2, ..., its size (exact below 2**53) and return it."""
    buffer.fill(1.0)
    return np.cumsum(buffer, out=buffer)


def _group_mean_ranks(ordered, starts):
    """Mean 1-based rank of each position of an ascending float64 array, given where its tie
    groups start; built from two per-group arrays (faster than _position_mean_ranks, and
    smaller while the groups are fewer than half the values). ``ordered`` is returned,
    overwritten."""
    first = np.flatnonzero(starts)
    mean_rank = np.empty(first.size)
    mean_rank[:-1] = first[1:]
    mean_rank[-1] = ordered.size
    mean_rank += first  # first + (last + 1): ranks first+1..last+1 have the mean (sum + 1) / 2
    mean_rank += 1
    mean_rank /= 2
    ordered.fill(0.0)
    ordered[first] = mean_rank
    # the mean ranks rise from group to group: a running maximum carries each one on
    return np.maximum.accumulate(ordered, out=ordered)


def _position_mean_ranks(ordered, starts):
    """As _group_mean_ranks, with no per-group array (for many tie groups): each position's
    group's first and last positions carried forward and back. Returns ``ordered``,
    overwritten; needs one more float64 array of its size."""
    not_last = np.empty_like(starts)  # not the last of its tie group
    np.logical_not(starts[1:], out=not_last[:-1])
    not_last[-1] = False
    first = _positions(ordered)  # 1-based position of each group's first value, carried on
    first *= starts
    np.maximum.accumulate(first, out=first)
    last = _positions(np.empty_like(first))  # ... and of its last value, carried back
    np.copyto(last, math.inf, where=not_last)
    del not_last
    np.minimum.accumulate(last[::-1], out=last[::-1])
    first += last
    first /= 2  # mean of the ranks first..last: exact, as both are integers below 2**53
    return first


def _average_ranks(values):
    """1-based ranks of a float64 array, tied values sharing their mean rank (the numbers of
    ``scipy.stats.rankdata(values)``), as a new float64 array in the order of ``values``.

    Needs the sort order, three float64 arrays of the input's size and two boolean masks;
    two per-group arrays instead of the third array while there are at most 3n/4 groups.
    """
    # Not a stable sort: a tie's average rank does not depend on the order within it.
    order = np.argsort(values)
    ordered = np.take(values, order)
    starts = np.empty(values.size, dtype=bool)  # first of its tie group (in sorted order)
    starts[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=starts[1:])
    if np.count_nonzero(starts) <= values.size // 4 * 3:
        sorted_ranks = _group_mean_ranks(ordered, starts)
    else:
        sorted_ranks = _position_mean_ranks(ordered, starts)
    del starts
    ranks = np.empty_like(sorted_ranks)
    ranks[order] = sorted_ranks
    return ranks


def _ratio(numerator, denominator):
    return float(numerator / denominator) if denominator else 0.0


def _sorted_median(ordered):
    """``np.median`` of an ascending float64 array (the same operations, without its copy
    and partition)."""
    middle = ordered.size // 2
    if ordered.size % 2:
        return float(ordered[middle])
    return (float(ordered[middle - 1]) + float(ordered[middle])) / 2


def _sorted_percentile(ordered, percent):
    """``np.percentile(ordered, percent)`` (linear interpolation) of an ascending float64
    array, with numpy's operations in numpy's order, so that the result is the same float."""
    position = (ordered.size - 1) * (percent / 100)
    if position >= ordered.size - 1:
        return float(ordered[-1])
    low = math.floor(position)
    weight = position - low
    below, above = float(ordered[low]), float(ordered[low + 1])
    step = above - below
    return above - step * (1 - weight) if weight >= 0.5 else below + step * weight


def _error_figures(y_true, y_pred, abs_error, squared):
    """mae, rmse, r2, medae, p95_ae and pearson_r of validated arrays.

    ``abs_error`` (|y_pred - y_true|, this function's own array) is sorted in place;
    ``squared`` is the sum of the squared errors (same units as the arrays).
    """
    n = y_true.size
    work = np.subtract(y_true, y_true.mean())
    total = float(_dot(work, work))
    if total == 0.0 or y_true[0] == y_true.min() == y_true.max():
        r2 = 1.0 if squared == 0.0 else 0.0  # constant references (R² undefined): sklearn's rule
    else:
        r2 = max(1.0 - squared / total, -sys.float_info.max)  # finite even if the ratio is not
    mae = float(abs_error.mean())
    abs_error.sort()  # the one sort serving the median and the 95th percentile
    figures = {"mae": mae, "rmse": math.sqrt(squared / n), "r2": r2,
               "medae": _sorted_median(abs_error), "p95_ae": _sorted_percentile(abs_error, 95)}
    figures["pearson_r"] = _pearson(y_pred, y_true, abs_error, work)  # both buffers are free
    return figures


def _spearman(y_pred, y_true):
    """Spearman's rho: the Pearson correlation of the average ranks (0.0 if one is constant)."""
    pred_ranks = _average_ranks(y_pred)
    true_ranks = _average_ranks(y_true)
    return _pearson(pred_ranks, true_ranks, pred_ranks, true_ranks)


def _zero_classes(true_zero, pred_zero):
    """F1, precision and recall of the class "award is zero", F1 of the class "award is
    positive" (0.0 where undefined) and the accuracy of the zero/positive call."""
    n = true_zero.size
    zero_tp = int(np.count_nonzero(true_zero & pred_zero))
    n_true_zero = int(np.count_nonzero(true_zero))
    n_pred_zero = int(np.count_nonzero(pred_zero))
    # cases positive on both sides: those in neither zero set
    positive_tp = n - (n_true_zero + n_pred_zero - zero_tp)
    return {
        "zero_f1": _ratio(2 * zero_tp, n_pred_zero + n_true_zero),
        "zero_precision": _ratio(zero_tp, n_pred_zero),
        "zero_recall": _ratio(zero_tp, n_true_zero),
        "positive_f1": _ratio(2 * positive_tp, (n - n_true_zero) + (n - n_pred_zero)),
        "zero_positive_accuracy": float((zero_tp + positive_tp) / n),
    }


def _positive_errors(y_true, true_zero, abs_error, exponent):
    """MAE (EUR) and MAPE (%) on the positive-award cases; ``None`` when there are none.
    ``abs_error`` is in units of 2**exponent EUR; MAPE divides by reference + 1 EUR."""
    positive = ~true_zero
    if not positive.any():
        return {"mae_positive_only": None, "mape_positive": None}
    errors = abs_error[positive]
    mae_positive = _unscale(float(errors.mean()), exponent)
    relative = y_true[positive]
    del positive
    relative += MAPE_OFFSET_EUR
    with np.errstate(over="ignore"):
        if exponent:
            np.ldexp(errors, exponent, out=errors)
        np.divide(errors, relative, out=relative)
    return {"mae_positive_only": mae_positive,
            "mape_positive": float(100.0 * relative.mean()) if math.isfinite(relative.max())
            else sys.float_info.max}


def _bucket_mae(y_true, zero_threshold, abs_error, exponent):
    """MAE and count per target range; ``abs_error`` is in units of 2**exponent EUR."""
    # range index = how many of (threshold, low, high) the reference exceeds; a threshold
    # above a bound takes that bound's place (a non-zero amount then exceeds both)
    low, high = (max(bound, zero_threshold) for bound in TARGET_RANGE_BOUNDS)
    above = [y_true > bound for bound in (zero_threshold, low, high)]  # nested sets
    above_counts = [y_true.size] + [int(np.count_nonzero(mask)) for mask in above] + [0]
    range_counts = [above_counts[i] - above_counts[i + 1] for i in range(4)]
    target_range = np.add(above[1], above[2], dtype=np.intp)
    target_range += above[0]
    del above
    range_sums = np.bincount(target_range, weights=abs_error, minlength=4)
    return {name: {"mae": _unscale(float(range_sums[i] / range_counts[i]), exponent)
                   if range_counts[i] else None,
                   "n": int(range_counts[i])}
            for i, name in enumerate(TARGET_RANGES)}


def _error_buckets(y_true, true_zero, abs_error, zero_threshold):
    """Counts of exact / within 10% / 10-50% / over 50% relative errors (EUR inputs)."""
    within, moderate = RELATIVE_ERROR_BOUNDS
    relative = np.maximum(y_true, zero_threshold)
    with np.errstate(over="ignore"):  # an infinite ratio of huge amounts is still "over 50%"
        np.divide(abs_error, relative, out=relative)
    exact = abs_error < zero_threshold
    relative[true_zero] = math.inf  # a missed zero award is "over 50%" unless exact
    relative[exact] = -1.0
    n_exact = int(np.count_nonzero(exact))
    n_up_to_within = int(np.count_nonzero(relative <= within))
    n_up_to_moderate = int(np.count_nonzero(relative <= moderate))
    return dict(zip(ERROR_BUCKETS, (n_exact, n_up_to_within - n_exact,
                                    n_up_to_moderate - n_up_to_within,
                                    true_zero.size - n_up_to_moderate), strict=True))


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
    ratio = float(_dot(error, error)) / float(_dot(deviation, deviation))
    ratio = _unscale(ratio, 2 * (error_exponent - true_exponent))
    return max(1.0 - ratio, -sys.float_info.max)


def _rescaled_error_figures(y_true, y_pred, scaled_error, exponent):
    """_error_figures and spearman_rho for amounts above RESCALE_ABOVE: computed on the amounts divided by
    2**exponent (``scaled_error`` is |y_pred - y_true| so divided, sorted in place), euro
    figures multiplied back, R² from _r2_rescaled."""
    scaled_true, scaled_pred = np.ldexp(y_true, -exponent), np.ldexp(y_pred, -exponent)
    scaled_difference = scaled_pred - scaled_true
    squared = float(_dot(scaled_difference, scaled_difference))
    del scaled_difference
    scaled = _error_figures(scaled_true, scaled_pred, scaled_error, squared)
    scaled["spearman_rho"] = _spearman(scaled_pred, scaled_true)
    figures = {key: _unscale(value, exponent) if key in EURO_FIGURES else value
               for key, value in scaled.items()}
    figures["r2"] = _r2_rescaled(y_true, y_pred)
    return figures


def _report(y_true, y_pred, zero_threshold):
    """All figures for one set of cases (arrays already validated, same length >= 1).

    Amounts above RESCALE_ABOVE are divided by a power of two before any sum (so that no
    figure overflows) and the euro figures multiplied back; below it nothing changes.
    The figures over the cases in their order come first; then the absolute errors are
    sorted (median, percentile) and their array reused, which bounds the memory to a few
    arrays of the input's length.
    """
    exponent = _rescale_exponent(y_true, y_pred)
    abs_error = np.subtract(y_pred, y_true)  # finite: both are in [0, max float]
    # the squares of amounts above RESCALE_ABOVE may overflow: those are summed rescaled
    squared = None if exponent else float(_dot(abs_error, abs_error))
    np.abs(abs_error, out=abs_error)
    scaled_error = np.ldexp(abs_error, -exponent) if exponent else abs_error
    true_zero = _zero_mask(y_true, zero_threshold)
    result = {
        **_zero_classes(true_zero, _zero_mask(y_pred, zero_threshold)),
        **_positive_errors(y_true, true_zero, scaled_error, exponent),
        "bucket_mae": _bucket_mae(y_true, zero_threshold, scaled_error, exponent),
        "error_buckets": _error_buckets(y_true, true_zero, abs_error, zero_threshold),
        "n": y_true.size,
    }
    del true_zero, abs_error
    if exponent:
        figures = _rescaled_error_figures(y_true, y_pred, scaled_error, exponent)
    else:
        figures = _error_figures(y_true, y_pred, scaled_error, squared)
        del scaled_error  # its memory serves the ranks
        figures["spearman_rho"] = _spearman(y_pred, y_true)
    return {**figures, **result}


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
        return amount_pairs_info(_DESCRIPTION, _KWARGS_DESCRIPTION)

    def _compute(self, predictions, references, zero_threshold=0.5, groups=None):
        return npd_regression(predictions=predictions, references=references,
                              zero_threshold=zero_threshold, groups=groups)
