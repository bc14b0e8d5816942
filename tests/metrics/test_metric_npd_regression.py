"""metrics/npd_regression: against scikit-learn and scipy, invariances, bad input, loading
through ``evaluate`` (fresh-cache loading and card examples: test_metric_common.py)."""

from __future__ import annotations

import csv
import doctest
import math
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from metric_helpers import (
    BAD_VALUES,
    amount_pairs,
    check_module_folder,
    run_module_checks,
)
from scipy.stats import pearsonr, rankdata, spearmanr
from sklearn.metrics import (
    f1_score,
    mean_absolute_error,
    mean_squared_error,
    median_absolute_error,
    precision_score,
    r2_score,
    recall_score,
)

from courtbench.metric_modules import load_metric_module

module = load_metric_module("npd_regression")
npd_regression = module.npd_regression

SCALAR_KEYS = ("mae", "rmse", "r2", "medae", "p95_ae", "pearson_r", "spearman_rho", "zero_f1",
               "zero_precision", "zero_recall")


def close(a, b):
    return a == pytest.approx(b, rel=1e-9, abs=1e-7)


def without_crumbs(pair):
    """The pair with amounts below 1e-100 EUR set to 0: where float references underflow, and
    where references that differ by such crumbs only give an R² beyond the float range (which
    npd_regression refuses; see test_metric_npd_exact.py)."""
    return tuple([v if v == 0 or v > 1e-100 else 0.0 for v in values] for values in pair)


def reference_p95(abs_errors):
    """95th percentile by linear interpolation between order statistics, in plain Python."""
    ordered = sorted(abs_errors)
    position = (len(ordered) - 1) * 0.95
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (position - low) * (ordered[high] - ordered[low])


def reference_buckets(predictions, references, threshold):
    """Target-range MAE and error buckets with one if/elif chain per case."""
    sums = {"zero": 0.0, "up_to_10k": 0.0, "10k_to_50k": 0.0, "over_50k": 0.0}
    counts = dict.fromkeys(sums, 0)
    buckets = {"exact": 0, "within_10pct": 0, "10_to_50pct": 0, "over_50pct": 0}
    for p, r in zip(predictions, references, strict=True):
        error = abs(p - r)
        if r <= threshold:
            target = "zero"
        elif r <= 10_000:
            target = "up_to_10k"
        elif r <= 50_000:
            target = "10k_to_50k"
        else:
            target = "over_50k"
        sums[target] += error
        counts[target] += 1
        if error < threshold:
            buckets["exact"] += 1
        elif r <= threshold:
            buckets["over_50pct"] += 1
        elif error / r <= 0.10:
            buckets["within_10pct"] += 1
        elif error / r <= 0.50:
            buckets["10_to_50pct"] += 1
        else:
            buckets["over_50pct"] += 1
    ranges = {k: {"mae": sums[k] / counts[k] if counts[k] else None, "n": counts[k]}
              for k in sums}
    return ranges, buckets


@settings(max_examples=60, deadline=None)
@given(amount_pairs(), st.sampled_from([0.5, 1.0, 100.0]))
def test_matches_sklearn_and_scipy(pair, threshold):
    """scikit-learn and scipy are references where they are exact: their squares of amounts
    below 1e-150 underflow (an R² of 1.0 for references 0, 0, 1e-226 and predictions 0, 0,
    0, where the exact value is -0.5), so amounts below 1e-100 are 0 here; the whole float
    range is checked against exact arithmetic in test_metric_npd_exact.py."""
    predictions, references = without_crumbs(pair)
    result = npd_regression(predictions=predictions, references=references,
                            zero_threshold=threshold)
    assert close(result["mae"], mean_absolute_error(references, predictions))
    assert close(result["rmse"], math.sqrt(mean_squared_error(references, predictions)))
    assert close(result["medae"], median_absolute_error(references, predictions))
    assert close(result["p95_ae"], reference_p95([abs(p - r) for p, r in
                                                  zip(predictions, references, strict=True)]))
    if len(set(references)) > 1:
        assert close(result["r2"], r2_score(references, predictions))
    else:  # documented (sklearn's force_finite rule): constant references give 1.0 when
        # every prediction is exact, else 0.0 (decided exactly: 1e-200² does not count as 0)
        assert result["r2"] == (1.0 if predictions == references else 0.0)
    if len(set(references)) > 1 and len(set(predictions)) > 1:
        assert close(result["pearson_r"], pearsonr(predictions, references).statistic)
        assert close(result["spearman_rho"], spearmanr(predictions, references).statistic)
    else:  # documented: 0.0 when either side is constant
        assert result["pearson_r"] == result["spearman_rho"] == 0.0
    true_zero = [int(r <= threshold) for r in references]
    pred_zero = [int(p <= threshold) for p in predictions]
    options = {"pos_label": 1, "zero_division": 0.0}
    assert close(result["zero_f1"], f1_score(true_zero, pred_zero, **options))
    assert close(result["zero_precision"], precision_score(true_zero, pred_zero, **options))
    assert close(result["zero_recall"], recall_score(true_zero, pred_zero, **options))
    ranges, buckets = reference_buckets(predictions, references, threshold)
    assert result["error_buckets"] == buckets
    assert sum(buckets.values()) == result["n"] == len(references)
    for name, expected in ranges.items():
        got = result["bucket_mae"][name]
        assert got["n"] == expected["n"]
        assert (got["mae"] is None) if expected["mae"] is None else close(got["mae"],
                                                                         expected["mae"])
    for key in SCALAR_KEYS:
        assert type(result[key]) is float
    assert type(result["n"]) is int


