"""Timing and memory helpers shared by the benchmarks."""

from __future__ import annotations

import gc
import resource
import statistics
import time
import tracemalloc
from collections.abc import Callable
from typing import Any


def best_time(fn: Callable[[], Any], *, repeat: int = 5, number: int = 1) -> float:
    """Return the best wall-clock time in seconds of ``number`` calls of ``fn``, over ``repeat``
    runs (the minimum is the least noisy estimate on a shared machine)."""
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return min(times)


def median_time(fn: Callable[[], Any], *, repeat: int = 5) -> float:
    """Median wall-clock seconds of one call of ``fn`` over ``repeat`` runs."""
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def peak_python_memory(fn: Callable[[], Any]) -> tuple[Any, int]:
    """Run ``fn`` under tracemalloc; return its result and the peak traced bytes (Python and
    numpy allocations; not memory held by native libraries that bypass the allocator)."""
    gc.collect()
    tracemalloc.start()
    try:
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak


def max_rss_bytes() -> int:
    """Peak resident set size of this process so far, in bytes (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
