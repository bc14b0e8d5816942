"""The ``selected`` system's search on the ECtHR-NPD release, and its one reading of test.

Two steps, run in this order, each writing into ``benchmarks/results/ecthr_selection/``::

    python -m benchmarks.ecthr_selection search [--threads N]
        builds the release into a scratch folder, keeps ONLY its train and validation splits
        (:class:`~ecthr_npd.baselines.protocol.SelectionData`), runs
        :func:`ecthr_npd.baselines.search.search` and writes
        search_log.jsonl   one record per candidate scored: stage, configuration, pooled and
                           per-fold MAE / MedAE / Zero-F1, wall and CPU seconds, time
        selection.json     the chosen configuration, its fold scores, each stage's winner,
                           the search space, data fingerprint and total seconds
    python -m benchmarks.ecthr_selection test-once
        refuses unless selection.json's configuration is the one frozen in code
        (:data:`ecthr_npd.baselines.selected_config.SELECTED`), and refuses if test_once.json
        already exists: the test split is read once. Refits the configuration on train +
        validation, predicts test and writes test_once.json (npd_regression on test).

Not a ``bench_*`` module: the search takes about an hour on two shared cores, so ``make bench``
does not run it. Source: ``../shared/data/ecthr_npd/case_level.csv`` (``COURTBENCH_SHARED_DATA``
overrides); the search refuses the synthetic stand-in (a configuration is chosen on the
release or not at all).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.sources import REPO_ROOT, SHARED_DATA
from ecthr_npd.baselines import search as space
from ecthr_npd.baselines.fold_runner import Clock
from ecthr_npd.baselines.protocol import FOLD_YEARS, SelectionData

RESULTS = REPO_ROOT / "benchmarks" / "results" / "ecthr_selection"
SOURCE = SHARED_DATA / "ecthr_npd" / "case_level.csv"


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def _commit() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def _versions() -> dict[str, str]:
    """Python and the installed versions of the libraries that decide the numbers."""
    import importlib.metadata
    import platform

    versions = {"python": platform.python_version()}
    for name in ("catboost", "lightgbm", "xgboost", "numpy", "scikit-learn", "pyarrow", "scipy"):
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions


def _load(scratch: Path):
    """The release built into ``scratch`` and loaded (every split)."""
    from ecthr_npd.build import build_folder
    from ecthr_npd.data import load_benchmark

    if not SOURCE.is_file():
        raise SystemExit(f"{SOURCE}: the release is absent; the search runs on the release only")
    build_folder(scratch / "ecthr_npd", SOURCE)
    return load_benchmark(scratch / "ecthr_npd")


def search_space() -> dict[str, Any]:
    """The search space as JSON (what selection.json records of it)."""
    return {"fold_years": FOLD_YEARS, "libraries": list(space.LIBRARY_ORDER),
            "base_params": space.BASE_PARAMS, "losses": list(space.LOSSES_TRIED),
            "regularisation": {k: {p: list(v) for p, v in g.items()}
                               for k, g in space.REGULARISATION.items()},
            "half_lives": list(space.HALF_LIVES), "scales": list(space.SCALES),
            "knn_k": list(space.KNN_K), "zero_specs": [z.to_json() for z in space.ZERO_SPECS],
            "thresholds": list(space.THRESHOLDS), "mae_tolerance": space.MAE_TOLERANCE}


def run_search(threads: int) -> dict[str, Any]:
    """The ``search`` step (see the module docstring)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    log_path = RESULTS / "search_log.jsonl"
    clock = Clock()
    with tempfile.TemporaryDirectory(prefix="ecthr-selection-") as scratch:
        data = _load(Path(scratch))
        fingerprint = data.fingerprint
        selection = SelectionData.of(data.splits["train"], data.splits["validation"])
        del data  # from here on nothing can reach the test split

    with open(log_path, "w", encoding="utf-8") as log_file:
        def log(record: dict[str, Any]) -> None:
            log_file.write(json.dumps({"time": _now(), **record}, sort_keys=True) + "\n")
            log_file.flush()

        log({"stage": "start", "commit": _commit(), "threads": threads,
             "data_fingerprint": fingerprint, "search_space": search_space()})
        result = space.search(selection, threads=threads, log=log,
                              progress=lambda text: print(text, flush=True))
    document = {"configuration": result.config.to_json(), "fold_scores": result.scores,
                "path": result.path, "search_space": search_space(),
                "data_fingerprint": fingerprint, "commit": _commit(), "threads": threads,
                "finished": _now(), **clock.seconds()}
    (RESULTS / "selection.json").write_text(json.dumps(document, indent=2, sort_keys=True)
                                            + "\n", encoding="utf-8")
    return document


def test_once(threads: int) -> dict[str, Any]:
    """The ``test-once`` step (see the module docstring)."""
    from courtbench.metric_modules import load_metric_module
    from ecthr_npd.baselines.selected_config import SELECTED, SelectedConfig
    from ecthr_npd.baselines.selected_system import SelectedSystem
    from ecthr_npd.data import inputs_only

    out = RESULTS / "test_once.json"
    if out.exists():
        raise SystemExit(f"{out} exists: the test split has been read once already")
    chosen = json.loads((RESULTS / "selection.json").read_text(encoding="utf-8"))
    if SelectedConfig.from_json(chosen["configuration"]) != SELECTED:
        raise SystemExit("selection.json's configuration differs from SELECTED in "
                         "ecthr_npd/baselines/selected_config.py; freeze the chosen one first")
    clock = Clock()
    with tempfile.TemporaryDirectory(prefix="ecthr-selection-") as scratch:
        data = _load(Path(scratch))
        fingerprint = data.fingerprint
        system = SelectedSystem(SELECTED, threads=threads).fit(data.splits["train"],
                                                               data.splits["validation"])
        prediction = system.predict(inputs_only(data.splits["test"]))
        metric = load_metric_module("npd_regression").npd_regression
        result = metric(predictions=prediction, references=data.target("test"))
    document = {"test": {k: result[k] for k in ("n", "mae", "rmse", "medae", "zero_f1",
                                                "positive_f1", "r2")},
                "configuration": SELECTED.to_json(), "selection_commit": chosen.get("commit"),
                "commit": _commit(), "read_at": _now(), "seed": system.seed, "threads": threads,
                "versions": _versions(), "data_fingerprint": fingerprint, **clock.seconds()}
    out.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return document


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ecthr_selection")
    parser.add_argument("step", choices=("search", "test-once"))
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    document = (run_search if args.step == "search" else test_once)(args.threads)
    print(json.dumps({k: v for k, v in document.items() if k != "search_space"}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
