"""SLDS: the 20,000-decision synthetic build (60,000 rows), card statistics included.

Target: within 10 minutes on the project machine (2 cores). Reports wall-clock seconds per
phase, total, then ``verify_folder`` with the SLDS audit (every config loaded offline with
``datasets.load_dataset``; timed separately), peak resident memory, rows, parquet bytes and the largest row group of the
``default`` train file (the dataset viewer reads one row group at a time); the reference
figure is ``synthetic_decisions_per_second`` so that runs on loaded and idle machines compare.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

from benchmarks.timing import max_rss_bytes
from courtbench.hub import verify_folder
from slds.audit import audit_folder
from slds.build import build_synthetic

DECISIONS = int(os.environ.get("SLDS_BENCH_DECISIONS", "20000"))
LIMIT_SECONDS = 600


def _largest_row_group(path: Path) -> tuple[int, int]:
    """(rows, uncompressed bytes) of the largest row group of a parquet file."""
    metadata = pq.ParquetFile(path).metadata
    groups = [metadata.row_group(i) for i in range(metadata.num_row_groups)]
    largest = max(groups, key=lambda g: g.total_byte_size)
    return largest.num_rows, largest.total_byte_size


def main() -> dict:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    work = Path(tempfile.mkdtemp(prefix="bench_slds_"))
    try:
        start = time.perf_counter()
        result = build_synthetic(work / "slds", decisions=DECISIONS, seed=0)
        total = time.perf_counter() - start
        start = time.perf_counter()
        verified = verify_folder(work / "slds", audit=audit_folder)
        verify_seconds = time.perf_counter() - start
        train = work / "slds" / "data" / "default" / "train.parquet"
        group_rows, group_bytes = _largest_row_group(train)
        figures = {
            "decisions": DECISIONS,
            "rows": result.rows,
            "configs": len(result.split_sizes),
            "one_shot_rows": sum(s.get("one_shot_examples", 0)
                                 for s in result.split_sizes.values()),
            "seconds_total": round(total, 1),
            "seconds_by_phase": {k: round(v, 1) for k, v in result.timings.items()},
            "within_limit": total <= LIMIT_SECONDS,
            "verify_seconds": round(verify_seconds, 1),
            "verified_configs": len(verified.split_sizes),
            "limit_seconds": LIMIT_SECONDS,
            "synthetic_decisions_per_second": round(DECISIONS / total, 1),
            "peak_rss_mib": round(max_rss_bytes() / 2**20),
            "parquet_bytes": sum(e.size for e in result.report.files
                                 if e.path.endswith(".parquet")),
            "default_train_largest_row_group": {"rows": group_rows,
                                                "uncompressed_bytes": group_bytes},
            "properties": result.properties_note,
        }
        return figures
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    import json

    print(json.dumps(main(), indent=2))
