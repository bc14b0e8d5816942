"""ECtHR-NPD baselines: every baseline fitted and evaluated on the release, against 3 minutes.

Source: ``../shared/data/ecthr_npd/case_level.csv`` (the real release, 14,575 cases) when
present, else the synthetic stand-in at the same size. The Hub folder is built first (not
timed); then each baseline is fitted (train, settings chosen on validation) and predicts every
case, one thread (the default of ``courtbench baselines``), and the evaluation report (1,000
paired bootstrap resamples, figures included) is written. One run: the whole job takes minutes.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from benchmarks.sources import ecthr_release_or_synthetic
from ecthr_npd.baselines import SYSTEMS
from ecthr_npd.baselines.data import load_benchmark
from ecthr_npd.baselines.run import run_baselines_on
from ecthr_npd.build import build_folder
from ecthr_npd.evaluation import evaluate_files

BUDGET_SECONDS = 180.0


def main() -> dict:
    """Figures: per-baseline fit and predict seconds, evaluation seconds, total (baselines +
    evaluation) against the 180 s budget, and each system's test MAE and Zero-F1."""
    with tempfile.TemporaryDirectory(prefix="bench-ecthr-baselines-") as tmp:
        source, kind = ecthr_release_or_synthetic(Path(tmp))
        folder = Path(tmp) / "ecthr_npd"
        build_folder(folder, source)
        start = time.perf_counter()
        data = load_benchmark(folder)
        loaded = time.perf_counter()
        document = run_baselines_on(data, Path(tmp) / "pred", systems=list(SYSTEMS),
                                    progress=False)
        fitted = time.perf_counter()
        report = evaluate_files(folder, [Path(tmp) / "pred" / f"{s}.csv" for s in SYSTEMS],
                                Path(tmp) / "report")
        done = time.perf_counter()
    main_rows = {row[0]: row for row in report.tables[0].rows}
    total = done - start
    return {
        "source": kind,
        "cases": sum(data.splits[s].num_rows for s in data.splits),
        "load_seconds": round(loaded - start, 3),
        "baseline_seconds": {name: {"fit": info["fit_seconds"], "predict": info["predict_seconds"]}
                             for name, info in document["systems"].items()},
        "all_baselines_seconds": round(fitted - loaded, 3),
        "evaluation_seconds": round(done - fitted, 3),
        "total_seconds": round(total, 3),
        "budget_seconds": BUDGET_SECONDS,
        "ratio_to_budget": round(total / BUDGET_SECONDS, 3),
        "test_mae": {name: round(row[1], 2) for name, row in main_rows.items()},
        "test_zero_f1": {name: round(row[8], 4) for name, row in main_rows.items()},
    }
