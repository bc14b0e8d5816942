"""metrics/zero_f1: against scikit-learn, degenerate cases, invariances, bad input, loading
through ``evaluate`` (fresh-cache loading and card examples: test_metric_common.py)."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from metric_helpers import BAD_VALUES, amount_pairs, check_module_folder, run_module_checks
from sklearn.metrics import f1_score, precision_score, recall_score

from courtbench.metric_modules import load_metric_module

module = load_metric_module("zero_f1")
zero_f1 = module.zero_f1
npd_regression = load_metric_module("npd_regression").npd_regression

SCORES = ("zero_f1", "zero_precision", "zero_recall")


@settings(max_examples=80, deadline=None)
@given(amount_pairs(), st.sampled_from([0.5, 1.0, 2500.0]))
def test_matches_sklearn_with_zero_class_positive(pair, threshold):
    predictions, references = pair
    result = zero_f1(predictions=predictions, references=references, zero_threshold=threshold)
    true_zero = [r <= threshold for r in references]
    pred_zero = [p <= threshold for p in predictions]
    options = {"pos_label": True, "zero_division": 0.0}
    assert result["zero_f1"] == pytest.approx(f1_score(true_zero, pred_zero, **options))
    assert result["zero_precision"] == pytest.approx(
        precision_score(true_zero, pred_zero, **options))
    assert result["zero_recall"] == pytest.approx(recall_score(true_zero, pred_zero, **options))
    assert result["support"] == sum(true_zero)
    assert result["predicted_zeros"] == sum(pred_zero)
    assert result["n"] == len(references)
    assert all(type(result[k]) is float and 0.0 <= result[k] <= 1.0 for k in SCORES)
    # the same three figures as npd_regression reports
    full = npd_regression(predictions=predictions, references=references,
                          zero_threshold=threshold)
    assert all(result[k] == full[k] for k in SCORES)


@settings(max_examples=40, deadline=None)
@given(amount_pairs(min_size=2), st.randoms(use_true_random=False))
def test_invariant_to_case_order(pair, random):
    predictions, references = pair
    order = list(range(len(predictions)))
    random.shuffle(order)
    shuffled = zero_f1(predictions=[predictions[i] for i in order],
                       references=[references[i] for i in order])
    assert shuffled == zero_f1(predictions=predictions, references=references)


@pytest.mark.parametrize(("predictions", "references", "expected"), [
    # no predicted zeros: precision undefined -> 0.0; F1 0.0 since true zeros were missed
    ([10, 20], [0, 5], {"zero_f1": 0.0, "zero_precision": 0.0, "zero_recall": 0.0,
                        "support": 1, "predicted_zeros": 0}),
    # no true zeros: recall undefined -> 0.0
    ([0, 20], [10, 5], {"zero_f1": 0.0, "zero_precision": 0.0, "zero_recall": 0.0,
                        "support": 0, "predicted_zeros": 1}),
    # neither: every ratio undefined -> 0.0, recognisable by support == predicted_zeros == 0
    ([10, 20], [10, 5], {"zero_f1": 0.0, "zero_precision": 0.0, "zero_recall": 0.0,
                         "support": 0, "predicted_zeros": 0}),
    # all zero, all found
    ([0, 0.4], [0.1, 0], {"zero_f1": 1.0, "zero_precision": 1.0, "zero_recall": 1.0,
                          "support": 2, "predicted_zeros": 2}),
])
def test_degenerate_cases_give_zero_not_nan(predictions, references, expected):
    result = zero_f1(predictions=predictions, references=references)
    assert {k: result[k] for k in expected} == expected
    assert not any(isinstance(v, float) and math.isnan(v) for v in result.values())


def test_threshold_is_inclusive_as_the_authors_count_and_configurable():
    assert zero_f1(predictions=[0.5], references=[0.0])["predicted_zeros"] == 1  # y <= 0.5
    assert zero_f1(predictions=[0.501], references=[0.0])["predicted_zeros"] == 0
    wide = zero_f1(predictions=[90, 400], references=[100, 300], zero_threshold=150)
    assert wide["zero_f1"] == 1.0 and wide["zero_threshold"] == 150.0


def test_numpy_integer_arrays_are_accepted():
    assert zero_f1(predictions=np.array([0, 5]), references=np.array([0, 0]))["zero_f1"] \
        == pytest.approx(2 / 3)


@pytest.mark.parametrize("argument", ["predictions", "references"])
@pytest.mark.parametrize(("bad", "shown"), BAD_VALUES)
def test_bad_values_name_argument_index_and_value(argument, bad, shown):
    values = {"predictions": [1.0, 0.0, 2.0, 3.0], "references": [1.0, 0.0, 2.0, 3.0]}
    values[argument][3] = bad
    with pytest.raises(ValueError) as error:
        zero_f1(**values)
    assert f"{argument}[3] = {shown}" in str(error.value)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"predictions": [1.0], "references": [1.0, 2.0]},
     "predictions = '<1 values>': expected one prediction per reference (references has 2)"),
    ({"predictions": [], "references": []}, "predictions = []: expected at least one amount"),
    ({"predictions": (1.0,), "references": {1.0}}, "references = '<set>': expected a list"),
    ({"predictions": [1.0], "references": [1.0], "zero_threshold": 0.0}, "zero_threshold = 0.0"),
    ({"predictions": [1.0], "references": [1.0], "zero_threshold": math.inf},
     "zero_threshold = inf"),
])
def test_bad_containers_and_options(kwargs, message):
    with pytest.raises(ValueError) as error:
        zero_f1(**kwargs)
    assert message in str(error.value)


def test_module_docstring_examples():
    results = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert results.attempted >= 2 and results.failed == 0


def test_folder_layout_and_card_metadata():
    check_module_folder("zero_f1", {"evaluate", "numpy"})  # datasets: npd_amounts.py


FRESH_CHECK = """
import json
import evaluate
metric = evaluate.load("metrics/zero_f1")
direct = metric.compute(predictions=[0, 0.2, 800, 3000], references=[0, 1200, 0, 3000])
metric.add_batch(predictions=[0, 0.2], references=[0, 1200])
metric.add_batch(predictions=[800, 3000], references=[0, 3000])
batched = metric.compute()
try:
    metric.compute(predictions=["0", 1], references=[0, 1])
    error = None
except ValueError as exc:
    error = str(exc)
result = {"module": type(metric).__module__, "direct": direct, "batched": batched,
          "error": error}
"""


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """evaluate.load("metrics/zero_f1") in this process (fresh-cache loading: test_metric_common)."""
    return run_module_checks(FRESH_CHECK)


def test_evaluate_wrapper_compute_add_batch_and_errors(fresh):
    got = fresh["check"]
    expected = zero_f1(predictions=[0, 0.2, 800, 3000], references=[0, 1200, 0, 3000])
    assert got["module"].startswith("evaluate_modules.")
    assert got["direct"] == expected
    assert got["batched"] == expected
    assert got["error"].startswith("predictions[0] = '0'")

