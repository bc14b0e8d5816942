"""The paper's three gradient-boosting libraries behind one small interface.

CatBoost, XGBoost and LightGBM come with the optional extra ``trees``
(the ``trees`` extra); :func:`unavailable` says which are missing.

Each library fits a regressor to log1p(y) with a loss (``squared``: RMSE / squared error,
``l1``: MAE, whose minimiser is the conditional median) and predicts with only the first
``n`` trees, so that one fit serves every candidate number of trees. Encodings follow the
paper (Table 20): XGBoost and LightGBM take the encoder's ``one_hot`` matrix (numbers imputed
with the training median, one-hot categoricals with a missing/unseen column); CatBoost takes
the ``native`` matrix with its categorical columns declared as such (CatBoost's own
categorical statistics).

Hyper-parameter grids (:data:`GRIDS`; every point is fitted with :data:`MAX_TREES` trees and
scored after every :data:`TREE_STEP` trees) and fixed settings (:data:`FIXED`):

- ``catboost``: depth 4 / 6, learning rate 0.1; l2_leaf_reg 3, CatBoost defaults otherwise;
- ``xgboost``: max_depth 4 / 6, learning rate 0.1; hist trees, min_child_weight 1,
  subsample 0.8, colsample_bytree 0.8;
- ``lightgbm``: num_leaves 15 / 31, learning rate 0.1; min_child_samples 20, bagging
  fraction 0.8 every iteration, feature fraction 0.8, deterministic mode.

Each grid point × 24 tree counts (25 … 600). The grids are small so that every ECtHR-NPD
baseline together fits in minutes on two cores. A first run on the release that also tried
learning rate 0.05 (up to 1,000 trees) chose 0.1 on validation for CatBoost (700 trees) and
XGBoost (125) and 0.05 for LightGBM (375).
"""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np

from courtbench.extras import install_command

LIBRARIES = ("catboost", "xgboost", "lightgbm")
OBJECTIVES = ("squared", "l1")
INSTALL_COMMAND = install_command("trees")
MAX_TREES = 600
TREE_STEP = 25

GRIDS: dict[str, dict[str, tuple]] = {
    "catboost": {"depth": (4, 6), "learning_rate": (0.1,)},
    "xgboost": {"max_depth": (4, 6), "learning_rate": (0.1,)},
    "lightgbm": {"num_leaves": (15, 31), "learning_rate": (0.1,)},
}
FIXED: dict[str, dict[str, Any]] = {
    "catboost": {"l2_leaf_reg": 3.0},
    "xgboost": {"tree_method": "hist", "min_child_weight": 1.0, "subsample": 0.8,
                "colsample_bytree": 0.8},
    "lightgbm": {"min_child_samples": 20, "subsample": 0.8, "subsample_freq": 1,
                 "colsample_bytree": 0.8},
}
LOSSES = {
    "catboost": {"squared": "RMSE", "l1": "MAE"},
    "xgboost": {"squared": "reg:squarederror", "l1": "reg:absoluteerror"},
    "lightgbm": {"squared": "regression", "l1": "regression_l1"},
}
ENCODING = {"catboost": "native", "xgboost": "one_hot", "lightgbm": "one_hot"}


def _check(library: str) -> None:
    if library not in LIBRARIES:
        raise ValueError(f"library {library!r}; expected one of {', '.join(LIBRARIES)}")


def available(library: str) -> bool:
    """Whether ``library``'s package is importable."""
    _check(library)
    return importlib.util.find_spec(library) is not None


def unavailable(libraries: tuple[str, ...] = LIBRARIES) -> list[str]:
    """The libraries of ``libraries`` that are not installed."""
    return [library for library in libraries if not available(library)]


def version(library: str) -> str | None:
    """``library``'s installed version, None when missing."""
    if not available(library):
        return None
    module = __import__(library)
    return str(module.__version__)


class ModelInput:
    """A feature matrix as ``library`` wants it (CatBoost: a Pool with categorical columns)."""

    def __init__(self, library: str, matrix: np.ndarray, categorical: np.ndarray):
        _check(library)
        self.library = library
        self.rows = matrix.shape[0]
        self.data: Any = matrix
        if library == "catboost":
            import catboost

            self._categorical = [int(j) for j in np.flatnonzero(categorical)]
            self._objects = matrix.astype(object)
            for j in self._categorical:
                self._objects[:, j] = matrix[:, j].astype(np.int64)
            self.data = catboost.Pool(self._objects, cat_features=self._categorical)

    def training(self, label: np.ndarray, weight: np.ndarray | None = None) -> Any:
        """What ``fit`` takes: CatBoost a labelled (and weighted) Pool of the same rows,
        others the matrix."""
        if self.library == "catboost":
            import catboost

            return catboost.Pool(self._objects, label=label, weight=weight,
                                 cat_features=self._categorical)
        return self.data


def make_model(library: str, params: dict[str, Any], objective: str, n_trees: int, seed: int,
               threads: int) -> Any:
    """An unfitted ``library`` regressor with grid ``params`` and the fixed settings."""
    _check(library)
    if objective not in OBJECTIVES:
        raise ValueError(f"objective={objective!r}; expected one of {OBJECTIVES}")
    if not available(library):
        raise ValueError(f"{library} is not installed ({INSTALL_COMMAND})")
    fixed = FIXED[library]
    loss = LOSSES[library][objective]
    if library == "catboost":
        import catboost

        return catboost.CatBoostRegressor(
            iterations=n_trees, loss_function=loss, random_seed=seed, thread_count=threads,
            verbose=False, allow_writing_files=False, **fixed, **params)
    if library == "xgboost":
        import xgboost

        return xgboost.XGBRegressor(n_estimators=n_trees, objective=loss, random_state=seed,
                                    n_jobs=threads, **fixed, **params)
    import lightgbm

    return lightgbm.LGBMRegressor(n_estimators=n_trees, objective=loss, random_state=seed,
                                  n_jobs=threads, deterministic=True, force_col_wise=True,
                                  verbose=-1, **fixed, **params)


def fit(library: str, params: dict[str, Any], objective: str, n_trees: int, data: ModelInput,
        log_target: np.ndarray, seed: int, threads: int) -> Any:
    """Fit a regressor to ``log_target`` (log1p EUR) on ``data``."""
    model = make_model(library, params, objective, n_trees, seed, threads)
    if library == "catboost":
        model.fit(data.training(log_target))
    else:
        model.fit(data.data, log_target)
    return model


def predict_log(library: str, model: Any, data: ModelInput, n_trees: int) -> np.ndarray:
    """The model's log1p-scale output using its first ``n_trees`` trees."""
    if library == "catboost":
        values = model.predict(data.data, ntree_end=n_trees)
    elif library == "xgboost":
        values = model.predict(data.data, iteration_range=(0, n_trees))
    else:
        values = model.predict(data.data, num_iteration=n_trees)
    return np.asarray(values, dtype=np.float64)


def to_eur(log_prediction: np.ndarray) -> np.ndarray:
    """expm1 of a log1p-scale prediction, clipped at 0 (EUR)."""
    return np.clip(np.expm1(log_prediction), 0.0, None)
