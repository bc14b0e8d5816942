"""One-shot examples: per language pair, the validation row with the shortest decision.

"Shortest" is by number of characters of the decision text; ties go to the smaller
``sample_id`` (an int64). A pair without validation rows has no one-shot example. The
streamed build applies the same rule row by row (:class:`slds.assemble.OneShotChooser`);
the folder audit checks the written rows with :func:`one_shot_index`.
"""

from __future__ import annotations

from collections.abc import Sequence


def one_shot_index(decisions: Sequence[str], sample_ids: Sequence[int]) -> int | None:
    """Index of the one-shot row among one pair's validation rows, ``None`` when empty.

    Args:
        decisions: decision texts of the pair's validation rows.
        sample_ids: their sample ids, same order.
    """
    if len(decisions) != len(sample_ids):
        raise ValueError(f"decisions has {len(decisions)} items but sample_ids has "
                         f"{len(sample_ids)}; expected equal lengths")
    if not decisions:
        return None
    return min(range(len(decisions)), key=lambda i: (len(decisions[i]), sample_ids[i]))
