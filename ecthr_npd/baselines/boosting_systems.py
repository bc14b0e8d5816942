"""The paper's reference systems: CatBoost, XGBoost, LightGBM on log(1 + y) (its Table 20).

Protocol: target log1p(y_amount_eur), predictions expm1 and clipped at zero (EUR); the
feature set ``X0`` or ``X1`` (:data:`ecthr_npd.baselines.features.FEATURE_SETS`) encoded as the
library wants it (:mod:`ecthr_npd.baselines.boosting_libraries`; the encoder learns vocabularies and
medians from the cases it is fitted on); loss ``squared`` or ``l1`` on the log scale.

Selection (:mod:`ecthr_npd.baselines.selection`): every point of the library's grid is fitted
once per fold with :data:`~ecthr_npd.baselines.boosting_libraries.MAX_TREES` trees and scored after
every :data:`~ecthr_npd.baselines.boosting_libraries.TREE_STEP` trees; the (point, number of trees)
with the lowest pooled MAE (ties: MedAE) is chosen. The final model is then

- with ``validation`` selection: the train-fitted model of the chosen point, cut at the chosen
  number of trees (nothing is fitted on validation);
- with ``rolling`` selection: refitted on train with the chosen settings;
- for a ``+refit`` variant (:meth:`BoostedTrees.refitted`): refitted on train+validation with
  the chosen settings (its validation figures are in-sample).

Test labels are never passed in. Deterministic for a seed and a thread count.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from ecthr_npd.baselines import boosting_libraries as libraries
from ecthr_npd.baselines.base import target_of
from ecthr_npd.baselines.features import FEATURE_SETS, FeatureEncoder
from ecthr_npd.baselines.selection import (
    SELECTIONS,
    choose,
    describe_folds,
    selection_folds,
    selection_scores,
)

FEATURE_SET_NAMES = tuple(FEATURE_SETS)


def grid_points(grid: dict[str, tuple]) -> list[dict[str, Any]]:
    """Every combination of ``grid``'s values, in a fixed order (keys as given)."""
    keys = list(grid)
    return [dict(zip(keys, values, strict=True)) for values in
            itertools.product(*(grid[key] for key in keys))]


@dataclass
class Encoded:
    """An encoder fitted on some cases and the library inputs it produced."""

    encoder: FeatureEncoder
    library: str

    def inputs(self, table: pa.Table) -> libraries.ModelInput:
        encoding = libraries.ENCODING[self.library]
        matrix = self.encoder.transform(table, encoding)
        categorical = (self.encoder.categorical_mask(encoding) if encoding == "native"
                       else np.zeros(matrix.shape[1], dtype=bool))
        return libraries.ModelInput(self.library, matrix, categorical)


