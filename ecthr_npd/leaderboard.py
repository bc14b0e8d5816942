"""ECtHR-NPD leaderboard records: what the page shows of an evaluation report.

Per system a record carries its test predictions (one award per test case, in the order of
the gold file) and what :mod:`ecthr_npd.record_verifier` recomputes from them: test MAE with
its bootstrap CI (primary), RMSE, MedAE, Zero-F1, R²; MAE on the ID / OOD / Challenging views
and the scope (test cases) as breakdowns; each test case's absolute error (EUR), so that the
page can compare any two systems with a paired bootstrap. Before a record is written, every
number is checked against the freshly re-scored report (npd_regression and bootstrap_mae):
the verifier and the metric modules must agree.

The gold file (:func:`leaderboard_gold`): the test split's case ids and awards, and the views
as item groups. The reference systems are the baselines ``courtbench baselines ecthr_npd``
writes (statistics, k-NN, trees, text systems): only ``courtbench leaderboard init`` turns
them into reference rows; a submission under one of their names is refused.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from courtbench.boundary import name_key
from courtbench.errors import CourtbenchError
from courtbench.leaderboard.protocol import check_option_types
from courtbench.leaderboard.record_check import GOLD_SCHEMA, agrees
from courtbench.leaderboard.verifiers import VerifierSpec
from courtbench.metric_modules import load_metric_module
from ecthr_npd import record_verifier
from ecthr_npd.data import load_benchmark
from ecthr_npd.evaluation import DEFAULT_SPLITS, evaluate_files, read_system_predictions

VIEWS = ("ID", "OOD", "Challenging")
#: The baselines courtbench ships (every name of ``courtbench baselines``): the reference
#: rows of the page, as the verifier (which travels into the Space) lists them.
REFERENCE_SYSTEMS = record_verifier.RESERVED_NAMES
#: Every record is paired-tested against this reference (the paper's comparison).
PAIRED_AGAINST = ("train_median",)
#: (displayed name, key in npd_regression's result) of the figures checked against the report.
REPORT_KEYS = {"MAE": "mae", "RMSE": "rmse", "MedAE": "medae", "Zero-F1": "zero_f1", "R²": "r2"}

#: Types of the evaluation options a report's rerun block must carry.
OPTION_TYPES = {"splits": "str-list", "zero_threshold": float, "resamples": int, "seed": int,
                "top_articles": int}
#: The leaderboard protocol: Zero-F1 at the default threshold, at least this many resamples.
PROTOCOL_ZERO_THRESHOLD = record_verifier.PROTOCOL_ZERO_THRESHOLD
PROTOCOL_MIN_RESAMPLES = record_verifier.PROTOCOL_MIN_RESAMPLES
SCOPE = "test cases; MAE also on the ID, OOD and Challenging views"


def leaderboard_protocol(options: dict[str, Any], where: str) -> list[str]:
    """How a report's options differ from the leaderboard protocol (empty: comparable):
    the test split scored, ``--zero-threshold 0.5``, ``--resamples`` ≥ 1,000."""
    check_option_types(options, OPTION_TYPES, where)
    flags = {"split": "--splits", "zero_threshold": "--zero-threshold", "resamples": "--resamples"}
    values = {"split": ",".join(options["splits"]), "zero_threshold": options["zero_threshold"],
              "resamples": options["resamples"]}
    return record_verifier.protocol_differences(
        values, test_scored="test" in options["splits"],
        named=lambda key, value: f"{flags[key]} {value}")


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


def leaderboard_gold(data_dir: Path) -> dict[str, Any]:
    """The gold file of a built folder: test case ids and awards (EUR), the views as groups
    of test-item indices (``MAE by test view``)."""
    data = load_benchmark(Path(data_dir))
    ids = data.ids("test")
    position = {case_id: index for index, case_id in enumerate(ids)}
    groups = {view: sorted(position[c] for c in data.views.get(view, ())) for view in VIEWS}
    return {"schema": GOLD_SCHEMA, "benchmark": record_verifier.BENCHMARK,
            "data_fingerprint": data.fingerprint, "split": "test", "item_ids": list(ids),
            "values": [float(v) for v in data.target("test")], "texts": None, "labels": {},
            "groups": {record_verifier.VIEWS_TABLE: groups}}


def is_reference(system: str) -> bool:
    """Whether ``system`` is (ignoring case and width) the name of a reference baseline."""
    return name_key(system) in {name_key(name) for name in REFERENCE_SYSTEMS}


def leaderboard_records(rerun: dict[str, Any], report: dict[str, Any],
                        systems: list[str]) -> list[dict[str, Any]]:
    """One record per system of a freshly recomputed report, without its numbers (the
    predictions, scope and options; :mod:`courtbench.leaderboard.records` has the verifier
    fill in every number and calls :func:`cross_check`)."""
    del report  # the numbers come from the verifier; cross_check compares them with it
    options = rerun["options"]
    data = load_benchmark(Path(rerun["data"]))
    paths = [Path(rerun["predictions"][s]["path"]) for s in systems]
    predictions = read_system_predictions(paths, data,
                                          tuple(options.get("splits", DEFAULT_SPLITS)))
    untested = [s for s in systems if "test" not in predictions[s]]
    if untested:
        raise CourtbenchError(f"system(s) {', '.join(untested)}: scored on validation only; the "
                              "leaderboard ranks test figures (submit a file covering test)")
    return [{"system": system, "reference": is_reference(system), "split": "test",
             "scope": SCOPE, "predicted_values": [float(v) for v in predictions[system]["test"]],
             "predicted_texts": [], "metrics": [], "breakdowns": [], "paired_tests": [],
             **({"family": "baseline"} if is_reference(system) else {})}
            for system in systems]


def _figure(record: dict[str, Any], name: str) -> float | None:
    return next(m["value"] for m in record["metrics"] if m["name"] == name)


def cross_check(report: dict[str, Any], record: dict[str, Any], gold: dict[str, Any]
                ) -> list[str]:
    """Where the verifier's numbers in ``record`` differ from the re-scored report (the
    metric modules): each test figure, each view's MAE, and the MAE interval recomputed with
    bootstrap_mae's ``single`` config."""
    scores = report["scores"][record["system"]]
    problems = [f"{name}: verifier {_figure(record, name)!r}, report {scores['test'][key]!r}"
                for name, key in REPORT_KEYS.items()
                if not agrees(_figure(record, name), scores["test"][key])]
    for item in record["breakdowns"]:
        if item["table"] == record_verifier.VIEWS_TABLE:
            stated = (scores.get(item["row"]) or {}).get("mae")
            if not agrees(item["value"], stated):
                problems.append(f"MAE {item['row']}: verifier {item['value']!r}, report {stated!r}")
    options = json.loads(record["options_json"])
    interval = load_metric_module("bootstrap_mae").bootstrap_mae_single(
        predictions=record["predicted_values"], references=gold["values"],
        n_resamples=int(record["resamples"]), seed=options["seed"])
    primary = next(m for m in record["metrics"] if m["primary"])
    problems += [f"MAE {key}: verifier {primary[key]!r}, bootstrap_mae {interval[key]!r}"
                 for key in ("ci_low", "ci_high") if not agrees(primary[key], interval[key])]
    return problems


def verifier_spec() -> VerifierSpec:
    """How the leaderboard recomputes ECtHR-NPD records (see :class:`VerifierSpec`)."""
    return VerifierSpec(module=record_verifier,
                        space_files={f"verifier_{record_verifier.BENCHMARK}.py":
                                     Path(record_verifier.__file__)},
                        space_requirements=(), references=tuple(REFERENCE_SYSTEMS),
                        paired_against=PAIRED_AGAINST,
                        gold=leaderboard_gold, cross_check=cross_check)
