"""The selection protocol of the ``selected`` system: rolling-origin folds, where test cannot enter.

:class:`SelectionData` is the only thing a selection step receives: the labelled train and
validation cases pooled (train first, then validation, each in table order). It is built from
those two tables and nothing else, so the code that chooses a configuration has no way to
reach a test case, let alone a test target (``tests/test_ecthr_selected.py`` runs the whole
selection on data whose test split has no target column).

Folds (:meth:`SelectionData.folds`): with the :data:`FOLD_YEARS` most recent judgment years Y
of the pool (on the release: 2017–2021), fold Y fits on every pooled case judged before
1 January of Y and scores the cases judged in Y. Why those years: the test split
(Dec 2021–Mar 2026) is 75% Committee judgments; the pool's years from 2017 on are 58–68%
Committee, 2016 and earlier 41% or less, so these five years are the ones that look most like
the cases a system will face. Five folds score 3,129 cases (about the test split's 2,897).

Scores (:func:`fold_scores`): per fold and pooled over every scored case, MAE and median
absolute error in EUR and Zero-F1 (F1 of the zero-award class; an amount ≤
:data:`ZERO_THRESHOLD` EUR counts as zero, as in the authors' evaluator). The rule that turns
them into a choice is :func:`ecthr_npd.baselines.selection.choose` (lowest pooled MAE, then
MedAE, then order) unless a step says otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from ecthr_npd import schema
from ecthr_npd.baselines.base import target_of
from ecthr_npd.baselines.selection import Fold, selection_folds

FOLD_YEARS = 5
ZERO_THRESHOLD = 0.5


@dataclass(frozen=True)
class SelectionData:
    """Labelled train + validation cases pooled; what every selection step receives.

    Build it with :meth:`of` from the train and validation tables: there is no way to add a
    third split.
    """

    train: pa.Table
    validation: pa.Table

    @classmethod
    def of(cls, train: pa.Table, validation: pa.Table) -> SelectionData:
        """Check that both tables are labelled (finite targets >= 0) and share columns."""
        target_of(train)
        target_of(validation)
        missing = sorted(set(train.column_names) - set(validation.column_names))
        if missing:
            raise ValueError(f"validation table lacks the train columns {missing}")
        return cls(train, validation.select(train.column_names))

    def pooled(self) -> pa.Table:
        """Train then validation as one table (the refit's training cases)."""
        return pa.concat_tables([self.train, self.validation])

    def folds(self, n_folds: int = FOLD_YEARS) -> list[Fold]:
        """The rolling-origin folds, oldest first (see the module docstring)."""
        return selection_folds(self.train, self.validation, "rolling", n_folds=n_folds)


def zero_f1(y: np.ndarray, prediction: np.ndarray, threshold: float = ZERO_THRESHOLD) -> float:
    """F1 of the zero-award class (both sides ≤ ``threshold`` EUR count as zero); 0.0 when
    neither side has a zero."""
    true_zero, predicted_zero = y <= threshold, prediction <= threshold
    hits = float(np.sum(true_zero & predicted_zero))
    denominator = float(np.sum(true_zero) + np.sum(predicted_zero))
    return 0.0 if denominator == 0 else 2.0 * hits / denominator


def scores_of(y: np.ndarray, prediction: np.ndarray) -> dict[str, float]:
    """MAE, median absolute error (EUR), Zero-F1 and n of one set of cases."""
    error = np.abs(y - prediction)
    return {"n": int(y.size), "mae": float(np.mean(error)), "medae": float(np.median(error)),
            "zero_f1": zero_f1(y, prediction)}


def fold_scores(targets: list[np.ndarray], predictions: list[np.ndarray],
                labels: list[str]) -> dict[str, Any]:
    """``{"pooled": scores, "folds": {label: scores}}`` of per-fold EUR predictions."""
    return {"pooled": scores_of(np.concatenate(targets), np.concatenate(predictions)),
            "folds": {label: scores_of(y, p)
                      for label, y, p in zip(labels, targets, predictions, strict=True)}}


def fold_ids(folds: list[Fold]) -> list[str]:
    """Case ids of every fold's scored cases, in fold order (what the pooled arrays align
    with)."""
    return [case_id for fold in folds for case_id in fold.score.column(schema.ID_COLUMN)
            .to_pylist()]
