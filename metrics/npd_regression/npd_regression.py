"""npd_regression: regression metrics for non-pecuniary damage (NPD) awards in euros.

The ECtHR-NPD benchmark (European Court of Human Rights, non-pecuniary damage) asks for one
non-negative euro amount per judgment. The target is zero-inflated and heavy-tailed, so the
benchmark reports a panel of numbers instead of one: MAE (primary), RMSE, R², MedAE, the 95th
percentile of absolute errors, Pearson r, Spearman rho, the F1 of the zero-award class, MAE by
target range and error buckets.

Every figure is exact up to float rounding for any input the boundary validator accepts
(amounts in [0, 1e12] EUR, subnormal ones included), or refused: sums of squares cannot
overflow in that range; where squares could underflow (deviations below 2**-400 EUR) the
values are rescaled by a power of two, which is exact; variances use the corrected two-pass
formula, so references a few ulps apart still give their exact spread; an R² beyond the float
range is refused, never clipped.

The computation is the plain function :func:`npd_regression`; :class:`NpdRegression` is a thin
``evaluate.Metric`` wrapper around it. This file imports nothing from the repository it was
written in, so that it also runs from a Hugging Face Space.
"""

import math
from fractions import Fraction

import evaluate
import numpy as np

from .boundary import BoundaryError
from .checked_wrapper import CheckedWrapper
from .npd_amounts import (
    _check_example,
    _check_pair,
    _check_threshold,
    _zero_mask,
    amount_pairs_info,
)

_DESCRIPTION = """\
Regression metrics for euro award predictions (ECtHR-NPD): mae, rmse, r2, medae, p95_ae,
pearson_r, spearman_rho, zero-award F1/precision/recall, positive-award F1, zero/positive
accuracy, MAE on positive awards, MAPE on positive awards (+1 EUR in the denominator), MAE by
target range (bucket_mae) and relative-error buckets (error_buckets). A value at or below
`zero_threshold` (default 0.5 EUR) counts as a zero award, as in the authors' evaluator.
Optional `groups` give the same report per group (e.g. per violated article).
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of float): predicted awards in EUR, finite, >= 0 and <= 1e12, one per
        case.
    references (list of float): awarded amounts in EUR, likewise, same length >= 1.
    zero_threshold (float, keyword-only): amounts at or below it count as a zero award
        (default 0.5 EUR); must be > 0 and <= 1e12.
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
#: Added to a positive reference in MAPE's denominator (EUR), as the authors' evaluator does.
MAPE_OFFSET_EUR = 1.0
#: Most labels ``groups`` may name (each adds a full report): a work parameter's cap.
MAX_GROUP_LABELS = 10_000
#: Below this magnitude squares and products could underflow and lose the value: arrays
#: whose largest magnitude lies below it are rescaled by a power of two first (exact).
TINY = 2.0 ** -400


def _group_indices(groups, n):
    """Map every label in ``groups`` (one str or list of str per case) to its case indices."""
    if isinstance(groups, np.ndarray):
        groups = groups.tolist()
    if not isinstance(groups, (list, tuple)):
        raise BoundaryError("groups", f"<{type(groups).__name__}>",
                            "a list with one label (or list of labels) per case")
    if len(groups) != n:
        raise BoundaryError("groups", f"<{len(groups):,} entries>",
                            f"one entry per case ({n:,} predictions)")
    members = {}
    for index, entry in enumerate(groups):
        labels = [entry] if isinstance(entry, str) else entry
        if not isinstance(labels, (list, tuple)) or not all(isinstance(x, str) for x in labels):
            raise BoundaryError(f"groups[{index}]", entry, "a string or a list of strings")
        for label in set(labels):
            members.setdefault(label, []).append(index)
        if len(members) > MAX_GROUP_LABELS:
            raise BoundaryError("groups", f"<more than {MAX_GROUP_LABELS:,} labels>",
                                f"at most {MAX_GROUP_LABELS:,} distinct labels")
    return {label: np.asarray(members[label], dtype=np.intp) for label in sorted(members)}


def _dot(x, y):
    """Sum of ``x * y`` over two 1-D float64 arrays of one size, as a Python float.

    numpy's own loop (einsum), not BLAS: np.dot hands arrays above 10,000 values to
    OpenBLAS threads, and waking them on a busy machine took milliseconds per call.
    """
    return float(np.einsum("i,i->", x, y))


def _largest_magnitude(values):
    return max(float(values.max()), -float(values.min()))


def _scale_tiny(values, largest):
    """``(values, k)``: ``values`` divided by ``2**k`` in place when the largest magnitude
    lies below :data:`TINY` (``k`` makes it about 1), else unchanged with ``k = 0``."""
    if largest == 0.0 or largest >= TINY:
        return values, 0
    exponent = math.frexp(largest)[1]
    return np.ldexp(values, -exponent, out=values), exponent


def _deviations(values, out=None):
    """``(d, k)``: ``d = (values - mean) / 2**k`` (into ``out``, a new array when None), ``k``
    from :func:`_scale_tiny`; ``d`` is all zeros for constant values."""
    d = np.subtract(values, values.mean(), out=out)
    return _scale_tiny(d, _largest_magnitude(d))


def _centred_moments(dx, dy):
    """``(sxx, syy, sxy)`` of deviations from any centres (the corrected two-pass formula:
    ``Σ dx dy - Σ dx Σ dy / n``, exact whatever rounding error the centres carry)."""
    n = dx.size
    sx, sy = float(dx.sum()), float(dy.sum())
    return (_dot(dx, dx) - sx * sx / n, _dot(dy, dy) - sy * sy / n, _dot(dx, dy) - sx * sy / n)


def _correlation(dx, dy):
    """Pearson correlation of two arrays of deviations (each scaled by its own power of two,
    which r does not see); 0.0 when either side is constant (including n = 1)."""
    sxx, syy, sxy = _centred_moments(dx, dy)
    if sxx <= 0.0 or syy <= 0.0:
        return 0.0
    product = sxx * syy
    # one root where the product is a normal float; else two roots (no underflow)
    scale = math.sqrt(product) if product >= 2.0 ** -1000 else math.sqrt(sxx) * math.sqrt(syy)
    r = sxy / scale
    return max(-1.0, min(1.0, r))


# --------------------------------------------------------------------------- ranks


def _group_mean_ranks(ordered, starts):
    """Mean 1-based rank of each position of a sorted array, given where its tie groups start
    (for many ties), built from two per-group arrays. ``ordered`` (float64) is returned,
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


