"""courtbench.predictions: strict reading of prediction files shared by every evaluation."""

from __future__ import annotations

import json
import math

import pytest

from courtbench.errors import SourceError
from courtbench.predictions import read_predictions


def _euros(value) -> float:
    number = float(value)
    if not math.isfinite(number) or number < 0:
        raise ValueError("expected a finite amount >= 0 EUR")
    return number


def test_every_bad_value_is_listed(tmp_path):
    path = tmp_path / "preds.csv"
    path.write_text("case_id,prediction\na,1\nb,-1\nc,nan\nd,2\ne,inf\n")
    with pytest.raises(SourceError) as error:
        read_predictions(path, "case_id", "prediction", list("abcde"), _euros)
    message = str(error.value)
    assert message.startswith(f"{path}, line 3, column 'prediction': bad value '-1'")
    assert "2 more bad value(s): line 4 ('nan'" in message and "line 6 ('inf'" in message


def test_huge_json_integer_is_a_bad_value_not_a_crash(tmp_path):
    path = tmp_path / "preds.jsonl"
    path.write_text(json.dumps({"case_id": "a", "prediction": 10**400}) + "\n")
    with pytest.raises(SourceError, match="line 1, column 'prediction': bad value"):
        read_predictions(path, "case_id", "prediction", ["a"], _euros)


def test_unicode_line_separators_inside_json_strings_are_kept(tmp_path):
    text = "Erster Satz.\u2028Zweiter Satz.\x85Dritter\x0cTeil."
    path = tmp_path / "preds.jsonl"
    path.write_text(json.dumps({"sample_id": "x/de", "prediction": text}, ensure_ascii=False)
                    + "\r\n", encoding="utf-8")
    assert read_predictions(path, "sample_id", "prediction", ["x/de"], str) == {"x/de": text}


def test_csv_values_may_span_lines_and_hold_separators(tmp_path):
    path = tmp_path / "preds.csv"
    path.write_text('sample_id,prediction\nx/de,"eins\nzwei\u2028drei"\ny/de,vier\n',
                    encoding="utf-8")
    assert read_predictions(path, "sample_id", "prediction", ["x/de", "y/de"], str) == {
        "x/de": "eins\nzwei\u2028drei", "y/de": "vier"}


def test_a_byte_that_is_not_utf8_names_its_line(tmp_path):
    path = tmp_path / "preds.csv"
    path.write_bytes(b"sample_id,prediction\na,ok\nb,caf\xe9\n")
    with pytest.raises(SourceError, match=r"preds.csv, line 3: byte 0xe9 at offset \d+ of the "
                                          r"file is not valid UTF-8"):
        read_predictions(path, "sample_id", "prediction", ["a", "b"], str)


def test_integer_ids_are_parsed_from_csv_text_and_json_numbers(tmp_path):
    path = tmp_path / "preds.csv"
    path.write_text("sample_id,prediction\n17,eins\n 4711 ,zwei\n")
    assert read_predictions(path, "sample_id", "prediction", [4711, 17], str) == {
        4711: "zwei", 17: "eins"}
    path = tmp_path / "preds.jsonl"
    path.write_text('{"sample_id": 17, "prediction": "a"}\n{"sample_id": "4711", "prediction": "b"}\n')
    assert read_predictions(path, "sample_id", "prediction", [17, 4711], str) == {
        17: "a", 4711: "b"}


@pytest.mark.parametrize("raw", ['"x/de"', "1.5", "true", '"17a"'])
def test_non_integer_id_for_integer_ids_names_the_expected_form(tmp_path, raw):
    path = tmp_path / "preds.jsonl"
    path.write_text(f'{{"sample_id": 17, "prediction": "a"}}\n{{"sample_id": {raw}, '
                    '"prediction": "b"}\n')
    with pytest.raises(SourceError, match=r"preds.jsonl, line 2, column 'sample_id': "
                       r"(invalid sample id True|sample id .* is not an integer; expected the "
                       r"integer sample id of a dataset row)"):
        read_predictions(path, "sample_id", "prediction", [17], str)
