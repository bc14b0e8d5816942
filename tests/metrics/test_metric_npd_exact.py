"""npd_regression, zero_f1 and bootstrap_mae are exact up to float rounding, or refuse, for any
finite input (issue #32, "Metrics exact across the float range").

Every figure is compared with an independent arbitrary-precision reference written here:
exact rationals (``fractions.Fraction``: every float is one) for sums, means, medians,
percentiles, ranks and counts, and ``mpmath`` at 60 digits for the square roots of RMSE and
the correlations. The inputs come from hypothesis over the whole float range — zero, the
smallest subnormal, tiny and huge amounts, the boundary validator's ceiling (1e12 EUR) and
everything above it — so a value is either refused by the validator, naming the argument
and index, or every figure agrees with the reference within float rounding:

- a relative tolerance of 1e-12 (a few thousand units in the last place; sums of n values
  carry up to log2(n) roundings), plus an absolute one of 2**-1060 for results in the
  subnormal range, whose spacing is 2**-1074;
- R² within 1e-12 of the exact value scaled by max(1, |SSE/SST|) (1 − ratio is rounded at the
  scale of the ratio);
- differences and spreads (Δ = MAE1 − MAE2, the interval, the bootstrap standard error)
  within 1e-12 of the largest absolute error: each |prediction − reference| is rounded once,
  and a difference of nearly equal means is known to that rounding, no better;
- counts exactly: zero classes, error buckets (the module decides a case within rounding of a
  bucket bound in exact arithmetic) and Pr(Δ* < 0) (a replicate within rounding of 0 is
  recomputed as one correctly rounded sum of the inputs).
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from metric_helpers import amount_pairs

from courtbench.boundary import AMOUNT_CEILING
from courtbench.metric_modules import load_metric_module

npd = load_metric_module("npd_regression")
zf1 = load_metric_module("zero_f1")
bmae = load_metric_module("bootstrap_mae")

REL = 1e-12
SUBNORMAL_ABS = 2.0 ** -1060
mpmath.mp.dps = 60

#: Amounts from everywhere a float can be: the benchmark's kind of amounts, the edges of the
#: float range (subnormal, tiny, the ceiling) and anything finite at all (above the ceiling:
#: refused).
edge = st.sampled_from([0.0, 5e-324, 2.2250738585072014e-308, 1e-200, 0.5, 0.5000000000000001,
                        1.0, 1e6, AMOUNT_CEILING, math.nextafter(AMOUNT_CEILING, 0)])
amount = st.one_of(
    edge,
    st.integers(0, 2_000_000).map(float),
    st.floats(0, 1e7).map(lambda value: round(value, 2)),
    st.floats(0, AMOUNT_CEILING),
    st.floats(0, 1e-290),
    st.floats(min_value=0, allow_nan=False, allow_infinity=False),
)
any_float = st.one_of(amount, st.floats(allow_nan=True, allow_infinity=True))


@st.composite
def pairs(draw, element=amount, max_size=24):
    n = draw(st.integers(1, max_size))
    return (draw(st.lists(element, min_size=n, max_size=n)),
            draw(st.lists(element, min_size=n, max_size=n)))


def close(got, exact, *, rel=REL):
    exact = float(exact)
    return math.isclose(got, exact, rel_tol=rel, abs_tol=SUBNORMAL_ABS), (got, exact)


def mp(value: Fraction):
    return mpmath.mpf(value.numerator) / value.denominator


def valid(values):
    return all(math.isfinite(v) and 0 <= v <= AMOUNT_CEILING for v in values)


# ----------------------------------------------------------------------------- reference


def ranks(values):
    """Average 1-based ranks (ties share their mean rank), exact."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [Fraction(0)] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = Fraction(i + j + 2, 2)
        i = j + 1
    return out


def correlation(x, y):
    """Exact Pearson r through mpmath (None when one side is constant: the module says 0)."""
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx == 0 or syy == 0:
        return 0.0
    return mp(sxy) / mpmath.sqrt(mp(sxx) * mp(syy))


