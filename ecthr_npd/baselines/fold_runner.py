"""Fit candidates on the rolling-origin folds and score them: the search's workhorse.

A :class:`FoldRunner` holds the folds of one :class:`~ecthr_npd.baselines.protocol.SelectionData`
(never a test case) and, per candidate, fits it once per fold, predicts the fold's scored
cases at every tree checkpoint, and keeps the pooled predictions (memoised by the candidate's
spec). Every candidate scored is written to the log callback with its configuration, fold
scores, wall and CPU seconds, so the search's whole path can be read back.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ecthr_npd.baselines.amount_models import AmountSpec, fit_amount
from ecthr_npd.baselines.base import limited_threads, target_of
from ecthr_npd.baselines.protocol import SelectionData, fold_scores
from ecthr_npd.baselines.selection import choose, selection_scores
from ecthr_npd.baselines.zero_gate import ZeroSpec, fit_zero, log_loss


@dataclass
class Scored:
    """One scored candidate: its pooled fold predictions (EUR, fold order) and scores."""

    name: str
    stage: str
    config: dict[str, Any]
    prediction: np.ndarray
    scores: dict[str, Any]

    @property
    def mae(self) -> float:
        return self.scores["pooled"]["mae"]

    @property
    def rank_key(self) -> tuple[float, float]:
        return self.scores["pooled"]["mae"], self.scores["pooled"]["medae"]


class Clock:
    """Wall and CPU seconds since construction (CPU: this process, every thread)."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def seconds(self) -> dict[str, float]:
        return {"seconds": round(time.perf_counter() - self.wall, 3),
                "cpu_seconds": round(time.process_time() - self.cpu, 3)}


class FoldRunner:
    """See the module docstring. ``log`` receives one JSON-ready record per scored
    candidate; ``seed`` and ``threads`` go to every fit."""

    def __init__(self, data: SelectionData, *, seed: int = 0, threads: int = 1,
                 log: Callable[[dict[str, Any]], None] | None = None):
        self.folds = data.folds()
        self.labels = [fold.label for fold in self.folds]
        self.targets = [target_of(fold.score) for fold in self.folds]
        self.y = np.concatenate(self.targets)
        self.seed, self.threads = seed, threads
        self.log = log or (lambda record: None)
        self._amounts: dict[AmountSpec, tuple[dict[int, np.ndarray], dict[str, float]]] = {}
        self._zeros: dict[ZeroSpec, dict[int, np.ndarray]] = {}

    def split(self, pooled: np.ndarray) -> list[np.ndarray]:
        """Pooled fold-order values cut back into per-fold arrays."""
        bounds = np.cumsum([y.size for y in self.targets])[:-1]
        return np.split(pooled, bounds)

    def scores(self, prediction: np.ndarray) -> dict[str, Any]:
        """:func:`~ecthr_npd.baselines.protocol.fold_scores` of pooled predictions."""
        return fold_scores(self.targets, self.split(prediction), self.labels)

    def amount_predictions(self, spec: AmountSpec) -> tuple[dict[int, np.ndarray], dict]:
        """``(checkpoint → pooled EUR predictions, seconds)`` of ``spec`` (memoised)."""
        if spec not in self._amounts:
            clock = Clock()
            by_trees: dict[int, list[np.ndarray]] = {n: [] for n in spec.checkpoints()}
            with limited_threads(self.threads):
                for fold in self.folds:
                    fitted = fit_amount(spec, fold.fit, self.seed, self.threads)
                    for n, values in zip(by_trees, fitted.predict_at(fold.score, list(by_trees)),
                                         strict=True):
                        by_trees[n].append(values)
            self._amounts[spec] = ({n: np.concatenate(v) for n, v in by_trees.items()},
                                   clock.seconds())
        return self._amounts[spec]

    def score_amount(self, spec: AmountSpec, stage: str) -> Scored:
        """Score ``spec`` at every checkpoint, keep the best number of trees (pooled MAE,
        then MedAE, then fewer trees), log it and return it."""
        by_trees, seconds = self.amount_predictions(spec)
        trees = sorted(by_trees)
        pairs = [selection_scores(self.y, by_trees[n]) for n in trees]
        best = trees[choose(pairs)]
        scored = Scored(spec.key(), stage, {"amount": spec.to_json(), "n_trees": best},
                        by_trees[best], self.scores(by_trees[best]))
        self.log({"stage": stage, "candidate": scored.name, "config": scored.config,
                  **scored.scores, "mae_by_trees": {str(n): round(p[0], 2)
                                                    for n, p in zip(trees, pairs, strict=True)},
                  **seconds})
        return scored

    def zero_probabilities(self, spec: ZeroSpec) -> dict[int, np.ndarray]:
        """``checkpoint → pooled P(zero)`` of ``spec`` (memoised; logged once with the log
        loss at each checkpoint)."""
        if spec not in self._zeros:
            clock = Clock()
            by_trees: dict[int, list[np.ndarray]] = {n: [] for n in spec.checkpoints()}
            with limited_threads(self.threads):
                for fold in self.folds:
                    fitted = fit_zero(spec, fold.fit, self.seed, self.threads)
                    for n, values in zip(by_trees, fitted.probability_at(fold.score,
                                                                         list(by_trees)),
                                         strict=True):
                        by_trees[n].append(values)
            self._zeros[spec] = {n: np.concatenate(v) for n, v in by_trees.items()}
            losses = {str(n): round(log_loss(self.y == 0, p), 5)
                      for n, p in self._zeros[spec].items()}
            self.log({"stage": "zero-classifier", "candidate": spec.key(),
                      "config": {"zero": spec.to_json()}, "log_loss_by_trees": losses,
                      **clock.seconds()})
        return self._zeros[spec]

    def record(self, stage: str, name: str, config: dict[str, Any], prediction: np.ndarray,
               extra: dict[str, Any] | None = None,
               seconds: dict[str, float] | None = None) -> Scored:
        """Score and log a candidate whose pooled fold predictions are given (built from
        other candidates' predictions, or fitted by the caller in ``seconds``)."""
        scored = Scored(name, stage, config, prediction, self.scores(prediction))
        self.log({"stage": stage, "candidate": name, "config": config, **scored.scores,
                  **(extra or {}), **(seconds or {"seconds": 0.0, "cpu_seconds": 0.0})})
        return scored
