"""``courtbench baselines ecthr_npd``: fit the baselines and write their predictions files.

Output folder (replaced atomically)::

    <system>.csv     header ``case_id,prediction``; one row per case of every split (train,
                     validation, test, in that order), prediction in EUR (shortest repr)
    settings.json    per system: chosen settings, fit/predict wall seconds, CPU seconds and
                     the variant
                     (feature set, objective, selection, refit, seed); seeds, threads,
                     package versions, data fingerprint and source

``selected`` is the configuration chosen on rolling-origin folds of the release
(:mod:`ecthr_npd.baselines.selected_system`), refitted on train+validation; it needs the
``trees`` extra and ignores --feature-set, --objective, --selection and --refit.

File stems: the system name, suffixed by the options that change it (``catboost-X0-l1-rolling``
for ``--feature-set X0 --objective l1 --selection rolling``), ``+refit`` for the
train+validation refits, ``.seedS`` for every seed after the first of ``--seeds``.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from courtbench import option_checks
from courtbench.errors import CourtbenchError
from courtbench.hub.atomic import check_replaceable
from ecthr_npd.baselines import (
    ALL_SYSTEMS,
    SELECTED_SYSTEMS,
    TEXT_SYSTEMS,
    TREE_SYSTEMS,
    make_baseline,
)
from ecthr_npd.baselines import boosting_libraries as libraries
from ecthr_npd.baselines.base import limited_threads
from ecthr_npd.baselines.boosting_systems import FEATURE_SET_NAMES, BoostedTrees
from ecthr_npd.baselines.ensemble import MedianEnsemble
from ecthr_npd.baselines.prediction_files import is_predictions_folder, write_predictions
from ecthr_npd.baselines.selected_config import SELECTED, SelectedConfig
from ecthr_npd.baselines.selected_system import SelectedSystem
from ecthr_npd.baselines.selection import SELECTIONS
from ecthr_npd.baselines.text_systems import (
    TextOptions,
    check_text_systems,
    make_text_system,
)
from ecthr_npd.data import SPLITS, BenchmarkData, inputs_only, load_benchmark
from ecthr_npd.facts_report import facts_findings_notice
from ecthr_npd.versions import package_versions

# How the systems without --selection choose their settings (constants and knn choose none;
# the text systems choose k on validation).
CORE_SELECTION = {"gbt": "validation", "hurdle": "validation", "bm25": "validation",
                  "dense": "validation", "sparse": "validation", "selected": "rolling"}


def _systems(text: str) -> list[str]:
    names = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [n for n in names if n not in ALL_SYSTEMS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"--systems {text!r}: unknown {unknown}; expected a "
                                         f"comma-separated subset of {', '.join(ALL_SYSTEMS)}")
    return names


#: --seeds: distinct seeds, comma-separated (0,1,2); each fits the systems once.
SEEDS = option_checks.ListOption(option_checks.SEED, what="seeds", max_items=100)
#: Most neighbours of knn and the text systems (--k, --k-grid).
MAX_K = 100_000
NEIGHBOURS = option_checks.count(MAX_K, what="a number of neighbours")


def _availability() -> str:
    missing = libraries.unavailable()
    if not missing:
        return "catboost, xgboost and lightgbm are installed"
    return f"unavailable here: {', '.join(missing)} ({libraries.INSTALL_COMMAND})"


def add_baseline_arguments(parser: argparse.ArgumentParser) -> None:
    """``courtbench baselines ecthr_npd`` options (``--data`` and ``--out`` come from the CLI)."""
    parser.add_argument("--systems", type=_systems, default=None,
                        help=f"comma-separated systems (default: every available one of "
                             f"{','.join(ALL_SYSTEMS)}; {_availability()})")
    parser.add_argument("--seed", type=option_checks.SEED, default=0,
                        help="seed of the tree models (default 0; see --seeds)")
    parser.add_argument("--seeds", type=SEEDS, default=None,
                        help="comma-separated seeds such as 0,1,2: catboost/xgboost/lightgbm/"
                             "ensemble are fitted once per seed; the first seed's files carry "
                             "the system name, the others NAME.seedS")
    parser.add_argument("--k", type=NEIGHBOURS, default=20, help="neighbours of knn (default 20)")
    parser.add_argument("--feature-set", choices=FEATURE_SET_NAMES, default="X1",
                        help="predictors of catboost/xgboost/lightgbm: X0 case metadata, X1 plus "
                             "the applicant columns (default X1, the paper's)")
    parser.add_argument("--objective", choices=libraries.OBJECTIVES, default="squared",
                        help="loss of catboost/xgboost/lightgbm on log1p(y): squared (default, "
                             "the paper's) or l1 (conditional median)")
    parser.add_argument("--selection", choices=SELECTIONS, default="validation",
                        help="how catboost/xgboost/lightgbm/ensemble choose settings: "
                             "validation MAE (default, the paper's) or rolling-origin folds over "
                             "the last three years of train+validation")
    parser.add_argument("--refit", action="store_true",
                        help="also write NAME+refit: each library system and the ensemble "
                             "refitted on train+validation with the chosen settings")
    add_text_arguments(parser)
    parser.add_argument("--threads", type=option_checks.PARALLEL, default=1,
                        help="OpenMP/BLAS/library threads while fitting (default 1: "
                             "deterministic and no oversubscription on shared machines)")


#: --k-grid: distinct neighbour counts (1,5,10,20,50), sorted.
K_GRID = option_checks.ListOption(NEIGHBOURS, what="neighbour counts", max_items=100, sort=True)


def add_text_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of the text systems bm25 / dense / sparse (read the folder's facts config)."""
    text = parser.add_argument_group("text systems (bm25, dense, sparse)")
    text.add_argument("--text-model", type=Path, metavar="PATH",
                      help="dense/sparse: a local sentence-embedding model folder (BGE-M3 for "
                           "parity with the paper; sparse needs its sparse_linear.pt)")
    text.add_argument("--k-grid", type=K_GRID, default=None, metavar="K,K,...",
                      help="neighbour counts the text systems choose from on validation MAE "
                           "(default 1,5,10,20,30,50,100; the paper's choice is 20)")
    text.add_argument("--batch-size", type=option_checks.count(65_536, what="a batch size"),
                      default=16, help="dense/sparse: chunks per forward pass, and texts "
                      "between two writes of the embedding cache (default 16)")
    text.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                      help="dense/sparse: where the encoder runs (default cpu)")
    text.add_argument("--chunk-tokens", type=option_checks.count(
                          option_checks.MAX_LENGTH, what="a number of tokens"), default=512,
                      help="dense/sparse: tokens per chunk of a long text (default 512, capped "
                           "at the model's limit)")
    text.add_argument("--max-chunks", type=option_checks.count(
                          option_checks.MAX_ROWS, what="a number of chunks"), default=None,
                      help="dense/sparse: keep only the first N chunks of a text (default all)")
    text.add_argument("--embedding-cache", type=Path, metavar="FILE",
                      help="dense: SQLite cache of embeddings keyed by model and text hash "
                           "(default: OUT.embeddings.sqlite beside --out)")


