"""ECtHR-NPD leaderboard records: what the page shows of an evaluation report.

Per system: test MAE with its bootstrap CI (primary), RMSE, MedAE, Zero-F1, R², validation
MAE; MAE on the ID / OOD / Challenging views as breakdowns; the report's paired bootstrap
tests against the reference systems; and each test case's absolute error (EUR), so that the
page can compare any two systems with a paired bootstrap.

Scope: the splits a system was scored on are recorded as the breakdown table ``Scope`` (one
row per split of the scope, value = its number of cases), the simplest form the record schema
already carries, so that re-scoring and record validation stay as they are. The leaderboard
ranks test figures: a system whose file covers validation only is refused with a message.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from courtbench.errors import CourtbenchError
from courtbench.leaderboard.protocol import check_option_types
from courtbench.metric_modules import load_metric_module
from ecthr_npd.baselines import SYSTEMS as BASELINE_SYSTEMS
from ecthr_npd.data import load_benchmark
from ecthr_npd.evaluation import DEFAULT_SPLITS, evaluate_files, read_system_predictions

VIEWS = ("ID", "OOD", "Challenging")
#: (key in npd_regression's result, displayed name, lower is better)
TEST_METRICS = (("rmse", "RMSE", True), ("medae", "MedAE", True), ("zero_f1", "Zero-F1", False),
                ("r2", "R²", False))


#: Types of the evaluation options a report's rerun block must carry.
OPTION_TYPES = {"splits": "str-list", "zero_threshold": float, "resamples": int, "seed": int,
                "top_articles": int}
#: The leaderboard protocol: Zero-F1 at the default threshold, at least this many resamples.
PROTOCOL_ZERO_THRESHOLD = 0.5
PROTOCOL_MIN_RESAMPLES = 1000
SCOPE = "test cases; MAE also on the ID, OOD and Challenging views"


def leaderboard_protocol(options: dict[str, Any], where: str) -> list[str]:
    """How a report's options differ from the leaderboard protocol (empty: comparable):
    the test split scored, ``--zero-threshold 0.5``, ``--resamples`` ≥ 1,000."""
    check_option_types(options, OPTION_TYPES, where)
    differences = []
    if "test" not in options["splits"]:
        differences.append(f"--splits {','.join(options['splits'])}: the test split was "
                           "not scored")
    if options["zero_threshold"] != PROTOCOL_ZERO_THRESHOLD:
        differences.append(f"--zero-threshold {options['zero_threshold']}: the protocol "
                           f"uses {PROTOCOL_ZERO_THRESHOLD}")
    if options["resamples"] < PROTOCOL_MIN_RESAMPLES:
        differences.append(f"--resamples {options['resamples']}: the protocol needs at "
                           f"least {PROTOCOL_MIN_RESAMPLES:,}")
    return differences


def rescore_report(rerun: dict[str, Any], out_dir: Path) -> dict[str, Any]:
    """Recompute the report described by ``rerun`` into ``out_dir``; returns its JSON."""
    options = rerun["options"]
    paths = [Path(entry["path"]) for entry in rerun["predictions"].values()]
    report = evaluate_files(Path(rerun["data"]), paths, out_dir,
                            splits=tuple(options.get("splits", DEFAULT_SPLITS)),
                            zero_threshold=options["zero_threshold"],
                            resamples=options["resamples"], seed=options["seed"],
                            top_articles=options["top_articles"], figures=False)
    return report.to_json()


def _metric(name: str, value: float | None, lower_is_better: bool, *, primary: bool = False,
            ci: tuple[float, float] | None = None) -> dict[str, Any]:
    return {"name": name, "value": value, "ci_low": ci[0] if ci else None,
            "ci_high": ci[1] if ci else None, "lower_is_better": lower_is_better,
            "primary": primary}


def leaderboard_records(rerun: dict[str, Any], report: dict[str, Any],
                        systems: list[str]) -> list[dict[str, Any]]:
    """One record per system of a freshly recomputed report (fields other than the
    benchmark-specific ones are filled in by :mod:`courtbench.leaderboard.records`)."""
    options = rerun["options"]
    data = load_benchmark(Path(rerun["data"]))
    paths = [Path(rerun["predictions"][s]["path"]) for s in systems]
    predictions = read_system_predictions(paths, data,
                                          tuple(options.get("splits", DEFAULT_SPLITS)))
    untested = [s for s in systems if "test" not in predictions[s]]
    if untested:
        raise CourtbenchError(f"system(s) {', '.join(untested)}: scored on validation only; the "
                              "leaderboard ranks test figures (submit a file covering test)")
    y_test = data.target("test")
    single = load_metric_module("bootstrap_mae").bootstrap_mae_single
    records = []
    for system in systems:
        scores = report["scores"][system]
        test = scores["test"]
        interval = single(predictions=predictions[system]["test"], references=y_test,
                          n_resamples=options["resamples"], seed=options["seed"])
        metrics = [_metric("MAE", test["mae"], True, primary=True,
                           ci=(interval["ci_low"], interval["ci_high"]))]
        metrics += [_metric(title, test[key], lower) for key, title, lower in TEST_METRICS]
        if scores.get("validation"):  # a test-only run (a prompted model) has none
            metrics.append(_metric("Validation MAE", scores["validation"]["mae"], True))
        breakdowns = [{"table": "MAE by test view", "row": view, "column": "MAE",
                       "value": scores[view]["mae"] if scores.get(view) else None}
                      for view in VIEWS]
        breakdowns += [{"table": "Scope", "row": split, "column": "cases",
                        "value": float(values.size)}
                       for split, values in predictions[system].items()]
        tests = [{"against": row["against"], "delta": row["delta"], "ci_low": row["ci_low"],
                  "ci_high": row["ci_high"], "p_better": row["prob_1_better"]}
                 for row in report["bootstrap"] if row["system"] == system]
        errors = np.abs(predictions[system]["test"] - y_test)
        records.append({
            "system": system, "reference": system in BASELINE_SYSTEMS,
            "split": "test", "scope": SCOPE, "metrics": metrics, "breakdowns": breakdowns, "paired_tests": tests,
            "per_item_name": "absolute error on the test split (EUR)",
            "per_item_lower_is_better": True, "per_item": [float(e) for e in errors],
            **({"family": "baseline"} if system in BASELINE_SYSTEMS else {}),
        })
    return records
