"""``courtbench baselines ecthr_npd``: fit the baselines and write their predictions files.

Output folder (replaced atomically)::

    <system>.csv     header ``case_id,prediction``; one row per case of every split (train,
                     validation, test, in that order), prediction in EUR (shortest repr)
    settings.json    per system: chosen settings and fit/predict seconds; seed, threads,
                     package versions, data fingerprint and source
"""

from __future__ import annotations

import argparse
import csv
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from courtbench.errors import CourtbenchError
from courtbench.hub.atomic import MARKER, atomic_output_dir, check_replaceable
from courtbench.jsonio import dumps_strict
from ecthr_npd import schema
from ecthr_npd.baselines import SYSTEMS, make_baseline
from ecthr_npd.baselines.data import SPLITS, BenchmarkData, inputs_only, load_benchmark
from ecthr_npd.baselines.trees import BACKENDS

PREDICTION_COLUMN = "prediction"


def package_versions() -> dict[str, str]:
    """Versions of the packages that determine the baselines' and the report's numbers."""
    import pyarrow
    import scipy
    import sklearn

    import courtbench

    versions = {"python": platform.python_version(), "numpy": np.__version__,
                "scipy": scipy.__version__, "scikit-learn": sklearn.__version__,
                "pyarrow": pyarrow.__version__, "courtbench": courtbench.__version__}
    try:
        import datasets

        versions["datasets"] = datasets.__version__
    except ImportError:  # pragma: no cover - datasets is a dependency
        pass
    return versions


def _systems(text: str) -> list[str]:
    names = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [n for n in names if n not in SYSTEMS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"--systems {text!r}: unknown {unknown}; expected a "
                                         f"comma-separated subset of {', '.join(SYSTEMS)}")
    return names


def add_baseline_arguments(parser: argparse.ArgumentParser) -> None:
    """``courtbench baselines ecthr_npd`` options (``--data`` and ``--out`` come from the CLI)."""
    parser.add_argument("--systems", type=_systems, default=list(SYSTEMS),
                        help=f"comma-separated systems (default: all: {','.join(SYSTEMS)})")
    parser.add_argument("--seed", type=int, default=0, help="seed of the tree models (default 0)")
    parser.add_argument("--k", type=int, default=20, help="neighbours of knn (default 20)")
    parser.add_argument("--tree-backend", choices=BACKENDS, default="sklearn",
                        help="gradient-boosting library of gbt (lightgbm only if installed)")
    parser.add_argument("--threads", type=int, default=1,
                        help="OpenMP/BLAS threads while fitting (default 1: deterministic and "
                             "no oversubscription on shared machines)")


def fit_and_predict(data: BenchmarkData, systems: list[str], *, seed: int = 0, k: int = 20,
                    tree_backend: str = "sklearn", threads: int = 1,
                    progress: bool = False) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Fit every system on ``data``'s train split (choosing on validation) and predict all
    cases.

    Returns:
        (predictions, settings): ``system → float64 array`` aligned with
        ``data.all_ids()``; ``system → {"settings": ..., "fit_seconds", "predict_seconds"}``.
    """
    predictions: dict[str, np.ndarray] = {}
    settings: dict[str, Any] = {}
    unlabelled = {split: inputs_only(data.splits[split]) for split in SPLITS}
    for name in systems:
        baseline = make_baseline(name, seed=seed, k=k, tree_backend=tree_backend,
                                 threads=threads)
        start = time.perf_counter()
        baseline.fit(data.splits["train"], data.splits["validation"])
        fitted = time.perf_counter()
        values = np.concatenate([baseline.predict(unlabelled[s]) for s in SPLITS])
        done = time.perf_counter()
        bad = np.flatnonzero(~np.isfinite(values) | (values < 0))
        if bad.size:  # a baseline bug, never the user's input
            raise RuntimeError(f"{name}: prediction {float(values[bad[0]])!r} for case "
                               f"{data.all_ids()[bad[0]]} is not a finite number >= 0")
        predictions[name] = values
        settings[name] = {"settings": baseline.settings(),
                          "fit_seconds": round(fitted - start, 3),
                          "predict_seconds": round(done - fitted, 3)}
        if progress:
            print(f"  {name:<22} fit {fitted - start:6.1f} s, predict {done - fitted:5.1f} s",
                  file=sys.stderr, flush=True)
    return predictions, settings


def is_predictions_folder(folder: Path) -> bool:
    """True when ``folder`` is a predictions folder written by this command."""
    return (folder / "settings.json").is_file()


def write_predictions(out_dir: Path, ids: list[str], predictions: dict[str, np.ndarray],
                      settings: dict[str, Any]) -> list[Path]:
    """Write ``<system>.csv`` per system and ``settings.json`` into ``out_dir`` (atomic)."""
    with atomic_output_dir(out_dir, kind="predictions folder",
                           is_ours=is_predictions_folder) as tmp:
        for name, values in predictions.items():
            with open(tmp / f"{name}.csv", "w", newline="", encoding="utf-8") as handle:
                writer = csv.writer(handle, lineterminator="\n")
                writer.writerow([schema.ID_COLUMN, PREDICTION_COLUMN])
                writer.writerows(zip(ids, (repr(float(v)) for v in values), strict=True))
        (tmp / "settings.json").write_text(dumps_strict(settings, what="settings.json",
                                                        indent=2, sort_keys=True,
                                                        default=_json_default) + "\n",
                                           encoding="utf-8")
    return sorted(p for p in Path(out_dir).iterdir() if p.name != MARKER)


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"not JSON-serialisable: {type(value).__name__}")


def run_baselines_on(data: BenchmarkData, out_dir: Path, *, systems: list[str], seed: int = 0,
                     k: int = 20, tree_backend: str = "sklearn", threads: int = 1,
                     progress: bool = True) -> dict[str, Any]:
    """Fit, predict and write; returns the settings document written to settings.json."""
    predictions, per_system = fit_and_predict(data, systems, seed=seed, k=k,
                                              tree_backend=tree_backend, threads=threads,
                                              progress=progress)
    document = {"systems": per_system, "seed": seed, "threads": threads,
                "tree_backend": tree_backend, "k": k, "versions": package_versions(),
                "data": {"source": data.source, "fingerprint": data.fingerprint,
                         "rows": {s: data.splits[s].num_rows for s in SPLITS}}}
    write_predictions(out_dir, data.all_ids(), predictions, document)
    return document


def run_baselines(args: argparse.Namespace) -> int:
    """CLI entry: ``courtbench baselines ecthr_npd --data DIR --out PRED_DIR [...]``."""
    if args.k < 1:
        raise CourtbenchError(f"--k {args.k}: expected an integer >= 1")
    if args.threads < 1:
        raise CourtbenchError(f"--threads {args.threads}: expected an integer >= 1")
    # checked before fitting (minutes) rather than only when writing
    check_replaceable(args.out, kind="predictions folder", is_ours=is_predictions_folder)
    data = load_benchmark(args.data)
    print(f"ecthr_npd baselines on {args.data} "
          f"({', '.join(f'{s} {data.splits[s].num_rows:,}' for s in SPLITS)}):", file=sys.stderr)
    run_baselines_on(data, args.out, systems=args.systems, seed=args.seed, k=args.k,
                     tree_backend=args.tree_backend, threads=args.threads)
    print(f"wrote {len(args.systems)} predictions file(s) and settings.json to {args.out}")
    return 0
