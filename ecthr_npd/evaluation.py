"""``courtbench evaluate ecthr_npd``: score award predictions and write the paper-style report.

Inputs: a built Hub folder (:func:`ecthr_npd.data.load_benchmark`) and one strict
predictions file per system (CSV, JSON Lines or a JSON array with ``case_id`` — or the
authors' ``itemid`` — and ``prediction`` — or ``predicted_award_eur``; the system is named
after the file stem). Each file is scored on every split of ``--splits`` (default validation
and test) that it covers completely — test only, validation only, or both: its *scope*,
stated in every table and recorded in report.json. A split covered in part is refused with
the missing case ids; unknown and duplicate case ids are listed together in one error; rows
of other splits (a baseline file covers train too) are skipped. A runner's manifest beside a
file (``NAME.csv.manifest.json``) gives the system's fallback / failure share.

Report (:class:`courtbench.report.Report`, tables in Markdown, JSON and CSV):

- ``main``: MAE with its 95% bootstrap interval, RMSE, R², MedAE, 95AE, Pearson r,
  Spearman ρ and Zero-F1 on the test pool; MAE on the ID, OOD and Challenging views; MAE on
  validation; the scope, the fallback / failure share and the selection protocol;
- ``panel``: the full metric panel (positive-class F1, zero/positive accuracy, MAE and MAPE
  on positive awards included) per system and view;
- ``reference`` (when catboost/xgboost/lightgbm/ensemble files are given): courtbench against
  the paper's reference systems, with the seed spread (:mod:`ecthr_npd.paper_comparison`);
  extra-seed files (``NAME.seedS``) appear only there; ``paper_bar``: the ``selected`` system
  and courtbench's best others against the paper's best rows and the authors' public code;
  ``paper_constants`` (on the release, with a constant baseline): the constants on the
  release's labels and on the two labels the paper used (:mod:`ecthr_npd.paper_constants`);
- ``mae_by_range``: test MAE per award range (0 / >0–10k / 10k–50k / >50k EUR);
- ``error_buckets``: share of test cases per relative-error bucket;
- ``by_state``: test MAE per respondent state (the twelve with the most test cases, then all
  others together);
- ``by_article``: test MAE per violated article (the ``top_articles`` most frequent in test;
  a case counts for each of its articles);
- ``bootstrap``: paired bootstrap tests on the test pool, every system against the best one
  (lowest test MAE) and against ``train_median`` when that system is present.

Metrics come from the ``npd_regression`` and ``bootstrap_mae`` metric modules (loaded by path).
Figures (with matplotlib): award distribution by split, predicted vs actual, MAE by award range.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from courtbench import option_checks
from courtbench.boundary import AMOUNT_CEILING
from courtbench.errors import CourtbenchError
from courtbench.hub.files import sha256_file
from courtbench.leaderboard.rerun import rerun_block
from courtbench.metric_modules import load_metric_module
from courtbench.output_files import read_manifest, run_status
from courtbench.predictions import parse_decimal, read_predictions
from courtbench.report import Report, Table, write_report
from ecthr_npd import report_tables, schema
from ecthr_npd.data import SPLITS, BenchmarkData, load_benchmark
from ecthr_npd.input_comparison import input_tables, prompted_runs
from ecthr_npd.paper_comparison import is_replica, paper_tables
from ecthr_npd.versions import package_versions

REFERENCE_SYSTEM = "train_median"
#: Other names of the id and prediction columns, as the ECtHR-NPD authors' evaluator accepts
#: them (their converted LLM outputs use exactly ``itemid,predicted_award_eur``).
ID_ALIASES = ("itemid",)
PREDICTION_ALIASES = ("predicted_award_eur",)
#: Splits scored by default when a file covers them (train is never reported).
DEFAULT_SPLITS = ("validation", "test")
#: Above this share of fallback / failed cases a banner warns above the main table.
FALLBACK_BANNER_SHARE = 0.05
N_STATES = 12
DEFAULT_TOP_ARTICLES = 15
DEFAULT_RESAMPLES = 1000
DEFAULT_BOOTSTRAP_SEED = 12345
#: Options of :func:`build_report` that change a number, with their defaults (recorded in the
#: report so that ``courtbench submit`` can recompute it).
RERUN_DEFAULTS = {"zero_threshold": 0.5, "resamples": DEFAULT_RESAMPLES,
                  "seed": DEFAULT_BOOTSTRAP_SEED, "top_articles": DEFAULT_TOP_ARTICLES}
RANGE_TITLES = report_tables.RANGE_TITLES
BUCKET_TITLES = report_tables.BUCKET_TITLES


def parse_prediction(value: Any) -> float:
    """A prediction field (CSV text or JSON number) → float EUR; ValueError/TypeError for
    anything that is not a finite number ≥ 0 (booleans and empty fields included)."""
    if isinstance(value, bool) or value is None:
        raise TypeError(f"expected a number, got {type(value).__name__}")
    if isinstance(value, str):
        number = parse_decimal(value)
    elif isinstance(value, (int, float)):
        number = float(value)
    else:
        raise TypeError(f"expected a number, got {type(value).__name__}")
    if not math.isfinite(number):
        raise ValueError("not finite; expected a finite number >= 0 (EUR)")
    if number < 0:
        raise ValueError("negative; expected a finite number >= 0 (EUR)")
    if number > AMOUNT_CEILING:  # the metric modules' ceiling (courtbench.boundary)
        raise ValueError(f"above {AMOUNT_CEILING:,.0f}; expected an amount of money <= "
                         f"{AMOUNT_CEILING:,.0f} EUR")
    return number


def read_system_predictions(paths: list[Path], data: BenchmarkData,
                            splits: tuple[str, ...] = DEFAULT_SPLITS
                            ) -> dict[str, dict[str, np.ndarray]]:
    """Read every predictions file strictly; each covers one or more of ``splits`` completely.

    Returns:
        ``system (file stem) → split → float64 array`` aligned with ``data.ids(split)``, for
        the splits of ``splits`` the file covers completely (its scope), in split order.

    Raises:
        CourtbenchError / SourceError: two files with the same stem, a file covering a split
            in part (the missing ids listed), covering none of ``splits``, or a file problem
            (see :func:`courtbench.predictions.read_predictions`).
    """
    stems = Counter(Path(p).stem for p in paths)
    repeated = sorted(stem for stem, count in stems.items() if count > 1)
    if repeated:
        raise CourtbenchError(f"--predictions: systems are named after file stems, and "
                              f"{repeated} appear more than once")
    expected = [case_id for split in splits for case_id in data.ids(split)]
    # rows of the other splits (a baseline file covers train too) are not evaluated: skipped,
    # so that files of different coverage compare in one report
    others = [case_id for split in SPLITS if split not in splits for case_id in data.ids(split)]
    systems = {}
    for path in paths:
        values = read_predictions(path, schema.ID_COLUMN, schema.PREDICTION_COLUMN, expected,
                                  parse_prediction, ignored_ids=others, id_aliases=ID_ALIASES,
                                  value_aliases=PREDICTION_ALIASES, allow_missing=True)
        systems[Path(path).stem] = _covered_splits(Path(path), values, data, splits)
    return systems


def _covered_splits(path: Path, values: dict[str, float], data: BenchmarkData,
                    splits: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The splits a file covers completely, as arrays; CourtbenchError for a split covered
    in part (naming the missing case ids) or a file that covers none."""
    covered = {}
    for split in splits:
        ids = data.ids(split)
        missing = [case_id for case_id in ids if case_id not in values]
        if len(missing) == len(ids):
            continue
        if missing:
            shown = ", ".join(repr(c) for c in missing[:20])
            raise CourtbenchError(
                f"{path}: covers split {split} in part: {len(missing):,} of {len(ids):,} case "
                f"id(s) of the split have no prediction: {shown}"
                + (f", ... ({len(missing) - 20:,} more)" if len(missing) > 20 else "")
                + "; a split is scored only when every case of it has a prediction")
        covered[split] = np.fromiter((values[c] for c in ids), dtype=np.float64, count=len(ids))
    if not covered:
        raise CourtbenchError(f"{path}: no prediction for any case of {', '.join(splits)}; "
                              "expected every case of at least one of these splits")
    return covered