def percentile(ordered, percent):
    """numpy's linear interpolation, position in exact arithmetic."""
    position = Fraction(len(ordered) - 1) * Fraction(percent) / 100
    low = math.floor(position)
    if low >= len(ordered) - 1:
        return ordered[-1]
    weight = position - low
    return ordered[low] + (ordered[low + 1] - ordered[low]) * weight


def reference(predictions, references, threshold=0.5):
    p = [Fraction(v) for v in predictions]
    y = [Fraction(v) for v in references]
    t = Fraction(threshold)
    n = len(y)
    errors = [abs(a - b) for a, b in zip(p, y, strict=True)]
    ordered = sorted(errors)
    sse = sum(e * e for e in errors)
    mean_y = sum(y) / n
    sst = sum((v - mean_y) ** 2 for v in y)
    if sst == 0:
        r2, ratio = (Fraction(1) if sse == 0 else Fraction(0)), Fraction(0)
    else:
        ratio = sse / sst
        r2 = 1 - ratio
    middle = n // 2
    medae = ordered[middle] if n % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    true_zero = [v <= t for v in y]
    pred_zero = [v <= t for v in p]
    positive = [i for i in range(n) if not true_zero[i]]
    return {
        "mae": sum(errors) / n, "rmse": mpmath.sqrt(mp(sse) / n), "r2": r2, "ratio": ratio,
        "medae": medae, "p95_ae": percentile(ordered, 95),
        "pearson_r": correlation(p, y),
        "spearman_rho": correlation(ranks(predictions), ranks(references)),
        "true_zero": true_zero, "pred_zero": pred_zero, "errors": errors, "y": y, "t": t,
        "mae_positive_only": sum(errors[i] for i in positive) / len(positive) if positive else None,
        "mape_positive": (100 * sum(errors[i] / (y[i] + 1) for i in positive) / len(positive)
                          if positive else None),
    }


# ----------------------------------------------------------------------------- npd_regression


def check_continuous(got, exact):
    for key in ("mae", "rmse", "medae", "p95_ae", "mae_positive_only", "mape_positive"):
        if exact[key] is None:
            assert got[key] is None, key
            continue
        ok, values = close(got[key], exact[key])
        assert ok, (key, values)
    tolerance = REL * max(1.0, float(exact["ratio"]))
    assert abs(got["r2"] - float(exact["r2"])) <= tolerance, (got["r2"], float(exact["r2"]))
    for key in ("pearson_r", "spearman_rho"):
        assert abs(got[key] - float(exact[key])) <= 1e-12, (key, got[key], float(exact[key]))


def check_counts(got, exact):
    tz, pz = exact["true_zero"], exact["pred_zero"]
    n = len(tz)
    tp = sum(a and b for a, b in zip(tz, pz, strict=True))
    assert got["zero_f1"] == (2 * tp / (sum(tz) + sum(pz)) if sum(tz) + sum(pz) else 0.0)
    assert got["zero_positive_accuracy"] == sum(a == b for a, b in zip(tz, pz, strict=True)) / n
    exact_count = sum(e < exact["t"] for e in exact["errors"])
    assert got["error_buckets"]["exact"] == exact_count