def _few_ties_ranks(starts):
    """Mean 1-based ranks of the positions of a sorted array with few ties (most positions
    start their own tie group): the positions 1..n, each tie group's set to its mean."""
    ranks = np.arange(1.0, starts.size + 1.0)
    continuing = np.flatnonzero(~starts)  # positions that tie with the one before
    if continuing.size == 0:
        return ranks
    involved = np.union1d(continuing - 1, continuing)  # every member of a tie group
    first = np.flatnonzero(starts[involved])  # where each group begins within ``involved``
    size = np.diff(first, append=involved.size)
    mean = involved[first] + (size + 1) / 2  # first 0-based position + (size + 1) / 2
    ranks[involved] = np.repeat(mean, size)
    return ranks


def _sorted_keys(values, shift):
    """The ascending sort of ``(value bits above the low `shift` bits, position)`` packed in
    one uint64 per value.

    A non-negative float's bit pattern orders like the float itself, so sorting these keys
    (numpy's vectorised sort of plain integers, several times faster than an argsort) orders
    the values by their leading bits and carries each value's position in the low bits. The
    sign bit is cleared, so -0.0 sorts as 0.0.
    """
    keep = np.uint64(((1 << 63) - 1) & ~((1 << shift) - 1))
    keys = np.bitwise_and(values.view(np.uint64), keep)
    keys |= np.arange(values.size, dtype=np.uint64)
    keys.sort()
    return keys


def _same_leading_bits(keys, shift):
    """Boolean array: position i holds a value with the same leading bits as position i - 1."""
    same = np.empty(keys.size, dtype=bool)
    same[0] = False
    step = np.bitwise_xor(keys[1:], keys[:-1])
    step >>= np.uint64(shift)
    np.equal(step, 0, out=same[1:])
    return same


def _sort_within_runs(order, same, values, disordered):
    """Put the positions of ``order`` in value order inside the runs of equal leading bits
    that hold a disorder (``disordered``: positions i with values[order[i]] <
    values[order[i - 1]]). Rare: values that agree in their leading 44+ bits."""
    run_starts = np.flatnonzero(~same)
    which = np.unique(np.searchsorted(run_starts, disordered, side="right") - 1)
    begin = run_starts[which]
    after = which + 1  # the next run's start, or the end for the last run
    end = np.where(after < run_starts.size, run_starts[np.minimum(after, run_starts.size - 1)],
                   same.size)
    length = end - begin
    run = np.repeat(np.arange(which.size), length)
    members = np.repeat(begin - np.cumsum(length) + length, length) + np.arange(length.sum())
    chosen = order[members]
    order[members] = chosen[np.lexsort((values[chosen], run))]


