"""``ensemble``: the median of the selected reference systems' predictions (EUR).

Candidates are the library systems (:class:`~ecthr_npd.baselines.boosting_systems.BoostedTrees`)
fitted in the same run, with the same selection protocol. Every non-empty subset of them is
scored by the median of its members' predictions on the selection cases (validation, or the
pooled rolling-origin folds — each member's predictions of its chosen setting there); the rule
of :func:`ecthr_npd.baselines.selection.choose` picks one (ties after MAE and MedAE: fewer
members, then candidate order). The median of two members is their mean.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from ecthr_npd.baselines.boosting_systems import BoostedTrees
from ecthr_npd.baselines.selection import choose, selection_scores


@dataclass
class MedianEnsemble:
    """See the module docstring. ``candidates``: fitted systems (with selection
    predictions); :meth:`fit` chooses the members."""

    candidates: list[BoostedTrees]
    name: str = "ensemble"
    members: list[BoostedTrees] = field(default_factory=list)
    scores: list[dict[str, Any]] = field(default_factory=list)

    def fit(self, train: pa.Table | None = None, validation: pa.Table | None = None
            ) -> MedianEnsemble:
        """Choose the members on the candidates' selection predictions (the tables are not
        used: the candidates are already fitted)."""
        if not self.candidates:
            raise ValueError("ensemble: no candidate systems; it needs at least one of "
                             "catboost, xgboost, lightgbm in the same run")
        target = self.candidates[0].selection_target
        for candidate in self.candidates:
            if candidate.selection_prediction is None:
                raise RuntimeError(f"ensemble: candidate {candidate.name} is not fitted")
            if not np.array_equal(candidate.selection_target, target):
                raise ValueError(f"ensemble: candidate {candidate.name} was selected on other "
                                 "cases than the others; use one selection protocol")
        subsets = [subset for size in range(1, len(self.candidates) + 1)
                   for subset in itertools.combinations(range(len(self.candidates)), size)]
        scored = []
        self.scores = []
        for subset in subsets:
            median = np.median(np.stack([self.candidates[i].selection_prediction
                                         for i in subset]), axis=0)
            mae, medae = selection_scores(target, median)
            scored.append((mae, medae))
            self.scores.append({"members": [self.candidates[i].name for i in subset],
                                "mae": mae, "medae": medae})
        best = subsets[choose(scored)]  # subsets are ordered by size: fewer members win ties
        self.members = [self.candidates[i] for i in best]
        return self

    def with_members(self, systems: dict[str, Any], name: str) -> MedianEnsemble:
        """A copy that takes the median of ``systems[member name + suffix]`` — used for the
        ``+refit`` variant with the members chosen here."""
        copy = MedianEnsemble(self.candidates, name=name, scores=self.scores)
        copy.members = [systems[member.name + "+refit"] for member in self.members]
        return copy

    def predict(self, table: pa.Table) -> np.ndarray:
        if not self.members:
            raise RuntimeError(f"{self.name}: predict called before fit")
        return np.median(np.stack([member.predict(table) for member in self.members]), axis=0)

    def settings(self) -> dict[str, Any]:
        return {"rule": "median of the members' predictions", "members":
                [m.name for m in self.members], "candidates": [c.name for c in self.candidates],
                "selection": self.candidates[0].selection if self.candidates else None,
                "scores_by_subset": self.scores}
