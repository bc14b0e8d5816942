"""metrics/bootstrap_mae: replicates against a plain loop with the same seed and against
scipy.stats.bootstrap, verdicts, bounded memory, bad input, loading through ``evaluate``
(both configs); its fresh-cache loading and card examples are in test_metric_common.py."""

from __future__ import annotations

import doctest
import tracemalloc
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from metric_helpers import BAD_VALUES, amounts, check_module_folder, run_module_checks
from scipy.stats import bootstrap
from sklearn.metrics import mean_absolute_error

from courtbench.metric_modules import load_metric_module

module = load_metric_module("bootstrap_mae")
bootstrap_mae = module.bootstrap_mae
bootstrap_mae_single = module.bootstrap_mae_single
shared = __import__(f"{module.__package__}.paired_bootstrap", fromlist=["compare_paired"])


def loop_replicates(predictions1, predictions2, references, *, n_resamples, seed):
    """The documented procedure, one resample at a time, from the raw inputs."""
    p1, p2, y = (np.asarray(v, dtype=float) for v in (predictions1, predictions2, references))
    d = np.abs(p1 - y) - np.abs(p2 - y)
    rng = np.random.default_rng(seed)
    replicates = []
    for _ in range(n_resamples):
        idx = rng.integers(0, len(y), size=len(y))
        replicates.append(d[idx].mean())
    return np.array(replicates)


def exact_negative_share(predictions1, predictions2, references, *, n_resamples, seed):
    """Pr(Δ* < 0) with each resample's Δ* summed in exact rational arithmetic (the same
    resamples as :func:`loop_replicates`): the sign a float loop can get wrong when Δ* is
    within rounding of 0."""
    d = [abs(Fraction(a) - Fraction(c)) - abs(Fraction(b) - Fraction(c))
         for a, b, c in zip(predictions1, predictions2, references, strict=True)]
    rng = np.random.default_rng(seed)
    negative = 0
    for _ in range(n_resamples):
        idx = rng.integers(0, len(d), size=len(d))
        negative += sum((d[i] for i in idx), Fraction(0)) < 0
    return negative / n_resamples


@st.composite
def triples(draw, min_size=1, max_size=40):
    n = draw(st.integers(min_size, max_size))
    return tuple(draw(st.lists(amounts, min_size=n, max_size=n)) for _ in range(3))


@settings(max_examples=40, deadline=None)
@given(triples(), st.integers(0, 2**32 - 1), st.integers(2, 120), st.sampled_from([0.01, 0.05, 0.2]))
def test_paired_result_equals_the_plain_loop(data, seed, n_resamples, alpha):
    p1, p2, y = data
    result = bootstrap_mae(predictions1=p1, predictions2=p2, references=y, alpha=alpha,
                           n_resamples=n_resamples, seed=seed)
    replicates = loop_replicates(p1, p2, y, n_resamples=n_resamples, seed=seed)
    assert result["mae1"] == pytest.approx(mean_absolute_error(y, p1))
    assert result["mae2"] == pytest.approx(mean_absolute_error(y, p2))
    assert result["delta"] == result["mae1"] - result["mae2"]
    assert result["prob_1_better"] == exact_negative_share(p1, p2, y, n_resamples=n_resamples,
                                                            seed=seed)
    low, high = np.percentile(replicates, [50 * alpha, 100 - 50 * alpha])
    # the module sums each resample in another order than the loop: equal up to rounding,
    # far below a cent
    assert result["ci_low"] == pytest.approx(low, rel=1e-12, abs=1e-9)
    assert result["ci_high"] == pytest.approx(high, rel=1e-12, abs=1e-9)
    low, high = result["ci_low"], result["ci_high"]
    expected = "1 better" if high < 0 else "2 better" if low > 0 else "not significant"
    assert result["verdict"] == expected
    assert (result["seed"], result["n_resamples"], result["n"]) == (seed, n_resamples, len(y))
    assert result["alpha"] == alpha and result["confidence_level"] == 1 - alpha


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 300), st.integers(0, 2**32 - 1), st.integers(1, 50), st.integers(1, 5000))
def test_chunked_replicates_equal_the_loop_exactly(n, seed, n_resamples, chunk):
    values = np.random.default_rng(n).normal(size=n)
    chunked = module.bootstrap_replicates(values, n_resamples=n_resamples, seed=seed,
                                          max_chunk_elements=chunk)
    rng = np.random.default_rng(seed)
    loop = [values[rng.integers(0, n, size=n)].mean() for _ in range(n_resamples)]
    assert np.array_equal(chunked, loop)