def scope_label(system: dict[str, np.ndarray]) -> str:
    """The splits a system was scored on, e.g. ``test`` or ``validation+test``."""
    return "+".join(split for split in SPLITS if split in system)


def _view_index(data: BenchmarkData) -> dict[str, np.ndarray]:
    """Test-pool row indices of each view."""
    position = {case_id: i for i, case_id in enumerate(data.ids("test"))}
    index = {}
    for view, ids in data.views.items():
        unknown = [c for c in ids if c not in position]
        if unknown:
            raise CourtbenchError(f"{data.source}: view {view} has case ids outside the test "
                                  f"split: {unknown[:5]}")
        index[view] = np.array(sorted(position[c] for c in ids), dtype=np.intp)
    return index


def state_groups(data: BenchmarkData, n_states: int = N_STATES) -> list[str]:
    """Per test case, its respondent state when among the ``n_states`` states with the most
    test cases (ties by name), else ``other``."""
    states = data.splits["test"].column("respondent_state").to_pylist()
    counts = Counter(states)
    largest = set(sorted(counts, key=lambda s: (-counts[s], s))[:n_states])
    return [s if s in largest else "other" for s in states]


def article_groups(data: BenchmarkData, top: int) -> tuple[list[list[str]], list[str]]:
    """Per test case, its violated articles among the ``top`` most frequent in test; and those
    articles in order of frequency (ties by code)."""
    sets = [a or [] for a in data.splits["test"].column("violated_articles").to_pylist()]
    counts = Counter(a for articles in sets for a in set(articles) if a is not None)
    chosen = sorted(counts, key=lambda a: (-counts[a], a))[:top]
    keep = set(chosen)
    return [[a for a in set(articles) if a in keep] for articles in sets], chosen