def _tie_starts(order, same, values, exact_keys):
    """``starts``: True where a tie group of the sorted values begins. With ``exact_keys``
    the leading bits are the whole value; otherwise neighbours that share their leading bits
    are compared in full (and put in order first if they are not)."""
    starts = ~same
    if exact_keys:
        return starts
    candidates = np.flatnonzero(same)
    if candidates.size == 0:
        return starts
    later, earlier = values[order[candidates]], values[order[candidates - 1]]
    if np.any(later < earlier):
        _sort_within_runs(order, same, values, candidates[later < earlier])
        later, earlier = values[order[candidates]], values[order[candidates - 1]]
    starts[candidates[later != earlier]] = True
    return starts


def _average_ranks(values):
    """1-based ranks of a float64 array (values >= 0 or -0.0), tied values sharing their mean
    rank (the numbers of ``scipy.stats.rankdata(values)``), as a new float64 array in the order
    of ``values``.

    Sorts packed ``(leading bits, position)`` keys (:func:`_sorted_keys`) instead of an
    argsort; positions whose leading bits tie are compared in full.
    """
    n = values.size
    shift = max(1, (n - 1).bit_length())
    low_bits = np.uint64((1 << shift) - 1)
    exact_keys = not np.any(np.bitwise_and(values.view(np.uint64), low_bits))
    keys = _sorted_keys(values, shift)
    same = _same_leading_bits(keys, shift)
    keys &= low_bits
    order = keys.view(np.int64)  # the positions, in ascending order of the values
    starts = _tie_starts(order, same, values, exact_keys)
    del same
    if np.count_nonzero(starts) <= n // 4 * 3:
        sorted_ranks = _group_mean_ranks(np.empty(n), starts)
    else:
        sorted_ranks = _few_ties_ranks(starts)
    del starts
    ranks = np.empty(n)
    ranks[order] = sorted_ranks
    return ranks


def _spearman(y_pred, y_true):
    """Spearman's rho: the Pearson correlation of the average ranks (0.0 if one is constant)."""
    if y_pred.min() == y_pred.max() or y_true.min() == y_true.max():
        return 0.0
    pred_ranks = _average_ranks(y_pred)
    true_ranks = _average_ranks(y_true)
    middle = (y_pred.size + 1) / 2  # the mean of any average ranks, exactly
    pred_ranks -= middle
    true_ranks -= middle
    return _correlation(pred_ranks, true_ranks)


# --------------------------------------------------------------------------- error figures


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


def _r2(y_true, deviations, residual, exponents, where):
    """R² = 1 - SSE / SST from the references' deviations (scaled by ``2**exponents[1]``)
    and ``residual`` = SSE / 4**exponents[0]; scikit-learn's rule for constant references.

    Raises:
        BoundaryError: naming ``where``, when R² lies beyond the float range (references whose
            spread is over 10**154 times smaller than the errors): refused, never clipped.
    """
    if y_true.min() == y_true.max():
        return 1.0 if residual == 0.0 else 0.0  # R² undefined: scikit-learn's force_finite
    n = deviations.size
    total = _dot(deviations, deviations) - float(deviations.sum()) ** 2 / n
    residual_mantissa, residual_exponent = math.frexp(residual)
    total_mantissa, total_exponent = math.frexp(total)
    exponent = residual_exponent - total_exponent + 2 * (exponents[0] - exponents[1])
    try:  # SSE / SST as mantissa ratio (0.5 to 2) times a power of two: no hidden inf
        ratio = math.ldexp(residual_mantissa / total_mantissa, exponent)
    except OverflowError:
        spread = math.ldexp(math.sqrt(total / n), exponents[1])
        raise BoundaryError(where, f"<{n:,} amounts of standard deviation {spread:.3g} EUR>",
                            "references whose spread is not vanishing next to the errors "
                            f"(R² = 1 - SSE/SST would be about -1e{exponent * 0.30103:.0f}, "
                            "beyond the float range)") from None
    return 1.0 - ratio