def test_interval_agrees_with_scipy_paired_bootstrap_on_the_same_resamples():
    rng = np.random.default_rng(0)
    n = 400
    y = np.where(rng.random(n) < 0.33, 0.0, rng.lognormal(8.7, 1.3, n).round())
    p1 = y * rng.lognormal(0, 0.4, n)
    p2 = y * rng.lognormal(0, 0.7, n)
    ours = bootstrap_mae(predictions1=p1, predictions2=p2, references=y, seed=7)

    def delta(a, b, r, axis=-1):
        return np.abs(a - r).mean(axis=axis) - np.abs(b - r).mean(axis=axis)

    theirs = bootstrap((p1, p2, y), delta, paired=True, vectorized=True, n_resamples=1000,
                       method="percentile", confidence_level=0.95,
                       rng=np.random.default_rng(7)).confidence_interval
    assert ours["ci_low"] == pytest.approx(theirs.low, rel=1e-9)
    assert ours["ci_high"] == pytest.approx(theirs.high, rel=1e-9)

    single = bootstrap_mae_single(predictions=p1, references=y, seed=7)
    theirs = bootstrap((np.abs(p1 - y),), np.mean, vectorized=True, n_resamples=1000,
                       method="percentile", rng=np.random.default_rng(7))
    assert single["ci_low"] == pytest.approx(theirs.confidence_interval.low, rel=1e-9)
    assert single["ci_high"] == pytest.approx(theirs.confidence_interval.high, rel=1e-9)
    assert single["standard_error"] == pytest.approx(theirs.standard_error, rel=1e-9)


def test_single_config_matches_the_loop():
    p = [0, 900, 5200, 48000, 0, 12000, 300]
    y = [0, 1000, 5000, 50000, 0, 10000, 0]
    result = bootstrap_mae_single(predictions=p, references=y, n_resamples=300, seed=3)
    # system 2 = the references themselves has zero error, so the paired statistic is |p - y|
    replicates = loop_replicates(p, y, y, n_resamples=300, seed=3)
    assert result["mae"] == pytest.approx(mean_absolute_error(y, p))
    assert result["standard_error"] == pytest.approx(np.std(replicates, ddof=1), rel=1e-12)
    assert (result["ci_low"], result["ci_high"]) == tuple(np.percentile(replicates, [2.5, 97.5]))
    assert result["signature"].startswith("bootstrap_mae:single|n:7|resamples:300|seed:3|")


def test_verdicts_and_determinism():
    y = [0, 1000, 5000, 50000, 0, 10000, 2500, 800] * 5
    good = [v * 1.02 for v in y]
    bad = [3200.0] * len(y)
    first = bootstrap_mae(predictions1=good, predictions2=bad, references=y)
    assert first["verdict"] == "1 better" and first["prob_1_better"] == 1.0
    assert bootstrap_mae(predictions1=bad, predictions2=good, references=y)["verdict"] \
        == "2 better"
    same = bootstrap_mae(predictions1=good, predictions2=good, references=y)
    assert same["verdict"] == "not significant" and same["prob_1_better"] == 0.0
    assert first == bootstrap_mae(predictions1=good, predictions2=bad, references=y)
    assert first["seed"] == module.DEFAULT_SEED and first["n_resamples"] == 1000
    other = bootstrap_mae(predictions1=good, predictions2=bad, references=y, seed=1,
                          n_resamples=1000)
    assert other["ci_low"] != first["ci_low"]
    assert first["numpy_version"] == np.__version__ and np.__version__ in first["signature"]


