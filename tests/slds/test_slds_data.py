"""slds.data.read_split: the one loader of a built SLDS folder's splits."""

from __future__ import annotations

import pytest
from slds_fixtures import write_slds_folder

from courtbench.errors import CourtbenchError
from slds.data import read_split

DECISIONS = [("Erwägungen: 2. Die Beschwerde ist begründet.", "de"),
             ("Considérant en droit: 2. Le recours est admis.", "fr")]
HEADNOTES = {"it": "Il ricorso è accolto.", "de": "Die Beschwerde ist begründet."}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return write_slds_folder(tmp_path_factory.mktemp("slds"), DECISIONS, HEADNOTES)


def test_rows_come_sorted_by_sample_id(folder):
    rows = read_split(folder, "test", columns=("headnote", "headnote_language", "decision"))
    ids = list(rows["sample_id"])
    assert ids == sorted(ids) and len(ids) == 4
    for language, headnote in zip(rows["headnote_language"], rows["headnote"], strict=True):
        assert headnote == HEADNOTES[language]


def test_several_splits_are_read_together(folder):
    assert read_split(folder, ["test", "test"]).num_rows == 8


@pytest.mark.parametrize("arguments, message", [
    ({"split": "validation"}, "split 'validation' not in config 'default' of"),
    ({"split": "test", "config": "de_fr"}, "cannot load config 'de_fr'"),
    ({"split": "test", "columns": ("headnote", "summary")}, "columns summary missing"),
])
def test_problems_are_one_clear_error(folder, arguments, message):
    with pytest.raises(CourtbenchError, match=message):
        read_split(folder, **arguments)


def test_a_missing_folder_is_named(tmp_path):
    with pytest.raises(CourtbenchError, match=r"--data .*nope: not a folder"):
        read_split(tmp_path / "nope")
