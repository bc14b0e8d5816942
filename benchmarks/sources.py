"""Where the benchmarks find their inputs: the real data in ``../shared/data`` when it is
there (``COURTBENCH_SHARED_DATA`` overrides), else the synthetic stand-ins."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("COURTBENCH_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))


def ecthr_release_or_synthetic(scratch: Path) -> tuple[Path, str]:
    """``(case_level.csv, kind)``: the real release, or a full-size synthetic stand-in
    written into ``scratch``; ``kind`` is ``"release"`` or ``"synthetic"``."""
    from ecthr_npd.synthetic import write_synthetic

    source = SHARED_DATA / "ecthr_npd" / "case_level.csv"
    if source.is_file():
        return source, "release"
    return write_synthetic(Path(scratch) / "case_level.csv"), "synthetic"
