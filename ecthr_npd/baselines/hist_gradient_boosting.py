"""Gradient-boosted trees on log(1 + y) over the permitted inputs.

The model is fitted on the training cases to ``log1p(y_amount_eur)`` with the shared
encoder's ``ordinal`` encoding (categorical columns declared as such); predictions are
``expm1`` of the model's output, clipped at 0 (EUR). Every setting of a small grid is fitted on
train; the one with the lowest validation MAE (in EUR) is kept (ties: the first in grid
order). The validation cases are never fitted on.

Model: scikit-learn's ``HistGradientBoostingRegressor``. The paper's library systems
(CatBoost, XGBoost, LightGBM) are :mod:`ecthr_npd.baselines.boosting_systems`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from ecthr_npd.baselines.base import limited_threads, mean_absolute_error, target_of
from ecthr_npd.baselines.features import FeatureEncoder

# learning rate × leaves per tree × loss on log1p(y); 300 boosting iterations each.
DEFAULT_GRID: dict[str, tuple] = {
    "learning_rate": (0.05, 0.1),
    "max_leaf_nodes": (15, 31),
    "loss": ("squared_error", "absolute_error"),
}
MAX_ITER = 300
MIN_SAMPLES_LEAF = 20


def grid_points(grid: dict[str, tuple]) -> list[dict[str, Any]]:
    """Every combination of ``grid``'s values, in a fixed order (keys as given)."""
    keys = list(grid)
    return [dict(zip(keys, values, strict=True)) for values in
            itertools.product(*(grid[key] for key in keys))]


def make_regressor(params: dict[str, Any], categorical: np.ndarray, seed: int):
    """An unfitted ``HistGradientBoostingRegressor`` with ``params``."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    return HistGradientBoostingRegressor(
        max_iter=MAX_ITER, min_samples_leaf=MIN_SAMPLES_LEAF, early_stopping=False,
        categorical_features=categorical, random_state=seed, **params)


def fit_regressor(params: dict[str, Any], encoder: FeatureEncoder, features: np.ndarray,
                  target: np.ndarray, seed: int):
    """Fit a regressor with the encoder's categorical columns declared."""
    return make_regressor(params, encoder.categorical_mask(), seed).fit(features, target)


def log_target_prediction(model, features: np.ndarray) -> np.ndarray:
    """``expm1`` of a log1p-scale model's output, clipped at 0 (EUR)."""
    return np.clip(np.expm1(model.predict(features)), 0.0, None)


@dataclass
class GradientBoostedTrees:
    """See the module docstring.

    Args:
        seed: random_state of the model.
        grid: hyper-parameter grid (defaults to :data:`DEFAULT_GRID`).
        threads: OpenMP threads while fitting and predicting (see ``limited_threads``).
    """

    seed: int = 0
    grid: dict[str, tuple] = field(default_factory=lambda: dict(DEFAULT_GRID))
    threads: int = 1
    name: str = "gbt"
    encoder: FeatureEncoder = field(default_factory=FeatureEncoder)
    chosen: dict[str, Any] | None = None
    validation_mae: dict[str, float] = field(default_factory=dict)
    model: Any = None

    def fit(self, train: pa.Table, validation: pa.Table) -> GradientBoostedTrees:
        with limited_threads(self.threads):
            return self._fit(train, validation)

    def _fit(self, train: pa.Table, validation: pa.Table) -> GradientBoostedTrees:
        y_train = target_of(train)
        y_validation = target_of(validation)
        self.encoder.fit(train)
        x_train = self.encoder.transform(train)
        x_validation = self.encoder.transform(validation)
        best = None
        self.validation_mae = {}
        for params in grid_points(self.grid):
            model = fit_regressor(params, self.encoder, x_train, np.log1p(y_train), self.seed)
            mae = mean_absolute_error(y_validation, log_target_prediction(model, x_validation))
            self.validation_mae[_key(params)] = mae
            if best is None or mae < best[0]:
                best = (mae, params, model)
        _, self.chosen, self.model = best
        return self

    def predict(self, table: pa.Table) -> np.ndarray:
        if self.model is None:
            raise RuntimeError(f"{self.name}: predict called before fit")
        with limited_threads(self.threads):
            return log_target_prediction(self.model, self.encoder.transform(table))

    def settings(self) -> dict[str, Any]:
        return {"model": "sklearn HistGradientBoostingRegressor", "chosen": self.chosen, "max_iter": MAX_ITER,
                "min_samples_leaf": MIN_SAMPLES_LEAF, "seed": self.seed,
                "validation_mae_by_setting": self.validation_mae,
                "features": self.encoder.feature_names()}


def _key(params: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in params.items())
