"""ECtHR-NPD's metric example for ``courtbench demo``: the three metric modules as users load them.

:func:`run_metric_example` generates an ECtHR-NPD-like test set (zero-inflated, log-normal
awards with the shape the benchmark's paper publishes for the test split) and two noisy
systems, deterministically from a seed; runs ``npd_regression``, ``zero_f1`` and
``bootstrap_mae`` through ``evaluate.load`` on the installed module folders; writes the
results as JSON into ``<out>/metric_example`` and returns a compact summary.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from courtbench.hub.atomic import atomic_output_dir
from courtbench.jsonio import dumps_strict
from courtbench.metric_modules import metric_dir
from ecthr_npd.splits import RELEASE_SPLIT_SIZES
from ecthr_npd.synthetic import PUBLISHED

#: Shape of the published ECtHR-NPD test split: size, zero share, median and 95th percentile
#: of the positive awards (EUR).
EXAMPLE_SIZE = RELEASE_SPLIT_SIZES[2]
ZERO_SHARE = PUBLISHED["zero_share"]["test"]
POSITIVE_MEDIAN = PUBLISHED["positive_median"]["test"]
POSITIVE_P95 = PUBLISHED["positive_p95"]["test"]
#: The two example systems: P(predict zero | true zero), P(predict zero | positive award),
#: log-scale noise of the amount, and the amount predicted for a missed zero (EUR).
SYSTEMS = {
    "system_a": {"finds_zero": 0.8, "false_zero": 0.05, "noise": 0.5, "missed_zero": 3_200.0},
    "system_b": {"finds_zero": 0.5, "false_zero": 0.10, "noise": 0.9, "missed_zero": 5_000.0},
}
Z95 = 1.6448536269514722  # standard normal 95th percentile
FOLDER = "metric_example"


def example_predictions(seed: int, *, n: int = EXAMPLE_SIZE) -> dict[str, list[float]]:
    """Return ``{"references": [...], "system_a": [...], "system_b": [...]}`` (EUR).

    References: a zero award with probability ZERO_SHARE, else a log-normal amount with the
    published positive median and p95, rounded to 100 EUR (at least 100). Each system
    recognises a true zero with probability ``finds_zero`` (else predicts ``missed_zero``
    with log-normal noise), predicts zero for a positive award with probability
    ``false_zero``, and otherwise the award times exp(N(0, noise²)), rounded to cents.
    The same seed gives the same lists.
    """
    rng = np.random.default_rng(seed)
    sigma = math.log(POSITIVE_P95 / POSITIVE_MEDIAN) / Z95
    is_zero = rng.random(n) < ZERO_SHARE
    amounts = np.maximum(np.round(rng.lognormal(math.log(POSITIVE_MEDIAN), sigma, n), -2), 100.0)
    references = np.where(is_zero, 0.0, amounts)
    example = {"references": references.tolist()}
    for name, system in SYSTEMS.items():
        noise = rng.lognormal(0.0, system["noise"], n)
        says_zero = np.where(is_zero, rng.random(n) < system["finds_zero"],
                             rng.random(n) < system["false_zero"])
        amount = np.where(is_zero, system["missed_zero"], references) * noise
        example[name] = np.round(np.where(says_zero, 0.0, amount), 2).tolist()
    return example


def run_metric_modules(references: list[float], systems: dict[str, list[float]]) -> dict:
    """Score every system with the three metric modules, loaded with ``evaluate.load`` from
    their folders; the paired bootstrap compares the first two systems (in dict order).

    Returns ``{"npd_regression": {system: result}, "zero_f1": {system: result},
    "bootstrap_mae_single": {system: result}, "bootstrap_mae": result}``.
    """
    import evaluate  # imported here: it is slow to import and only this command needs it

    npd = evaluate.load(str(metric_dir("npd_regression")))
    zero = evaluate.load(str(metric_dir("zero_f1")))
    paired = evaluate.load(str(metric_dir("bootstrap_mae")))
    single = evaluate.load(str(metric_dir("bootstrap_mae")), "single")
    results = {"npd_regression": {}, "zero_f1": {}, "bootstrap_mae_single": {}}
    for name, predictions in systems.items():
        results["npd_regression"][name] = npd.compute(predictions=predictions,
                                                      references=references)
        results["zero_f1"][name] = zero.compute(predictions=predictions, references=references)
        results["bootstrap_mae_single"][name] = single.compute(predictions=predictions,
                                                               references=references)
    first, second = list(systems)[:2]
    results["bootstrap_mae"] = paired.compute(predictions1=systems[first],
                                              predictions2=systems[second],
                                              references=references)
    results["bootstrap_mae"]["systems"] = [first, second]
    return results


def format_results(results: dict) -> str:
    """A compact plain-text summary of :func:`run_metric_modules`'s results."""
    columns = [("MAE", "mae", ",.0f"), ("RMSE", "rmse", ",.0f"), ("R2", "r2", ".3f"),
               ("MedAE", "medae", ",.0f"), ("95AE", "p95_ae", ",.0f"),
               ("Pearson", "pearson_r", ".3f"), ("Spearman", "spearman_rho", ".3f"),
               ("Zero-F1", "zero_f1", ".3f")]
    lines = ["system     " + "".join(f"{title:>10}" for title, _, _ in columns)]
    for name, report in results["npd_regression"].items():
        lines.append(f"{name:<11}" + "".join(f"{format(report[key], spec):>10}"
                                             for _, key, spec in columns))
    lines.append("")
    for name, report in results["bootstrap_mae_single"].items():
        lines.append(f"{name}: MAE {report['mae']:,.0f} EUR, bootstrap SE "
                     f"{report['standard_error']:,.0f}, "
                     f"{report['confidence_level']:.0%} CI [{report['ci_low']:,.0f}, "
                     f"{report['ci_high']:,.0f}]")
    paired = results["bootstrap_mae"]
    first, second = paired["systems"]
    verdict = {"1 better": f"{first} better", "2 better": f"{second} better"}.get(
        paired["verdict"], paired["verdict"])
    lines.append(f"paired bootstrap ({paired['n_resamples']:,} resamples, seed {paired['seed']}): "
                 f"delta = MAE({first}) - MAE({second}) = {paired['delta']:,.0f} EUR, "
                 f"{paired['confidence_level']:.0%} CI [{paired['ci_low']:,.0f}, "
                 f"{paired['ci_high']:,.0f}], Pr(delta* < 0) = {paired['prob_1_better']:.3f}"
                 f" -> {verdict}")
    return "\n".join(lines)


def run_metric_example(out_dir: Path, seed: int) -> str:
    """The metric modules through ``evaluate.load`` on the generated example set; writes
    ``metric_results.json`` and ``example_predictions.json`` into ``out_dir/metric_example``;
    returns the text to print."""
    out = Path(out_dir) / FOLDER
    example = example_predictions(seed)
    references = example.pop("references")
    results = run_metric_modules(references, example)
    zero_share = sum(r == 0 for r in references) / len(references)
    with atomic_output_dir(out, kind="metric example folder") as tmp:
        (tmp / "example_predictions.json").write_text(
            dumps_strict({"seed": seed, "references": references, **example},
                         what="example_predictions.json") + "\n", encoding="utf-8")
        (tmp / "metric_results.json").write_text(
            dumps_strict({"seed": seed, "n": len(references), "results": results},
                         what="metric_results.json", indent=2, sort_keys=True) + "\n",
            encoding="utf-8")
    return "\n".join([
        f"ECtHR-like example prediction set: {len(references):,} cases, {zero_share:.1%} "
        f"zero awards, seed {seed}", "", format_results(results), "",
        f"wrote {out / 'metric_results.json'} and {out / 'example_predictions.json'}"])