def score(data: BenchmarkData, systems: dict[str, dict[str, np.ndarray]], *,
          zero_threshold: float = 0.5, top_articles: int = DEFAULT_TOP_ARTICLES
          ) -> dict[str, dict[str, Any]]:
    """``npd_regression`` per system on the test pool (with state and article groups), each
    test view, and validation. Returns ``system → pool → result dict``; a pool outside the
    system's scope is ``None``."""
    metric = load_metric_module("npd_regression").npd_regression
    views = _view_index(data)
    states = state_groups(data)
    articles, _ = article_groups(data, top_articles)
    scores = {}
    for name, predictions in systems.items():
        result: dict[str, Any] = dict.fromkeys(("test", "validation", "by_state", "by_article",
                                                *views))
        if "validation" in predictions:
            result["validation"] = metric(predictions=predictions["validation"],
                                          references=data.target("validation"),
                                          zero_threshold=zero_threshold)
        if "test" in predictions:
            result.update(_test_scores(metric, data.target("test"), predictions["test"], views,
                                       states, articles, zero_threshold))
        scores[name] = result
    return scores


def _test_scores(metric, y_test: np.ndarray, test: np.ndarray, views: dict[str, np.ndarray],
                 states: list[str], articles: list[list[str]], zero_threshold: float
                 ) -> dict[str, Any]:
    """The test pool, its state and article groups and every view of one system."""
    result = {
        "test": metric(predictions=test, references=y_test, zero_threshold=zero_threshold),
        "by_state": metric(predictions=test, references=y_test, groups=states,
                           zero_threshold=zero_threshold)["groups"],
        "by_article": metric(predictions=test, references=y_test, groups=articles,
                             zero_threshold=zero_threshold)["groups"],
    }
    for view, index in views.items():
        result[view] = (metric(predictions=test[index], references=y_test[index],
                               zero_threshold=zero_threshold) if index.size else None)
    return result


def bootstrap_tests(data: BenchmarkData, systems: dict[str, dict[str, np.ndarray]],
                    scores: dict[str, dict[str, Any]], *, resamples: int, seed: int
                    ) -> list[dict[str, Any]]:
    """Paired bootstrap (test pool) of every system against the best and against
    ``train_median``; one dict per comparison (system, against, and bootstrap_mae's result)."""
    compare = load_metric_module("bootstrap_mae").bootstrap_mae
    systems = {name: values for name, values in systems.items() if "test" in values}
    if not systems:
        return []
    best = min(systems, key=lambda name: (scores[name]["test"]["mae"], name))
    references = [best] + ([REFERENCE_SYSTEM] if REFERENCE_SYSTEM in systems
                           and REFERENCE_SYSTEM != best else [])
    y = data.target("test")
    rows = []
    for against in references:
        for name in systems:
            if name == against:
                continue
            result = compare(predictions1=systems[name]["test"],
                             predictions2=systems[against]["test"], references=y,
                             n_resamples=resamples, seed=seed)
            rows.append({"system": name, "against": against, **result})
    return rows


