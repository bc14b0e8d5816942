"""The tables of the ECtHR-NPD evaluation report, from scored systems.

Every system carries its *scope* (the splits it was scored on: ``test``, ``validation`` or
``validation+test``); a figure outside a system's scope is "—". Undefined intervals are "n/a",
never a number. The main table gives the MAE's 95% bootstrap interval and each system's
fallback / failure share (from a runner's manifest); ``panel`` gives the full metric panel
per view; the paired-test verdict names the better system.
"""

from __future__ import annotations

from typing import Any

from courtbench.report import Table
from ecthr_npd.paper_comparison import selection_label

RANGE_TITLES = {"zero": "0", "up_to_10k": ">0–10k", "10k_to_50k": "10k–50k", "over_50k": ">50k"}
BUCKET_TITLES = {"exact": "exact", "within_10pct": "within 10%", "10_to_50pct": "10–50%",
                 "over_50pct": ">50%"}
VIEWS = ("ID", "OOD", "Challenging")
#: (key of npd_regression's result, column title) of the panel table.
PANEL = (("mae", "MAE"), ("rmse", "RMSE"), ("r2", "R²"), ("medae", "MedAE"), ("p95_ae", "95AE"),
         ("pearson_r", "r"), ("spearman_rho", "ρ"), ("zero_f1", "Zero-F1"),
         ("positive_f1", "Pos-F1"), ("zero_positive_accuracy", "Z/P acc"),
         ("mae_positive_only", "MAE pos"), ("mape_positive", "MAPE pos %"))
NOT_DEFINED = "n/a"
CONSTANT_NOTE = ("¹ r and ρ are undefined for a constant predictor ({systems}); they are "
                 "reported as 0.00 by convention (npd_regression's card).")


def _mae(result: dict[str, Any] | None) -> float | None:
    return None if result is None else result["mae"]


def interval_text(interval: tuple[float, float] | None) -> str | None:
    """``[low, high]`` in whole EUR; "n/a" when the interval is degenerate (one case);
    None (—) when the system has no test scope."""
    if interval is None:
        return None
    low, high = interval
    if low is None or high is None or low == high:
        return NOT_DEFINED
    return f"[{low:,.0f}, {high:,.0f}]"


def verdict_text(test: dict[str, Any]) -> str:
    """bootstrap_mae's verdict with the better system named (``"1 better"`` → its name)."""
    return {"1 better": f"{test['system']} better",
            "2 better": f"{test['against']} better"}.get(test["verdict"], test["verdict"])


def main_table(data, scores: dict[str, dict[str, Any]], context: dict[str, Any]) -> Table:
    """System, scope, test panel with the MAE interval, views, validation, fallback share,
    selection. ``context``: ``scopes``, ``intervals``, ``fallback`` (share or None),
    ``constant`` (systems predicting one value on test), ``variants``, ``zero_threshold``."""
    n_views = {view: len(ids) for view, ids in data.views.items()}
    rows = []
    for name, s in scores.items():
        test = s["test"] or {}
        rows.append([name, context["scopes"][name], test.get("mae"),
                     interval_text(context["intervals"].get(name)), test.get("rmse"),
                     test.get("r2"), test.get("medae"), test.get("p95_ae"), test.get("pearson_r"),
                     test.get("spearman_rho"), test.get("zero_f1"),
                     *[_mae(s[view]) for view in VIEWS], _mae(s["validation"]),
                     None if context["fallback"].get(name) is None
                     else 100.0 * context["fallback"][name],
                     selection_label(context["variants"].get(name))])
    constant = context["constant"]
    note = (f"Test pool n = {data.target('test').size:,}, validation n = "
            f"{data.target('validation').size:,}. Scope: the splits a system was scored on "
            "(— outside it). MAE, RMSE, MedAE, 95AE in EUR (lower is better); MAE 95% CI: "
            "percentile interval of single-system bootstrap resamples of the test pool; R², r, "
            "ρ, Zero-F1 higher is better. Zero-F1: F1 of the zero-award class (an amount ≤ "
            f"{context['zero_threshold']:g} EUR is zero, as in the authors' evaluator). "
            "Fallback %: share of the runner's cases whose request or answer failed (filled "
            "with a fallback or left out), from its manifest; — without one. Selection: how a "
            "system chose its settings without test (validation MAE; rolling-origin folds "
            "over the last years of train+validation; none: nothing to choose; — : not "
            "recorded).")
    if constant:
        note += " " + CONSTANT_NOTE.format(systems=", ".join(constant))
    return Table(
        "main", "Main results (test pool; views; validation)",
        ["System", "Scope", "MAE", "MAE 95% CI", "RMSE", "R²", "MedAE", "95AE",
         "Pearson r¹" if constant else "Pearson r", "Spearman ρ¹" if constant else "Spearman ρ",
         "Zero-F1", *[f"MAE {view} ({n_views[view]:,})" for view in VIEWS], "Val MAE",
         "Fallback %", "Selection"], rows, note=note)


