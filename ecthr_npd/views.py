"""Test views: ID by greedy quota matching, OOD = the rest of test, Challenging by rule.

The ID view is grown one case at a time from the test pool. At each step the case added is
the one that makes the view's composition closest to the train+validation reference in the
weighted mean total variation over the eight dimensions of
:mod:`ecthr_npd.composition`; ties go to the smallest ``case_id``. Adding one case to a view
of k cases changes each categorical TV only through the case's own category (the other
shares are all rescaled by k/(k+1), the same for every candidate), so the score of every
candidate is a gather of per-category deltas plus one matrix-vector product for the
articles: O(pool × dimensions) numpy work per step.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ecthr_npd import schema
from ecthr_npd.composition import (
    CATEGORICAL_DIMENSIONS,
    DIMENSION_WEIGHTS,
    Encoded,
    encode,
    shares,
    top_articles,
)
from ecthr_npd.defaults import ID_SIZE
from ecthr_npd.splits import (
    RELEASE_SPLIT_SIZES,
    TEST,
    TRAIN,
    VALIDATION,
    Membership,
    challenging_mask,
)

# The ID-size rule, in one place: which ID view size is assigned, scaled or verified.

def scaled_id_size(test_rows: int) -> int:
    """The ID view size of a stand-in whose test split holds ``test_rows`` cases when none is
    given: the release's 1,000 scaled by ``test_rows`` / 2,897 (the release's test split),
    at least 1 — so 1,000 at the release's size."""
    return max(1, round(ID_SIZE * test_rows / RELEASE_SPLIT_SIZES[2]))


def assigned_id_size(id_size: int, test_rows: int) -> int:
    """The ID view size a recompute assigns: the requested ``id_size``, at most the test
    split's ``test_rows`` cases."""
    return min(id_size, test_rows)


def locked_id_size(test_rows: int, id_size: int = ID_SIZE) -> int | None:
    """The ID view size locked verification requires: ``id_size`` (the release's 1,000 unless
    overridden by ``--id-size``), or ``None`` — the size is not checked — when the test split
    holds fewer than ``id_size`` cases. Such a file is a sample of the release (e.g. the
    69-case ``case_level.sample_test_2025.csv``, whose 30 ID cases are the release's) or a
    scaled stand-in, and its ID view cannot have the full size; demanding all of the test
    split instead would reject every such file. The ID/OOD partition of test and a non-empty
    ID view are still required."""
    return id_size if test_rows >= id_size else None


def select_id_view(encoded: Encoded, reference: np.ndarray, pool: np.ndarray,
                   size: int = ID_SIZE) -> np.ndarray:
    """Greedy quota-matching selection of ``size`` rows of ``pool``.

    Args:
        encoded: the encoded case table.
        reference: boolean mask of the reference rows (train + validation).
        pool: boolean mask of the candidate rows (test).
        size: number of rows to select (≤ pool size).

    Returns:
        Boolean row mask of the selected rows. Deterministic: candidates are scanned in
        ``case_id`` order and ties go to the first.
    """
    candidates = np.flatnonzero(pool)
    if not 0 <= size <= len(candidates):
        raise ValueError(f"size={size}: expected between 0 and the pool's {len(candidates)} rows")
    candidates = candidates[np.argsort(encoded.case_ids[candidates].astype(str), kind="stable")]
    dims = []
    for name in CATEGORICAL_DIMENSIONS:
        n = len(encoded.labels[name])
        dims.append((DIMENSION_WEIGHTS[name], shares(encoded.codes[name][reference], n),
                     encoded.codes[name][candidates], np.zeros(n)))
    columns = top_articles(encoded, reference)
    articles = encoded.article_matrix[np.ix_(candidates, columns)].astype(float)
    article_ref = encoded.article_matrix[np.ix_(reference, columns)].mean(axis=0)
    article_counts = np.zeros(len(columns))
    article_weight = DIMENSION_WEIGHTS["articles"]
    taken = np.zeros(len(candidates), dtype=bool)
    for k in range(size):
        scale = 1.0 / (k + 1)
        score = np.zeros(len(candidates))
        for weight, ref, codes, counts in dims:
            delta = np.abs(ref - (counts + 1) * scale) - np.abs(ref - counts * scale)
            score += weight * delta[codes]
        delta = np.abs(article_ref - (article_counts + 1) * scale) - np.abs(
            article_ref - article_counts * scale)
        score += article_weight * (articles @ delta)
        score[taken] = np.inf
        best = int(np.argmin(score))
        taken[best] = True
        for _, _, codes, counts in dims:
            counts[codes[best]] += 1
        article_counts += articles[best]
    selected = np.zeros(len(pool), dtype=bool)
    selected[candidates[taken]] = True
    return selected


def recompute_views(table: pa.Table, split: np.ndarray, *, id_size: int = ID_SIZE,
                    encoded: Encoded | None = None) -> Membership:
    """Views from scratch for a given split: ID by :func:`select_id_view` against
    train+validation, OOD = the rest of test, Challenging by the rule.

    Returns:
        The full :class:`~ecthr_npd.splits.Membership`.
    """
    encoded = encoded if encoded is not None else encode(table)
    reference = (split == TRAIN) | (split == VALIDATION)
    test = split == TEST
    in_id = select_id_view(encoded, reference, test, assigned_id_size(id_size, int(test.sum())))
    view = np.full(len(split), schema.TEST_VIEWS.index("not_applicable"), dtype=np.int64)
    view[test] = schema.TEST_VIEWS.index("OOD")
    view[in_id] = schema.TEST_VIEWS.index("ID")
    return Membership(split, view, challenging_mask(table, split))
