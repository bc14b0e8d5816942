"""ECtHR-NPD baselines: every baseline fitted and evaluated on the release, against 5 minutes.

Source: ``../shared/data/ecthr_npd/case_level.csv`` (the real release, 14,575 cases) when
present, else the synthetic stand-in at the same size. The Hub folder is built first (not
timed); then every available baseline — the core systems and, with the ``trees`` extra,
catboost, xgboost, lightgbm, their ensemble and ``selected`` (the configuration chosen on
rolling-origin folds, refitted on train+validation), default options (X1, squared loss,
validation selection, one seed) — is fitted and predicts every case with two threads (the
issue's "2 cores"), and the evaluation report (1,000 paired bootstrap resamples, figures
included) is written. Wall and CPU seconds are recorded per system and in all (CPU: this
process, every thread; also for the evaluation and for load + baselines + evaluation), with the
machine's load average before and after: on a shared machine the wall time is an upper bound
and the CPU time says what the work itself costs (on two idle cores the wall time is at least
half the CPU time, at most the CPU time). On a loaded machine run it with
``OMP_WAIT_POLICY=PASSIVE GOMP_SPINCOUNT=0`` (recorded in the figures): OpenMP threads that
spin while they wait for a core burn CPU time that measures the load, not the work (a
LightGBM fit of 17 CPU-s took 153 with two spinning threads on the shared cores). One run: the
whole job takes minutes on idle cores.
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
        start, cpu_start = time.perf_counter(), time.process_time()
        data = load_benchmark(folder)
        loaded, cpu_loaded = time.perf_counter(), time.process_time()
        document = run_baselines_on(data, Path(tmp) / "pred", systems=systems,
                                    options=Options(threads=THREADS), progress=False)
        fitted, cpu_fitted = time.perf_counter(), time.process_time()
        report = evaluate_files(folder, [Path(tmp) / "pred" / f"{s}.csv" for s in systems],
                                Path(tmp) / "report")
        done, cpu_done = time.perf_counter(), time.process_time()
    main = report.tables[0]
    mae, zero_f1 = main.columns.index("MAE"), main.columns.index("Zero-F1")
    main_rows = {row[0]: row for row in main.rows}
    total = done - start
    return {
        "source": kind,
        "cases": sum(data.splits[s].num_rows for s in data.splits),
        "load_seconds": round(loaded - start, 3),
        "baseline_seconds": {name: {"fit": info["fit_seconds"], "predict": info["predict_seconds"],
                                    "cpu": info["cpu_seconds"]}
                             for name, info in document["systems"].items()},
        "all_baselines_seconds": round(fitted - loaded, 3),
        "all_baselines_cpu_seconds": round(cpu_fitted - cpu_loaded, 3),
        "evaluation_seconds": round(done - fitted, 3),
        "evaluation_cpu_seconds": round(cpu_done - cpu_fitted, 3),
        "total_seconds": round(total, 3),
        "total_cpu_seconds": round(cpu_done - cpu_start, 3),
        "budget_seconds": BUDGET_SECONDS,
        "threads": THREADS,
        "openmp_environment": {name: os.environ.get(name)
                               for name in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")},
        "unavailable_systems": unavailable(),
        "load_average_1_5_15_before": [round(v, 2) for v in load_before],
        "load_average_1_5_15_after": [round(v, 2) for v in os.getloadavg()],
        "cpu_count": os.cpu_count(),
        "ratio_to_budget": round(total / BUDGET_SECONDS, 3),
        "test_mae": {name: round(row[mae], 2) for name, row in main_rows.items()},
        "test_zero_f1": {name: round(row[zero_f1], 4) for name, row in main_rows.items()},
    }