@dataclass
class BoostedTrees:
    """One library's reference system (see the module docstring).

    Args:
        library: ``catboost``, ``xgboost`` or ``lightgbm``.
        feature_set: ``X0`` or ``X1``.
        objective: ``squared`` or ``l1`` (loss on log1p(y)).
        selection: ``validation`` or ``rolling``.
        seed: the library's random seed.
        threads: the library's thread count.
        grid: hyper-parameter grid (default :data:`libraries.GRIDS` [library]).
        max_trees, tree_step: trees fitted per grid point; scoring interval.
    """

    library: str
    feature_set: str = "X1"
    objective: str = "squared"
    selection: str = "validation"
    seed: int = 0
    threads: int = 1
    grid: dict[str, tuple] | None = None
    max_trees: int = libraries.MAX_TREES
    tree_step: int = libraries.TREE_STEP
    name: str = ""
    train_on: str = "train"
    chosen: dict[str, Any] | None = None
    n_trees: int | None = None
    scores: list[dict[str, Any]] = field(default_factory=list)
    folds: list[dict[str, Any]] = field(default_factory=list)
    selection_target: np.ndarray | None = None
    selection_prediction: np.ndarray | None = None
    _encoded: Encoded | None = None
    _model: Any = None

    def __post_init__(self) -> None:
        libraries._check(self.library)
        if self.feature_set not in FEATURE_SETS:
            raise ValueError(f"feature_set={self.feature_set!r}; expected one of "
                             f"{FEATURE_SET_NAMES}")
        if self.objective not in libraries.OBJECTIVES:
            raise ValueError(f"objective={self.objective!r}; expected one of "
                             f"{libraries.OBJECTIVES}")
        if self.selection not in SELECTIONS:
            raise ValueError(f"selection={self.selection!r}; expected one of {SELECTIONS}")
        if self.grid is None:
            self.grid = dict(libraries.GRIDS[self.library])
        if not self.name:
            self.name = self.library
        if self.tree_step < 1 or self.max_trees < self.tree_step:
            raise ValueError(f"max_trees={self.max_trees}, tree_step={self.tree_step}; expected "
                             "1 <= tree_step <= max_trees")

    def _fit_model(self, table: pa.Table, params: dict[str, Any], n_trees: int
                   ) -> tuple[Encoded, Any]:
        encoder = FeatureEncoder(predictors=FEATURE_SETS[self.feature_set]).fit(table)
        encoded = Encoded(encoder, self.library)
        model = libraries.fit(self.library, params, self.objective, n_trees,
                              encoded.inputs(table), np.log1p(target_of(table)), self.seed,
                              self.threads)
        return encoded, model

    def fit(self, train: pa.Table, validation: pa.Table) -> BoostedTrees:
        """Choose settings on the selection folds, then fit the final model (train only)."""
        points = grid_points(self.grid)
        checkpoints = list(range(self.tree_step, self.max_trees + 1, self.tree_step))
        folds = selection_folds(train, validation, self.selection)
        self.folds = describe_folds(folds)
        # predictions[point][checkpoint] → list of per-fold EUR arrays
        predictions = [[[] for _ in checkpoints] for _ in points]
        targets = []
        train_models: dict[int, tuple[Encoded, Any]] = {}  # validation selection: reused
        for fold in folds:
            targets.append(target_of(fold.score))
            for p, params in enumerate(points):
                encoded, model = self._fit_model(fold.fit, params, self.max_trees)
                scored = encoded.inputs(fold.score)
                for c, n in enumerate(checkpoints):
                    predictions[p][c].append(libraries.to_eur(
                        libraries.predict_log(self.library, model, scored, n)))
                if self.selection == "validation":
                    train_models[p] = (encoded, model)
        y = np.concatenate(targets)
        candidates, scores = [], []
        for p, params in enumerate(points):
            for c, n in enumerate(checkpoints):
                pooled = np.concatenate(predictions[p][c])
                mae, medae = selection_scores(y, pooled)
                candidates.append((p, c))
                scores.append((mae, medae))
                self.scores.append({"params": params, "n_trees": n, "mae": mae, "medae": medae})
        best_p, best_c = candidates[choose(scores)]
        self.chosen, self.n_trees = points[best_p], checkpoints[best_c]
        self.selection_target = y
        self.selection_prediction = np.concatenate(predictions[best_p][best_c])
        if self.selection == "validation":
            self._encoded, self._model = train_models[best_p]
        else:
            self._encoded, self._model = self._fit_model(train, self.chosen, self.n_trees)
        return self

    def refitted(self, train: pa.Table, validation: pa.Table) -> BoostedTrees:
        """A ``+refit`` copy: the chosen settings fitted on train+validation."""
        if self.chosen is None:
            raise RuntimeError(f"{self.name}: refitted called before fit")
        copy = BoostedTrees(self.library, self.feature_set, self.objective, self.selection,
                            self.seed, self.threads, dict(self.grid), self.max_trees,
                            self.tree_step, name=f"{self.name}+refit",
                            train_on="train+validation", chosen=dict(self.chosen),
                            n_trees=self.n_trees, scores=self.scores, folds=self.folds,
                            selection_target=self.selection_target,
                            selection_prediction=self.selection_prediction)
        pooled = pa.concat_tables([train, validation.select(train.column_names)])
        copy._encoded, copy._model = copy._fit_model(pooled, copy.chosen, copy.n_trees)
        return copy

    def predict(self, table: pa.Table) -> np.ndarray:
        if self._model is None:
            raise RuntimeError(f"{self.name}: predict called before fit")
        return libraries.to_eur(libraries.predict_log(
            self.library, self._model, self._encoded.inputs(table), self.n_trees))

    def settings(self) -> dict[str, Any]:
        best = min(self.scores, key=lambda s: (s["mae"], s["medae"])) if self.scores else None
        return {"library": self.library, "library_version": libraries.version(self.library),
                "feature_set": self.feature_set, "objective": self.objective,
                "target": "log1p(y_amount_eur); prediction expm1, clipped at 0",
                "selection": self.selection, "folds": self.folds, "fitted_on": self.train_on,
                "grid": {k: list(v) for k, v in self.grid.items()},
                "fixed": libraries.FIXED[self.library], "encoding":
                libraries.ENCODING[self.library], "chosen": self.chosen,
                "n_trees": self.n_trees, "max_trees": self.max_trees,
                "tree_step": self.tree_step, "seed": self.seed, "threads": self.threads,
                "selection_mae": best["mae"] if best else None,
                "selection_medae": best["medae"] if best else None,
                "scores_by_setting": [s for s in self.scores
                                      if s["n_trees"] % (4 * self.tree_step) == 0
                                      or (s["params"] == self.chosen
                                          and s["n_trees"] == self.n_trees)]}