@dataclass(frozen=True)
class Options:
    """What ``courtbench baselines ecthr_npd`` varies (see :func:`add_baseline_arguments`)."""

    seeds: tuple[int, ...] = (0,)
    k: int = 20
    threads: int = 1
    feature_set: str = "X1"
    objective: str = "squared"
    selection: str = "validation"
    refit: bool = False
    grids: dict[str, dict[str, tuple]] | None = None  # tests: small grids per library
    max_trees: int = libraries.MAX_TREES
    text: TextOptions = TextOptions()
    selected: SelectedConfig = SELECTED  # tests: a small configuration

    def variant(self, base: str) -> str:
        """``base`` with the suffixes of the options that change it: ``-X0``, ``-l1``,
        ``-rolling`` (library systems and the ensemble only)."""
        if base not in TREE_SYSTEMS:
            return base
        return base + "".join(f"-{value}" for value, default in (
            (self.feature_set, "X1"), (self.objective, "squared"),
            (self.selection, "validation")) if value != default)


def _selected_missing(config: SelectedConfig = SELECTED) -> list[str]:
    """The tree libraries ``selected`` needs that are not installed."""
    return sorted(set(libraries.unavailable()) & SelectedSystem(config).libraries())


def selected_available() -> bool:
    """Whether every tree library ``selected`` needs is installed."""
    return not _selected_missing()


def default_systems() -> list[str]:
    """Every system whose packages are installed, in report order (the text systems only
    when asked for: they need the facts config and, for dense/sparse, a model folder)."""
    missing = set(libraries.unavailable())
    names = [n for n in ALL_SYSTEMS if n not in missing and n not in TEXT_SYSTEMS]
    if len(missing) == len(libraries.LIBRARIES):
        names.remove("ensemble")
    if _selected_missing():
        names.remove("selected")
    return names


