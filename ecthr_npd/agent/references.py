"""``retrieve_train_references``: temporally prior training cases, ranked for a target.

Eligibility is the k-NN baseline's and the few-shot references' (:mod:`ecthr_npd.baselines.knn`,
:mod:`ecthr_npd.prompting.few_shot_retrieval`): a ``train`` case whose judgment date is strictly
earlier than the target's and that shares at least one violated article (full article sets);
never the target itself.

Ranking, most important first (ties go to the next criterion, the last tie to pool order):
exact article-set match; article-overlap Jaccard; same respondent state; same violation
type; same applicant-count band (:func:`ecthr_npd.agent.priors.applicant_band`); same court
formation; same case importance; recency (the later judgment first).

``balanced``: the first ``ceil(k/2)`` positive-award and ``floor(k/2)`` zero-award references
by rank (one side short → filled from the other), returned in rank order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from ecthr_npd import schema
from ecthr_npd.agent.priors import applicant_band
from ecthr_npd.baselines.knn import article_matrix

MATCH_COLUMNS = ("respondent_state", "violation_type", "court_formation", "case_importance")
#: The columns a target record needs for ranking (permitted inputs only, and its id).
RECORD_COLUMNS = (schema.ID_COLUMN, *schema.INPUT_COLUMNS)


@dataclass(frozen=True)
class RankedReference:
    """One reference: its ``train`` row and what matched (for the observation)."""

    row: int
    exact_article_set: bool
    article_jaccard: float
    same: dict[str, bool]


def _days(table: pa.Table) -> np.ndarray:
    column = table.column("judgment_date")
    if column.null_count:
        raise ValueError("judgment_date has nulls; references need every case's date")
    return column.cast(pa.int32()).to_numpy().astype(np.int64)


class TrainPool:
    """The ``train`` split prepared for ranking (see the module docstring)."""

    def __init__(self, train: pa.Table) -> None:
        articles = train.column("violated_articles").to_pylist()
        self.vocabulary = {code: i for i, code in enumerate(
            sorted({c for codes in articles for c in codes or () if c is not None}))}
        self.matrix = article_matrix(train, self.vocabulary)
        self.sizes = self.matrix.sum(axis=1)
        self.days = _days(train)
        self.case_ids = train.column(schema.ID_COLUMN).to_pylist()
        self.row_of = {case_id: i for i, case_id in enumerate(self.case_ids)}
        self.awards = train.column(schema.TARGET_COLUMN).to_numpy().astype(np.float64)
        self.columns = {name: np.asarray(train.column(name).to_pylist(), dtype=object)
                        for name in MATCH_COLUMNS}
        self.bands = np.asarray([applicant_band(c) for c in
                                 train.column("hudoc_application_count").to_pylist()],
                                dtype=object)

    def rank(self, target: dict[str, Any], day: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Eligible rows in rank order and the match signals of every pool row."""
        codes = {c for c in target["violated_articles"] or () if c is not None}
        vector = np.zeros(len(self.vocabulary), dtype=np.float32)
        for code in codes:
            if code in self.vocabulary:
                vector[self.vocabulary[code]] = 1.0
        shared = self.matrix @ vector
        union = self.sizes + len(codes) - shared
        signals = {"jaccard": np.where(union > 0, shared / np.maximum(union, 1), 0.0),
                   "exact": (shared == self.sizes) & (self.sizes == len(codes))}
        for name in MATCH_COLUMNS:
            signals[name] = self.columns[name] == target[name]
        signals["band"] = self.bands == applicant_band(target["hudoc_application_count"])
        eligible = (self.days < day) & (shared > 0)
        own = self.row_of.get(target.get(schema.ID_COLUMN))
        if own is not None:
            eligible[own] = False
        rows = np.flatnonzero(eligible)
        keys = [rows, -self.days[rows], *(~signals[n][rows] for n in (
            "case_importance", "court_formation", "band", "violation_type", "respondent_state")),
            -np.round(signals["jaccard"][rows], 9), ~signals["exact"][rows]]
        return rows[np.lexsort(keys)], signals

    def references(self, target: dict[str, Any], day: int, k: int, *,
                   balanced: bool = False) -> list[RankedReference]:
        """Up to ``k`` references of ``target`` (a record with ``MATCH_COLUMNS``,
        ``violated_articles``, ``hudoc_application_count``), judged on day ``day``."""
        order, signals = self.rank(target, day)
        if balanced:
            zero = self.awards[order] == 0
            positives, zeros = order[~zero], order[zero]
            want_zero = min(len(zeros), k // 2)
            want_positive = min(len(positives), k - want_zero)
            want_zero = min(len(zeros), k - want_positive)
            picked = set(positives[:want_positive]) | set(zeros[:want_zero])
            order = np.asarray([row for row in order if row in picked], dtype=np.int64)
        same = {"respondent_state": "respondent_state", "violation_type": "violation_type",
                "applicant_band": "band", "court_formation": "court_formation",
                "case_importance": "case_importance"}
        return [RankedReference(int(row), bool(signals["exact"][row]),
                                round(float(signals["jaccard"][row]), 3),
                                {label: bool(signals[key][row]) for label, key in same.items()})
                for row in order[:k]]

