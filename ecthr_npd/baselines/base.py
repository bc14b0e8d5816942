"""The contract every ECtHR-NPD baseline follows.

A baseline is constructed with its options and a seed, then

- ``fit(train, validation)`` learns from ``train`` (inputs and ``y_amount_eur``) and uses
  ``validation`` (inputs and target) only to choose among a fixed grid of settings; test
  labels are never passed to a baseline;
- ``predict(table)`` returns one non-negative float64 per row of ``table`` (EUR, table
  order); ``table`` carries ``case_id`` and the permitted inputs, never the target
  (see :func:`ecthr_npd.data.inputs_only`);
- ``settings()`` returns the fitted, chosen settings as JSON-ready values.

Fitting is deterministic for a given seed and data.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
import pyarrow as pa

from ecthr_npd import schema


class Baseline(Protocol):
    name: str

    def fit(self, train: pa.Table, validation: pa.Table) -> Baseline: ...

    def predict(self, table: pa.Table) -> np.ndarray: ...

    def settings(self) -> dict[str, Any]: ...


def target_of(table: pa.Table) -> np.ndarray:
    """``y_amount_eur`` as float64 (EUR); ValueError when the column is missing or holds a
    null, a negative or a non-finite value."""
    if schema.TARGET_COLUMN not in table.column_names:
        raise ValueError(f"table has no {schema.TARGET_COLUMN!r} column; a baseline is fitted "
                         "on labelled rows")
    y = table.column(schema.TARGET_COLUMN).to_numpy(zero_copy_only=False).astype(np.float64)
    bad = np.flatnonzero(~np.isfinite(y) | (y < 0))
    if bad.size:
        raise ValueError(f"{schema.TARGET_COLUMN}[{bad[0]}] = {float(y[bad[0]])!r}; expected a finite "
                         "number >= 0")
    return y


def limited_threads(threads: int):
    """Context manager limiting OpenMP and BLAS to ``threads`` threads (threadpoolctl).

    Every tree and k-NN baseline fits and predicts inside it: scikit-learn's histogram
    gradient boosting otherwise starts one OpenMP thread per core, which on a shared machine
    oversubscribes the cores and runs many times slower. threadpoolctl only limits libraries
    already loaded, so scikit-learn's ensemble module (and its OpenMP runtime) is imported
    first.
    """
    import sklearn.ensemble  # noqa: F401 - loads the OpenMP runtime before limiting it
    from threadpoolctl import threadpool_limits

    if threads < 1:
        raise ValueError(f"threads={threads}; expected an integer >= 1")
    return threadpool_limits(limits=threads)


def mean_absolute_error(y: np.ndarray, prediction: np.ndarray) -> float:
    """Mean |y − prediction| in EUR (the selection criterion of every tuned baseline)."""
    return float(np.mean(np.abs(y - prediction)))