def build_tables(data: BenchmarkData, scores: dict[str, dict[str, Any]],
                 tests: list[dict[str, Any]], *, top_articles: int,
                 variants: dict[str, dict[str, Any]] | None = None,
                 context: dict[str, Any] | None = None) -> list[Table]:
    """The report's tables (see the module docstring). ``variants`` (see
    :func:`system_variants`) give the main table's selection column; ``context`` (see
    :func:`report_tables.main_table`) the scopes, MAE intervals and fallback shares."""
    context = {"scopes": {name: "+".join(p for p in ("validation", "test") if s[p] is not None)
                          for name, s in scores.items()},
               "intervals": {}, "fallback": {}, "constant": [], "zero_threshold": 0.5,
               **(context or {}), "variants": variants or {}}
    tables = [report_tables.main_table(data, scores, context), report_tables.panel_table(scores),
              *report_tables.range_and_bucket_tables(scores)]
    tested = {name: s for name, s in scores.items() if s["test"] is not None}
    if tested:
        first = next(iter(tested.values()))["by_state"]
        states = sorted(first, key=lambda label: (label == "other", -first[label]["n"], label))
        tables.append(report_tables.group_table(
            "by_state", "Test MAE by respondent state (largest twelve + other)", "State",
            states, tested))
        tables.append(report_tables.group_table(
            "by_article", f"Test MAE by violated article (top {top_articles} in test)",
            "Article", article_groups(data, top_articles)[1], tested))
    tables.append(report_tables.bootstrap_table(tests))
    return tables


def _settings_documents(paths: list[Path]) -> dict[Path, dict[str, Any]]:
    """``settings.json`` written by ``courtbench baselines`` beside prediction files, by
    folder (folders without one are left out)."""
    found = {}
    for folder in sorted({Path(p).parent for p in paths}):
        settings = folder / "settings.json"
        if settings.is_file():
            found[folder] = json.loads(settings.read_text(encoding="utf-8"))
    return found


def _baseline_settings(paths: list[Path]) -> dict[str, Any]:
    """Seeds, k, tree options and data fingerprint of each predictions folder."""
    found = {}
    for folder, document in _settings_documents(paths).items():
        found[str(folder)] = {key: document.get(key) for key in
                              ("seed", "seeds", "k", "threads", "feature_set", "objective",
                               "selection", "refit")}
        found[str(folder)]["data_fingerprint"] = document.get("data", {}).get("fingerprint")
    return found


def system_variants(prediction_files: dict[str, Path]) -> dict[str, dict[str, Any]]:
    """``system → variant`` (library, feature set, objective, selection, refit, seed,
    replica_of) as ``courtbench baselines`` recorded it; systems without a record are absent."""
    documents = _settings_documents(list(prediction_files.values()))
    variants = {}
    for name, path in prediction_files.items():
        entry = documents.get(Path(path).parent, {}).get("systems", {}).get(name)
        if entry and entry.get("variant"):
            variants[name] = entry["variant"]
    return variants


def fallback_share(path: Path) -> float | None:
    """Share of a runner's cases filled with the fallback or whose request or answer failed
    (the larger of the two), from the validated manifest beside ``path``; None without one
    or when it states neither."""
    status = run_status(read_manifest(path))
    shares = [v for v in (status["fallback_share"], status["failure_share"]) if v is not None]
    return max(shares) if shares else None


def incomplete_runs(files: dict[str, Path]) -> list[str]:
    """Systems whose runner manifest says the run is incomplete (``complete: false``)."""
    return [name for name, path in files.items()
            if run_status(read_manifest(path))["complete"] is False]


def _table_context(data: BenchmarkData, systems: dict[str, dict[str, np.ndarray]],
                   files: dict[str, Path], *, zero_threshold: float, resamples: int,
                   seed: int) -> dict[str, Any]:
    """Scopes, MAE intervals (test), fallback shares and constant test predictors."""
    single = load_metric_module("bootstrap_mae").bootstrap_mae_single
    intervals = {}
    for name, values in systems.items():
        if "test" in values:
            result = single(predictions=values["test"], references=data.target("test"),
                            n_resamples=resamples, seed=seed)
            intervals[name] = (result["ci_low"], result["ci_high"])
    return {"scopes": {name: scope_label(values) for name, values in systems.items()},
            "intervals": intervals,
            "fallback": {name: fallback_share(path) for name, path in files.items()},
            "incomplete": incomplete_runs(files),
            "constant": [name for name, values in systems.items()
                         if "test" in values and np.ptp(values["test"]) == 0],
            "zero_threshold": zero_threshold}


