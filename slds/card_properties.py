"""Summarization properties of a streamed build, batch by batch, over ``num_proc`` processes.

The build hands every batch of validated rows to :meth:`PropertiesRunner.submit` as it
reads them; each batch is one ``summarization_properties(..., return_per_pair=True)`` call
of the metric module (it tokenizes a decision once per call, and the build cuts batches at
decision boundaries), run in a forked worker when ``num_proc > 1`` (at most
:data:`IN_FLIGHT_PER_PROCESS` batches per worker queued, so memory stays bounded) or in this
process when ``num_proc == 1``. Per-pair values are kept with each row's place in the
output; :meth:`PropertiesRunner.finish` puts every split's values in row order and
aggregates them exactly as the module's ``aggregates`` are (mean, sample std with ddof = 1,
min, median, max over the non-null values; n = their count). Per-pair values do not depend
on the batch or the process, and the aggregation order is the output's row order: the same
tables for any ``num_proc``. Formulaicness is not part of the card table, so batch calls ask
for the smallest formulaicness work the module accepts.
"""

from __future__ import annotations

import multiprocessing
import signal
import threading
from collections import deque
from collections.abc import Hashable, Sequence
from types import ModuleType
from typing import Any

import numpy as np

from courtbench.compat import available_cores

IN_FLIGHT_PER_PROCESS = 2
"""Batches queued per worker before :meth:`PropertiesRunner.submit` waits for the oldest."""

WARM_UP = (["Text.", "Texte.", "Testo."], ["Kopf.", "Tête.", "Testa."], ["de", "fr", "it"],
           ["de", "fr", "it"])
"""One tiny pair per language: loads the module's tokenizers in the parent before forking."""

_STATE: dict[str, Any] = {}  # read by forked workers: module, property names


def _default_signals() -> None:
    """In a worker: SIGTERM kills and Ctrl-C is left to the parent. Forked workers inherit
    the CLI's SIGTERM handler (which raises an exception for a clean shutdown of the parent);
    in a worker that exception can leave it blocked on the pool's queue lock, and
    ``Pool.terminate`` then waits for it forever."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _fork_pool(processes: int):
    """A fork pool whose workers are born with the default SIGTERM (the parent's handler is
    set aside while they fork, so no worker ever runs it) and ignore Ctrl-C."""
    if threading.current_thread() is not threading.main_thread():
        return multiprocessing.get_context("fork").Pool(processes, initializer=_default_signals)
    previous = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        return multiprocessing.get_context("fork").Pool(processes, initializer=_default_signals)
    finally:
        signal.signal(signal.SIGTERM, previous)


def default_num_proc() -> int:
    """The CPUs this process may use (:func:`courtbench.compat.available_cores`)."""
    return available_cores()


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


def _batch_values(texts: tuple[list[str], list[str], list[str], list[str]]
                  ) -> dict[str, list[float | None]]:
    """Per-pair values of ``names`` for one batch (decisions, headnotes, their languages)."""
    module, names = _STATE["module"], _STATE["names"]
    decisions, headnotes, decision_languages, headnote_languages = texts
    result = module.summarization_properties(
        decisions, headnotes, decision_languages, headnote_languages,
        formulaicness_subset_size=2, formulaicness_subsets=1, return_per_pair=True)
    return {name: result["per_pair"][name] for name in names}


class PropertiesRunner:
    """Per-pair summarization properties of submitted batches; per-split aggregates at the end.

    Create it before the build holds much memory: the workers are forked here.

    Args:
        module: the loaded ``summarization_properties`` metric module.
        names: property names of the module's ``per_pair`` output.
        num_proc: processes (default: the CPUs this process may use); 1 computes in this
            process.
    """

    def __init__(self, module: ModuleType, names: Sequence[str], *,
                 num_proc: int | None = None) -> None:
        self.names = tuple(names)
        self.num_proc = default_num_proc() if num_proc is None else num_proc
        if self.num_proc < 1:
            raise ValueError(f"num_proc = {self.num_proc}; expected a positive number of "
                             "processes")
        _STATE.update(module=module, names=self.names)
        self._pool = None
        if self.num_proc > 1:
            _batch_values(WARM_UP)  # import the tokenizers once, before the workers fork
            self._pool = _fork_pool(self.num_proc)
        self._pending: deque = deque()
        self._values: dict[str, list[tuple[Hashable, dict[str, float | None]]]] = {}

    def submit(self, splits: Sequence[str], order_keys: Sequence[Hashable],
               texts: tuple[list[str], list[str], list[str], list[str]]) -> None:
        """Queue one batch: each row's split and its sort key within the split (the output's
        row order), and the rows' decisions, headnotes, decision and headnote languages."""
        if self._pool is None:
            self._store(splits, order_keys, _batch_values(texts))
            return
        self._pending.append((splits, order_keys, self._pool.apply_async(_batch_values,
                                                                         (texts,))))
        while len(self._pending) > IN_FLIGHT_PER_PROCESS * self.num_proc:
            self._collect_oldest()

    def _collect_oldest(self) -> None:
        splits, order_keys, pending = self._pending.popleft()
        self._store(splits, order_keys, pending.get())

    def _store(self, splits: Sequence[str], order_keys: Sequence[Hashable],
               values: dict[str, list[float | None]]) -> None:
        for row, (split, key) in enumerate(zip(splits, order_keys, strict=True)):
            self._values.setdefault(split, []).append(
                (key, {name: values[name][row] for name in self.names}))

    def finish(self) -> dict[str, dict[str, dict[str, Any]]]:
        """Wait for every batch; split -> property -> {mean, std, min, median, max, n}, each
        aggregated over the split's rows in output order."""
        try:
            while self._pending:
                self._collect_oldest()
        finally:
            self.close()
        tables = {}
        for split, rows in self._values.items():
            rows.sort(key=lambda item: item[0])
            tables[split] = {name: aggregate([values[name] for _, values in rows])
                             for name in self.names}
        return tables

    def close(self) -> None:
        """Stop the workers: with nothing in flight they are told to finish (no signal is
        sent: a SIGTERM that reaches a worker still starting up could leave the queue's lock
        held and the pool waiting forever); on an error with work in flight, terminated."""
        if self._pool is not None:
            if self._pending:
                self._pool.terminate()
            else:
                self._pool.close()
            self._pool.join()
            self._pool = None
        self._pending.clear()
        _STATE.clear()