def panel_table(scores: dict[str, dict[str, Any]]) -> Table:
    """Every figure of npd_regression per system and pool (test, the views, validation)."""
    rows = []
    for name, s in scores.items():
        for pool in ("test", *VIEWS, "validation"):
            if s[pool] is not None:
                rows.append([name, pool, s[pool]["n"], *[s[pool][key] for key, _ in PANEL]])
    return Table("panel", "Full metric panel per view", ["System", "Pool", "n",
                                                         *[title for _, title in PANEL]], rows,
                 note="EUR figures lower is better; r, ρ, F1 and accuracy higher is better. "
                      "Pos-F1: F1 of the positive-award class (> zero threshold); Z/P acc: "
                      "share of cases on the right side of the zero threshold; MAE pos / MAPE "
                      "pos: on cases with a positive award, MAPE with reference + 1 EUR in the "
                      "denominator (%); — = no positive award in the pool.")


def range_and_bucket_tables(scores: dict[str, dict[str, Any]]) -> list[Table]:
    """Test MAE by award range, and the error buckets (systems with a test scope)."""
    tested = {name: s["test"] for name, s in scores.items() if s["test"] is not None}
    first = next(iter(tested.values()), None)
    range_n = {key: first["bucket_mae"][key]["n"] for key in RANGE_TITLES} if first else {}
    by_range = Table(
        "mae_by_range", "Test MAE by award range (EUR)",
        ["System"] + [f"{title} (n={range_n.get(key, 0):,})" for key, title in RANGE_TITLES.items()],
        [[name] + [test["bucket_mae"][key]["mae"] for key in RANGE_TITLES]
         for name, test in tested.items()],
        note="Ranges of the true award (0: ≤ zero threshold); upper bounds inclusive; — = no "
             "case in the range.")
    buckets = Table(
        "error_buckets", "Error buckets on the test pool (% of cases)",
        ["System"] + list(BUCKET_TITLES.values()),
        [[name] + [100.0 * test["error_buckets"][key] / test["n"] for key in BUCKET_TITLES]
         for name, test in tested.items()],
        note="exact: |error| < zero threshold; then |error| / true award within 10%, 10–50%, "
             ">50%; for a zero award any positive prediction is >50%.", digits=1)
    return [by_range, buckets]


def group_table(key: str, title: str, column: str, labels: list[str],
                scores: dict[str, dict[str, Any]]) -> Table:
    """Test MAE per group label (state or article), with n and the zero share."""
    names = [name for name, s in scores.items() if s[key] is not None]
    rows = []
    for label in labels:
        group = scores[names[0]][key][label]
        zero_share = group["bucket_mae"]["zero"]["n"] / group["n"]
        rows.append([label, group["n"], 100.0 * zero_share]
                    + [scores[name][key][label]["mae"] for name in names])
    return Table(key, title, [column, "n", "zero %", *names], rows,
                 note="MAE in EUR on the test cases of each group (systems with a test scope)."
                 + (" A case counts for each of its violated articles."
                    if key == "by_article" else ""))


def bootstrap_table(tests: list[dict[str, Any]]) -> Table:
    """The paired tests, the verdict naming the better system."""
    return Table(
        "bootstrap", "Paired bootstrap tests on the test pool",
        ["System", "vs", "ΔMAE", "CI low", "CI high", "Pr(Δ* < 0)", "verdict"],
        [[t["system"], t["against"], t["delta"], t["ci_low"], t["ci_high"], t["prob_1_better"],
          verdict_text(t)] for t in tests],
        note=(f"Δ = MAE(system) − MAE(vs) in EUR; {tests[0]['n_resamples']:,} full-size paired "
              f"resamples, seed {tests[0]['seed']}, {100 * tests[0]['confidence_level']:.0f}% "
              "percentile interval; Pr(Δ* < 0) is the share of resamples where the system is "
              "better; the verdict names the better system when the interval excludes 0."
              if tests else "Fewer than two systems with a test scope: nothing to compare."))