def check_buckets(got, exact):
    """Relative-error buckets, except for a ratio within rounding of a bucket bound."""
    bounds = [Fraction(npd.RELATIVE_ERROR_BOUNDS[0]), Fraction(npd.RELATIVE_ERROR_BOUNDS[1])]
    counts = [0, 0, 0, 0]
    for e, y, zero in zip(exact["errors"], exact["y"], exact["true_zero"], strict=True):
        if e < exact["t"]:
            counts[0] += 1
            continue
        if zero:
            counts[3] += 1
            continue
        ratio = e / max(y, exact["t"])
        assume(all(abs(ratio - bound) > bound * Fraction(1, 2**40) for bound in bounds))
        counts[1 if ratio <= bounds[0] else 2 if ratio <= bounds[1] else 3] += 1
    assert list(got["error_buckets"].values()) == counts


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pairs())
@example(([1e12, 0.0, 1000.0, 5000.0, 40000.0], [1e12, 0.0, 1500.0, 5000.0, 60000.0]))
@example(([1e-200, 0.0], [0.0, 1e-200]))
@example(([5e-324, 0.0, 5e-324], [0.0, 5e-324, 5e-324]))
@example(([1e12, 1e12], [1e12, math.nextafter(1e12, 0)]))
def test_npd_regression_is_exact_or_refuses(case):
    predictions, references = case
    if not (valid(predictions) and valid(references)):
        with pytest.raises(ValueError, match=r"^(predictions|references)\[\d+\] = "):
            npd.npd_regression(predictions=predictions, references=references)
        return
    exact = reference(predictions, references)
    try:
        got = npd.npd_regression(predictions=predictions, references=references)
    except ValueError as error:  # only an R² beyond the float range may be refused
        assert "beyond the float range" in str(error)
        assert exact["ratio"] > Fraction(sys.float_info.max)
        return
    check_continuous(got, exact)
    check_counts(got, exact)
    check_buckets(got, exact)


def test_the_reported_underflow_case_is_exact():
    """The case of the issue: a pair of huge equal amounts among ordinary ones gave RMSE 0
    (the rescaled squares underflowed). 1e308 is now beyond the validator's ceiling (refused,
    naming it); at the ceiling itself the figures are exact."""
    ordinary_p, ordinary_y = [0, 1000, 5000, 40000], [0, 1500, 5000, 60000]
    with pytest.raises(ValueError, match=r"^predictions\[0\] = 1e\+308: expected an amount"):
        npd.npd_regression(predictions=[1e308, *ordinary_p], references=[1e308, *ordinary_y])
    got = npd.npd_regression(predictions=[1e12, *ordinary_p], references=[1e12, *ordinary_y])
    exact = reference([1e12, *ordinary_p], [1e12, *ordinary_y])
    check_continuous(got, exact)
    assert got["rmse"] == pytest.approx(math.sqrt((500**2 + 20000**2) / 5), rel=1e-15)


def test_references_a_few_ulps_apart_keep_their_exact_spread():
    """SST of references that differ in their last bits (the corrected two-pass formula):
    a plain two-pass variance would be off by the mean's rounding."""
    y = [5e11, math.nextafter(5e11, 1e12), 5e11, math.nextafter(5e11, 0)]
    p = [5e11] * 4
    exact = reference(p, y)
    got = npd.npd_regression(predictions=p, references=y)
    assert got["r2"] == pytest.approx(float(exact["r2"]), rel=1e-12)


def test_r2_beyond_the_float_range_is_refused():
    with pytest.raises(ValueError, match=r"^references = .*R² = 1 - SSE/SST would be about "
                                         r"-1e\d+, beyond the float range"):
        npd.npd_regression(predictions=[1e12, 0.0], references=[0.0, 5e-324])


@settings(max_examples=60, deadline=None)
@given(amount_pairs())
def test_npd_regression_agrees_with_sklearn_and_scipy_on_benchmark_amounts(case):
    """Independent float references where they are exact enough: scikit-learn's MAE, RMSE,
    R², MedAE; numpy's percentile; scipy's Spearman (ranks of rankdata)."""
    from scipy.stats import spearmanr
    from sklearn.metrics import (
        mean_absolute_error,
        mean_squared_error,
        median_absolute_error,
        r2_score,
    )

    predictions, references = case
    got = npd.npd_regression(predictions=predictions, references=references)
    p, y = np.array(predictions), np.array(references)
    assert got["mae"] == pytest.approx(mean_absolute_error(y, p), rel=1e-12)
    assert got["rmse"] == pytest.approx(math.sqrt(mean_squared_error(y, p)), rel=1e-12)
    assert got["medae"] == pytest.approx(median_absolute_error(y, p), rel=1e-12)
    assert got["p95_ae"] == pytest.approx(float(np.percentile(np.abs(p - y), 95)), rel=1e-12)
    if len(set(references)) > 1:
        assert got["r2"] == pytest.approx(r2_score(y, p), rel=1e-9, abs=1e-9)
    if len(set(references)) > 1 and len(set(predictions)) > 1:
        assert got["spearman_rho"] == pytest.approx(spearmanr(p, y).statistic, abs=1e-12)


