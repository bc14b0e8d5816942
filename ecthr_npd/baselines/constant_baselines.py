"""Constant baselines: one number learned from the training targets, predicted for every case.

- ``train_median``: median of the training awards (zeros included);
- ``train_mean``: mean of the training awards;
- ``zero``: 0 for every case (no fitting);
- ``train_positive_median`` / ``train_positive_mean``: median / mean of the positive training
  awards.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from ecthr_npd.baselines.base import target_of


def _positive(y: np.ndarray) -> np.ndarray:
    positive = y[y > 0]
    if positive.size == 0:
        raise ValueError("training targets have no positive award; a positive-award constant "
                         "is undefined")
    return positive


STATISTICS: dict[str, Callable[[np.ndarray], float]] = {
    "train_median": lambda y: float(np.median(y)),
    "train_mean": lambda y: float(np.mean(y)),
    "zero": lambda y: 0.0,
    "train_positive_median": lambda y: float(np.median(_positive(y))),
    "train_positive_mean": lambda y: float(np.mean(_positive(y))),
}


@dataclass
class ConstantBaseline:
    """Predicts ``STATISTICS[name](train targets)`` for every case (EUR)."""

    name: str
    value: float | None = None

    def __post_init__(self) -> None:
        if self.name not in STATISTICS:
            raise ValueError(f"constant baseline {self.name!r}; expected one of {list(STATISTICS)}")

    def fit(self, train: pa.Table, validation: pa.Table | None = None) -> ConstantBaseline:
        y = target_of(train)
        if y.size == 0:
            raise ValueError("training table is empty")
        self.value = STATISTICS[self.name](y)
        return self

    def predict(self, table: pa.Table) -> np.ndarray:
        if self.value is None:
            raise RuntimeError(f"{self.name}: predict called before fit")
        return np.full(table.num_rows, self.value, dtype=np.float64)

    def settings(self) -> dict[str, Any]:
        return {"value_eur": self.value}
