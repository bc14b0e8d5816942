"""SLDS: the streamed synthetic build at 5,000 / 20,000 / 40,000 decisions (3 rows each).

Each size runs in its own subprocess (``python -m benchmarks.bench_slds_build --decisions N``)
so its peak resident memory is its own: ``peak_rss_mib`` is the build process,
``worker_peak_rss_mib`` the largest summarization-properties worker. Reported per size:
wall-clock seconds per phase and total, parquet bytes, rows, the largest row group of the
``default`` train file (the dataset viewer reads one group at a time) and the load average
around the run (the machine is shared). The 20,000 build is also verified
(``verify_folder`` with the SLDS audit, every config loaded offline; timed separately).

Reference: before streaming (commit 7885ece) the 20,000-decision build took 113.2 s and
peaked at 3,752 MiB on this machine; goals: ≤ 1.5 GB at 20,000, memory growing clearly
slower than the data, time no worse than the reference. ``SLDS_BENCH_SIZES`` (comma-separated)
overrides the sizes; ``SLDS_BENCH_JOBS`` runs that many sizes at once (peak memory stays per
process; wall time then reflects the sharing, and ``cpu_seconds_build_and_workers`` — user +
system seconds of the build and its workers — is the figure that compares across loads).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

SIZES = tuple(int(n) for n in os.environ.get("SLDS_BENCH_SIZES", "5000,20000,40000").split(","))
VERIFIED_SIZE = 20_000
REFERENCE = {"decisions": 20_000, "seconds_total": 113.2, "peak_rss_mib": 3752,
             "commit": "7885ece", "note": "in-memory build before streaming"}
GOAL_RSS_MIB_AT_20000 = 1.5e9 / 2**20


def _largest_row_group(path: Path) -> tuple[int, int]:
    """(rows, uncompressed bytes) of the largest row group of a parquet file."""
    metadata = pq.ParquetFile(path).metadata
    groups = [metadata.row_group(i) for i in range(metadata.num_row_groups)]
    largest = max(groups, key=lambda g: g.total_byte_size)
    return largest.num_rows, largest.total_byte_size


def run_one(decisions: int, verify: bool) -> dict:
    """Build ``decisions`` synthetic decisions in this process; the figures of that run."""
    from courtbench.hub import verify_folder
    from slds.audit import audit_folder
    from slds.build import build_synthetic
    from slds.card_properties import default_num_proc

    work = Path(tempfile.mkdtemp(prefix="bench_slds_"))
    try:
        load_before = os.getloadavg()
        start = time.perf_counter()
        result = build_synthetic(work / "slds", decisions=decisions, seed=0, progress=False)
        total = time.perf_counter() - start
        load_after = os.getloadavg()
        own = resource.getrusage(resource.RUSAGE_SELF)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)  # the joined workers
        peak, workers = own.ru_maxrss * 1024, children.ru_maxrss * 1024
        figures = {
            "decisions": decisions, "rows": result.rows, "configs": len(result.split_sizes),
            "num_proc": default_num_proc(),
            "seconds_total": round(total, 1),
            "seconds_by_phase": {k: round(v, 1) for k, v in result.timings.items()},
            "cpu_seconds_build_and_workers": round(own.ru_utime + own.ru_stime
                                                   + children.ru_utime + children.ru_stime, 1),
            "peak_rss_mib": round(peak / 2**20),
            "worker_peak_rss_mib": round(workers / 2**20),
            "parquet_bytes": sum(e.size for e in result.report.files
                                 if e.path.endswith(".parquet")),
            "load_average_1min_before_after": [round(load_before[0], 1),
                                               round(load_after[0], 1)],
            "properties": result.properties_note,
        }
        rows, size = _largest_row_group(work / "slds" / "data" / "default" / "train.parquet")
        figures["default_train_largest_row_group"] = {"rows": rows, "uncompressed_bytes": size}
        if verify:
            start = time.perf_counter()
            verified = verify_folder(work / "slds", audit=audit_folder)
            figures["verify_seconds"] = round(time.perf_counter() - start, 1)
            figures["verified_configs"] = len(verified.split_sizes)
        return figures
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _run_sizes(sizes: tuple[int, ...], jobs: int) -> list[dict]:
    """One subprocess per size, ``jobs`` at a time; their figures in size order."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    scratch = Path(tempfile.mkdtemp(prefix="bench_slds_runs_"))
    try:
        waiting, running, done = list(sizes), [], {}
        while waiting or running:
            while waiting and len(running) < jobs:
                decisions = waiting.pop(0)
                out = scratch / f"{decisions}.json"
                command = [sys.executable, "-m", "benchmarks.bench_slds_build", "--decisions",
                           str(decisions), "--json", str(out)]
                if decisions == VERIFIED_SIZE:
                    command.append("--verify")
                running.append((decisions, out, subprocess.Popen(command, env=env)))
            decisions, out, process = running.pop(0)
            if process.wait() != 0:
                raise RuntimeError(f"slds_build at {decisions} decisions failed")
            done[decisions] = json.loads(out.read_text())
            print(json.dumps(done[decisions]), flush=True)
        return [done[decisions] for decisions in sizes]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> dict:
    jobs = int(os.environ.get("SLDS_BENCH_JOBS", "1"))
    return summarize(_run_sizes(SIZES, jobs), jobs)


def summarize(runs: list[dict], jobs: int) -> dict:
    """The benchmark's figures from the per-size runs (smallest first)."""
    smallest = runs[0]
    curve = [{"decisions": r["decisions"],
              "data_ratio": round(r["parquet_bytes"] / smallest["parquet_bytes"], 2),
              "rss_ratio": round(r["peak_rss_mib"] / smallest["peak_rss_mib"], 2),
              "seconds_ratio": round(r["seconds_total"] / smallest["seconds_total"], 2)}
             for r in runs]
    at_20000 = next((r for r in runs if r["decisions"] == REFERENCE["decisions"]), None)
    figures = {"runs": runs, "growth_vs_smallest": curve, "reference": REFERENCE,
               "concurrent_sizes": jobs}
    if at_20000 is not None:
        figures["at_20000"] = {
            "peak_rss_mib": at_20000["peak_rss_mib"],
            "rss_goal_met": at_20000["peak_rss_mib"] <= GOAL_RSS_MIB_AT_20000,
            "seconds_ratio_to_reference": round(at_20000["seconds_total"]
                                                / REFERENCE["seconds_total"], 2),
            "rss_ratio_to_reference": round(at_20000["peak_rss_mib"]
                                            / REFERENCE["peak_rss_mib"], 2),
        }
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, required=True)
    parser.add_argument("--json", type=Path, required=True)
    parser.add_argument("--verify", action="store_true")
    arguments = parser.parse_args()
    arguments.json.write_text(json.dumps(run_one(arguments.decisions, arguments.verify)))