def _banner(context: dict[str, Any]) -> str:
    """Warning lines for systems whose fallback / failure share exceeds the threshold and
    for runs their manifest calls incomplete."""
    high = {name: share for name, share in context["fallback"].items()
            if share is not None and share > FALLBACK_BANNER_SHARE}
    lines = ""
    if high:
        listed = ", ".join(f"{name} {100 * share:.1f}%" for name, share in sorted(high.items()))
        lines += (f"\n\n> **Warning: high fallback / failure share** (above "
                  f"{100 * FALLBACK_BANNER_SHARE:.0f}% of the run's cases): {listed}. Their "
                  "figures partly score the fallback, not the model.")
    if context.get("incomplete"):
        lines += ("\n\n> **Warning: incomplete run(s)** (their manifest says complete: false): "
                  + ", ".join(sorted(context["incomplete"])) + ".")
    return lines


def build_report(data: BenchmarkData, systems: dict[str, dict[str, np.ndarray]], *,
                 prediction_files: dict[str, Path] | None = None, zero_threshold: float = 0.5,
                 resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_BOOTSTRAP_SEED,
                 top_articles: int = DEFAULT_TOP_ARTICLES, figures: bool = True) -> Report:
    """Score ``systems`` and assemble the :class:`Report` (tables, figures, provenance)."""
    if not systems:
        raise CourtbenchError("no systems to evaluate; give at least one predictions file")
    prediction_files = prediction_files or {}
    variants = system_variants(prediction_files)
    all_scores = score(data, systems, zero_threshold=zero_threshold, top_articles=top_articles)
    # extra seeds (NAME.seedS) only feed the reference table's spread
    main_systems = {name: values for name, values in systems.items()
                    if not is_replica(variants.get(name))}
    scores = {name: all_scores[name] for name in main_systems}
    tests = bootstrap_tests(data, main_systems, scores, resamples=resamples, seed=seed)
    context = _table_context(data, main_systems, prediction_files,
                             zero_threshold=zero_threshold, resamples=resamples, seed=seed)
    tables = build_tables(data, scores, tests, top_articles=top_articles, variants=variants,
                          context=context)
    for position, table in enumerate(paper_tables(data, all_scores, variants), start=1):
        tables.insert(position, table)
    tables += input_tables(scores, prompted_runs(prediction_files))
    metrics = {"npd_regression": {"zero_threshold": zero_threshold},
               "bootstrap_mae": {"n_resamples": resamples, "seed": seed,
                                 "signature": tests[0]["signature"] if tests else None}}
    provenance = _provenance(data, prediction_files, metrics, context,
                             top_articles=top_articles)
    drawn = {}
    if figures:
        from ecthr_npd import report_figures

        tested = {name: values for name, values in main_systems.items() if "test" in values}
        drawn = report_figures.figures(data, tested, {name: scores[name] for name in tested})
    return Report(title="ECtHR-NPD evaluation", provenance=provenance, tables=tables,
                  figures=drawn, extra_json={"scores": all_scores, "bootstrap": tests},
                  intro=_intro(data, len(main_systems), len(systems) - len(main_systems),
                               context))


def _provenance(data: BenchmarkData, prediction_files: dict[str, Path],
                metrics: dict[str, Any], context: dict[str, Any], *,
                top_articles: int) -> dict[str, Any]:
    """The report's provenance: data, prediction files (sha256), baseline settings, metric
    options, view settings, scopes, fallback shares and package versions."""
    return {
        "data": {"source": data.source, "fingerprint": data.fingerprint,
                 "rows": {s: data.splits[s].num_rows for s in SPLITS},
                 "views": {v: len(ids) for v, ids in data.views.items()}},
        "predictions": {name: {"path": str(path), "sha256": sha256_file(path)}
                        for name, path in prediction_files.items()},
        "baselines": _baseline_settings(list(prediction_files.values())),
        "metrics": metrics,
        "views": {"states": N_STATES, "top_articles": top_articles},
        "scope": context["scopes"],
        "fallback_share": context["fallback"],
        "incomplete_runs": context.get("incomplete", []),
        "versions": package_versions(),
    }