def test_point_estimates_are_invariant_to_case_order():
    rng = np.random.default_rng(5)
    y = rng.lognormal(8, 1, 200)
    p1, p2 = y * rng.lognormal(0, 0.3, 200), y * rng.lognormal(0, 0.5, 200)
    order = rng.permutation(200)
    a = bootstrap_mae(predictions1=p1, predictions2=p2, references=y, n_resamples=200)
    b = bootstrap_mae(predictions1=p1[order], predictions2=p2[order], references=y[order],
                      n_resamples=200)
    for key in ("mae1", "mae2", "delta"):
        assert a[key] == pytest.approx(b[key], rel=1e-12)
    # replicates resample positions, so the interval changes only by resampling noise
    assert abs(a["ci_low"] - b["ci_low"]) < 0.5 * abs(a["ci_high"] - a["ci_low"])


def test_memory_is_bounded_by_chunking():
    """n = 200,000 with 50 resamples would need 160 MB for a full index matrix plus gathered
    values; chunked, the peak stays near 16 bytes x MAX_CHUNK_ELEMENTS (64 MiB) + inputs."""
    n = 200_000
    rng = np.random.default_rng(0)
    y = rng.random(n) * 1000
    p1, p2 = y + rng.random(n), y + 2 * rng.random(n)
    tracemalloc.start()
    try:
        result = bootstrap_mae(predictions1=p1, predictions2=p2, references=y, n_resamples=50)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result["verdict"] == "1 better"
    assert peak < 16 * shared.MAX_CHUNK_ELEMENTS + 10 * 8 * n  # chunk + a few n-sized arrays
    assert peak < 100 * 2**20


@pytest.mark.parametrize("argument", ["predictions1", "predictions2", "references"])
@pytest.mark.parametrize(("bad", "shown"), BAD_VALUES)
def test_bad_values_name_argument_index_and_value(argument, bad, shown):
    values = {"predictions1": [1.0, 2.0], "predictions2": [2.0, 1.0], "references": [1.5, 1.5]}
    values[argument][1] = bad
    with pytest.raises(ValueError) as error:
        bootstrap_mae(**values)
    assert f"{argument}[1] = {shown}" in str(error.value)


@pytest.mark.parametrize(("options", "message"), [
    ({"alpha": 0}, "alpha = 0"),
    ({"alpha": 1.0}, "alpha = 1.0"),
    ({"alpha": float("nan")}, "alpha = nan"),
    ({"alpha": True}, "alpha = True"),
    ({"n_resamples": 1}, "n_resamples = 1"),
    ({"n_resamples": 10.5}, "n_resamples = 10.5: expected a number of resamples"),
    ({"n_resamples": True}, "n_resamples = True"),
    ({"seed": -1}, "seed = -1"),
    ({"seed": "1"}, "seed = '1'"),
    ({"seed": None}, "seed = None"),
    ({"seed": 1.5}, "seed = 1.5: expected an integer seed in [0, 4,294,967,295]"),
    ({"seed": 2**32}, "seed = 4294967296"),
    ({"n_resamples": 10**9}, "n_resamples = 1000000000: expected a number of resamples in "
                             "[2, 1,000,000]"),
])
def test_bad_options(options, message):
    with pytest.raises(ValueError) as error:
        bootstrap_mae(predictions1=[1], predictions2=[2], references=[1], **options)
    assert message in str(error.value)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"predictions1": [1, 2], "predictions2": [1], "references": [1, 2]},
     "predictions2 = '<1 values>': expected one value per case (predictions1 has 2)"),
    ({"predictions1": [1], "predictions2": [1], "references": [1, 2]},
     "references = '<2 values>': expected one value per case (predictions1 has 1)"),
    ({"predictions1": [], "predictions2": [], "references": []},
     "predictions1 = []: expected at least one amount"),
])
def test_length_mismatch_and_empty(kwargs, message):
    with pytest.raises(ValueError) as error:
        bootstrap_mae(**kwargs)
    assert message in str(error.value)


