"""Retrieved few-shot references, as the benchmark paper's Appendix C.6 describes them.

Pool and eligibility: the ``train`` split; a pool case is eligible for a target when its
judgment date is strictly earlier and it shares at least one violated article (never the
target itself) — the k-NN baseline's rule.

Ranking: the similarity the agent's ``retrieve_train_references`` uses
(:class:`ecthr_npd.agent.references.TrainPool`, one source), most important first: exact
article-set match, article-overlap Jaccard, same respondent State, same violation type, same
applicant-count band, same court formation, same case importance, recency (the later
judgment first); the last tie goes to pool order.

Selection per target, for ``k`` references (``k >= 2``): the ``k - 1`` highest-ranked
positive-award cases plus exactly one zero-award case, the highest-ranked one — never more
than one zero. Without an eligible zero-award case the ``k`` highest-ranked positive-award
cases; with fewer positive-award cases than ``k - 1`` those there are and the one zero.
``k = 1``: the highest-ranked positive-award case (the zero-award one when there is none).
References come in rank order (most similar first). A target with no eligible case gets none.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ecthr_npd.agent.references import RECORD_COLUMNS, TrainPool


@dataclass(frozen=True)
class Reference:
    """One reference of a target: the pool (``train``) row, its case id, its award (EUR) and
    its rank among the eligible pool cases (0 = most similar)."""

    row: int
    case_id: str
    award_eur: float
    rank: int


def select(order: np.ndarray, zero: np.ndarray, k: int) -> list[tuple[int, int]]:
    """``(rank, row)`` of the chosen references among ``order`` (eligible rows, best first),
    by the rule of the module docstring; ``zero[row]`` says a row's award is zero."""
    ranked = list(enumerate(int(row) for row in order))
    positives = [(r, row) for r, row in ranked if not zero[row]]
    zeros = [(r, row) for r, row in ranked if zero[row]]
    if k == 1:
        return (positives or zeros)[:1]
    if not zeros:
        return positives[:k]
    return sorted(positives[:k - 1] + zeros[:1])


class ReferenceIndex:
    """The reference pool, prepared once.

    Args:
        train: the training split (permitted inputs, ``case_id`` and ``y_amount_eur``).
        k: the most references per target (>= 1).
    """

    def __init__(self, train: pa.Table, k: int) -> None:
        if k < 1:
            raise ValueError(f"k={k}; expected an integer >= 1")
        self.k = k
        self.pool = TrainPool(train)
        self.zero = self.pool.awards == 0

    def references_of(self, record: dict, day: int) -> list[Reference]:
        """The references of one target (a record with the ranking columns) judged on day
        ``day`` (days since 1970-01-01)."""
        order, _ = self.pool.rank(record, day)
        return [Reference(row, self.pool.case_ids[row], float(self.pool.awards[row]), rank)
                for rank, row in select(order, self.zero, self.k)]

    def references(self, targets: pa.Table) -> list[list[Reference]]:
        """Per row of ``targets`` (whose target column, if any, is never read) its
        references (see the module docstring)."""
        columns = [c for c in RECORD_COLUMNS if c in targets.column_names]
        records = targets.select(columns).to_pylist()
        days = targets.column("judgment_date").cast(pa.int32()).to_pylist()
        return [self.references_of(record, day) for record, day in zip(records, days, strict=True)]


def retrieve_references(train: pa.Table, targets: pa.Table, k: int) -> list[list[Reference]]:
    """``ReferenceIndex(train, k).references(targets)``."""
    return ReferenceIndex(train, k).references(targets)

