"""``courtbench evaluate ecthr_npd``: score award predictions and write the paper-style report.

Inputs: a built Hub folder (:func:`ecthr_npd.data.load_benchmark`) and one strict
predictions file per system (CSV or JSON Lines with ``case_id`` and ``prediction``; the system
is named after the file stem). A file must hold exactly one finite, non-negative prediction
(EUR) for every case of the required splits (default: train, validation and test, as
``courtbench baselines`` writes them) and nothing else; unknown, duplicate and missing case
ids are listed together in one error.

Report (:class:`courtbench.report.Report`, tables in Markdown, JSON and CSV):

- ``main``: MAE, RMSE, R², MedAE, 95AE, Pearson r, Spearman ρ and Zero-F1 on the test pool;
  MAE on the ID, OOD and Challenging views; MAE on validation; the selection protocol;
- ``reference`` (when catboost/xgboost/lightgbm/ensemble files are given): courtbench against
  the paper's reference systems, with the seed spread (:mod:`ecthr_npd.paper_comparison`);
  extra-seed files (``NAME.seedS``) appear only there;
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

from courtbench.errors import CourtbenchError
from courtbench.hub.files import sha256_file
from courtbench.leaderboard.rerun import rerun_block
from courtbench.metric_modules import load_metric_module
from courtbench.predictions import read_predictions
from courtbench.report import Report, Table, write_report
from ecthr_npd import schema
from ecthr_npd.data import SPLITS, BenchmarkData, load_benchmark
from ecthr_npd.input_comparison import input_tables, prompted_runs
from ecthr_npd.paper_comparison import is_replica, reference_table, selection_label
from ecthr_npd.versions import package_versions

REFERENCE_SYSTEM = "train_median"
N_STATES = 12
DEFAULT_TOP_ARTICLES = 15
DEFAULT_RESAMPLES = 1000
DEFAULT_BOOTSTRAP_SEED = 12345
#: Options of :func:`build_report` that change a number, with their defaults (recorded in the
#: report so that ``courtbench submit`` can recompute it).
RERUN_DEFAULTS = {"zero_threshold": 0.5, "resamples": DEFAULT_RESAMPLES,
                  "seed": DEFAULT_BOOTSTRAP_SEED, "top_articles": DEFAULT_TOP_ARTICLES}
RANGE_TITLES = {"zero": "0", "up_to_10k": ">0–10k", "10k_to_50k": "10k–50k", "over_50k": ">50k"}
BUCKET_TITLES = {"exact": "exact", "within_10pct": "within 10%", "10_to_50pct": "10–50%",
                 "over_50pct": ">50%"}


def parse_prediction(value: Any) -> float:
    """A prediction field (CSV text or JSON number) → float EUR; ValueError/TypeError for
    anything that is not a finite number ≥ 0 (booleans and empty fields included)."""
    if isinstance(value, bool) or value is None:
        raise TypeError(f"expected a number, got {type(value).__name__}")
    if isinstance(value, str):
        if not value.strip():
            raise ValueError("empty field; expected a number")
        number = float(value)
    elif isinstance(value, (int, float)):
        number = float(value)
    else:
        raise TypeError(f"expected a number, got {type(value).__name__}")
    if not math.isfinite(number):
        raise ValueError("not finite; expected a finite number >= 0 (EUR)")
    if number < 0:
        raise ValueError("negative; expected a finite number >= 0 (EUR)")
    return number


def read_system_predictions(paths: list[Path], data: BenchmarkData,
                            splits: tuple[str, ...] = SPLITS) -> dict[str, dict[str, np.ndarray]]:
    """Read every predictions file strictly.

    Returns:
        ``system (file stem) → split → float64 array`` aligned with ``data.ids(split)``.

    Raises:
        CourtbenchError / SourceError: two files with the same stem, or a file problem
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
                                  parse_prediction, ignored_ids=others)
        systems[Path(path).stem] = {
            split: np.fromiter((values[c] for c in data.ids(split)), dtype=np.float64)
            for split in splits}
    return systems


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
    test view, and validation. Returns ``system → pool → result dict``."""
    metric = load_metric_module("npd_regression").npd_regression
    views = _view_index(data)
    y_test, y_validation = data.target("test"), data.target("validation")
    states = state_groups(data)
    articles, _ = article_groups(data, top_articles)
    scores = {}
    for name, predictions in systems.items():
        test = predictions["test"]
        result = {
            "test": metric(predictions=test, references=y_test, zero_threshold=zero_threshold),
            "validation": metric(predictions=predictions["validation"], references=y_validation,
                                 zero_threshold=zero_threshold),
            "by_state": metric(predictions=test, references=y_test, groups=states,
                               zero_threshold=zero_threshold)["groups"],
            "by_article": metric(predictions=test, references=y_test, groups=articles,
                                 zero_threshold=zero_threshold)["groups"],
        }
        for view, index in views.items():
            result[view] = (metric(predictions=test[index], references=y_test[index],
                                   zero_threshold=zero_threshold) if index.size else None)
        scores[name] = result
    return scores


def bootstrap_tests(data: BenchmarkData, systems: dict[str, dict[str, np.ndarray]],
                    scores: dict[str, dict[str, Any]], *, resamples: int, seed: int
                    ) -> list[dict[str, Any]]:
    """Paired bootstrap (test pool) of every system against the best and against
    ``train_median``; one dict per comparison (system, against, and bootstrap_mae's result)."""
    compare = load_metric_module("bootstrap_mae").bootstrap_mae
    best = min(scores, key=lambda name: (scores[name]["test"]["mae"], name))
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


def _mae(result: dict[str, Any] | None) -> float | None:
    return None if result is None else result["mae"]


def build_tables(data: BenchmarkData, scores: dict[str, dict[str, Any]],
                 tests: list[dict[str, Any]], *, top_articles: int,
                 variants: dict[str, dict[str, Any]] | None = None) -> list[Table]:
    """The report's tables (see the module docstring); ``variants`` (see
    :func:`system_variants`) give the main table's selection column."""
    variants = variants or {}
    names = list(scores)
    y_test = data.target("test")
    n_views = {view: len(ids) for view, ids in data.views.items()}
    main = Table(
        "main", "Main results (test pool; views; validation)",
        ["System", "MAE", "RMSE", "R²", "MedAE", "95AE", "Pearson r", "Spearman ρ", "Zero-F1",
         f"MAE ID ({n_views['ID']:,})", f"MAE OOD ({n_views['OOD']:,})",
         f"MAE Challenging ({n_views['Challenging']:,})", "Val MAE", "Selection"],
        [[name, s["test"]["mae"], s["test"]["rmse"], s["test"]["r2"], s["test"]["medae"],
          s["test"]["p95_ae"], s["test"]["pearson_r"], s["test"]["spearman_rho"],
          s["test"]["zero_f1"], _mae(s["ID"]), _mae(s["OOD"]), _mae(s["Challenging"]),
          s["validation"]["mae"], selection_label(variants.get(name))]
         for name, s in scores.items()],
        note=(f"Test pool n = {y_test.size:,}, validation n = {data.target('validation').size:,}."
              " MAE, RMSE, MedAE, 95AE in EUR (lower is better); R², r, ρ, Zero-F1 higher is "
              "better. Zero-F1: F1 of the zero-award class (prediction < "
              f"{scores[names[0]]['test']['zero_threshold'] if names else 0.5} EUR = zero). "
              "Selection: how a system chose its settings without test (validation MAE; "
              "rolling-origin folds over the last years of train+validation; none: nothing to "
              "choose; — : not recorded)."))
    first = scores[names[0]]["test"] if names else None
    range_n = {key: first["bucket_mae"][key]["n"] for key in RANGE_TITLES} if first else {}
    by_range = Table(
        "mae_by_range", "Test MAE by award range (EUR)",
        ["System"] + [f"{title} (n={range_n.get(key, 0):,})" for key, title in RANGE_TITLES.items()],
        [[name] + [s["test"]["bucket_mae"][key]["mae"] for key in RANGE_TITLES]
         for name, s in scores.items()],
        note="Ranges of the true award; upper bounds inclusive; — = no case in the range.")
    buckets = Table(
        "error_buckets", "Error buckets on the test pool (% of cases)",
        ["System"] + list(BUCKET_TITLES.values()),
        [[name] + [100.0 * s["test"]["error_buckets"][key] / s["test"]["n"]
                   for key in BUCKET_TITLES] for name, s in scores.items()],
        note="exact: |error| < zero threshold; then |error| / true award within 10%, 10–50%, "
             ">50%; for a zero award any positive prediction is >50%.", digits=1)
    tables = [main, by_range, buckets]
    for key, title, column in (
            ("by_state", "Test MAE by respondent state (largest twelve + other)", "State"),
            ("by_article", f"Test MAE by violated article (top {top_articles} in test)",
             "Article")):
        labels = list(scores[names[0]][key]) if names else []
        if key == "by_state":
            labels = sorted(labels, key=lambda label: (label == "other",
                                                       -scores[names[0]][key][label]["n"], label))
        else:
            _, labels = article_groups(data, top_articles)
        rows = []
        for label in labels:
            group = scores[names[0]][key][label]
            zero_share = group["bucket_mae"]["zero"]["n"] / group["n"]
            rows.append([label, group["n"], 100.0 * zero_share]
                        + [scores[name][key][label]["mae"] for name in names])
        tables.append(Table(key, title, [column, "n", "zero %", *names], rows,
                            note="MAE in EUR on the test cases of each group."
                            + (" A case counts for each of its violated articles."
                               if key == "by_article" else "")))
    tables.append(Table(
        "bootstrap", "Paired bootstrap tests on the test pool",
        ["System", "vs", "ΔMAE", "CI low", "CI high", "Pr(Δ* < 0)", "verdict"],
        [[t["system"], t["against"], t["delta"], t["ci_low"], t["ci_high"], t["prob_1_better"],
          t["verdict"]] for t in tests],
        note=(f"Δ = MAE(system) − MAE(vs) in EUR; {tests[0]['n_resamples']:,} full-size paired "
              f"resamples, seed {tests[0]['seed']}, {100 * tests[0]['confidence_level']:.0f}% "
              "percentile interval; Pr(Δ* < 0) is the share of resamples where the system is "
              "better." if tests else "Fewer than two systems: nothing to compare.")))
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


def build_report(data: BenchmarkData, systems: dict[str, dict[str, np.ndarray]], *,
                 prediction_files: dict[str, Path] | None = None, zero_threshold: float = 0.5,
                 resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_BOOTSTRAP_SEED,
                 top_articles: int = DEFAULT_TOP_ARTICLES, figures: bool = True) -> Report:
    """Score ``systems`` and assemble the :class:`Report` (tables, figures, provenance)."""
    if not systems:
        raise CourtbenchError("no systems to evaluate; give at least one predictions file")
    variants = system_variants(prediction_files or {})
    all_scores = score(data, systems, zero_threshold=zero_threshold, top_articles=top_articles)
    # extra seeds (NAME.seedS) only feed the reference table's spread
    main_systems = {name: values for name, values in systems.items()
                    if not is_replica(variants.get(name))}
    scores = {name: all_scores[name] for name in main_systems}
    tests = bootstrap_tests(data, main_systems, scores, resamples=resamples, seed=seed)
    tables = build_tables(data, scores, tests, top_articles=top_articles, variants=variants)
    reference = reference_table(all_scores, variants)
    if reference is not None:
        tables.insert(1, reference)
    tables += input_tables(scores, prompted_runs(prediction_files or {}))
    provenance = {
        "data": {"source": data.source, "fingerprint": data.fingerprint,
                 "rows": {s: data.splits[s].num_rows for s in SPLITS},
                 "views": {v: len(ids) for v, ids in data.views.items()}},
        "predictions": {name: {"path": str(path), "sha256": sha256_file(path)}
                        for name, path in (prediction_files or {}).items()},
        "baselines": _baseline_settings(list((prediction_files or {}).values())),
        "metrics": {"npd_regression": {"zero_threshold": zero_threshold},
                    "bootstrap_mae": {"n_resamples": resamples, "seed": seed,
                                      "signature": tests[0]["signature"] if tests else None}},
        "views": {"states": N_STATES, "top_articles": top_articles},
        "versions": package_versions(),
    }
    drawn = {}
    if figures:
        from ecthr_npd import report_figures

        drawn = report_figures.figures(data, main_systems, scores)
    replicas = len(systems) - len(main_systems)
    return Report(title="ECtHR-NPD evaluation", provenance=provenance, tables=tables,
                  figures=drawn, extra_json={"scores": all_scores, "bootstrap": tests},
                  intro=f"{len(main_systems)} system(s) on {data.source}"
                  + (f" (and {replicas} extra-seed file(s) for the reference table's spread)."
                     if replicas else "."))


def add_evaluate_arguments(parser: argparse.ArgumentParser) -> None:
    """``courtbench evaluate ecthr_npd`` options (``--data``, ``--predictions``, ``--out``
    come from the CLI)."""
    parser.add_argument("--splits", default=",".join(SPLITS),
                        help="comma-separated splits every predictions file must cover exactly "
                             "(default train,validation,test; validation and test are needed); "
                             "rows of other splits are skipped")
    parser.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES,
                        help=f"paired bootstrap resamples (default {DEFAULT_RESAMPLES:,})")
    parser.add_argument("--bootstrap-seed", type=int, default=DEFAULT_BOOTSTRAP_SEED,
                        help=f"seed of the bootstrap (default {DEFAULT_BOOTSTRAP_SEED})")
    parser.add_argument("--zero-threshold", type=float, default=0.5,
                        help="a prediction below it (EUR) counts as a zero award (default 0.5)")
    parser.add_argument("--top-articles", type=int, default=DEFAULT_TOP_ARTICLES,
                        help=f"violated articles in the by-article table (default "
                             f"{DEFAULT_TOP_ARTICLES})")
    parser.add_argument("--no-figures", action="store_true", help="skip the PNG figures")


def parse_splits(text: str) -> tuple[str, ...]:
    """``--splits`` → tuple in canonical order; must include validation and test."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [n for n in names if n not in SPLITS]
    if unknown or not {"validation", "test"} <= set(names):
        raise CourtbenchError(f"--splits {text!r}: expected a comma-separated subset of "
                              f"{', '.join(SPLITS)} that includes validation and test")
    return tuple(s for s in SPLITS if s in names)


def evaluate_files(data_dir: Path, prediction_paths: list[Path], out_dir: Path, *,
                   splits: tuple[str, ...] = SPLITS, **options: Any) -> Report:
    """Load, read, score and write the report folder; returns the report."""
    data = load_benchmark(data_dir)
    systems = read_system_predictions(prediction_paths, data, splits)
    files = {Path(p).stem: Path(p) for p in prediction_paths}
    report = build_report(data, systems, prediction_files=files, **options)
    rerun_options = {"splits": list(splits),
                     **{key: options.get(key, default) for key, default in RERUN_DEFAULTS.items()}}
    report.provenance["rerun"] = rerun_block("ecthr_npd", data_dir, files, rerun_options,
                                             ("npd_regression", "bootstrap_mae"))
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
