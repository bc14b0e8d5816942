"""The ECtHR-NPD metric modules beyond their plain functions: ``add()`` / ``add_batch()`` run
the same checks with the same messages as ``compute()`` (issue #14 item 5), evaluate's
distributed mode with two processes gives the plain functions' numbers, amounts above the
boundary validator's ceiling are refused by name and tiny ones keep their figures exact
(issue #32: exact or refused; the whole float range is in test_metric_npd_exact.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from metric_helpers import BAD_VALUES, amount_pairs, run_fresh

from courtbench.metric_modules import load_metric_module, metric_dir

npd = load_metric_module("npd_regression")
zf1 = load_metric_module("zero_f1")
bmae = load_metric_module("bootstrap_mae")

#: module name -> (evaluate class, config, feature names, plain function)
PAIRED = {
    "npd_regression": (npd.NpdRegression, None, ("predictions", "references"),
                       npd.npd_regression),
    "zero_f1": (zf1.ZeroF1, None, ("predictions", "references"), zf1.zero_f1),
    "bootstrap_mae": (bmae.BootstrapMae, None, ("predictions1", "predictions2", "references"),
                      bmae.bootstrap_mae),
    "bootstrap_mae:single": (bmae.BootstrapMae, "single", ("predictions", "references"),
                             bmae.bootstrap_mae_single),
}
GOOD = [0.0, 1000.0, 5000.0, 40000.0]
Y = [0.0, 1500.0, 5000.0, 60000.0]


def instance(key, tmp_path):
    cls, config, _, _ = PAIRED[key]
    return cls(config_name=config, cache_dir=str(tmp_path))


def error_of(call):
    with pytest.raises(ValueError) as error:
        call()
    return str(error.value)


# --------------------------------------------------------------------------- add / add_batch


@pytest.mark.parametrize("key", PAIRED)
@pytest.mark.parametrize(("bad", "shown"), BAD_VALUES)
def test_add_batch_rejects_like_the_plain_function(key, bad, shown, tmp_path):
    _, _, features, plain = PAIRED[key]
    metric = instance(key, tmp_path)
    for feature in features:
        inputs = {name: list(GOOD) for name in features}
        inputs[feature][2] = bad
        expected = error_of(lambda inputs=inputs: plain(**inputs))
        assert expected.startswith(f"{feature}[2] = {shown}:")
        assert error_of(lambda inputs=inputs: metric.add_batch(**inputs)) == expected
    # nothing of the refused batches was queued
    metric.add_batch(**{name: GOOD[:2] for name in features})
    metric.add_batch(**{name: GOOD[2:] for name in features})
    options = {"n_resamples": 20} if key.startswith("bootstrap") else {}
    assert metric.compute(**options) == plain(**{name: GOOD for name in features}, **options)


def test_the_issue_example_is_refused_at_add_batch(tmp_path):
    metric = npd.NpdRegression(cache_dir=str(tmp_path))
    predictions = ["0", "1000", 5000, 40000]
    message = error_of(lambda: metric.add_batch(predictions=predictions, references=Y))
    assert message == error_of(lambda: metric.compute(predictions=predictions, references=Y))
    assert message.startswith("predictions[0] = '0': expected an amount of money")


@pytest.mark.parametrize("key", PAIRED)
@pytest.mark.parametrize(("bad", "shown"), BAD_VALUES)
def test_add_rejects_with_the_plain_functions_message(key, bad, shown, tmp_path):
    _, config, features, plain = PAIRED[key]
    metric = instance(key, tmp_path)
    singular = {"predictions": "prediction", "references": "reference"}
    for feature in features:
        example = {singular.get(name, name): 3.0 for name in features}
        example[singular.get(feature, feature)] = bad
        message = error_of(lambda example=example: metric.add(**example))
        batch = {name: [3.0] for name in features}
        batch[feature] = [bad]
        expected = error_of(lambda batch=batch: plain(**batch))
        label = singular.get(feature, feature)
        assert message.startswith(f"{label} = {shown}:")
        assert message.split(" = ", 1)[1] == expected.split(" = ", 1)[1]


def test_add_and_add_batch_mixed_equal_the_plain_function(tmp_path):
    metric = npd.NpdRegression(cache_dir=str(tmp_path))
    metric.add(prediction=GOOD[0], reference=Y[0])
    metric.add_batch(predictions=GOOD[1:], references=Y[1:])
    assert metric.compute(zero_threshold=1.0) == {
        k: v for k, v in npd.npd_regression(predictions=GOOD, references=Y,
                                            zero_threshold=1.0).items()}


def test_bad_length_in_add_batch_names_both_inputs(tmp_path):
    metric = zf1.ZeroF1(cache_dir=str(tmp_path))
    message = error_of(lambda: metric.add_batch(predictions=[1, 2], references=[1]))
    assert message == error_of(lambda: zf1.zero_f1(predictions=[1, 2], references=[1]))


# --------------------------------------------------------------------------- distributed mode

DISTRIBUTED = """
import json, multiprocessing, os, tempfile
import evaluate

CASES = {cases}
root = tempfile.mkdtemp()