@pytest.mark.parametrize("distinct", ["few", "half", "most", "all"])
def test_average_ranks_equal_scipy_rankdata(distinct):
    """Up to 3n/4 tie groups take the per-group path, more the few-ties one ("most": about
    0.88 n groups, so ties too); both exact."""
    rng = np.random.default_rng(3)
    for n in (1, 2, 7, 8, 9, 17, 100, 10_001):
        groups = {"few": 3, "half": max(1, n // 2), "most": 4 * n, "all": None}[distinct]
        values = rng.random(n) if groups is None else rng.integers(0, groups, n) * 250.0
        assert np.array_equal(module._average_ranks(values), rankdata(values)), n


def test_median_and_percentiles_of_the_sorted_errors_are_numpys_floats():
    rng = np.random.default_rng(4)
    for n in [*range(1, 40), 1000, 1001, 4097]:
        ordered = np.sort(rng.random(n) * 10.0 ** rng.uniform(-300, 300, n))
        assert module._sorted_median(ordered) == float(np.median(ordered)), n
        for percent in (0, 5, 50, 95, 99.9, 100):
            assert module._sorted_percentile(ordered, percent) == float(
                np.percentile(ordered, percent)), (n, percent)


def test_peak_memory_is_at_most_three_times_the_inputs():
    n = 200_000
    rng = np.random.default_rng(5)
    references = np.where(rng.random(n) < 0.33, 0.0, np.round(rng.lognormal(8, 1.4, n), -2))
    predictions = np.round(references * rng.lognormal(0, 0.5, n), 2)
    tracemalloc.start()
    try:
        npd_regression(predictions=predictions, references=references)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= 3 * (predictions.nbytes + references.nbytes)


def test_input_arrays_are_left_unchanged():
    rng = np.random.default_rng(6)
    references = np.repeat([0.0, 0.4, 900.0, 20_000.0, 1e12], 40)
    predictions = np.concatenate([rng.random(100) * 3e4, np.zeros(50), np.full(50, 1e12)])
    tiny = predictions * 2.0 ** -1000  # errors below 2**-400: the rescaled path
    copies = references.copy(), predictions.copy(), tiny.copy()
    for scored in (predictions, tiny):
        npd_regression(predictions=scored, references=references, groups=["a", "b"] * 100)
    for array, copy in zip((references, predictions, tiny), copies, strict=True):
        assert np.array_equal(array, copy)


@settings(max_examples=40, deadline=None)
@given(amount_pairs(min_size=2), st.randoms(use_true_random=False))
def test_invariant_to_case_order(pair, random):
    predictions, references = without_crumbs(pair)
    order = list(range(len(predictions)))
    random.shuffle(order)
    groups = [["a"] if i % 3 else ["a", "b"] for i in range(len(order))]
    before = npd_regression(predictions=predictions, references=references, groups=groups)
    after = npd_regression(predictions=[predictions[i] for i in order],
                           references=[references[i] for i in order],
                           groups=[groups[i] for i in order])
    for report_before, report_after in [(before, after)] + [
            (before["groups"][g], after["groups"][g]) for g in before["groups"]]:
        for key in SCALAR_KEYS:
            assert close(report_after[key], report_before[key]), key
        assert report_after["error_buckets"] == report_before["error_buckets"]
        assert report_after["n"] == report_before["n"]
        for name, cell in report_before["bucket_mae"].items():
            assert report_after["bucket_mae"][name]["n"] == cell["n"]


@settings(max_examples=30, deadline=None)
@given(amount_pairs(min_size=1, max_size=30), st.data())
def test_groups_report_equals_report_on_the_subset(pair, data):
    predictions, references = without_crumbs(pair)
    labels = data.draw(st.lists(st.lists(st.sampled_from(["Art. 3", "Art. 6", "P1-1"]),
                                         max_size=3) | st.sampled_from(["Art. 3", "Art. 8"]),
                                min_size=len(predictions), max_size=len(predictions)))
    result = npd_regression(predictions=predictions, references=references, groups=labels)
    expected_labels = sorted({x for entry in labels for x in ([entry] if isinstance(entry, str)
                                                               else entry)})
    assert list(result["groups"]) == expected_labels
    for label, report in result["groups"].items():
        members = [i for i, entry in enumerate(labels)
                   if label == entry or (isinstance(entry, list) and label in entry)]
        direct = npd_regression(predictions=[predictions[i] for i in members],
                                references=[references[i] for i in members])
        direct.pop("zero_threshold")
        assert report == direct


def test_numpy_inputs_give_the_same_result_as_lists():
    predictions = [0.0, 1200.0, 5000.0, 80_000.0, 0.2]
    references = [0, 1500, 4000, 60_000, 3]
    assert npd_regression(predictions=np.array(predictions), references=np.array(references)) \
        == npd_regression(predictions=predictions, references=references)


def test_known_values_and_empty_buckets():
    result = npd_regression(predictions=[0, 1000, 5000, 40000], references=[0, 1500, 5000, 60000])
    assert result["mae"] == 5125.0
    assert result["bucket_mae"]["10k_to_50k"] == {"mae": None, "n": 0}
    assert result["error_buckets"] == {"exact": 2, "within_10pct": 0, "10_to_50pct": 2,
                                       "over_50pct": 0}
    # a positive prediction for a zero target is > 50% off, however small the euro error
    assert npd_regression(predictions=[1.0], references=[0.0])["error_buckets"]["over_50pct"] == 1
    # boundaries: exactly 10% and exactly 50% are inclusive
    edge = npd_regression(predictions=[1100, 1500], references=[1000, 1000])["error_buckets"]
    assert edge == {"exact": 0, "within_10pct": 1, "10_to_50pct": 1, "over_50pct": 0}


def test_single_case_and_constant_predictor():
    one = npd_regression(predictions=[10.0], references=[12.0])
    assert one["n"] == 1 and one["pearson_r"] == 0.0 and one["r2"] == 0.0
    constant = npd_regression(predictions=[3200] * 4, references=[0, 500, 9000, 20000])
    assert constant["pearson_r"] == constant["spearman_rho"] == 0.0
    assert constant["zero_f1"] == 0.0 and constant["zero_precision"] == 0.0


@pytest.mark.parametrize("argument", ["predictions", "references"])
@pytest.mark.parametrize(("bad", "shown"), BAD_VALUES)
def test_bad_values_name_argument_index_and_value(argument, bad, shown):
    good = [1.0, 2.0, 3.0]
    values = {"predictions": list(good), "references": list(good)}
    values[argument][2] = bad
    with pytest.raises(ValueError) as error:
        npd_regression(**values)
    assert f"{argument}[2] = {shown}" in str(error.value)


@pytest.mark.parametrize(("predictions", "references", "message"), [
    ([1.0, 2.0], [1.0], "predictions = '<2 values>': expected one prediction per reference "
                        "(references has 1)"),
    ([], [], "predictions = []: expected at least one amount"),
    ([1.0], [], "references = []: expected at least one amount"),
    (np.array([1.0, np.nan]), [1, 2], "predictions[1] = nan: expected a finite amount of money"),
    (np.array([[1.0, 2.0]]), [1, 2], "predictions = '<an array of shape (1, 2)>'"),
    (np.array([True, False]), [1, 2], "predictions[0] = True: expected an amount"),
    (np.array(["1", "2"]), [1, 2], "predictions[0] = '1': expected an amount"),
    ("12", [1, 2], "predictions = '<str>': expected a list"),
    (None, [1, 2], "predictions = '<NoneType>': expected a list"),
    ([1.0, 10**400], [1, 2], "predictions[1] = <an integer of about 400 digits>"),
    ([1.0, 2e12], [1, 2], "predictions[1] = 2000000000000.0: expected an amount of money >= 0 "
                          "and <= 1,000,000,000,000"),
])
def test_bad_containers(predictions, references, message):
    with pytest.raises(ValueError) as error:
        npd_regression(predictions=predictions, references=references)
    assert message in str(error.value)


@pytest.mark.parametrize(("options", "message"), [
    ({"zero_threshold": 0}, "zero_threshold = 0: expected an amount in EUR > 0"),
    ({"zero_threshold": -1.0}, "zero_threshold = -1.0"),
    ({"zero_threshold": float("nan")}, "zero_threshold = nan"),
    ({"zero_threshold": True}, "zero_threshold = True"),
    ({"zero_threshold": "0.5"}, "zero_threshold = '0.5'"),
    ({"zero_threshold": 1e13}, "zero_threshold = 10000000000000.0: expected an amount in EUR"),
    ({"groups": ["a"]}, "groups = '<1 entries>': expected one entry per case (2 predictions)"),
    ({"groups": ["a", None]}, "groups[1] = None"),
    ({"groups": ["a", ["b", 3]]}, "groups[1] = ['b', 3]"),
    ({"groups": "ab"}, "groups = '<str>': expected a list"),
])
def test_bad_options(options, message):
    with pytest.raises(ValueError) as error:
        npd_regression(predictions=[1, 2], references=[1, 2], **options)
    assert message in str(error.value)


def test_options_are_keyword_only():
    with pytest.raises(TypeError):
        npd_regression([1.0], [1.0])  # positional inputs must fail


def test_group_labels_are_capped():
    labels = [f"label {i}" for i in range(module.MAX_GROUP_LABELS + 1)]
    with pytest.raises(ValueError, match=r"^groups = .*: expected at most 10,000 distinct labels"):
        npd_regression(predictions=[1.0] * len(labels), references=[1.0] * len(labels),
                       groups=labels)


def test_module_docstring_examples():
    results = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert results.attempted >= 3 and results.failed == 0


def test_folder_layout_and_card_metadata():
    check_module_folder("npd_regression", {"evaluate", "numpy"})  # datasets: npd_amounts.py


FRESH_CHECK = """
import json, os
import evaluate
metric = evaluate.load("metrics/npd_regression")
cache = str(evaluate.config.HF_MODULES_CACHE)
predictions = [0.0, 1200.0, 5000.0, 80000.0, 0.2, 7000.0]
references = [0.0, 1500.0, 4000.0, 60000.0, 3.0, 7000.0]
direct = metric.compute(predictions=predictions, references=references,
                        groups=["a", "b", ["a", "b"], "a", [], "b"])
metric.add_batch(predictions=predictions[:3], references=references[:3])
metric.add_batch(predictions=predictions[3:], references=references[3:])
batched = metric.compute(zero_threshold=0.5)
try:
    metric.compute(predictions=[1.0, None], references=[1.0, 2.0])
    error = None
except ValueError as exc:
    error = str(exc)
files = sorted(os.path.relpath(os.path.join(d, f), cache)
               for d, _, fs in os.walk(cache) for f in fs if f.endswith(".py"))
result = {"module": type(metric).__module__, "files": files, "direct": direct,
          "batched": batched, "error": error}
"""


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """evaluate.load("metrics/npd_regression") in this process (fresh-cache loading: test_metric_common)."""
    return run_module_checks(FRESH_CHECK)



def test_evaluate_wrapper_compute_add_batch_and_errors(fresh):
    got = fresh["check"]
    assert got["module"].startswith("evaluate_modules.")
    assert any(f.endswith("npd_regression.py") for f in got["files"])
    predictions = [0.0, 1200.0, 5000.0, 80000.0, 0.2, 7000.0]
    references = [0.0, 1500.0, 4000.0, 60000.0, 3.0, 7000.0]
    expected = npd_regression(predictions=predictions, references=references,
                              groups=["a", "b", ["a", "b"], "a", [], "b"])
    assert got["direct"] == expected
    expected.pop("groups")
    assert got["batched"] == expected  # evaluate's add_batch / Arrow path, same numbers
    assert got["error"].startswith("predictions[1] = None")


@pytest.mark.realdata
def test_real_test_split_with_train_median_baseline(shared_data):
    """The 2,897 real test awards scored against the paper's train-median baseline (3,200)."""
    with open(shared_data / "ecthr_npd" / "case_level.csv", newline="", encoding="ascii") as f:
        references = [float(row["y_amount_eur"]) for row in csv.DictReader(f)
                      if row["split"] == "test"]
    assert len(references) == 2897
    predictions = [3200.0] * len(references)
    result = npd_regression(predictions=predictions, references=references)
    assert close(result["mae"], mean_absolute_error(references, predictions))
    assert close(result["r2"], r2_score(references, predictions))
    assert result["pearson_r"] == 0.0 and result["zero_f1"] == 0.0
    share_zero = result["bucket_mae"]["zero"]["n"] / result["n"]
    assert share_zero == pytest.approx(0.329, abs=0.001)  # published test zero share 32.9%
