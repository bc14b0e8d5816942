"""zero_f1: recognition of zero awards, scored as F1 of the class "award is zero".

In ECtHR-NPD (non-pecuniary damage awarded by the European Court of Human Rights) about a
third of the test judgments award nothing. This module treats "award is zero" (an amount
at or below ``zero_threshold``, default 0.5 EUR, as the ECtHR-NPD authors' evaluator counts) as the positive class and reports its F1,
precision, recall and support.

The computation is the plain function :func:`zero_f1`; :class:`ZeroF1` is a thin
``evaluate.Metric`` wrapper. This file imports nothing from the repository it was written in.
"""


import evaluate
import numpy as np

# imported here, not only in npd_amounts.py: evaluate copies the sibling files a module
# script itself imports, so the script names every one it needs
from .boundary import AMOUNT_CEILING
from .checked_wrapper import CheckedWrapper
from .npd_amounts import (
    _check_example,
    _check_pair,
    _check_threshold,
    _zero_mask,
    amount_pairs_info,
)

_DESCRIPTION = """\
F1, precision and recall of the zero-award class: a prediction or reference at or below
`zero_threshold` (default 0.5 EUR; the authors' rule: positive means above it) is a zero award. Degenerate cases (no predicted zeros, no
true zeros) give 0.0 for the undefined ratio, never nan; `support` and `predicted_zeros` say
which case applies.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of float): predicted awards in EUR, finite, >= 0 and <= 1e12, one per case.
    references (list of float): awarded amounts in EUR, likewise, same length >= 1.
    zero_threshold (float, keyword-only): amounts at or below it are zero awards (default 0.5 EUR);
        must be > 0 and <= 1e12.
Returns:
    dict with zero_f1, zero_precision, zero_recall (0..1, higher is better), support (number
    of true zeros), predicted_zeros, n and zero_threshold.
Examples:
    >>> zero_f1(predictions=[0, 0.2, 800, 3000], references=[0, 1200, 0, 3000])
    ... # doctest: +NORMALIZE_WHITESPACE
    {'zero_f1': 0.5, 'zero_precision': 0.5, 'zero_recall': 0.5, 'support': 2,
     'predicted_zeros': 2, 'n': 4, 'zero_threshold': 0.5}
    >>> zero_f1(predictions=[10, 20], references=[0, 5])["zero_f1"]  # no predicted zeros
    0.0
"""


__all__ = ["AMOUNT_CEILING", "ZeroF1", "checked_zero_counts", "zero_counts", "zero_f1"]


def _ratio(numerator, denominator):
    """numerator / denominator, or 0.0 when the denominator is 0 (an undefined ratio)."""
    return float(numerator / denominator) if denominator else 0.0


def zero_counts(predictions, references, zero_threshold):
    """The 2 × 2 table of the zero-award class, by the metric's own rule (at or below the
    threshold is zero), of validated float64 arrays: ``{"both_zero", "only_predicted_zero",
    "only_awarded_zero", "neither"}`` (counts). The module's page shows it as it is."""
    true_zero = _zero_mask(references, zero_threshold)
    pred_zero = _zero_mask(predictions, zero_threshold)
    both = int(np.count_nonzero(true_zero & pred_zero))
    predicted, support = int(np.count_nonzero(pred_zero)), int(np.count_nonzero(true_zero))
    return {"both_zero": both, "only_predicted_zero": predicted - both,
            "only_awarded_zero": support - both,
            "neither": int(true_zero.size) - predicted - support + both}


def checked_zero_counts(*, predictions, references, zero_threshold=0.5):
    """:func:`zero_counts` of unchecked inputs, after the checks of :func:`zero_f1`."""
    y_pred, y_true = _check_pair(predictions, references)
    return zero_counts(y_pred, y_true, _check_threshold(zero_threshold))


def zero_f1(*, predictions, references, zero_threshold=0.5):
    """F1, precision and recall of the class "award is zero".

    Args:
        predictions: predicted awards (EUR), a list/tuple/1-D array of amounts: finite, in
            [0, 1e12] (the boundary validator's ceiling).
        references: awarded amounts (EUR), same length >= 1, likewise.
        zero_threshold: an amount at or below it (EUR) is a zero award; > 0 and <= 1e12.

    Returns:
        dict: zero_f1 = 2·TP / (predicted_zeros + support), zero_precision =
        TP / predicted_zeros, zero_recall = TP / support (each 0.0 when its denominator is 0),
        support (true zeros), predicted_zeros, n (cases), zero_threshold (EUR).

    Raises:
        ValueError: (``BoundaryError``) naming the argument, the first offending index and
            value, for invalid input (see the metric card).
        TypeError: an unknown keyword argument or a missing input (Python's rule for calls).
    """
    y_pred, y_true = _check_pair(predictions, references)
    threshold = _check_threshold(zero_threshold)
    counts = zero_counts(y_pred, y_true, threshold)
    tp = counts["both_zero"]
    support = tp + counts["only_awarded_zero"]
    predicted = tp + counts["only_predicted_zero"]
    return {
        "zero_f1": _ratio(2 * tp, predicted + support),
        "zero_precision": _ratio(tp, predicted),
        "zero_recall": _ratio(tp, support),
        "support": support,
        "predicted_zeros": predicted,
        "n": int(y_true.size),
        "zero_threshold": threshold,
    }


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ZeroF1(CheckedWrapper, evaluate.Metric):
    """``evaluate`` wrapper of :func:`zero_f1`."""

    FUNCTION = "zero_f1"
    OPTIONS = ("zero_threshold",)

    def check_batch(self, batch):
        _check_pair(batch["predictions"], batch["references"])

    def check_one(self, example):
        _check_example(example)

    def _info(self):
        return amount_pairs_info(_DESCRIPTION, _KWARGS_DESCRIPTION)

    def _compute(self, predictions, references, zero_threshold=0.5):
        return zero_f1(predictions=predictions, references=references,
                       zero_threshold=zero_threshold)
