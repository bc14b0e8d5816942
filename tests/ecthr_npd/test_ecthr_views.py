"""ECtHR-NPD splits, views and composition: locked verification, recompute, greedy ID, TV."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ecthr_npd import schema
from ecthr_npd.composition import (
    DIMENSION_WEIGHTS,
    composition_rows,
    encode,
    target_statistics,
    top_articles,
    total_variation,
)
from ecthr_npd.reader import read_case_level
from ecthr_npd.splits import (
    TEST,
    TRAIN,
    VALIDATION,
    Membership,
    challenging_mask,
    chronological_order,
    locked_membership,
    membership_problems,
    recompute_split,
    split_sizes,
)
from ecthr_npd.synthetic import write_synthetic
from ecthr_npd.views import recompute_views, select_id_view


@pytest.fixture(scope="module")
def synthetic_table(tmp_path_factory) -> pa.Table:
    return read_case_level(write_synthetic(tmp_path_factory.mktemp("views") / "c.csv", n=1500,
                                           seed=11))


@pytest.fixture(scope="module")
def release(shared_data: Path) -> pa.Table:
    path = shared_data / "ecthr_npd" / "case_level.csv"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    return read_case_level(path)


def test_split_sizes_are_70_10_20_of_the_rows() -> None:
    assert split_sizes(14_575) == (10_202, 1_458, 2_915)
    assert sum(split_sizes(7)) == 7
    with pytest.raises(ValueError, match="summing to 1"):
        split_sizes(10, (0.5, 0.5, 0.5))


def test_recompute_split_is_chronological_with_ties_by_case_id() -> None:
    table = pa.table({
        "case_id": ["001-0005", "001-0003", "001-0004", "001-0001", "001-0002"],
        "judgment_date": pa.array([3, 1, 1, 0, 2], pa.int32()).cast(pa.date32()),
    })
    assert list(chronological_order(table)) == [3, 1, 2, 4, 0]
    split = recompute_split(table, sizes=(2, 1))
    assert [schema.SPLITS[s] for s in split] == ["test", "train", "validation", "train", "test"]
    with pytest.raises(ValueError, match="sizes"):
        recompute_split(table, sizes=(4, 2))


def test_locked_verification_catches_a_non_chronological_split(synthetic_table) -> None:
    membership = locked_membership(synthetic_table)
    assert membership_problems(synthetic_table, membership) == []
    order = chronological_order(synthetic_table)
    split = membership.split.copy()
    split[order[0]] = TEST  # the earliest case moved to test
    problems = membership_problems(synthetic_table,
                                   Membership(split, membership.test_view, membership.challenging))
    assert any("not chronological" in p for p in problems)


def test_locked_verification_catches_the_challenging_rule(synthetic_table) -> None:
    membership = locked_membership(synthetic_table)
    flipped = membership.challenging.copy()
    first_test = int(np.flatnonzero(membership.split == TEST)[0])
    flipped[first_test] = not flipped[first_test]
    problems = membership_problems(
        synthetic_table, Membership(membership.split, membership.test_view, flipped))
    assert any("1 case(s) break the Challenging rule" in p for p in problems)
    counts = membership.counts()
    assert membership_problems(synthetic_table, membership, id_size=3) == [
        f"ID view has {counts['id']} cases, expected 3 (found test {counts['test']} = "
        f"ID {counts['id']} + OOD {counts['ood']})"]


def test_locked_verification_catches_a_broken_id_ood_partition(synthetic_table) -> None:
    membership = locked_membership(synthetic_table)
    view = membership.test_view.copy()
    first_test = int(np.flatnonzero(membership.split == TEST)[0])
    view[first_test] = schema.TEST_VIEWS.index("not_applicable")
    problems = membership_problems(synthetic_table,
                                   Membership(membership.split, view, membership.challenging))
    assert len(problems) == 1
    assert problems[0].startswith("ID and OOD do not partition test: 1 case(s) break it, first "
                                  f"{synthetic_table.column('case_id')[first_test]} ('test', "
                                  "view 'not_applicable')")


def test_challenging_rule() -> None:
    table = pa.table({"is_grand_chamber": [True, False, False, False, True],
                      "hudoc_application_count": [1, 2, 2, 1, 5],
                      "violated_articles_count": [1, 2, 1, 3, 2]})
    split = np.array([TEST, TEST, TEST, TEST, TRAIN])
    assert challenging_mask(table, split).tolist() == [True, True, False, False, False]


def test_total_variation_of_identical_and_disjoint_groups(synthetic_table) -> None:
    encoded = encode(synthetic_table)
    everyone = np.ones(synthetic_table.num_rows, dtype=bool)
    same = total_variation(encoded, everyone, everyone)
    assert all(value == pytest.approx(0.0) for value in same.values())
    countries = encoded.codes["country"]
    first = countries == countries[0]
    tv = total_variation(encoded, first, ~first)
    assert tv["country"] == pytest.approx(1.0)
    dims = list(DIMENSION_WEIGHTS)
    assert tv["mean"] == pytest.approx(np.mean([tv[d] for d in dims]))
    weights = np.array(list(DIMENSION_WEIGHTS.values()))
    assert tv["weighted_mean"] == pytest.approx(
        np.dot(weights, [tv[d] for d in dims]) / weights.sum())


@settings(max_examples=25, deadline=None)
@given(st.lists(st.booleans(), min_size=1500, max_size=1500))
def test_total_variation_is_within_bounds(synthetic_table, mask_list) -> None:
    encoded = encode(synthetic_table)
    view = np.array(mask_list)
    reference = ~view
    if not view.any() or not reference.any():
        return
    tv = total_variation(encoded, reference, view)
    for name in DIMENSION_WEIGHTS:
        upper = 1.0 if name != "articles" else 10.0
        assert 0.0 <= tv[name] <= upper + 1e-12


def test_top_articles_are_the_most_frequent_in_the_reference(synthetic_table) -> None:
    encoded = encode(synthetic_table)
    reference = np.ones(synthetic_table.num_rows, dtype=bool)
    columns = top_articles(encoded, reference, k=3)
    counts = encoded.article_matrix.sum(axis=0)
    assert sorted(counts[columns], reverse=True) == sorted(counts, reverse=True)[:3]


def test_greedy_id_view_is_deterministic_sized_and_beats_random(synthetic_table) -> None:
    encoded = encode(synthetic_table)
    split = locked_membership(synthetic_table).split
    reference = (split == TRAIN) | (split == VALIDATION)
    pool = split == TEST
    first = select_id_view(encoded, reference, pool, 100)
    again = select_id_view(encoded, reference, pool, 100)
    assert (first == again).all()
    assert first.sum() == 100 and not (first & ~pool).any()
    greedy = total_variation(encoded, reference, first)["weighted_mean"]
    rng = np.random.default_rng(0)
    for _ in range(5):
        random_view = np.zeros_like(pool)
        random_view[rng.choice(np.flatnonzero(pool), 100, replace=False)] = True
        assert greedy < total_variation(encoded, reference, random_view)["weighted_mean"]
    with pytest.raises(ValueError, match="pool"):
        select_id_view(encoded, reference, pool, int(pool.sum()) + 1)


def test_greedy_ties_go_to_the_smallest_case_id() -> None:
    # four identical test candidates: the first pick must be the smallest case_id
    n = 6
    table = pa.table({
        "case_id": ["001-0009", "001-0001", "001-0007", "001-0003", "001-0002", "001-0004"],
        "country_alpha2": ["at"] * n,
        "case_importance": pa.array([3] * n, pa.int64()),
        "violation_type": pa.array([0] * n, pa.int64()),
        "hudoc_application_count": [1] * n,
        "num_violations_found": [1] * n,
        "represented": [True] * n,
        "has_separate_opinion": [False] * n,
        "violated_articles": [["6"]] * n,
        "court_formation": pa.array([0] * n, pa.int64()),
    })
    encoded = encode(table)
    reference = np.array([False, False, False, False, True, True])
    pool = ~reference
    chosen = select_id_view(encoded, reference, pool, 2)
    assert sorted(encoded.case_ids[chosen]) == ["001-0001", "001-0003"]


def test_recompute_views_partition_test(synthetic_table) -> None:
    split = recompute_split(synthetic_table)
    membership = recompute_views(synthetic_table, split, id_size=50)
    counts = membership.counts()
    assert counts["id"] == 50 and counts["id"] + counts["ood"] == counts["test"]
    assert membership_problems(synthetic_table, membership, id_size=50) == []


def test_composition_and_target_statistics(synthetic_table) -> None:
    split = locked_membership(synthetic_table).split
    groups = {name: split == code for code, name in enumerate(schema.SPLITS)}
    rows = composition_rows(synthetic_table, groups)
    for dimension in {row[0] for row in rows}:
        for column in range(2, 5):
            assert sum(row[column] for row in rows if row[0] == dimension) == pytest.approx(1.0)
    stats = target_statistics(synthetic_table, groups["train"])
    y = synthetic_table.column("y_amount_eur").to_numpy()[groups["train"]]
    assert stats["n"] == len(y) and stats["zero_n"] == int((y == 0).sum())
    assert stats["positive_median"] == float(np.median(y[y > 0]))
    assert stats["max"] == float(y.max())
    empty = target_statistics(synthetic_table, np.zeros(len(split), dtype=bool))
    assert empty["n"] == 0 and empty["positive_median"] is None


@pytest.mark.realdata
@pytest.mark.slow
def test_release_locked_membership_passes_and_counts(release: pa.Table) -> None:
    membership = locked_membership(release)
    assert membership_problems(release, membership, id_size=1000) == []
    assert membership.counts() == {"train": 10_217, "validation": 1_461, "test": 2_897,
                                   "id": 1_000, "ood": 1_897, "challenging": 699}


@pytest.mark.realdata
@pytest.mark.slow
def test_release_recompute_reproduces_split_and_matches_id_no_worse(release: pa.Table) -> None:
    locked = locked_membership(release)
    # The release's boundaries (10,217 / 1,461) are reproduced exactly from its sizes; plain
    # 70/10/20 of 14,575 puts them 15 and 18 cases earlier in the same order.
    split = recompute_split(release, sizes=(10_217, 1_461))
    assert (split == locked.split).all()
    default = recompute_split(release)
    assert np.bincount(default).tolist() == [10_202, 1_458, 2_915]
    encoded = encode(release)
    reference = (locked.split == TRAIN) | (locked.split == VALIDATION)
    recomputed = recompute_views(release, split, encoded=encoded)
    locked_tv = total_variation(encoded, reference, locked.test_view == 0)
    new_tv = total_variation(encoded, reference, recomputed.test_view == 0)
    assert locked_tv["mean"] == pytest.approx(0.0261, abs=5e-4)
    assert new_tv["mean"] <= locked_tv["mean"]
    assert (recomputed.challenging == locked.challenging).all()