@pytest.mark.parametrize("n", [2, 3, 1_000, 70_000])
def test_ranks_equal_scipy_rankdata_on_tied_untied_and_adversarial_values(n):
    """The packed-key sort of the ranks: equal to rankdata on continuous values, rounded
    (tied) ones, values that share their leading 44 bits (the in-run fix-up) and -0.0."""
    from scipy.stats import rankdata

    rng = np.random.default_rng(n)
    continuous = rng.lognormal(8, 1.4, n)
    close_together = 1e6 + rng.integers(0, 64, n) * 2.0 ** -32  # same leading bits
    signed_zero = np.where(rng.random(n) < 0.5, -0.0, 0.0)
    signed_zero[0] = 1.0
    for values in (continuous, continuous.round(-2), close_together, signed_zero,
                   np.concatenate([continuous[: n // 2], continuous[: n - n // 2]])):
        assert np.array_equal(npd._average_ranks(values), rankdata(values))


# ----------------------------------------------------------------------------- zero_f1


@settings(max_examples=200, deadline=None)
@given(pairs(any_float), st.one_of(st.just(0.5), st.floats(allow_nan=True, allow_infinity=True)))
@example(([0.5, 0.5, 1000.0, 1000.0], [0.5, 1000.0, 0.5, 1000.0]), 0.5)
def test_zero_f1_counts_exactly_or_refuses(case, threshold):
    predictions, references = case
    fine = math.isfinite(threshold) and 0 < threshold <= AMOUNT_CEILING
    if not (valid(predictions) and valid(references) and fine):
        with pytest.raises(ValueError, match=r"^(predictions\[|references\[|zero_threshold = )"):
            zf1.zero_f1(predictions=predictions, references=references, zero_threshold=threshold)
        return
    got = zf1.zero_f1(predictions=predictions, references=references, zero_threshold=threshold)
    t = Fraction(threshold)
    true_zero = [Fraction(v) <= t for v in references]
    pred_zero = [Fraction(v) <= t for v in predictions]
    tp = sum(a and b for a, b in zip(true_zero, pred_zero, strict=True))
    assert (got["support"], got["predicted_zeros"]) == (sum(true_zero), sum(pred_zero))
    denominator = sum(true_zero) + sum(pred_zero)
    assert got["zero_f1"] == (float(Fraction(2 * tp, denominator)) if denominator else 0.0)
    counts = zf1.checked_zero_counts(predictions=predictions, references=references,
                                     zero_threshold=threshold)
    assert counts["both_zero"] == tp
    assert sum(counts.values()) == len(references)


# ----------------------------------------------------------------------------- bootstrap_mae


@st.composite
def systems(draw, max_size=12):
    n = draw(st.integers(1, max_size))
    column = st.lists(amount, min_size=n, max_size=n)
    references = draw(column)
    p1 = draw(column)
    # system 2: its own amounts, or system 1 mirrored around the references (exact ties of
    # the absolute errors, where only exact arithmetic knows Δ* = 0)
    mirrored = [min(AMOUNT_CEILING, max(0.0, 2 * y - p)) for p, y in zip(p1, references,
                                                                        strict=True)]
    p2 = draw(st.one_of(column, st.just(mirrored), st.just(list(p1))))
    return p1, p2, references


def exact_replicates(p1, p2, y, n_resamples, seed):
    d = [abs(Fraction(a) - Fraction(r)) - abs(Fraction(b) - Fraction(r))
         for a, b, r in zip(p1, p2, y, strict=True)]
    rng = np.random.default_rng(seed)
    return [sum((d[i] for i in rng.integers(0, len(d), size=len(d))), Fraction(0)) / len(d)
            for _ in range(n_resamples)]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(systems(), st.integers(0, 2**32 - 1))
def test_bootstrap_mae_is_exact_or_refuses(case, seed):
    p1, p2, y = case
    if not (valid(p1) and valid(p2) and valid(y)):
        with pytest.raises(ValueError, match=r"^(predictions1|predictions2|references)\[\d+\]"):
            bmae.bootstrap_mae(predictions1=p1, predictions2=p2, references=y, n_resamples=40,
                               seed=seed)
        return
    got = bmae.bootstrap_mae(predictions1=p1, predictions2=p2, references=y, n_resamples=40,
                             seed=seed)
    n = len(y)
    e1 = [abs(Fraction(a) - Fraction(r)) for a, r in zip(p1, y, strict=True)]
    e2 = [abs(Fraction(b) - Fraction(r)) for b, r in zip(p2, y, strict=True)]
    mae1, mae2 = sum(e1) / n, sum(e2) / n
    assert close(got["mae1"], mae1)[0] and close(got["mae2"], mae2)[0]
    scale = float(mae1 + mae2)
    assert abs(got["delta"] - float(mae1 - mae2)) <= REL * scale + SUBNORMAL_ABS
    exact = exact_replicates(p1, p2, y, 40, seed)
    assert got["prob_1_better"] == sum(r < 0 for r in exact) / 40  # signs: exactly
    largest = float(max(max(e1), max(e2)))
    low, high = np.percentile([float(r) for r in exact], [2.5, 97.5])
    assert abs(got["ci_low"] - low) <= REL * largest + SUBNORMAL_ABS
    assert abs(got["ci_high"] - high) <= REL * largest + SUBNORMAL_ABS


@settings(max_examples=100, deadline=None)
@given(pairs(max_size=12), st.integers(0, 2**32 - 1))
def test_bootstrap_mae_single_standard_error_is_exact(case, seed):
    predictions, references = case
    assume(valid(predictions) and valid(references))
    got = bmae.bootstrap_mae_single(predictions=predictions, references=references,
                                    n_resamples=30, seed=seed)
    exact = exact_replicates(predictions, [0.0] * len(references), references, 30, seed)
    errors = [abs(Fraction(a) - Fraction(r)) for a, r in zip(predictions, references, strict=True)]
    zero_errors = [abs(Fraction(r)) for r in references]
    # the replicate of system "predictions" alone: mean of its errors (exact - the zero system)
    replicates = [r + sum((zero_errors[i] for i in idx), Fraction(0)) / len(references)
                  for r, idx in zip(exact, _indices(len(references), 30, seed), strict=True)]
    mean = sum(replicates) / 30
    variance = sum((r - mean) ** 2 for r in replicates) / 29
    assert close(got["mae"], sum(errors) / len(errors))[0]
    expected = float(mpmath.sqrt(mp(variance)))
    # a spread of means is known to the rounding of the errors it is made of: relative to
    # the largest error (|p - y| itself is rounded once), as for Δ and the interval
    largest = float(max(errors))
    assert abs(got["standard_error"] - expected) <= REL * largest + SUBNORMAL_ABS, (
        got["standard_error"], expected)


def _indices(n, n_resamples, seed):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, n, size=n) for _ in range(n_resamples)]


def test_bootstrap_caps_and_integer_seeds():
    inputs = {"predictions1": [1.0, 2.0], "predictions2": [2.0, 2.0], "references": [0.0, 0.0]}
    with pytest.raises(ValueError, match=r"^seed = 1\.5: expected an integer seed"):
        bmae.bootstrap_mae(**inputs, seed=1.5)
    for huge in (10**9, 10**12):  # 8 GB allocated silently; a numpy MemoryError
        with pytest.raises(ValueError, match=rf"^n_resamples = {huge}: expected a number of "
                                             r"resamples in \[2, 1,000,000\]"):
            bmae.bootstrap_mae(**inputs, n_resamples=huge)
    with pytest.raises(ValueError, match=r"^n_resamples = 1000000: expected at most "
                                         r"2,000,000,000 resampled cases"):
        bmae.bootstrap_mae_single(predictions=[1.0] * 3000, references=[0.0] * 3000,
                                  n_resamples=10**6)