def _intro(data: BenchmarkData, n_main: int, replicas: int, context: dict[str, Any]) -> str:
    """The report's first paragraph: systems, data, each system's scope, the banner."""
    return (f"{n_main} system(s) on {data.source}"
            + (f" (and {replicas} extra-seed file(s) for the reference table's spread)."
               if replicas else ".") + " Scope per system: "
            + "; ".join(f"{name} {scope}" for name, scope in context["scopes"].items())
            + "." + _banner(context))


def add_evaluate_arguments(parser: argparse.ArgumentParser) -> None:
    """``courtbench evaluate ecthr_npd`` options (``--data``, ``--predictions``, ``--out``
    come from the CLI)."""
    parser.add_argument("--splits", default=",".join(DEFAULT_SPLITS),
                        help="comma-separated splits to score (default validation,test): each "
                             "file is scored on those it covers completely (test only, "
                             "validation only, both), a split covered in part is refused; "
                             "rows of other splits are skipped")
    parser.add_argument("--resamples", type=option_checks.RESAMPLES, default=DEFAULT_RESAMPLES,
                        help=f"paired bootstrap resamples (default {DEFAULT_RESAMPLES:,})")
    parser.add_argument("--bootstrap-seed", type=option_checks.SEED, default=DEFAULT_BOOTSTRAP_SEED,
                        help=f"seed of the bootstrap (default {DEFAULT_BOOTSTRAP_SEED})")
    parser.add_argument("--zero-threshold", type=option_checks.number(
                            0.0, AMOUNT_CEILING, what="an amount in EUR"), default=0.5,
                        help="a prediction below it (EUR) counts as a zero award (default 0.5)")
    parser.add_argument("--top-articles", type=option_checks.count(
                            1_000, what="a number of articles"), default=DEFAULT_TOP_ARTICLES,
                        help=f"violated articles in the by-article table (default "
                             f"{DEFAULT_TOP_ARTICLES})")
    parser.add_argument("--no-figures", action="store_true", help="skip the PNG figures")


def parse_splits(text: str) -> tuple[str, ...]:
    """``--splits`` → tuple in canonical order; a non-empty subset of the splits."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [n for n in names if n not in SPLITS]
    if unknown or not names:
        raise CourtbenchError(f"--splits {text!r}: expected a comma-separated subset of "
                              f"{', '.join(SPLITS)}, e.g. test or validation,test")
    return tuple(s for s in SPLITS if s in names)


def evaluate_files(data_dir: Path, prediction_paths: list[Path], out_dir: Path, *,
                   splits: tuple[str, ...] = DEFAULT_SPLITS, **options: Any) -> Report:
    """Load, read, score and write the report folder; returns the report."""
    data = load_benchmark(data_dir)
    systems = read_system_predictions(prediction_paths, data, splits)
    files = {Path(p).stem: Path(p) for p in prediction_paths}
    report = build_report(data, systems, prediction_files=files, **options)
    rerun_options = {"splits": list(splits),
                     **{key: options.get(key, default) for key, default in RERUN_DEFAULTS.items()}}
    report.provenance["rerun"] = rerun_block("ecthr_npd", data_dir, files, rerun_options,
                                             ("npd_regression", "bootstrap_mae"),
                                             data_fingerprint=data.fingerprint)
    write_report(report, out_dir)
    return report


def evaluate(args: argparse.Namespace) -> int:
    """CLI entry: writes the report folder and prints the main table."""
    if args.resamples < 2:
        raise CourtbenchError(f"--resamples {args.resamples}: expected an integer >= 2")
    if args.top_articles < 1:
        raise CourtbenchError(f"--top-articles {args.top_articles}: expected an integer >= 1")
    if not (math.isfinite(args.zero_threshold) and args.zero_threshold > 0):
        raise CourtbenchError(f"--zero-threshold {args.zero_threshold}: expected a finite "
                              "number > 0 (EUR)")
    report = evaluate_files(args.data, list(args.predictions), args.out,
                            splits=parse_splits(args.splits), zero_threshold=args.zero_threshold,
                            resamples=args.resamples, seed=args.bootstrap_seed,
                            top_articles=args.top_articles, figures=not args.no_figures)
    print(report.tables[0].markdown())
    print(f"\nreport written to {args.out}", file=sys.stderr)
    return 0
