"""SLDS protocol rules: law areas on both sides of 1995, year splits, one-shot selection."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from courtbench.errors import CourtbenchError
from slds.law_areas import is_valid_part, law_area, parts_in_year, volume_number
from slds.one_shot import one_shot_index
from slds.splits import SplitBoundaries, split_order


@pytest.mark.parametrize(("part", "year", "expected"), [
    ("Ia", 1994, "constitutional_law"),
    ("Ib", 1994, "administrative_and_international_public_law"),
    ("II", 1994, "civil_law"),
    ("III", 1994, "debt_enforcement_and_bankruptcy_law"),
    ("IV", 1954, "criminal_law"),
    ("V", 1970, "social_security_law"),
    ("I", 1995, "constitutional_law"),
    ("II", 1995, "administrative_and_international_public_law"),
    ("III", 1995, "civil_and_debt_enforcement_and_bankruptcy_law"),
    ("IV", 2025, "criminal_law"),
    ("V", 2025, "social_security_law"),
])
def test_law_area_table(part, year, expected):
    assert law_area(part, year) == expected


def test_parts_valid_only_in_their_system():
    assert list(parts_in_year(1994)) == ["Ia", "Ib", "II", "III", "IV", "V"]
    assert list(parts_in_year(1995)) == ["I", "II", "III", "IV", "V"]
    assert not is_valid_part("I", 1994) and is_valid_part("Ia", 1994)
    assert not is_valid_part("Ib", 1995) and is_valid_part("I", 1995)
    with pytest.raises(ValueError, match="BGE part 'Ia' does not exist in 1995 .*from 1995"):
        law_area("Ia", 1995)


def test_volume_numbers():
    assert volume_number(2025) == 151
    assert volume_number(1994) == 120 and volume_number(1995) == 121


def test_default_split_years():
    bounds = SplitBoundaries()
    assert [bounds.split_of(y) for y in (1954, 2021, 2022, 2023, 2024, 2025, 2031)] == [
        "train", "train", "validation", "test", "test", "test_2025", "test_2031"]


def test_split_years_are_options():
    bounds = SplitBoundaries(last_train_year=2019, last_validation_year=2021, last_test_year=2022)
    assert [bounds.split_of(y) for y in (2019, 2020, 2021, 2022, 2023)] == [
        "train", "validation", "validation", "test", "test_2023"]
    with pytest.raises(CourtbenchError, match="expected strictly increasing years"):
        SplitBoundaries(last_train_year=2022, last_validation_year=2022)


def test_split_order():
    assert split_order(["test_2026", "test", "train", "test_2025", "validation", "train"]) == [
        "train", "validation", "test", "test_2025", "test_2026"]


def test_one_shot_shortest_then_smallest_id():
    assert one_shot_index(["ccc", "a", "bb"], ["x", "y", "z"]) == 1
    assert one_shot_index(["aa", "bb", "c", "d"], ["s3", "s1", "s9", "s2"]) == 3
    assert one_shot_index([], []) is None
    with pytest.raises(ValueError, match="decisions has 1 items but sample_ids has 2"):
        one_shot_index(["a"], ["x", "y"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=6), st.text(min_size=1, max_size=4)), min_size=1,
                max_size=20, unique_by=lambda t: t[1]))
def test_one_shot_is_order_independent_minimum(rows):
    decisions = [d for d, _ in rows]
    ids = [s for _, s in rows]
    chosen = one_shot_index(decisions, ids)
    expected = min(rows, key=lambda r: (len(r[0]), r[1]))
    assert (decisions[chosen], ids[chosen]) == expected
    reversed_choice = one_shot_index(decisions[::-1], ids[::-1])
    assert ids[::-1][reversed_choice] == ids[chosen]
