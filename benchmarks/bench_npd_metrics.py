"""Speed and memory of the ECtHR-NPD metric modules (npd_regression, bootstrap_mae).

Figures (seconds unless named otherwise), on an ECtHR-like example of the test split's size
(n = 2,897, from the demo's generator, :mod:`ecthr_npd.metric_example`):

- npd_regression's plain function against the same numbers from scikit-learn + scipy calls
  at n = 1e3, the test split's size, 1e4, 1e5 and 1e6 (targets: ratio >= 3, peak traced
  memory <= 3x the inputs' bytes), and what ``EvaluationModule.compute`` adds at each n, on
  two kinds of awards: ``tied`` (the demo's generator: references rounded to 100 EUR, a
  third of them 0, predictions rounded to cents) and ``untied`` (continuous log-normal
  references and predictions, no two equal: the ranks cannot lean on ties);
- bootstrap_mae, 1,000 paired resamples: against Python loops over the resamples (pure
  Python; numpy per resample; scikit-learn per resample) with the same seed, and against
  ``scipy.stats.bootstrap(paired=True, method="percentile")`` on the same resamples;
- bootstrap_mae at n = 1,000,000 with 1,000 resamples (in a fresh interpreter): time, peak
  traced memory, peak RSS before and after the run;
- the overhead of ``EvaluationModule.compute`` over the plain function (direct call path
  and evaluate's add_batch/Arrow path).
"""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
from scipy.stats import bootstrap, pearsonr, spearmanr
from sklearn.metrics import (
    f1_score,
    mean_absolute_error,
    mean_squared_error,
    median_absolute_error,
    precision_score,
    r2_score,
    recall_score,
)

from benchmarks.timing import best_time, peak_python_memory
from courtbench.metric_modules import load_metric_module, metric_dir
from ecthr_npd.metric_example import example_predictions

N_TEST = 2_897
N_LARGE = 1_000_000
RESAMPLES = 1_000
SEED = 12345
#: Case counts at which npd_regression is timed against scikit-learn + scipy.
NPD_REGRESSION_SIZES = (1_000, N_TEST, 10_000, 100_000, 1_000_000)


def sklearn_scipy_report(y_pred, y_true, zero_threshold=0.5):
    """The figures of npd_regression (without groups) from scikit-learn and scipy calls."""
    abs_error = np.abs(y_pred - y_true)
    true_zero = y_true <= zero_threshold  # the metric's rule: at or below is a zero award
    pred_zero = y_pred <= zero_threshold
    ranges = [true_zero, ~true_zero & (y_true <= 10_000),
              ~true_zero & (y_true > 10_000) & (y_true <= 50_000), ~true_zero & (y_true > 50_000)]
    relative = abs_error / np.maximum(y_true, zero_threshold)
    exact = abs_error < zero_threshold
    return {
        "mae": mean_absolute_error(y_true, y_pred),
        "rmse": math.sqrt(mean_squared_error(y_true, y_pred)),
        "r2": r2_score(y_true, y_pred),
        "medae": median_absolute_error(y_true, y_pred),
        "p95_ae": np.percentile(abs_error, 95),
        "pearson_r": pearsonr(y_pred, y_true).statistic,
        "spearman_rho": spearmanr(y_pred, y_true).statistic,
        "zero_f1": f1_score(true_zero, pred_zero, zero_division=0.0),
        "zero_precision": precision_score(true_zero, pred_zero, zero_division=0.0),
        "zero_recall": recall_score(true_zero, pred_zero, zero_division=0.0),
        "bucket_mae": [mean_absolute_error(y_true[m], y_pred[m]) if m.any() else None
                       for m in ranges],
        "error_buckets": [int(exact.sum()), int((~exact & ~true_zero & (relative <= 0.1)).sum()),
                          int((~exact & ~true_zero & (relative > 0.1) & (relative <= 0.5)).sum()),
                          int((~exact & (true_zero | (relative > 0.5))).sum())],
    }


def python_loop_bootstrap(p1, p2, y, *, n_resamples, seed):
    """Pure Python: per resample, draw n indices and sum the per-case error differences."""
    d = [abs(a - r) - abs(b - r) for a, b, r in zip(p1, p2, y, strict=True)]
    n = len(d)
    draw = random.Random(seed).randrange
    replicates = []
    for _ in range(n_resamples):
        replicates.append(sum(d[draw(n)] for _ in range(n)) / n)
    return sum(x < 0 for x in replicates) / n_resamples


def numpy_loop_bootstrap(p1, p2, y, *, n_resamples, seed):
    """A loop over resamples with numpy inside: the same indices as bootstrap_mae, both
    systems' MAE recomputed from the resampled cases."""
    rng = np.random.default_rng(seed)
    n = y.size
    replicates = np.empty(n_resamples)
    for b in range(n_resamples):
        idx = rng.integers(0, n, size=n)
        replicates[b] = np.abs(p1[idx] - y[idx]).mean() - np.abs(p2[idx] - y[idx]).mean()
    return replicates


