"""The zero-award decision of the ``selected`` system: P(award = 0) and a threshold.

A :class:`ZeroSpec` is a LightGBM binary classifier of ``y_amount_eur == 0`` over the shared
encoder's one-hot encoding of every permitted input (the amount models' ``all`` predictors),
fitted with :data:`FIXED` settings and the spec's own; :func:`fit_zero` fits it and
:meth:`FittedZero.probability` gives P(zero) with the first ``n`` trees.

The gate (:func:`gate`): an amount prediction becomes 0 where P(zero) > ``threshold``; the
threshold is chosen on the selection folds (:mod:`ecthr_npd.baselines.search`). Why a
separate classifier: the amount model's own zeros come only where the conditional median is
0 (P(zero) ≥ 0.5, which the cases rarely reach), while the F1 of the zero class is highest at
a lower threshold; the classifier makes that trade-off explicit and measurable.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from ecthr_npd.baselines.amount_models import encoder_for, model_input, recency_weights
from ecthr_npd.baselines.base import target_of
from ecthr_npd.baselines.features import FeatureEncoder

FIXED: dict[str, Any] = {"objective": "binary", "subsample": 0.8, "subsample_freq": 1,
                         "colsample_bytree": 0.8, "deterministic": True,
                         "force_col_wise": True, "verbose": -1}


@dataclass(frozen=True)
class ZeroSpec:
    """A zero-award classifier (see the module docstring). ``params``: LightGBM keyword
    settings as sorted ``(name, value)`` pairs."""

    params: tuple[tuple[str, Any], ...] = (("min_child_samples", 20), ("num_leaves", 15))
    half_life: float | None = None
    learning_rate: float = 0.05
    max_trees: int = 600
    tree_step: int = 50

    def checkpoints(self) -> list[int]:
        return list(range(self.tree_step, self.max_trees + 1, self.tree_step))

    def key(self) -> str:
        parts = ["zero-lightgbm", f"lr{self.learning_rate:g}",
                 *(f"{k}{v:g}" if isinstance(v, float) else f"{k}{v}" for k, v in self.params)]
        if self.half_life is not None:
            parts.append(f"hl{self.half_life:g}")
        return "-".join(parts)

    def to_json(self) -> dict[str, Any]:
        record = asdict(self)
        record["params"] = dict(self.params)
        return record


@dataclass
class FittedZero:
    spec: ZeroSpec
    encoder: FeatureEncoder
    model: Any

    def probability(self, table: pa.Table, n_trees: int) -> np.ndarray:
        """P(award = 0) per row of ``table`` with the first ``n_trees`` trees."""
        return self.probability_at(table, [n_trees])[0]

    def probability_at(self, table: pa.Table, tree_counts: list[int]) -> list[np.ndarray]:
        """:meth:`probability` for each tree count (the table is encoded once)."""
        data = model_input(self.encoder, "lightgbm", table).data
        return [np.asarray(self.model.predict_proba(data, num_iteration=n)[:, 1],
                           dtype=np.float64) for n in tree_counts]


def fit_zero(spec: ZeroSpec, table: pa.Table, seed: int, threads: int = 1) -> FittedZero:
    """Fit ``spec`` on the labelled ``table`` to ``y_amount_eur == 0``."""
    import lightgbm

    is_zero = (target_of(table) == 0).astype(np.int64)
    if is_zero.min() == is_zero.max():
        raise ValueError("zero classifier: the fitted cases need both zero and positive awards")
    encoder = encoder_for("all").fit(table)
    model = lightgbm.LGBMClassifier(n_estimators=spec.max_trees, random_state=seed,
                                    n_jobs=threads, learning_rate=spec.learning_rate,
                                    **FIXED, **dict(spec.params))
    model.fit(model_input(encoder, "lightgbm", table).data, is_zero,
              sample_weight=recency_weights(table, spec.half_life))
    return FittedZero(spec, encoder, model)


def gate(amounts: np.ndarray, p_zero: np.ndarray, threshold: float) -> np.ndarray:
    """``amounts`` with 0 where ``p_zero > threshold`` (EUR)."""
    return np.where(p_zero > threshold, 0.0, amounts)


def log_loss(is_zero: np.ndarray, p_zero: np.ndarray) -> float:
    """Mean binary cross-entropy (nats), probabilities clipped to [1e-12, 1 − 1e-12]."""
    p = np.clip(p_zero, 1e-12, 1.0 - 1e-12)
    return float(-np.mean(is_zero * np.log(p) + (1 - is_zero) * np.log(1.0 - p)))
