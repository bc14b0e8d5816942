"""Summarization properties per split, with the metric module ``summarization_properties``,
spread over processes.

The metric module tokenizes each decision once per call (a decision is shared by its three
rows), so rows are handed out by decision: the decisions of a split are dealt round-robin
into chunks, each chunk is one ``summarization_properties(..., return_per_pair=True)``
call in a forked worker, and the per-pair values are aggregated here exactly as the
module's ``aggregates`` are (mean, sample std with ddof = 1, min, median, max over the
non-null values; n = their count). Formulaicness is not part of the card table, so chunk
calls ask for the smallest formulaicness work the module accepts.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy as np

from courtbench.compat import available_cores

CHUNKS_PER_PROCESS = 4
MIN_ROWS_TO_FORK = 600
"""Splits with fewer rows are computed in this process (forking costs more than it saves)."""

_STATE: dict[str, Any] = {}  # read by forked workers: module, columns, property names


def aggregate(values: Sequence[float | None]) -> dict[str, Any]:
    """``{mean, std, min, median, max, n}`` over the non-null ``values`` (std: ddof = 1, null
    for n < 2; all null for n = 0) — the definition of the metric module's aggregates."""
    defined = np.array([v for v in values if v is not None], dtype=float)
    n = len(defined)
    if n == 0:
        return {"mean": None, "std": None, "min": None, "median": None, "max": None, "n": 0}
    return {"mean": float(defined.mean()), "std": float(defined.std(ddof=1)) if n > 1 else None,
            "min": float(defined.min()), "median": float(np.median(defined)),
            "max": float(defined.max()), "n": n}


def _chunk(indices: list[int]) -> dict[str, list[float | None]]:
    module, columns, names = _STATE["module"], _STATE["columns"], _STATE["names"]
    result = module.summarization_properties(
        [columns["decision"][i] for i in indices], [columns["headnote"][i] for i in indices],
        [columns["decision_language"][i] for i in indices],
        [columns["headnote_language"][i] for i in indices],
        formulaicness_subset_size=2, formulaicness_subsets=1, return_per_pair=True)
    return {name: result["per_pair"][name] for name in names}


def _chunks(columns: dict[str, list[Any]], start: int, stop: int, count: int) -> list[list[int]]:
    """Row indices of ``start:stop`` dealt into ``count`` chunks, a decision's rows together."""
    by_decision: dict[str, list[int]] = {}
    for i in range(start, stop):
        by_decision.setdefault(columns["decision_id"][i], []).append(i)
    chunks: list[list[int]] = [[] for _ in range(count)]
    for number, rows in enumerate(by_decision.values()):
        chunks[number % count].extend(rows)
    return [chunk for chunk in chunks if chunk]


def split_properties(module: ModuleType, columns: dict[str, list[Any]],
                     splits: dict[str, tuple[int, int]], names: Sequence[str], *,
                     processes: int | None = None) -> dict[str, dict[str, dict[str, Any]]]:
    """Aggregates of ``names`` per split: split -> property -> {mean, std, min, median, max, n}.

    Args:
        module: the loaded ``summarization_properties`` metric module.
        columns: row values by column (``decision``, ``headnote``, the two languages,
            ``decision_id``).
        splits: split -> (start, stop) row range in ``columns``.
        names: property names of the module's ``per_pair`` output.
        processes: worker processes (default: the CPUs this process may use).
    """
    processes = processes or available_cores()
    forked = processes > 1 and any(stop - start >= MIN_ROWS_TO_FORK
                                   for start, stop in splits.values())
    _STATE.update(module=module, columns=columns, names=tuple(names))
    pool = multiprocessing.get_context("fork").Pool(processes) if forked else None
    try:
        results: dict[str, dict[str, dict[str, Any]]] = {}
        for split, (start, stop) in splits.items():
            if pool is not None and stop - start >= MIN_ROWS_TO_FORK:
                parts = pool.map(_chunk, _chunks(columns, start, stop,
                                                 processes * CHUNKS_PER_PROCESS))
            else:
                parts = [_chunk(list(range(start, stop)))]
            results[split] = {name: aggregate([v for part in parts for v in part[name]])
                              for name in names}
        return results
    finally:
        if pool is not None:
            pool.terminate()  # workers are idle once map returned; on an error, stop them
            pool.join()
        _STATE.clear()