def sklearn_loop_bootstrap(p1, p2, y, *, n_resamples, seed):
    """The loop as commonly written: scikit-learn's MAE per system per resample."""
    rng = np.random.default_rng(seed)
    n = y.size
    return [mean_absolute_error(y[idx], p1[idx]) - mean_absolute_error(y[idx], p2[idx])
            for idx in (rng.integers(0, n, size=n) for _ in range(n_resamples))]


def scipy_bootstrap(p1, p2, y, *, n_resamples, seed):
    def delta(a, b, r, axis=-1):
        return np.abs(a - r).mean(axis=axis) - np.abs(b - r).mean(axis=axis)

    return bootstrap((p1, p2, y), delta, paired=True, vectorized=True, n_resamples=n_resamples,
                     method="percentile", rng=np.random.default_rng(seed)).confidence_interval


def example_arrays(seed, n):
    example = example_predictions(seed, n=n)
    return (np.asarray(example["system_a"]), np.asarray(example["system_b"]),
            np.asarray(example["references"]))


def untied_arrays(seed, n):
    """Continuous awards without ties: log-normal references (the test split's median and
    spread, not rounded) and predictions off by log-normal noise."""
    rng = np.random.default_rng(seed)
    references = rng.lognormal(8.78, 1.36, n)
    return references * rng.lognormal(0.0, 0.5, n), references


AWARDS = {"tied": lambda n: example_arrays(0, n)[::2], "untied": lambda n: untied_arrays(0, n)}


def interleaved_best_times(functions, *, repeat, number):
    """best_time of each of ``functions``, their runs taken in turn (one run of each, then
    the next round), so that a change of the machine's load between them weighs on all."""
    rounds = [[best_time(fn, repeat=1, number=number) for fn in functions]
              for _ in range(repeat)]
    return [min(times) for times in zip(*rounds, strict=True)]