def check_available(systems: list[str]) -> None:
    """CourtbenchError naming the requested systems whose library is not installed."""
    missing = [n for n in systems if n in libraries.LIBRARIES and not libraries.available(n)]
    if missing:
        raise CourtbenchError(f"--systems: {', '.join(missing)} unavailable (not installed); "
                              f"install with: {libraries.INSTALL_COMMAND}")
    if "selected" in systems and _selected_missing():
        raise CourtbenchError(f"--systems: selected needs {', '.join(_selected_missing())} "
                              f"(not installed); install with: {libraries.INSTALL_COMMAND}")
    if "ensemble" in systems and not set(systems) & set(libraries.LIBRARIES):
        raise CourtbenchError("--systems: ensemble takes the median of catboost/xgboost/"
                              "lightgbm; add at least one of them to --systems")


def _make(name: str, seed: int, options: Options, data: BenchmarkData):
    if name in TEXT_SYSTEMS:
        return make_text_system(name, data.facts, options.text)
    if name in SELECTED_SYSTEMS:
        return SelectedSystem(options.selected, seed=seed, threads=options.threads)
    if name in libraries.LIBRARIES:
        grid = (options.grids or {}).get(name)
        return BoostedTrees(name, options.feature_set, options.objective, options.selection,
                            seed, options.threads, grid=grid, max_trees=options.max_trees,
                            name=options.variant(name))
    return make_baseline(name, seed=seed, k=options.k, threads=options.threads)


def _fitted_baseline(base: str, name: str, refit: bool, seed: int, fitted: dict[str, Any],
                     options: Options, data: BenchmarkData):
    """``base`` fitted as ``name``: the ensemble from the members in ``fitted``, a refit from
    its train-only fit in ``fitted``, else a new system fitted on train (validation to
    choose settings)."""
    train, validation = data.splits["train"], data.splits["validation"]
    if base == "ensemble" and refit:
        return fitted[options.variant(base)].with_members(fitted, name)
    if base == "ensemble":
        return MedianEnsemble([fitted[options.variant(lib)] for lib in libraries.LIBRARIES
                               if options.variant(lib) in fitted], name=name).fit()
    if refit:
        return fitted[options.variant(base)].refitted(train, validation)
    baseline = _make(base, seed, options, data)
    with limited_threads(options.threads):
        baseline.fit(train, validation)
    return baseline


def _checked_predictions(baseline, name: str, unlabelled: dict, data: BenchmarkData,
                         threads: int) -> np.ndarray:
    """Predictions of every split (train, validation, test order); RuntimeError on a value
    that is not a finite number >= 0 (a baseline bug, never the user's input)."""
    with limited_threads(threads):
        values = np.concatenate([baseline.predict(unlabelled[s]) for s in SPLITS])
    bad = np.flatnonzero(~np.isfinite(values) | (values < 0))
    if bad.size:
        raise RuntimeError(f"{name}: prediction {float(values[bad[0]])!r} for case "
                           f"{data.all_ids()[bad[0]]} is not a finite number >= 0")
    return values


def _variant_record(base: str, name: str, refit: bool, seed: int, suffix: str,
                    options: Options) -> dict[str, Any]:
    """What settings.json records of a file's system: system, refit, seed, replica_of and
    the options that shaped it."""
    return {"system": base, "refit": refit or base in SELECTED_SYSTEMS, "seed": seed,
            "replica_of": name if suffix else None,
            **({"feature_set": options.feature_set, "objective": options.objective,
                "selection": options.selection}
               if base in TREE_SYSTEMS else {"selection": CORE_SELECTION.get(base, "none")})}


def _runs_of_seed(systems: list[str], options: Options, first_seed: bool):
    """``(base system, refit)`` in fitting order for one seed: every system with the first
    seed, only the seed-dependent ones with the others; a refit after its train-only fit."""
    for base in (n for n in ALL_SYSTEMS if n in systems):
        if not first_seed and base not in TREE_SYSTEMS:
            continue
        for refit in ([False, True] if options.refit and base in TREE_SYSTEMS else [False]):
            yield base, refit


