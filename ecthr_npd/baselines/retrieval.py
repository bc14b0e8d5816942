"""Text retrieval baselines: the median award of the k most similar earlier training cases.

The protocol of the paper's retrieval baselines (its Table 21), for any text scorer
(:mod:`ecthr_npd.baselines.bm25`, :mod:`ecthr_npd.baselines.embeddings`):

- pool: the ``train`` split only (its facts text and ``y_amount_eur``);
- neighbour: a pool case strictly earlier than the target, sharing at least one violated
  article, never the target itself — :class:`ecthr_npd.baselines.knn.EligibilityPool`, the
  rule the structured k-NN uses;
- ranking: the scorer's similarity, highest first; equal scores in pool order;
- prediction: the median award of the top k eligible neighbours (all of them when fewer are
  eligible); the training median when none is (the fallback);
- k: chosen on validation MAE from :data:`K_GRID` (ties: the smaller k; the paper's choice
  is 20).

A scorer has ``fit(pool_texts)``, ``encode(texts)`` (an object whose rows can be sliced),
``score(encoded_rows) -> (rows × pool) array`` and ``settings()``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from courtbench.errors import CourtbenchError
from ecthr_npd import schema
from ecthr_npd.baselines.base import mean_absolute_error, target_of
from ecthr_npd.baselines.knn import EligibilityPool

K_GRID = (1, 5, 10, 20, 30, 50, 100)
CHUNK_ROWS = 512


def ranked_neighbours(scores: np.ndarray, eligible: np.ndarray, k_max: int) -> list[np.ndarray]:
    """Per row, the pool indices of the ``k_max`` best eligible cases, best first (ties in
    pool order); fewer when fewer are eligible."""
    scores = np.where(eligible, scores, -np.inf)
    rows, n_pool = scores.shape
    if n_pool == 0 or rows == 0:
        return [np.empty(0, dtype=np.int64)] * rows
    kk = min(k_max, n_pool)
    part = np.argpartition(-scores, kk - 1, axis=1)[:, :kk]
    kth = np.take_along_axis(scores, part, axis=1).min(axis=1)
    out = []
    for i in range(rows):
        row = scores[i]
        candidates = np.flatnonzero((row >= kth[i]) & np.isfinite(row))
        order = np.argsort(-row[candidates], kind="stable")
        out.append(candidates[order][:k_max])
    return out


def medians_for_k(ranked: list[np.ndarray], y: np.ndarray, k: int, fallback: float
                  ) -> np.ndarray:
    """Median award of the first ``k`` neighbours per row (``fallback`` for none)."""
    return np.array([np.median(y[r[:k]]) if r.size else fallback for r in ranked],
                    dtype=np.float64)


@dataclass
class TextRetrieval:
    """See the module docstring.

    Attributes:
        name: the system name (predictions file stem).
        scorer: the text scorer.
        facts: case_id → facts text (every case of the splits it sees).
        k_grid: candidate k values.
    """

    name: str
    scorer: Any
    facts: dict[str, str]
    k_grid: tuple[int, ...] = K_GRID
    k: int | None = None
    fallback: float | None = None
    validation_mae: dict[int, float] = field(default_factory=dict)
    last_fallback_share: float | None = None
    _pool: dict[str, Any] = field(default_factory=dict, repr=False)

    def _texts(self, table: pa.Table) -> list[str]:
        ids = table.column(schema.ID_COLUMN).to_pylist()
        missing = [c for c in ids if c not in self.facts]
        if missing:
            raise CourtbenchError(f"{self.name}: {len(missing):,} case(s) have no facts text, "
                                  f"e.g. {missing[0]}; expected a built folder with a 'facts' "
                                  "config covering every case")
        return [self.facts[c] for c in ids]

    def fit(self, train: pa.Table, validation: pa.Table | None = None) -> TextRetrieval:
        y = target_of(train)
        self.scorer.fit(self._texts(train))
        self._pool = {"y": y, "eligibility": EligibilityPool.of(train)}
        self.fallback = float(np.median(y)) if y.size else 0.0
        if validation is None or validation.num_rows == 0:
            self.k = 20 if 20 in self.k_grid else self.k_grid[0]
            return self
        ranked = self.rank(validation)
        truth = target_of(validation)
        self.validation_mae = {k: mean_absolute_error(
            truth, medians_for_k(ranked, y, k, self.fallback)) for k in self.k_grid}
        self.k = min(self.k_grid, key=lambda k: (self.validation_mae[k], k))
        return self

    def rank(self, table: pa.Table) -> list[np.ndarray]:
        """Per row of ``table``, its ranked eligible neighbours (at most max(k_grid))."""
        if not self._pool:
            raise RuntimeError(f"{self.name}: predict called before fit")
        encoded = self.scorer.encode(self._texts(table))
        targets = self._pool["eligibility"].targets(table)
        ranked: list[np.ndarray] = []
        for start in range(0, table.num_rows, CHUNK_ROWS):
            stop = min(start + CHUNK_ROWS, table.num_rows)
            scores = self.scorer.score(encoded[start:stop])
            eligible = self._pool["eligibility"].mask(targets, start, stop)
            ranked.extend(ranked_neighbours(scores, eligible, max(self.k_grid)))
        return ranked

    def predict(self, table: pa.Table) -> np.ndarray:
        ranked = self.rank(table)
        self.last_fallback_share = (sum(not r.size for r in ranked) / len(ranked)
                                    if ranked else 0.0)
        return medians_for_k(ranked, self._pool["y"], self.k, self.fallback)

    def settings(self) -> dict[str, Any]:
        return {"k": self.k, "k_grid": list(self.k_grid), "selection": "validation MAE",
                "validation_mae": {str(k): v for k, v in self.validation_mae.items()},
                "pool": "train", "pool_size": int(self._pool["y"].size) if self._pool else 0,
                "eligibility": "strictly earlier judgment, >= 1 shared violated article, "
                               "not the target", "fallback_eur": self.fallback,
                "scorer": self.scorer.settings()}
