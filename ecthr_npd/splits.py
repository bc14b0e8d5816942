"""Chronological splits: verify the release's locked membership or recompute it.

Rows are ordered by (``judgment_date``, ``case_id``) — ``case_id`` compared as a string —
and cut into train / validation / test, so every train case is on or before every validation
case (ties on a date ordered by ``case_id``), and likewise validation / test.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ecthr_npd import schema

SPLIT_FRACTIONS = (0.7, 0.1, 0.2)
RELEASE_SPLIT_SIZES = (10_217, 1_461, 2_897)  # the release's train / validation / test rows
TRAIN, VALIDATION, TEST = (schema.SPLITS.index(s) for s in ("train", "validation", "test"))


@dataclass(frozen=True)
class Membership:
    """Split and view membership of every row of a case table (row order of the table).

    Attributes:
        split: split code per row (index into :data:`ecthr_npd.schema.SPLITS`).
        test_view: view code per row (index into :data:`ecthr_npd.schema.TEST_VIEWS`).
        challenging: member of the Challenging view (test rows only).
    """

    split: np.ndarray
    test_view: np.ndarray
    challenging: np.ndarray

    def counts(self) -> dict[str, int]:
        """Rows per split and per view."""
        return {
            "train": int((self.split == TRAIN).sum()),
            "validation": int((self.split == VALIDATION).sum()),
            "test": int((self.split == TEST).sum()),
            "id": int((self.test_view == schema.TEST_VIEWS.index("ID")).sum()),
            "ood": int((self.test_view == schema.TEST_VIEWS.index("OOD")).sum()),
            "challenging": int(self.challenging.sum()),
        }


def locked_membership(table: pa.Table) -> Membership:
    """The membership stored in the table's ``split`` / ``test_view`` / ``test_challenging_view``."""
    return Membership(np.asarray(table.column("split").to_numpy(), dtype=np.int64),
                      np.asarray(table.column("test_view").to_numpy(), dtype=np.int64),
                      np.asarray(table.column("test_challenging_view").to_numpy(
                          zero_copy_only=False), dtype=bool))


def chronological_order(table: pa.Table) -> np.ndarray:
    """Row indices sorted by (``judgment_date``, ``case_id``)."""
    return np.asarray(pa.compute.sort_indices(
        table, sort_keys=[("judgment_date", "ascending"), ("case_id", "ascending")]))


def split_sizes(n_rows: int, fractions: tuple[float, float, float] = SPLIT_FRACTIONS
                ) -> tuple[int, int, int]:
    """Train / validation / test sizes: cumulative fractions rounded half-to-even."""
    if len(fractions) != 3 or any(f < 0 for f in fractions) or abs(sum(fractions) - 1) > 1e-9:
        raise ValueError(f"fractions={fractions}: expected three non-negative shares summing to 1")
    train = int(round(fractions[0] * n_rows))
    validation = int(round((fractions[0] + fractions[1]) * n_rows)) - train
    return train, validation, n_rows - train - validation


def recompute_split(table: pa.Table, *, fractions: tuple[float, float, float] = SPLIT_FRACTIONS,
                    sizes: tuple[int, int] | None = None) -> np.ndarray:
    """Assign splits from scratch: the first rows in chronological order go to train, etc.

    Args:
        table: canonical case table.
        fractions: train / validation / test shares (default 70/10/20).
        sizes: explicit (train, validation) row counts, overriding ``fractions``.

    Returns:
        Split code per row (table order).
    """
    n = table.num_rows
    if sizes is None:
        n_train, n_validation, _ = split_sizes(n, fractions)
    else:
        n_train, n_validation = sizes
        if n_train < 0 or n_validation < 0 or n_train + n_validation > n:
            raise ValueError(f"sizes={sizes}: expected non-negative counts summing to at most "
                             f"the {n} rows")
    split = np.empty(n, dtype=np.int64)
    order = chronological_order(table)
    split[order[:n_train]] = TRAIN
    split[order[n_train:n_train + n_validation]] = VALIDATION
    split[order[n_train + n_validation:]] = TEST
    return split


def challenging_mask(table: pa.Table, split: np.ndarray) -> np.ndarray:
    """The Challenging rule on test rows: Grand Chamber, or more than one HUDOC application and
    more than one distinct violated article."""
    grand = np.asarray(table.column("is_grand_chamber").to_numpy(zero_copy_only=False), dtype=bool)
    applications = table.column("hudoc_application_count").to_numpy()
    articles = table.column("violated_articles_count").to_numpy()
    return (split == TEST) & (grand | ((applications > 1) & (articles > 1)))


def chronology_problems(table: pa.Table, split: np.ndarray) -> list[str]:
    """Problems with the chronological order of ``split`` (empty when it holds): each split
    must be a contiguous run of the (date, case_id) order, train before validation before
    test."""
    order = chronological_order(table)
    ordered = split[order]
    problems = []
    if (np.diff(ordered) < 0).any():
        position = int(np.argmax(np.diff(ordered) < 0))
        earlier, later = order[position], order[position + 1]
        ids = table.column("case_id")
        dates = table.column("judgment_date")
        problems.append(
            f"split is not chronological: case {ids[earlier]} ({dates[earlier]}) is in "
            f"{schema.SPLITS[split[earlier]]!r} but the later case {ids[later]} "
            f"({dates[later]}) is in {schema.SPLITS[split[later]]!r}; expected train ≤ "
            "validation ≤ test by (judgment_date, case_id)")
    return problems


def membership_problems(table: pa.Table, membership: Membership, *,
                        id_size: int | None = None) -> list[str]:
    """Check a membership against the protocol: chronological split, the ID/OOD partition of
    test (every test case ID or OOD, every other case ``not_applicable``; ID of exactly
    ``id_size`` cases when given), and Challenging = the rule on test.

    Returns:
        Human-readable problems, empty when the membership passes.
    """
    problems = chronology_problems(table, membership.split)
    counts = membership.counts()
    test = membership.split == TEST
    in_view = np.isin(membership.test_view, [schema.TEST_VIEWS.index("ID"),
                                             schema.TEST_VIEWS.index("OOD")])
    stray = np.flatnonzero(test != in_view)
    if len(stray):
        first = int(stray[0])
        problems.append(
            f"ID and OOD do not partition test: {len(stray)} case(s) break it, first "
            f"{table.column('case_id')[first]} ({schema.SPLITS[membership.split[first]]!r}, "
            f"view {schema.TEST_VIEWS[membership.test_view[first]]!r}); found test "
            f"{counts['test']:,} = ID {counts['id']:,} + OOD {counts['ood']:,}")
    if id_size is not None and counts["id"] != id_size:
        problems.append(f"ID view has {counts['id']:,} cases, expected {id_size:,} (found test "
                        f"{counts['test']:,} = ID {counts['id']:,} + OOD {counts['ood']:,})")
    expected = challenging_mask(table, membership.split)
    wrong = np.flatnonzero(expected != membership.challenging)
    if len(wrong):
        first = int(wrong[0])
        problems.append(
            f"{len(wrong)} case(s) break the Challenging rule, first {table.column('case_id')[first]}"
            f": tagged {'yes' if membership.challenging[first] else 'no'}, the rule (Grand Chamber,"
            " or > 1 HUDOC application and > 1 distinct violated article, on test) gives "
            f"{'yes' if expected[first] else 'no'}")
    return problems