def _error_figures(y_true, y_pred, abs_error, where):
    """mae, rmse, r2, medae, p95_ae and pearson_r of validated arrays (``where``: how a
    refusal names the references).

    ``abs_error`` (|y_pred - y_true|, this function's own array) is sorted in place and then
    used as a work buffer.
    """
    n = y_true.size
    largest = float(abs_error.max())
    scaled, error_exponent = _scale_tiny(abs_error, largest)
    residual = _dot(scaled, scaled)  # SSE / 4**error_exponent: no overflow below n * 1e24
    mae = math.ldexp(float(scaled.mean()), error_exponent)
    rmse = math.ldexp(math.sqrt(residual / n), error_exponent)
    scaled.sort()  # the one sort serving the median and the 95th percentile
    medae = math.ldexp(_sorted_median(scaled), error_exponent)
    p95 = math.ldexp(_sorted_percentile(scaled, 95), error_exponent)
    figures = {"mae": mae, "rmse": rmse}
    true_deviations, true_exponent = _deviations(y_true)
    figures["r2"] = _r2(y_true, true_deviations, residual, (error_exponent, true_exponent),
                        where)
    figures.update(medae=medae, p95_ae=p95)
    if y_pred.min() == y_pred.max() or y_true.min() == y_true.max():
        figures["pearson_r"] = 0.0
    else:
        pred_deviations, _ = _deviations(y_pred, scaled)  # the sorted errors are done
        figures["pearson_r"] = _correlation(pred_deviations, true_deviations)
    return figures


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


def _positive_errors(y_true, true_zero, abs_error):
    """MAE (EUR) and MAPE (%) on the positive-award cases; ``None`` when there are none.
    MAPE divides by reference + 1 EUR (>= 1, so every ratio is at most 1e12)."""
    positive = ~true_zero
    if not positive.any():
        return {"mae_positive_only": None, "mape_positive": None}
    errors = abs_error[positive]
    relative = y_true[positive]
    del positive
    relative += MAPE_OFFSET_EUR
    mae_positive = float(errors.mean())
    np.divide(errors, relative, out=relative)
    return {"mae_positive_only": mae_positive, "mape_positive": float(100.0 * relative.mean())}


def _bucket_mae(y_true, zero_threshold, abs_error):
    """MAE and count per target range."""
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
    return {name: {"mae": float(range_sums[i] / range_counts[i]) if range_counts[i] else None,
                   "n": int(range_counts[i])}
            for i, name in enumerate(TARGET_RANGES)}


def _exact_bucket(prediction, reference, zero_threshold):
    """The error bucket (0 exact, 1 within 10%, 2 10-50%, 3 over 50%) of one case of a
    positive reference, decided in exact rational arithmetic (every float is a rational)."""
    error = abs(Fraction(prediction) - Fraction(reference))
    threshold = Fraction(zero_threshold)
    if error < threshold:
        return 0
    base = max(Fraction(reference), threshold)
    within, moderate = (Fraction(bound).limit_denominator(100) for bound in RELATIVE_ERROR_BOUNDS)
    return 1 if error <= within * base else 2 if error <= moderate * base else 3


#: Half-width (relative) of the window around a bucket bound within which a float ratio may
#: lie on the wrong side of it: the error and the ratio are each rounded once (2 units in the
#: last place; 8 taken).
ROUNDING_WINDOW = 2.0 ** -49


def _near_bounds(relative, abs_error, zero_threshold):
    """Positions whose bucket a rounding may have decided: an error equal to the threshold
    (its exact value may lie below), or a ratio within ROUNDING_WINDOW of 10% or 50%. Found by
    counting at both ends of each window first: one comparison per bound in the common case
    of none."""
    near = []
    if np.count_nonzero(abs_error <= zero_threshold) != np.count_nonzero(abs_error < zero_threshold):
        near.append(np.flatnonzero(abs_error == zero_threshold))
    for bound in RELATIVE_ERROR_BOUNDS:
        low, high = bound * (1 - ROUNDING_WINDOW), bound * (1 + ROUNDING_WINDOW)
        if np.count_nonzero(relative <= low) != np.count_nonzero(relative <= high):
            near.append(np.flatnonzero((relative > low) & (relative <= high)))
    return np.unique(np.concatenate(near)).tolist() if near else []


