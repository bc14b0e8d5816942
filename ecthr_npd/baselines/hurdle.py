"""Two-stage hurdle model: is the award zero, and if not, how large is it.

Stage 1, a zero/positive classifier (``HistGradientBoostingClassifier``) on the shared
encoder's ``ordinal`` encoding, fitted on every training case to ``y == 0``; its setting is
chosen from :data:`CLASSIFIER_GRID` by validation log loss.

Stage 2, a regressor for positive awards (the tree baseline's model, fitted to
``log1p(y)`` on the positive training cases only); its setting is chosen from
:data:`REGRESSOR_GRID` by MAE on the positive validation cases (EUR).

Decision rule, one of :data:`RULES`, chosen by validation MAE (ties: ``threshold``):

- ``threshold``: 0 when P(zero) > τ, else the regressor's ``expm1`` value clipped at 0; τ is
  chosen on :data:`THRESHOLDS` (τ = 1 never predicts 0) by validation MAE (ties: smallest τ);
- ``mixture_median`` (:func:`mixture_median`): the median of the two-part mixture, which is
  what MAE rewards: 0 when P(zero) ≥ 0.5, else the positive part's quantile at level
  (0.5 − P(zero)) / (1 − P(zero)). The positive part's quantiles are the regressor's
  log1p-scale prediction plus quantiles of its residuals on the most recent
  :data:`HOLDOUT_SHARE` of the positive training cases, from the chosen setting refitted on
  the earlier ones (no validation label enters them).

Why the second rule: with the threshold rule an uncertain case (P(zero) just below τ) gets the
full positive amount. For cases with many HUDOC applications the amount model has learnt
large totals (awards add up over applicants), and recent such cases are awarded 0 more often
than in training, so each of those predictions costs tens or hundreds of thousands of EUR;
the mixture median shrinks them by the zero probability instead. Validation labels choose
settings, τ and the rule only; no model is fitted on them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from ecthr_npd.baselines.base import limited_threads, mean_absolute_error, target_of
from ecthr_npd.baselines.features import FeatureEncoder
from ecthr_npd.baselines.hist_gradient_boosting import (
    DEFAULT_GRID,
    MAX_ITER,
    MIN_SAMPLES_LEAF,
    _key,
    fit_regressor,
    grid_points,
    log_target_prediction,
)

CLASSIFIER_GRID: dict[str, tuple] = {"learning_rate": (0.05, 0.1), "max_leaf_nodes": (15, 31)}
REGRESSOR_GRID: dict[str, tuple] = dict(DEFAULT_GRID)
THRESHOLDS = tuple(np.round(np.arange(0.05, 1.0 + 1e-9, 0.025), 3).tolist())
RULES = ("threshold", "mixture_median")
HOLDOUT_SHARE = 0.2
LEVELS = np.linspace(0.0, 1.0, 101)


def mixture_median(p_zero: np.ndarray, log_amount: np.ndarray,
                   residual_quantiles: np.ndarray) -> np.ndarray:
    """Median of the hurdle mixture (EUR): 0 where ``p_zero >= 0.5``; else
    ``expm1(log_amount + Q((0.5 − p) / (1 − p)))`` clipped at 0, with Q the residual quantile
    function given at :data:`LEVELS` (``residual_quantiles``, log1p scale)."""
    p = np.asarray(p_zero, dtype=np.float64)
    level = np.clip((0.5 - p) / np.maximum(1.0 - p, 1e-12), 0.0, 1.0)
    shift = np.interp(level, LEVELS, residual_quantiles)
    return np.where(p >= 0.5, 0.0, np.clip(np.expm1(log_amount + shift), 0.0, None))


def combine(p_zero: np.ndarray, positive_prediction: np.ndarray, threshold: float) -> np.ndarray:
    """The decision rule: 0 where ``p_zero > threshold``, else ``positive_prediction`` (EUR)."""
    return np.where(p_zero > threshold, 0.0, positive_prediction)


@dataclass
class HurdleModel:
    """See the module docstring. ``seed``: random_state of both stages; ``threads``: OpenMP
    threads while fitting and predicting."""

    seed: int = 0
    threads: int = 1
    classifier_grid: dict[str, tuple] = field(default_factory=lambda: dict(CLASSIFIER_GRID))
    regressor_grid: dict[str, tuple] = field(default_factory=lambda: dict(REGRESSOR_GRID))
    thresholds: tuple[float, ...] = THRESHOLDS
    rules: tuple[str, ...] = RULES
    name: str = "hurdle"
    encoder: FeatureEncoder = field(default_factory=FeatureEncoder)
    classifier: Any = None
    regressor: Any = None
    threshold: float | None = None
    rule: str | None = None
    residual_quantiles: np.ndarray | None = None
    chosen: dict[str, Any] = field(default_factory=dict)
    diagnostics: dict[str, Any] = field(default_factory=dict)

    def fit(self, train: pa.Table, validation: pa.Table) -> HurdleModel:
        with limited_threads(self.threads):
            return self._fit(train, validation)

    def _fit(self, train: pa.Table, validation: pa.Table) -> HurdleModel:
        from sklearn.ensemble import HistGradientBoostingClassifier
        from sklearn.metrics import log_loss

        y_train, y_validation = target_of(train), target_of(validation)
        if not ((y_train == 0).any() and (y_train > 0).any()):
            raise ValueError("hurdle model: the training targets need both zero and positive "
                             "awards")
        self.encoder.fit(train)
        x_train, x_validation = self.encoder.transform(train), self.encoder.transform(validation)
        zero_train, zero_validation = (y_train == 0).astype(int), (y_validation == 0).astype(int)
        losses: dict[str, float] = {}
        best = None
        for params in grid_points(self.classifier_grid):
            model = HistGradientBoostingClassifier(
                max_iter=MAX_ITER, min_samples_leaf=MIN_SAMPLES_LEAF, early_stopping=False,
                categorical_features=self.encoder.categorical_mask(), random_state=self.seed,
                **params).fit(x_train, zero_train)
            loss = float(log_loss(zero_validation, model.predict_proba(x_validation)[:, 1],
                                  labels=[0, 1]))
            losses[_key(params)] = loss
            if best is None or loss < best[0]:
                best = (loss, params, model)
        _, self.chosen["classifier"], self.classifier = best

        positive_train, positive_validation = y_train > 0, y_validation > 0
        maes: dict[str, float] = {}
        best = None
        for params in grid_points(self.regressor_grid):
            model = fit_regressor(params, self.encoder, x_train[positive_train],
                                  np.log1p(y_train[positive_train]), self.seed)
            mae = (mean_absolute_error(y_validation[positive_validation], log_target_prediction(
                model, x_validation[positive_validation])) if positive_validation.any() else 0.0)
            maes[_key(params)] = mae
            if best is None or mae < best[0]:
                best = (mae, params, model)
        _, self.chosen["regressor"], self.regressor = best

        self.residual_quantiles = self._holdout_residual_quantiles(train, x_train, y_train)
        p_zero = self.classifier.predict_proba(x_validation)[:, 1]
        amounts = log_target_prediction(self.regressor, x_validation)
        by_threshold = {t: mean_absolute_error(y_validation, combine(p_zero, amounts, t))
                        for t in self.thresholds}
        self.threshold = min(self.thresholds, key=lambda t: (by_threshold[t], t))
        by_rule = {"threshold": by_threshold[self.threshold],
                   "mixture_median": mean_absolute_error(y_validation, mixture_median(
                       p_zero, self.regressor.predict(x_validation), self.residual_quantiles))}
        self.rule = min(self.rules, key=lambda r: (by_rule[r], RULES.index(r)))
        self.diagnostics = {"classifier_validation_log_loss": losses,
                            "regressor_validation_positive_mae": maes,
                            "validation_mae_by_threshold": {str(t): v for t, v in
                                                            by_threshold.items()},
                            "validation_mae_by_rule": by_rule}
        return self

    def _holdout_residual_quantiles(self, train: pa.Table, x_train: np.ndarray,
                                    y_train: np.ndarray) -> np.ndarray:
        """Quantiles (at :data:`LEVELS`) of log1p residuals of the chosen regressor setting,
        refitted on the earlier positive training cases, on the most recent
        :data:`HOLDOUT_SHARE` of them (by judgment date, then row)."""
        positive = np.flatnonzero(y_train > 0)
        dates = train.column("judgment_date").cast(pa.int32()).to_numpy(zero_copy_only=False)
        ordered = positive[np.argsort(dates[positive], kind="stable")]
        cut = int(round(len(ordered) * (1.0 - HOLDOUT_SHARE)))
        early, late = ordered[:cut], ordered[cut:]
        if early.size < 2 or late.size < 2:
            return np.zeros(LEVELS.size)
        model = fit_regressor(self.chosen["regressor"], self.encoder, x_train[early],
                              np.log1p(y_train[early]), self.seed)
        residuals = np.log1p(y_train[late]) - model.predict(x_train[late])
        return np.quantile(residuals, LEVELS)

    def predict(self, table: pa.Table) -> np.ndarray:
        if self.threshold is None:
            raise RuntimeError(f"{self.name}: predict called before fit")
        features = self.encoder.transform(table)
        with limited_threads(self.threads):
            p_zero = self.classifier.predict_proba(features)[:, 1]
            if self.rule == "mixture_median":
                return mixture_median(p_zero, self.regressor.predict(features),
                                      self.residual_quantiles)
            return combine(p_zero, log_target_prediction(self.regressor, features),
                           self.threshold)

    def settings(self) -> dict[str, Any]:
        return {"classifier": self.chosen.get("classifier"),
                "regressor": self.chosen.get("regressor"), "threshold": self.threshold,
                "rule": self.rule, "rules": {
                    "threshold": "0 if P(zero) > threshold else expm1(regressor) clipped at 0",
                    "mixture_median": "0 if P(zero) >= 0.5 else expm1(regressor + residual "
                                      "quantile at (0.5 - P(zero)) / (1 - P(zero)))"},
                "holdout_share": HOLDOUT_SHARE,
                "max_iter": MAX_ITER, "min_samples_leaf": MIN_SAMPLES_LEAF, "seed": self.seed,
                **self.diagnostics}