def fit_and_predict(data: BenchmarkData, systems: list[str], *, options: Options | None = None,
                    progress: bool = False) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Fit every system on ``data``'s train split (choosing settings without test) and predict
    all cases.

    Returns:
        (predictions, settings): ``file stem → float64 array`` aligned with
        ``data.all_ids()``; ``file stem → {"settings", "fit_seconds", "predict_seconds",
        "cpu_seconds" (fit and predict, every thread of this process), "variant"}``. Seed-independent systems are fitted with the first seed only.
    """
    options = options or Options()
    check_available(systems)
    predictions: dict[str, np.ndarray] = {}
    settings: dict[str, Any] = {}
    unlabelled = {split: inputs_only(data.splits[split]) for split in SPLITS}
    for index, seed in enumerate(options.seeds):
        suffix = "" if index == 0 else f".seed{seed}"
        fitted: dict[str, Any] = {}
        for base, refit in _runs_of_seed(systems, options, first_seed=index == 0):
            name = options.variant(base) + ("+refit" if refit else "")
            start, cpu_start = time.perf_counter(), time.process_time()
            baseline = _fitted_baseline(base, name, refit, seed, fitted, options, data)
            fitted[name] = baseline
            done_fit = time.perf_counter()
            predictions[name + suffix] = _checked_predictions(baseline, name, unlabelled, data,
                                                              options.threads)
            done = time.perf_counter()
            settings[name + suffix] = {
                "settings": baseline.settings(),
                "fit_seconds": round(done_fit - start, 3),
                "predict_seconds": round(done - done_fit, 3),
                "cpu_seconds": round(time.process_time() - cpu_start, 3),
                "variant": _variant_record(base, name, refit, seed, suffix, options)}
            if progress:
                print(f"  {name + suffix:<28} fit {done_fit - start:6.1f} s, predict "
                      f"{done - done_fit:5.1f} s", file=sys.stderr, flush=True)
    return predictions, settings


def run_baselines_on(data: BenchmarkData, out_dir: Path, *, systems: list[str],
                     options: Options | None = None, progress: bool = True) -> dict[str, Any]:
    """Fit, predict and write; returns the settings document written to settings.json."""
    options = options or Options()
    notice = facts_findings_notice(data.source) if data.facts is not None else None
    if notice:
        print(f"warning: {notice}", file=sys.stderr)
    predictions, per_system = fit_and_predict(data, systems, options=options, progress=progress)
    document = {"systems": per_system, "seed": options.seeds[0], "seeds": list(options.seeds),
                "threads": options.threads, "k": options.k, "feature_set": options.feature_set,
                "objective": options.objective, "selection": options.selection,
                "refit": options.refit, "versions": package_versions(),
                "data": {"source": data.source, "fingerprint": data.fingerprint,
                         "rows": {s: data.splits[s].num_rows for s in SPLITS},
                         "facts_screen_notice": notice}}
    write_predictions(out_dir, data.all_ids(), predictions, document)
    return document


def text_options(args: argparse.Namespace) -> TextOptions:
    """The text systems' options from the command line (checked: one line per bad value)."""
    for flag, value in (("--batch-size", args.batch_size), ("--chunk-tokens", args.chunk_tokens),
                        ("--max-chunks", args.max_chunks)):
        if value is not None and value < 1:
            raise CourtbenchError(f"{flag} {value}: expected an integer >= 1")
    cache = args.embedding_cache or Path(args.out).with_name(Path(args.out).name
                                                             + ".embeddings.sqlite")
    return TextOptions(text_model=args.text_model, batch_size=args.batch_size,
                       device=args.device, embedding_cache=cache,
                       chunk_tokens=args.chunk_tokens, max_chunks=args.max_chunks,
                       k_grid=args.k_grid or TextOptions().k_grid, progress=True)


def run_baselines(args: argparse.Namespace) -> int:
    """CLI entry: ``courtbench baselines ecthr_npd --data DIR --out PRED_DIR [...]``."""
    if args.k < 1:
        raise CourtbenchError(f"--k {args.k}: expected an integer >= 1")
    if args.threads < 1:
        raise CourtbenchError(f"--threads {args.threads}: expected an integer >= 1")
    if args.seed < 0:
        raise CourtbenchError(f"--seed {args.seed}: expected an integer >= 0")
    systems = args.systems
    if systems is None:
        systems = default_systems()
        missing = libraries.unavailable()
        if missing:
            print(f"unavailable: {', '.join(missing)} (install with: "
                  f"{libraries.INSTALL_COMMAND})", file=sys.stderr)
    check_available(systems)
    options = Options(seeds=tuple(args.seeds or [args.seed]), k=args.k, threads=args.threads,
                      feature_set=args.feature_set, objective=args.objective,
                      selection=args.selection, refit=args.refit, text=text_options(args))
    check_text_systems(systems, options.text)
    # checked before fitting (minutes) rather than only when writing
    check_replaceable(args.out, kind="predictions folder", is_ours=is_predictions_folder)
    data = load_benchmark(args.data, facts=bool(set(systems) & set(TEXT_SYSTEMS)))
    print(f"ecthr_npd baselines on {args.data} "
          f"({', '.join(f'{s} {data.splits[s].num_rows:,}' for s in SPLITS)}):", file=sys.stderr)
    document = run_baselines_on(data, args.out, systems=systems, options=options)
    print(f"wrote {len(document['systems'])} predictions file(s) and settings.json to {args.out}")
    return 0
