"""What the search chooses: a :class:`SelectedConfig`, and the one it chose on the release.

A configuration is a set of amount models (each an
:class:`~ecthr_npd.baselines.amount_models.AmountSpec` or a k-NN
:class:`~ecthr_npd.baselines.amount_models.KnnSpec`, with its number of trees and a
multiplier), how their EUR predictions are combined (``median`` or ``mean``; one member: as
it is), and optionally a zero-award gate (a
:class:`~ecthr_npd.baselines.zero_gate.ZeroSpec`, its number of trees and the threshold on
P(zero) above which the prediction is 0).

:data:`SELECTED` is the configuration that ``python -m benchmarks.ecthr_selection`` chose on
the rolling-origin folds of the public release (its record:
``benchmarks/results/ecthr_selection/selection.json``; a test checks they agree). The
``selected`` system refits it on train + validation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ecthr_npd.baselines.amount_models import AmountSpec, KnnSpec
from ecthr_npd.baselines.zero_gate import ZeroSpec

COMBINES = ("median", "mean")


@dataclass(frozen=True)
class Member:
    """One amount model of a configuration: spec, trees used, multiplier of its EUR output."""

    spec: AmountSpec | KnnSpec
    n_trees: int
    scale: float = 1.0

    def to_json(self) -> dict[str, Any]:
        return {"amount": self.spec.to_json(), "n_trees": self.n_trees, "scale": self.scale}

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> Member:
        amount = record["amount"]
        spec = (KnnSpec(int(amount["k"])) if amount.get("kind") == "knn"
                else _spec(AmountSpec, amount))
        return cls(spec, int(record["n_trees"]), float(record.get("scale", 1.0)))


@dataclass(frozen=True)
class Gate:
    """The zero-award gate: classifier spec, trees used, threshold on P(zero)."""

    spec: ZeroSpec
    n_trees: int
    threshold: float

    def to_json(self) -> dict[str, Any]:
        return {"zero": self.spec.to_json(), "n_trees": self.n_trees,
                "threshold": self.threshold}

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> Gate:
        return cls(_spec(ZeroSpec, record["zero"]), int(record["n_trees"]),
                   float(record["threshold"]))


@dataclass(frozen=True)
class SelectedConfig:
    """See the module docstring."""

    members: tuple[Member, ...]
    combine: str = "median"
    gate: Gate | None = None

    def __post_init__(self) -> None:
        if not self.members:
            raise ValueError("a configuration needs at least one amount model")
        if self.combine not in COMBINES:
            raise ValueError(f"combine={self.combine!r}; expected one of {COMBINES}")

    def combined(self, predictions: list[np.ndarray]) -> np.ndarray:
        """The members' EUR predictions (already scaled) combined (see the module
        docstring)."""
        stacked = np.stack(predictions)
        return np.median(stacked, axis=0) if self.combine == "median" else stacked.mean(axis=0)

    def to_json(self) -> dict[str, Any]:
        return {"members": [m.to_json() for m in self.members], "combine": self.combine,
                "gate": self.gate.to_json() if self.gate else None}

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> SelectedConfig:
        gate = record.get("gate")
        return cls(tuple(Member.from_json(m) for m in record["members"]), record["combine"],
                   Gate.from_json(gate) if gate else None)


def _spec(kind, record: dict[str, Any]):
    """An AmountSpec / ZeroSpec from its JSON record (params back to sorted pairs)."""
    values = dict(record)
    values["params"] = tuple(sorted(values.get("params", {}).items()))
    return kind(**values)


# Chosen by benchmarks/ecthr_selection.py on the release's rolling-origin folds (see
# benchmarks/results/ecthr_selection/selection.json); replaced only by a new search run.
# A hurdle: CatBoost, quantile 0.55 on log1p(y) of the positive awards (depth 6, l2_leaf_reg
# 10, 850 trees), and 0 where a LightGBM classifier's P(zero) exceeds 0.325.
SELECTED = SelectedConfig(
    members=(Member(AmountSpec("catboost", "quantile", alpha=0.55,
                               params=(("depth", 6), ("l2_leaf_reg", 10.0)),
                               positive_only=True), 850),),
    combine="median",
    gate=Gate(ZeroSpec(params=(("min_child_samples", 20), ("num_leaves", 31))), 200, 0.325))
#: The pooled fold scores of :data:`SELECTED` in that search (EUR; Zero-F1 of the zero class;
#: n scored cases over the five folds).
SELECTED_FOLD_SCORES: dict[str, float] = {"n": 3129, "mae": 11984.24, "medae": 2908.75,
                                          "zero_f1": 0.5835}