def test_module_docstring_examples():
    results = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert results.attempted >= 3 and results.failed == 0


def test_folder_layout_and_card_metadata():
    check_module_folder("bootstrap_mae", {"datasets", "evaluate", "numpy"})


FRESH_CHECK = """
import json
import evaluate
paired = evaluate.load("metrics/bootstrap_mae")
single = evaluate.load("metrics/bootstrap_mae", "single")
p1 = [0, 900, 5200, 48000, 0, 12000]
p2 = [3200] * 6
y = [0, 1000, 5000, 50000, 0, 10000]
direct = paired.compute(predictions1=p1, predictions2=p2, references=y, n_resamples=300)
paired.add_batch(predictions1=p1[:2], predictions2=p2[:2], references=y[:2])
paired.add_batch(predictions1=p1[2:], predictions2=p2[2:], references=y[2:])
batched = paired.compute(n_resamples=300)
one = single.compute(predictions=p1, references=y, seed=4)
try:
    paired.compute(predictions1=p1, predictions2=p2[:-1] + [-1.0], references=y)
    error = None
except ValueError as exc:
    error = str(exc)
try:
    evaluate.load("metrics/bootstrap_mae", "triple")
    config_error = None
except ValueError as exc:
    config_error = str(exc)
result = {"types": [cls.__name__ for cls in type(paired).__mro__],
          "features": [list(paired.features), list(single.features)],
          "direct": direct, "batched": batched, "single": one, "error": error,
          "config_error": config_error}
"""


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """Both configs through evaluate.load (in this process; fresh-cache loading: test_metric_common)."""
    return run_module_checks(FRESH_CHECK)


def test_evaluate_wrapper_compute_add_batch_and_errors(fresh):
    got = fresh["check"]
    p1 = [0, 900, 5200, 48000, 0, 12000]
    y = [0, 1000, 5000, 50000, 0, 10000]
    expected = bootstrap_mae(predictions1=p1, predictions2=[3200] * 6, references=y,
                             n_resamples=300)
    assert "Comparison" in got["types"]
    assert got["features"] == [["predictions1", "predictions2", "references"],
                               ["predictions", "references"]]
    assert got["direct"] == expected
    assert got["batched"] == expected
    assert got["single"] == bootstrap_mae_single(predictions=p1, references=y, seed=4)
    assert got["error"].startswith("predictions2[5] = -1.0")
    assert "config_name = 'triple'" in got["config_error"]



def test_identical_systems_are_not_significant_in_the_module_and_the_leaderboard():
    """The module and the leaderboard's schema run the same comparison: ties are no win."""
    from courtbench.leaderboard.results_schema import paired_bootstrap

    y = [0.0, 1000.0, 5000.0, 50000.0]
    p = [10.0, 900.0, 5200.0, 48000.0]
    module_result = bootstrap_mae(predictions1=p, predictions2=list(p), references=y)
    errors = [abs(a - b) for a, b in zip(p, y, strict=True)]
    board = paired_bootstrap(errors, list(errors), lower_is_better=True)
    assert module_result["verdict"] == "not significant"
    assert board["verdict"] == "no significant difference"
    assert board["p_a_better"] == board["p_b_better"] == module_result["prob_1_better"] == 0.0
    assert (board["ci_low"], board["ci_high"]) == (0.0, 0.0)


def test_leaderboard_comparison_agrees_with_the_module_on_real_differences():
    rng = np.random.default_rng(3)
    y = rng.uniform(0, 1000, 40)
    p1, p2 = y + rng.uniform(0, 50, 40), y + rng.uniform(0, 400, 40)
    from courtbench.leaderboard.results_schema import paired_bootstrap

    result = bootstrap_mae(predictions1=p1, predictions2=p2, references=y)
    board = paired_bootstrap(np.abs(p1 - y), np.abs(p2 - y), lower_is_better=True)
    assert result["verdict"] == "1 better" and board["verdict"] == "A better"
    assert board["ci_low"] == pytest.approx(result["ci_low"])
    assert board["p_a_better"] == pytest.approx(result["prob_1_better"])
