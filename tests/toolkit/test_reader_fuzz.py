"""Fuzzing the readers of user files: random bytes and mutations of valid files.

Every reader of a user file (the ECtHR-NPD release reader, the SLDS source readers with
their validation, the prediction-file reader) must either return a valid result or raise
one :class:`~courtbench.errors.CourtbenchError` — never another exception, which the CLI
would show as a traceback.
"""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from courtbench.errors import CourtbenchError
from courtbench.predictions import read_predictions

#: examples per test: 60 keeps the suite fast; COURTBENCH_FUZZ_EXAMPLES=2000 for a long hunt
FUZZ = settings(max_examples=int(os.environ.get("COURTBENCH_FUZZ_EXAMPLES", "60")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

#: one edit of a file: (relative position, operation, payload)
EDITS = st.lists(st.tuples(st.floats(0, 1), st.sampled_from(
    ["delete", "insert", "replace", "truncate", "duplicate_line", "swap_quote"]),
    st.binary(min_size=1, max_size=8)), min_size=1, max_size=4)
#: a replacement for one CSV field or JSON value: odd text, numbers, huge or empty values
FIELD_VALUES = st.one_of(
    st.text(max_size=20), st.sampled_from(["", "NaN", "inf", "-1", "1e400", "3000000000",
                                           '"', "\r\n", "\ufeff", "unknown", "0x10", "１"]),
    st.integers(-2**70, 2**70).map(str), st.floats(allow_nan=True).map(repr))


def mutate(data: bytes, edits) -> bytes:
    """Apply byte-level edits; positions are relative so that they fit any length."""
    for where, operation, payload in edits:
        at = int(where * len(data))
        if operation == "delete":
            data = data[:at] + data[at + len(payload):]
        elif operation == "insert":
            data = data[:at] + payload + data[at:]
        elif operation == "replace":
            data = data[:at] + payload + data[at + len(payload):]
        elif operation == "truncate":
            data = data[:at]
        elif operation == "duplicate_line":
            lines = data.split(b"\n")
            index = min(int(where * len(lines)), len(lines) - 1)
            lines.insert(index, lines[index])
            data = b"\n".join(lines)
        else:
            data = data[:at] + b'"' + data[at:]
    return data


def mutate_csv_field(text: str, where: float, column: float, value: str) -> str:
    """Replace one field of one data row of a CSV text."""
    rows = list(csv.reader(io.StringIO(text, newline="")))
    if len(rows) < 2:
        return text
    row = rows[1 + min(int(where * (len(rows) - 1)), len(rows) - 2)]
    row[min(int(column * len(row)), len(row) - 1)] = value
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def accepts_or_refuses_clearly(read, path: Path) -> None:
    try:
        read(path)
    except CourtbenchError as error:
        message = str(error)
        assert message.strip() and len(message) < 10_000, message[:500]


# ---------------------------------------------------------------- ECtHR-NPD release reader

@pytest.fixture(scope="module")
def ecthr_csv(tmp_path_factory) -> bytes:
    from ecthr_npd.synthetic import write_synthetic

    return write_synthetic(tmp_path_factory.mktemp("fuzz") / "case_level.csv", n=40).read_bytes()


def _read_ecthr(path: Path) -> None:
    from ecthr_npd.reader import read_case_level

    read_case_level(path)


@FUZZ
@given(edits=EDITS)
def test_ecthr_reader_byte_mutations(tmp_path, ecthr_csv, edits):
    path = tmp_path / "case_level.csv"
    path.write_bytes(mutate(ecthr_csv, edits))
    accepts_or_refuses_clearly(_read_ecthr, path)


@FUZZ
@given(where=st.floats(0, 1), column=st.floats(0, 1), value=FIELD_VALUES)
def test_ecthr_reader_field_mutations(tmp_path, ecthr_csv, where, column, value):
    path = tmp_path / "case_level.csv"
    path.write_text(mutate_csv_field(ecthr_csv.decode(), where, column, value), encoding="utf-8")
    accepts_or_refuses_clearly(_read_ecthr, path)


@FUZZ
@given(data=st.binary(max_size=300))
def test_ecthr_reader_random_bytes(tmp_path, data):
    path = tmp_path / "case_level.csv"
    path.write_bytes(data)
    accepts_or_refuses_clearly(_read_ecthr, path)


# ---------------------------------------------------------------- SLDS readers + validation

SLDS_ROWS = [
    {"decision_id": f"d{i}", "decision": f"Erwägung {i}. Art. 8 BV.", "decision_language": "de",
     "headnote": f"Regeste {i} ({language}).", "headnote_language": language,
     "law_area": "", "year": 2000 + i, "volume": "II", "url": f"https://example.org/d{i}"}
    for i in range(3) for language in ("de", "fr")
]
ENTSCHEIDSUCHE = {"hits": {"hits": [{"_id": "x1", "_index": "ch_bge", "_source": {
    "hierarchy": ["CH_BGE"], "reference": ["BGE 146 II 1"], "date": "2020-01-01",
    "language": "de", "abstract": {"de": "Regeste de", "fr": "Régeste fr", "it": "Regesto it"},
    "attachment": {"content": "Sachverhalt\nA. Der Text.", "content_url": "https://x.ch/1"}}}]}}


def _slds_sources() -> dict[str, bytes]:
    jsonl = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in SLDS_ROWS)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(SLDS_ROWS[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(SLDS_ROWS)
    return {"rows.jsonl": jsonl.encode(), "rows.csv": out.getvalue().encode(),
            "search.json": json.dumps(ENTSCHEIDSUCHE).encode()}


def _read_slds(path: Path) -> None:
    from slds.readers import read_source
    from slds.validate import validate_rows

    validate_rows(read_source(path).rows, detector=lambda text: ("de", 1.0))


@FUZZ
@given(name=st.sampled_from(sorted(_slds_sources())), edits=EDITS)
def test_slds_readers_byte_mutations(tmp_path, name, edits):
    path = tmp_path / name
    path.write_bytes(mutate(_slds_sources()[name], edits))
    accepts_or_refuses_clearly(_read_slds, path)


@FUZZ
@given(where=st.floats(0, 1), column=st.floats(0, 1), value=FIELD_VALUES)
def test_slds_csv_field_mutations(tmp_path, where, column, value):
    path = tmp_path / "rows.csv"
    path.write_text(mutate_csv_field(_slds_sources()["rows.csv"].decode(), where, column, value),
                    encoding="utf-8")
    accepts_or_refuses_clearly(_read_slds, path)


@FUZZ
@given(field=st.sampled_from(list(SLDS_ROWS[0])), value=st.one_of(
    FIELD_VALUES, st.integers(), st.floats(), st.none(), st.booleans(),
    st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3), st.integers(),
                                                         max_size=2)))
def test_slds_jsonl_value_mutations(tmp_path, field, value):
    rows = [dict(r) for r in SLDS_ROWS]
    rows[0][field] = value
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    accepts_or_refuses_clearly(_read_slds, path)


@FUZZ
@given(field=st.sampled_from(["hierarchy", "reference", "date", "language", "abstract",
                              "attachment"]),
       value=st.one_of(FIELD_VALUES, st.integers(), st.none(), st.booleans(),
                       st.lists(st.text(max_size=5), max_size=2),
                       st.dictionaries(st.sampled_from(["de", "fr", "it", "content"]),
                                       st.one_of(st.text(max_size=5), st.integers()),
                                       max_size=3)))
def test_entscheidsuche_value_mutations(tmp_path, field, value):
    response = json.loads(json.dumps(ENTSCHEIDSUCHE))
    response["hits"]["hits"][0]["_source"][field] = value
    path = tmp_path / "search.json"
    path.write_text(json.dumps(response), encoding="utf-8")
    accepts_or_refuses_clearly(_read_slds, path)


@FUZZ
@given(name=st.sampled_from(["x.json", "x.jsonl", "x.csv", "x.parquet"]),
       data=st.binary(max_size=300))
def test_slds_readers_random_bytes(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    accepts_or_refuses_clearly(_read_slds, path)


# ---------------------------------------------------------------- prediction files

PREDICTION_FILES = {
    "p.csv": b"case_id,prediction\na,1.5\nb,0\nc,2000\n",
    "p.jsonl": b'{"case_id": "a", "prediction": 1.5}\n{"case_id": "b", "prediction": 0}\n'
               b'{"case_id": "c", "prediction": 2000}\n',
}


def _read_predictions(path: Path) -> None:
    def amount(value) -> float:
        number = float(value)
        if number != number or number < 0:
            raise ValueError("expected a number >= 0")
        return number

    read_predictions(path, "case_id", "prediction", ["a", "b", "c"], amount)


@FUZZ
@given(name=st.sampled_from(sorted(PREDICTION_FILES)), edits=EDITS)
def test_prediction_reader_byte_mutations(tmp_path, name, edits):
    path = tmp_path / name
    path.write_bytes(mutate(PREDICTION_FILES[name], edits))
    accepts_or_refuses_clearly(_read_predictions, path)


@FUZZ
@given(name=st.sampled_from(sorted(PREDICTION_FILES)), data=st.binary(max_size=200))
def test_prediction_reader_random_bytes(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    accepts_or_refuses_clearly(_read_predictions, path)
