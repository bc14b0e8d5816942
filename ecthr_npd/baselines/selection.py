"""Model selection without the test split: the cases a setting is judged on, and the rule.

Two protocols (``--selection``):

- ``validation``: one fold — fit on train, score on validation (the paper's protocol);
- ``rolling``: rolling-origin folds over train+validation pooled. With the
  :data:`ROLLING_FOLDS` most recent judgment years Y of that pool (on the release: 2019,
  2020, 2021), fold Y fits on every pooled case judged before 1 January of Y and scores the
  cases judged in Y. The test split is never part of a fold.

Rule (:func:`choose`): the setting with the lowest mean absolute error (EUR) over the scored
cases of every fold pooled; ties by the lower median absolute error; then by the order the
settings were tried.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

SELECTIONS = ("validation", "rolling")
ROLLING_FOLDS = 3
MIN_FIT_CASES = 50


@dataclass(frozen=True)
class Fold:
    """One selection fold: fit on ``fit``, score on ``score`` (both labelled tables)."""

    label: str
    fit: pa.Table
    score: pa.Table


def judgment_years(table: pa.Table) -> np.ndarray:
    """Year of each case's ``judgment_date`` (int64)."""
    return pc.year(table.column("judgment_date")).to_numpy(zero_copy_only=False).astype(np.int64)


def selection_folds(train: pa.Table, validation: pa.Table, selection: str,
                    n_folds: int = ROLLING_FOLDS) -> list[Fold]:
    """The folds of ``selection`` (see the module docstring), oldest first.

    Raises:
        ValueError: unknown ``selection``, or a rolling fold with fewer than
            :data:`MIN_FIT_CASES` cases to fit on.
    """
    if selection == "validation":
        return [Fold("validation", train, validation)]
    if selection != "rolling":
        raise ValueError(f"selection={selection!r}; expected one of {SELECTIONS}")
    pooled = pa.concat_tables([train, validation.select(train.column_names)])
    years = judgment_years(pooled)
    folds = []
    for year in sorted(set(years.tolist()))[-n_folds:]:
        fit = np.flatnonzero(years < year)
        if fit.size < MIN_FIT_CASES:
            raise ValueError(f"rolling selection: fold {year} has {fit.size} earlier cases to fit "
                             f"on; expected at least {MIN_FIT_CASES}")
        folds.append(Fold(f"year {year}", pooled.take(fit),
                          pooled.take(np.flatnonzero(years == year))))
    return folds


def describe_folds(folds: Sequence[Fold]) -> list[dict[str, Any]]:
    """JSON-ready description of ``folds`` (label, cases fitted on and scored)."""
    return [{"fold": f.label, "fit_cases": f.fit.num_rows, "score_cases": f.score.num_rows}
            for f in folds]


def selection_scores(y: np.ndarray, prediction: np.ndarray) -> tuple[float, float]:
    """(MAE, median absolute error) in EUR: the selection criterion and its tie-breaker."""
    error = np.abs(y - prediction)
    return float(np.mean(error)), float(np.median(error))


def choose(scores: Sequence[tuple[float, float]]) -> int:
    """Index of the best (MAE, MedAE) pair under the rule of the module docstring."""
    if not scores:
        raise ValueError("choose: no candidate settings")
    return min(range(len(scores)), key=lambda i: (scores[i][0], scores[i][1], i))
