"""Retrieved few-shot references: earlier training cases that share a violated article.

Eligibility and distance are those of the k-NN baseline (:mod:`ecthr_npd.baselines.knn`,
reused, not repeated): the pool is the ``train`` split; a pool case is eligible for a target
when its judgment date is strictly earlier and it shares at least one violated article; the
distance is the baseline's Euclidean distance over its standardised one-hot encoding, ties
broken by pool order.

Selection per target:

1. the ``candidates`` nearest eligible pool cases (:meth:`KNNBaseline.neighbours`, default
   :data:`CANDIDATES`), ranked nearest first;
2. the first ``k`` of them are the references;
3. when none of these has a zero award and ``k >= 2``, the last one is replaced by the nearest
   eligible zero-award case, if there is one: among the candidates, or, when none of them
   has a zero award and more cases are eligible, among all eligible cases (a second search
   over the whole pool for those targets only). So one zero-award reference is included
   whenever a zero-award case is eligible. With ``k = 1`` the nearest case is kept.

References come nearest first. A target with no eligible case gets no reference. Ranking
reads the fitted baseline's standardisation and encoded pool (``KNNBaseline._pool``), so that
it orders cases by exactly the distance the baseline uses; the tests compare the references
with :meth:`KNNBaseline.neighbours` and would catch a change there.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ecthr_npd import schema
from ecthr_npd.baselines.base import limited_threads, target_of
from ecthr_npd.baselines.knn import KNNBaseline
from ecthr_npd.data import inputs_only

CANDIDATES = 100


@dataclass(frozen=True)
class Reference:
    """One reference of a target: the pool (``train``) row, its case id and award (EUR) and
    its squared distance to the target in the k-NN baseline's space."""

    row: int
    case_id: str
    award_eur: float
    distance: float


def _ranked(knn: KNNBaseline, targets: pa.Table, chosen: list[np.ndarray]
            ) -> list[list[tuple[float, int]]]:
    """Per target, its chosen pool rows as (squared distance, row), nearest first, ties by
    pool order. Distances are computed in the fitted baseline's own standardised space."""
    pool = knn._pool  # the fitted pool: standardisation and encoded training cases
    encoded = (knn.encoder.transform(targets, "one_hot") - pool["center"]) / pool["scale"]
    ranked = []
    for vector, rows in zip(encoded, chosen, strict=True):
        rows = np.asarray(rows, dtype=np.int64)
        difference = pool["features"][rows] - vector[None, :]
        squared = np.round(np.einsum("ij,ij->i", difference, difference), 9)
        order = np.lexsort((rows, squared))
        ranked.append([(float(squared[i]), int(rows[i])) for i in order])
    return ranked


class ReferenceIndex:
    """The reference pool, fitted once: the k-NN baseline on ``train`` and its awards.

    Args:
        train: the training split (inputs and ``y_amount_eur``): the reference pool.
        k: the most references per target (>= 1).
        candidates: how many nearest eligible cases to rank (at least ``k`` are).
        threads: BLAS threads of the distance products.
    """

    def __init__(self, train: pa.Table, k: int, *, candidates: int = CANDIDATES,
                 threads: int = 1) -> None:
        if k < 1:
            raise ValueError(f"k={k}; expected an integer >= 1")
        self.k = k
        self.candidates = max(k, candidates)
        self.threads = threads
        self.knn = KNNBaseline(k=self.candidates, threads=threads).fit(train)
        self.awards = target_of(train)
        self.case_ids = train.column(schema.ID_COLUMN).to_pylist()

    def references(self, targets: pa.Table) -> list[list[Reference]]:
        """Per row of ``targets`` (whose target column, if any, is never read), up to ``k``
        :class:`Reference` s, nearest first (see the module docstring)."""
        targets = inputs_only(targets)
        with limited_threads(self.threads):
            ranked = _ranked(self.knn, targets, self.knn.neighbours(targets))
        zeros = self._nearest_zeros(targets, ranked)
        references = []
        for i, ranking in enumerate(ranked):
            picked = ranking[:self.k]
            if zeros.get(i) is not None:
                picked = [*picked[:self.k - 1], zeros[i]]
            references.append([Reference(row, self.case_ids[row], float(self.awards[row]),
                                         distance) for distance, row in picked])
        return references

    def _nearest_zeros(self, targets: pa.Table, ranked: list[list[tuple[float, int]]]
                       ) -> dict[int, tuple[float, int] | None]:
        """Target row → the (distance, pool row) of the nearest eligible zero-award case, for
        the targets whose first ``k`` candidates have no zero award (``k >= 2``)."""
        if self.k < 2:
            return {}
        zero = self.awards == 0
        found, beyond = {}, []
        for i, ranking in enumerate(ranked):
            if any(zero[row] for _, row in ranking[:self.k]):
                continue
            found[i] = next(((d, row) for d, row in ranking[self.k:] if zero[row]), None)
            if found[i] is None and len(ranking) == self.candidates and zero.any():
                beyond.append(i)  # more cases may be eligible than the candidates
        if beyond:
            everything = dataclasses.replace(self.knn, k=int(self.awards.size))
            subset = targets.take(pa.array(beyond, pa.int64()))
            with limited_threads(self.threads):
                full = _ranked(everything, subset, everything.neighbours(subset))
            for i, ranking in zip(beyond, full, strict=True):
                found[i] = next(((d, row) for d, row in ranking if zero[row]), None)
        return found


def retrieve_references(train: pa.Table, targets: pa.Table, k: int, *,
                        candidates: int = CANDIDATES, threads: int = 1
                        ) -> list[list[Reference]]:
    """``ReferenceIndex(train, k, ...).references(targets)``: the few-shot references of
    every row of ``targets``, nearest first (see the module docstring)."""
    return ReferenceIndex(train, k, candidates=candidates, threads=threads).references(targets)