def _error_buckets(y_true, y_pred, true_zero, abs_error, zero_threshold):
    """Counts of exact / within 10% / 10-50% / over 50% relative errors (EUR inputs).

    The float ratio |e| / max(reference, threshold) decides almost every case; a case whose
    error or ratio lies within rounding of a bound (:func:`_near_bounds`) is decided again in
    exact arithmetic, so no rounding moves a case across a bound.
    """
    within, moderate = RELATIVE_ERROR_BOUNDS
    relative = np.maximum(y_true, zero_threshold)
    with np.errstate(over="ignore"):  # a tiny threshold: an infinite ratio is "over 50%"
        np.divide(abs_error, relative, out=relative)
    exact = abs_error < zero_threshold
    relative[true_zero] = math.inf  # a missed zero award is "over 50%" unless exact
    relative[exact] = -1.0
    for index in _near_bounds(relative, abs_error, zero_threshold):
        bucket = _exact_bucket(y_pred[index], y_true[index], zero_threshold)
        if bucket != 0 and true_zero[index]:
            bucket = 3
        exact[index] = bucket == 0
        relative[index] = (-1.0, 0.0, moderate, math.inf)[bucket]
    n_exact = int(np.count_nonzero(exact))
    n_up_to_within = int(np.count_nonzero(relative <= within))
    n_up_to_moderate = int(np.count_nonzero(relative <= moderate))
    return dict(zip(ERROR_BUCKETS, (n_exact, n_up_to_within - n_exact,
                                    n_up_to_moderate - n_up_to_within,
                                    true_zero.size - n_up_to_moderate), strict=True))


def _report(y_true, y_pred, zero_threshold, where="references"):
    """All figures for one set of cases (arrays already validated, same length >= 1);
    ``where`` names the cases' references in a refusal.

    The figures over the cases in their order come first; then the absolute errors are
    sorted (median, percentile) and their array reused, which bounds the memory to a few
    arrays of the input's length.
    """
    abs_error = np.subtract(y_pred, y_true)
    np.abs(abs_error, out=abs_error)
    true_zero = _zero_mask(y_true, zero_threshold)
    result = {
        **_zero_classes(true_zero, _zero_mask(y_pred, zero_threshold)),
        **_positive_errors(y_true, true_zero, abs_error),
        "bucket_mae": _bucket_mae(y_true, zero_threshold, abs_error),
        "error_buckets": _error_buckets(y_true, y_pred, true_zero, abs_error, zero_threshold),
        "n": y_true.size,
    }
    del true_zero
    figures = _error_figures(y_true, y_pred, abs_error, where)
    del abs_error  # its memory serves the ranks
    figures["spearman_rho"] = _spearman(y_pred, y_true)
    return {**figures, **result}


def npd_regression(*, predictions, references, zero_threshold=0.5, groups=None):
    """Score euro award predictions against references.

    Args:
        predictions: predicted awards (EUR), a list/tuple/1-D array of amounts: finite
            numbers in [0, 1e12] (the boundary validator's ceiling).
        references: awarded amounts (EUR), same length >= 1, likewise.
        zero_threshold: an amount at or below it (EUR) counts as a zero award (positive
            means above it, the authors' rule); > 0 and <= 1e12.
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
        ValueError: (``BoundaryError``) naming the argument, the first offending index and
            value, for invalid input (see the metric card); also an R² beyond the float range.
        TypeError: an unknown keyword argument or a missing input (Python's rule for calls).
    """
    y_pred, y_true = _check_pair(predictions, references)
    threshold = _check_threshold(zero_threshold)
    members = None if groups is None else _group_indices(groups, y_pred.size)
    result = _report(y_true, y_pred, threshold)
    result["zero_threshold"] = threshold
    if members is not None:
        result["groups"] = {label: _report(y_true[index], y_pred[index], threshold,
                                           f"references of group {label!r}")
                            for label, index in members.items()}
    return result


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class NpdRegression(CheckedWrapper, evaluate.Metric):
    """``evaluate`` wrapper of :func:`npd_regression`."""

    FUNCTION = "npd_regression"
    OPTIONS = ("zero_threshold", "groups")

    def check_batch(self, batch):
        _check_pair(batch["predictions"], batch["references"])

    def check_one(self, example):
        _check_example(example)

    def _info(self):
        return amount_pairs_info(_DESCRIPTION, _KWARGS_DESCRIPTION)

    def _compute(self, predictions, references, zero_threshold=0.5, groups=None):
        return npd_regression(predictions=predictions, references=references,
                              zero_threshold=zero_threshold, groups=groups)
