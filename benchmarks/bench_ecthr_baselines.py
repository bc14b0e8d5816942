"""ECtHR-NPD baselines: every baseline fitted and evaluated on the release, against 5 minutes.

Source: ``../shared/data/ecthr_npd/case_level.csv`` (the real release, 14,575 cases) when
present, else the synthetic stand-in at the same size. The Hub folder is built first (not
timed); then every available baseline — the core systems and, with the ``trees`` extra,
catboost, xgboost, lightgbm and their ensemble, default options (X1, squared loss, validation
selection, one seed) — is fitted and predicts every case with two threads (the issue's
"2 cores"), and the evaluation report (1,000 paired bootstrap resamples, figures included) is
written. The machine's load average is recorded before and after: on a shared machine the wall
time is an upper bound. One run: the whole job takes minutes.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from benchmarks.sources import ecthr_release_or_synthetic
from ecthr_npd.baselines.boosting_libraries import unavailable
from ecthr_npd.baselines.run import Options, default_systems, run_baselines_on
from ecthr_npd.build import build_folder
from ecthr_npd.data import load_benchmark
from ecthr_npd.evaluation import evaluate_files

BUDGET_SECONDS = 300.0
THREADS = 2


def main() -> dict:
    """Figures: per-baseline fit and predict seconds, evaluation seconds, total (baselines +
    evaluation) against the 300 s budget, the load average around the run, and each system's
    test MAE and Zero-F1."""
    systems = default_systems()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench-ecthr-baselines-") as tmp:
        source, kind = ecthr_release_or_synthetic(Path(tmp))
        folder = Path(tmp) / "ecthr_npd"
        build_folder(folder, source)
        start = time.perf_counter()
        data = load_benchmark(folder)
        loaded = time.perf_counter()
        document = run_baselines_on(data, Path(tmp) / "pred", systems=systems,
                                    options=Options(threads=THREADS), progress=False)
        fitted = time.perf_counter()
        report = evaluate_files(folder, [Path(tmp) / "pred" / f"{s}.csv" for s in systems],
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
        "threads": THREADS,
        "unavailable_systems": unavailable(),
        "load_average_1_5_15_before": [round(v, 2) for v in load_before],
        "load_average_1_5_15_after": [round(v, 2) for v in os.getloadavg()],
        "cpu_count": os.cpu_count(),
        "ratio_to_budget": round(total / BUDGET_SECONDS, 3),
        "test_mae": {name: round(row[1], 2) for name, row in main_rows.items()},
        "test_zero_f1": {name: round(row[8], 4) for name, row in main_rows.items()},
    }