def worker(folder, config, pid, batches, options, queue):
    metric = evaluate.load(folder, config_name=config, num_process=2, process_id=pid,
                           experiment_id="two-processes", cache_dir=root)
    for batch in batches[pid]:
        metric.add_batch(**batch)
    queue.put((pid, metric.compute(**options)))


result = {{}}
context = multiprocessing.get_context("fork")
for key, (folder, config, batches, options) in CASES.items():
    evaluate.load(folder, config_name=config)  # fills the module cache before forking
    queue = context.Queue()
    workers = [context.Process(target=worker, args=(folder, config, pid, batches, options, queue))
               for pid in (0, 1)]
    for process in workers:
        process.start()
    outputs = dict(queue.get(timeout=240) for _ in workers)
    for process in workers:
        process.join(timeout=60)
    result[key] = {{"outputs": outputs, "exitcodes": [p.exitcode for p in workers]}}
print(json.dumps(result))
"""


@pytest.mark.slow
def test_distributed_mode_with_two_processes_equals_the_plain_function(tmp_path):
    rng = np.random.default_rng(5)
    n = 40
    data = {name: np.round(rng.lognormal(8, 2, n) * (rng.random(n) > 0.3), 2).tolist()
            for name in ("predictions", "predictions1", "predictions2", "references")}
    cases = {}
    expected = {}
    for key, (_, config, features, plain) in PAIRED.items():
        options = {"n_resamples": 200, "seed": 3} if key.startswith("bootstrap") else {}
        halves = [[{name: data[name][:15] for name in features}],
                  [{name: data[name][15:30] for name in features},
                   {name: data[name][30:] for name in features}]]
        name = key.split(":")[0]
        cases[key] = (str(metric_dir(name)), config, halves, options)
        expected[key] = plain(**{name: data[name] for name in features}, **options)
    got = run_fresh(DISTRIBUTED.format(cases=repr(cases)), tmp_path)
    for key in PAIRED:
        assert got[key]["exitcodes"] == [0, 0]
        assert got[key]["outputs"]["1"] is None  # only process 0 computes
        assert got[key]["outputs"]["0"] == json.loads(json.dumps(expected[key]))


# --------------------------------------------------------------------------- the float range

EURO_KEYS = ("mae", "rmse", "medae", "p95_ae")


@pytest.mark.parametrize("huge", [1e308, 1.7976931348623157e308, 1e13, 1e12 * (1 + 2**-52)])
def test_amounts_above_the_ceiling_are_refused_by_name(huge):
    """What issue #14 rescaled (and clipped R² to the most negative float) the validator now
    refuses: every module names the argument, the index and the value."""
    references = [0.0, 1500.0, 5000.0, 60000.0]
    for call in (lambda: npd.npd_regression(predictions=[0.0, huge, 0.0, 0.0],
                                            references=references),
                 lambda: zf1.zero_f1(predictions=[0.0, huge, 0.0, 0.0], references=references),
                 lambda: bmae.bootstrap_mae(predictions1=references, references=references,
                                            predictions2=[0.0, huge, 0.0, 0.0]),
                 lambda: bmae.bootstrap_mae_single(predictions=[0.0, huge, 0.0, 0.0],
                                                   references=references)):
        message = error_of(call)
        assert "[1] = " in message and "expected an amount of money >= 0 and <= " \
            "1,000,000,000,000" in message


@settings(max_examples=60, deadline=None)
@given(pair=amount_pairs(min_size=2, max_size=30), shift=st.integers(500, 900))
def test_tiny_amounts_give_the_figures_of_ordinary_amounts(pair, shift):
    """Dividing every amount (and the threshold) by 2**shift divides the euro figures by
    2**shift and keeps every ratio: where squares would underflow, the rescaled path computes
    what the ordinary one does."""
    predictions, references = pair
    assume(all(value == 0 or value > 1e-6 for value in predictions + references))
    scale = 2.0 ** -shift
    tiny_p = [p * scale for p in predictions]
    tiny_r = [r * scale for r in references]
    ordinary = npd.npd_regression(predictions=predictions, references=references)
    tiny = npd.npd_regression(predictions=tiny_p, references=tiny_r, zero_threshold=0.5 * scale)
    json.dumps(tiny, allow_nan=False)
    for key in EURO_KEYS:
        assert tiny[key] == pytest.approx(ordinary[key] * scale, rel=1e-12)
    for key in ("r2", "pearson_r", "spearman_rho", "zero_f1"):
        assert tiny[key] == pytest.approx(ordinary[key], rel=1e-9, abs=1e-9)
    assert tiny["error_buckets"] == ordinary["error_buckets"]
    boot = bmae.bootstrap_mae(predictions1=predictions, predictions2=references[::-1],
                              references=references, n_resamples=50)
    boot_tiny = bmae.bootstrap_mae(predictions1=tiny_p, predictions2=tiny_r[::-1],
                                   references=tiny_r, n_resamples=50)
    for key in ("mae1", "mae2", "delta", "ci_low", "ci_high"):
        assert boot_tiny[key] == pytest.approx(boot[key] * scale, rel=1e-12, abs=1e-300)
    assert boot_tiny["verdict"] == boot["verdict"]
    assert boot_tiny["prob_1_better"] == boot["prob_1_better"]
