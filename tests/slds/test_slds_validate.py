"""Validation of raw SLDS rows: every error names source, record, field and value; derived
fields (sample id, law area, detected language) are filled in and recorded."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from courtbench.errors import SourceError
from slds.language import detect_language
from slds.readers import read_source
from slds.readers.base import RawRow
from slds.schema import derived_sample_id
from slds.validate import validate_rows

SOURCE = Path("source.jsonl")


def _row(line: int = 1, bge_volume: int | None = None, **changes) -> RawRow:
    fields = {"sample_id": None, "decision_id": "d1",
              "decision": "Sachverhalt A. Die Beschwerdeführerin rügt eine Verletzung.",
              "decision_language": "de", "headnote": "Art. 8 BV; Rechtsgleichheit.",
              "headnote_language": "de", "law_area": None, "year": 2020, "volume": "II",
              "url": "https://example.org"}
    fields.update(changes)
    return RawRow(line=line, fields=fields, source=SOURCE, bge_volume=bge_volume)


def _error(*rows: RawRow) -> SourceError:
    with pytest.raises(SourceError) as error:
        validate_rows(list(rows), detector=lambda text: pytest.fail("no detection expected"))
    assert error.value.path == str(SOURCE)
    return error.value


def test_valid_row_gets_derived_fields():
    result = validate_rows([_row(), _row(line=2, headnote_language="fr", sample_id=17,
                                         law_area="civil_law")])
    first, second = result.rows
    assert first["sample_id"] == derived_sample_id("d1", "de")
    assert first["law_area"] == "administrative_and_international_public_law"  # II in 2020
    assert second["sample_id"] == 17 and second["law_area"] == "civil_law"
    assert result.law_areas_derived == 1 and result.detected == []


def test_csv_strings_are_coerced():
    row = validate_rows([_row(year="1990", volume="Ib", law_area="", url=None)]).rows[0]
    assert row["year"] == 1990 and row["url"] == ""
    assert row["law_area"] == "administrative_and_international_public_law"  # Ib until 1994
    named = validate_rows([_row(law_area="Criminal law")]).rows[0]
    assert named["law_area"] == "criminal_law"
    labelled = validate_rows([_row(year=2020.0, law_area=5)]).rows[0]
    assert labelled["year"] == 2020 and labelled["law_area"] == "criminal_law"


@pytest.mark.parametrize(("changes", "column", "expected"), [
    ({"decision_id": ""}, "decision_id", "empty or missing value ''"),
    ({"decision": "   "}, "decision", "empty or missing value '   '"),
    ({"decision": 5}, "decision", "value 5 is a int; expected text"),
    ({"headnote": None}, "headnote", "empty or missing value None"),
    ({"headnote_language": "en"}, "headnote_language", "language 'en'; expected one of de, fr, it"),
    ({"decision_language": "rm"}, "decision_language", "language 'rm'"),
    ({"year": "19x0"}, "year", "year '19x0'; expected an integer year ≥ 1875"),
    ({"year": 1800}, "year", "year 1800"),
    ({"volume": "Ia", "year": 2001}, "volume", "BGE part 'Ia' does not exist in 2001; expected "
                                               "one of I, II, III, IV, V"),
    ({"volume": "I", "year": 1980}, "volume", "BGE part 'I' does not exist in 1980; expected one "
                                              "of Ia, Ib, II, III, IV, V"),
    ({"law_area": "tax_law"}, "law_area", "law area 'tax_law'"),
    ({"law_area": 99}, "law_area", "law area 99"),
    ({"url": 3}, "url", "value 3 is a int; expected text"),
])
def test_each_field_error(changes, column, expected):
    error = _error(_row(line=7, **changes))
    assert error.line == 7 and error.column == column
    assert expected in str(error)


def test_bge_volume_must_match_year():
    error = _error(_row(bge_volume=150, year=2025))
    assert error.column == "volume"
    assert "BGE yearly volume 150 does not match year 2025; expected volume 151" in str(error)
    assert validate_rows([_row(bge_volume=151, year=2025)]).rows[0]["year"] == 2025


def test_duplicate_decision_and_headnote_language():
    error = _error(_row(line=1), _row(line=4))
    assert error.line == 4 and error.column == "headnote_language"
    assert "second 'de' headnote for decision 'd1' (first at record 1)" in str(error)


def test_duplicate_sample_id():
    error = _error(_row(line=1, sample_id="12"), _row(line=2, sample_id=12, headnote_language="fr"))
    assert error.column == "sample_id" and "duplicate sample id 12 (first at record 1)" in str(error)


def test_derived_sample_id_colliding_with_a_source_id_is_refused():
    taken = derived_sample_id("d1", "fr")
    error = _error(_row(line=1, sample_id=taken), _row(line=2, headnote_language="fr"))
    assert error.line == 2 and error.column == "sample_id"
    assert f"duplicate sample id {taken} (derived from (decision_id, headnote_language) and " \
           "first at record 1)" in str(error)


@pytest.mark.parametrize("value", ["d1/de", "x", "1.5", True, 2**63])
def test_sample_id_must_be_an_int64(value):
    error = _error(_row(sample_id=value))
    assert error.column == "sample_id" and "expected" in str(error) and "int64" in str(error)


def test_derived_sample_id_is_documented_sha256_prefix():
    digest = hashlib.sha256(b"BGE-151-II-245/fr").digest()
    expected = int.from_bytes(digest[:8], "big") % 2**53
    assert derived_sample_id("BGE-151-II-245", "fr") == expected
    assert 0 <= expected < 2**53


def test_rows_of_one_decision_must_agree():
    error = _error(_row(line=1), _row(line=2, headnote_language="fr", year=2019))
    assert error.column == "decision_id" and "at record 1" in str(error)


def test_rows_of_one_decision_must_share_its_text(tmp_path):
    """The build stores one decision text per decision_id; a second text must not be dropped."""
    path = tmp_path / "rows.jsonl"
    records = [_row().fields, dict(_row().fields, headnote_language="fr",
                                   decision="Sachverhalt A. Ein anderer Text.")]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
                    encoding="utf-8")
    rows = read_source(path, "slds").rows
    with pytest.raises(SourceError) as caught:
        validate_rows(rows, detector=lambda text: pytest.fail("no detection expected"))
    error = caught.value
    assert error.path == str(path) and error.line == 2 and error.column == "decision"
    assert "records 1 and 2 give decision 'd1' different texts" in str(error)
    assert "first difference at character 15: 'Die Beschwerde" in str(error)
    assert "expected the rows of one decision_id to share one decision text" in str(error)


def test_texts_of_one_decision_compared_by_digest_when_not_adjacent():
    other = "Sachverhalt A. Ein anderer Text."
    error = _error(_row(line=1), _row(line=2, decision_id="d2"),
                   _row(line=3, headnote_language="fr", decision=other))
    assert error.line == 3 and error.column == "decision"
    assert "records 1 and 3 give decision 'd1' different texts" in str(error)
    assert f"this record's text has {len(other)} characters" in str(error)


def test_error_uses_source_column_name():
    row = _row(headnote="")
    row.column_names["headnote"] = "headnote_fr"
    error = _error(row)
    assert error.column == "headnote_fr"
    assert "column 'headnote_fr'" in str(error)


def test_missing_language_is_detected_once_per_decision_and_recorded():
    calls = []

    def detector(text):
        calls.append(text)
        return "fr", 0.99

    rows = [_row(decision_language=None, headnote_language=h, line=i)
            for i, h in enumerate(("de", "fr", "it"), start=1)]
    result = validate_rows(rows, detector=detector)
    assert len(calls) == 1
    assert {r["decision_language"] for r in result.rows} == {"fr"}
    assert [(d.decision_id, d.language, d.probability) for d in result.detected] == [
        ("d1", "fr", 0.99)]


def test_real_detector_on_three_languages():
    assert detect_language("Die Beschwerdeführerin rügt eine Verletzung des Anspruchs auf "
                           "rechtliches Gehör.")[0] == "de"
    assert detect_language("Le recourant invoque une violation du droit d'être entendu.")[0] == "fr"
    language, probability = detect_language("Il ricorrente lamenta una violazione del diritto "
                                            "di essere sentito.")
    assert language == "it" and 0.5 < probability <= 1.0