def bench_npd_regression_at(n, awards="tied"):
    """npd_regression's plain function (the one ``_compute`` calls, numpy arrays in) against
    sklearn_scipy_report on the same arrays at ``n`` cases of ``awards`` (a key of AWARDS):
    best seconds of each, their ratio, the peak memory traced during one call over the inputs'
    bytes, the same call from Python lists, and ``EvaluationModule.compute`` (direct path) on
    the arrays."""
    import evaluate

    p1, y = AWARDS[awards](n)
    npd_regression = load_metric_module("npd_regression").npd_regression
    module = evaluate.load(str(metric_dir("npd_regression")))
    ours, peak = peak_python_memory(lambda: npd_regression(predictions=p1, references=y))
    reference = sklearn_scipy_report(p1, y)
    for key in ("mae", "rmse", "r2", "medae", "p95_ae", "pearson_r", "spearman_rho", "zero_f1"):
        assert math.isclose(ours[key], reference[key], rel_tol=1e-9, abs_tol=1e-12), key
    calls = max(1, 200_000 // n)  # about 0.2 M cases per timed run
    lists = p1.tolist(), y.tolist()
    plain, reference_time, from_lists, wrapped = interleaved_best_times(
        [lambda: npd_regression(predictions=p1, references=y),
         lambda: sklearn_scipy_report(p1, y),
         lambda: npd_regression(predictions=lists[0], references=lists[1]),
         lambda: module.compute(predictions=p1, references=y)],
        repeat=7 if n < N_LARGE else 5, number=calls)
    return {"n": n, "awards": awards, "plain_s": plain, "sklearn_scipy_s": reference_time,
            "ratio_vs_sklearn_scipy": reference_time / plain,
            "peak_traced_over_input_bytes": peak / (p1.nbytes + y.nbytes),
            "plain_from_lists_s": from_lists, "evaluate_compute_s": wrapped,
            "evaluate_compute_overhead_s": wrapped - plain}


def bench_npd_regression():
    """bench_npd_regression_at for every size in NPD_REGRESSION_SIZES, tied and untied awards
    (target: ratio >= 3 and peak traced memory <= 3x the inputs at each)."""
    return [bench_npd_regression_at(n, awards) for awards in AWARDS
            for n in NPD_REGRESSION_SIZES]


def bench_bootstrap(p1, p2, y):
    bootstrap_mae = load_metric_module("bootstrap_mae").bootstrap_mae
    options = {"n_resamples": RESAMPLES, "seed": SEED}
    ours = bootstrap_mae(predictions1=p1, predictions2=p2, references=y, **options)
    loop = numpy_loop_bootstrap(p1, p2, y, **options)
    assert ours["prob_1_better"] == np.count_nonzero(loop < 0) / RESAMPLES
    interval = scipy_bootstrap(p1, p2, y, **options)
    assert math.isclose(ours["ci_low"], interval.low, rel_tol=1e-9)
    ours_time = best_time(lambda: bootstrap_mae(predictions1=p1, predictions2=p2, references=y,
                                                **options), repeat=7)
    lists = [p1.tolist(), p2.tolist(), y.tolist()]
    python_time = best_time(lambda: python_loop_bootstrap(*lists, **options), repeat=1)
    numpy_time = best_time(lambda: numpy_loop_bootstrap(p1, p2, y, **options), repeat=3)
    sklearn_time = best_time(lambda: sklearn_loop_bootstrap(p1, p2, y, **options), repeat=2)
    scipy_time = best_time(lambda: scipy_bootstrap(p1, p2, y, **options), repeat=3)
    return {
        "n": int(y.size), "n_resamples": RESAMPLES, "plain_s": ours_time,
        "python_loop_s": python_time, "ratio_vs_python_loop": python_time / ours_time,
        "numpy_loop_s": numpy_time, "ratio_vs_numpy_loop": numpy_time / ours_time,
        "sklearn_loop_s": sklearn_time, "ratio_vs_sklearn_loop": sklearn_time / ours_time,
        "scipy_bootstrap_paired_s": scipy_time, "ratio_vs_scipy_bootstrap": scipy_time / ours_time,
    }


LARGE_RUN = """
import json, resource, sys, time
import numpy as np
from benchmarks.timing import peak_python_memory
from courtbench.metric_modules import load_metric_module

bootstrap_mae = load_metric_module("bootstrap_mae").bootstrap_mae
rng = np.random.default_rng(1)  # arrays straight from numpy: no list-sized RSS peak first
y = np.where(rng.random({n}) < 0.329, 0.0, rng.lognormal(8.78, 1.36, {n}).round(-2))
p1 = y * rng.lognormal(0.0, 0.5, {n})
p2 = y * rng.lognormal(0.0, 0.9, {n})
rss = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
before = rss()
start = time.perf_counter()
result = bootstrap_mae(predictions1=p1, predictions2=p2, references=y, n_resamples={b}, seed={s})
seconds = time.perf_counter() - start
after = rss()
_, peak = peak_python_memory(lambda: bootstrap_mae(predictions1=p1, predictions2=p2,
                                                   references=y, n_resamples={b}, seed={s}))
print(json.dumps({{"seconds": seconds, "max_rss_before": before, "max_rss_after": after,
                  "peak_traced": peak, "verdict": result["verdict"]}}))
"""


def bench_bootstrap_large():
    """n = 1,000,000, 1,000 resamples, in a fresh interpreter so that its peak RSS is this
    run's (plus imports and the example's inputs), not the benchmark process's."""
    code = LARGE_RUN.format(n=N_LARGE, b=RESAMPLES, s=SEED)
    process = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True, cwd=Path(__file__).resolve().parent.parent)
    run = json.loads(process.stdout.strip().splitlines()[-1])
    return {"n": N_LARGE, "n_resamples": RESAMPLES, "seconds": run["seconds"],
            "peak_traced_mib": run["peak_traced"] / 2**20,
            "process_max_rss_before_mib": run["max_rss_before"] / 2**20,
            "process_max_rss_after_mib": run["max_rss_after"] / 2**20,
            "rss_growth_mib": (run["max_rss_after"] - run["max_rss_before"]) / 2**20,
            "inputs_mib": 3 * 8 * N_LARGE / 2**20, "verdict": run["verdict"]}


def bench_evaluate_overhead(p1, p2, y):
    import evaluate

    npd_regression = load_metric_module("npd_regression").npd_regression
    module = evaluate.load(str(metric_dir("npd_regression")))
    predictions, references = p1.tolist(), y.tolist()
    plain = best_time(lambda: npd_regression(predictions=predictions, references=references),
                      repeat=7, number=20)
    direct = best_time(lambda: module.compute(predictions=predictions, references=references),
                       repeat=7, number=20)

    def through_arrow():
        module.add_batch(predictions=predictions, references=references)
        return module.compute()

    arrow = best_time(through_arrow, repeat=5, number=3)
    return {"n": len(references), "plain_s": plain, "evaluate_compute_s": direct,
            "evaluate_compute_overhead_s": direct - plain,
            "evaluate_add_batch_compute_s": arrow,
            "evaluate_add_batch_compute_overhead_s": arrow - plain}


def main() -> dict:
    p1, p2, y = example_arrays(0, N_TEST)
    return {
        "npd_regression": bench_npd_regression(),
        "bootstrap_mae": bench_bootstrap(p1, p2, y),
        "evaluate_overhead": bench_evaluate_overhead(p1, p2, y),
        "bootstrap_mae_large": bench_bootstrap_large(),
    }
