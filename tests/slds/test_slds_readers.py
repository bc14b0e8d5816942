"""SLDS source readers: long rows (parquet / JSON Lines / CSV), wide rows, entscheidsuche.ch
search responses, format guessing and the errors of malformed files."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from courtbench.errors import SourceError
from slds.readers import guess_format, read_source
from slds.readers.entscheidsuche import (
    SKIP_HEADNOTE_IN_DECISION,
    SKIP_NO_DECISION_START,
    SKIP_NO_HEADNOTE,
    SKIP_NOT_LANDMARK,
    clean_headnote,
    cut_decision,
    parse_bge_reference,
    read_entscheidsuche,
)
from slds.schema import COLUMNS

LONG_ROWS = [
    {"sample_id": None, "decision_id": "d1", "decision": "Sachverhalt A. Text eins.",
     "decision_language": "de", "headnote": "Regeste eins.", "headnote_language": "de",
     "law_area": None, "year": 2020, "volume": "II", "url": "https://example.org/d1"},
    {"sample_id": "own-id", "decision_id": "d1", "decision": "Sachverhalt A. Text eins.",
     "decision_language": "de", "headnote": "Regeste un.", "headnote_language": "fr",
     "law_area": "civil_law", "year": 2020, "volume": "II", "url": ""},
]

WIDE_ROW = {"decision_id": "w1", "decision": "Faits A. Le recourant.", "decision_language": "fr",
            "headnote_de": "Kopf.", "headnote_fr": "Tête.", "headnote_it": "Testa.",
            "law_area": "", "year": 1990, "volume": "Ib", "url": "u"}


def _write(path: Path, records: list[dict]) -> Path:
    if path.suffix == ".parquet":
        pq.write_table(pa.Table.from_pylist(records), path)
    elif path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    else:
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(records[0]))
            writer.writeheader()
            writer.writerows({k: "" if v is None else v for k, v in r.items()} for r in records)
    return path


@pytest.mark.parametrize("suffix", [".parquet", ".jsonl", ".csv"])
def test_slds_rows_every_file_kind(tmp_path, suffix):
    path = _write(tmp_path / f"rows{suffix}", LONG_ROWS)
    read = read_source(path)
    assert guess_format(path) == "slds"
    assert read.records == 2 and len(read.rows) == 2
    assert set(read.rows[0].fields) == set(COLUMNS)
    assert read.rows[1].fields["headnote"] == "Regeste un."
    assert str(read.rows[1].fields["year"]) == "2020"  # CSV keeps strings; validation coerces
    assert [row.line for row in read.rows] == ([2, 3] if suffix == ".csv" else [1, 2])


def test_csv_positions_follow_multiline_fields(tmp_path):
    rows = [dict(LONG_ROWS[0], decision="Sachverhalt\nA. zwei\nZeilen"), LONG_ROWS[1]]
    read = read_source(_write(tmp_path / "rows.csv", rows))
    assert [row.line for row in read.rows] == [2, 5]


@pytest.mark.parametrize("suffix", [".parquet", ".jsonl", ".csv"])
def test_wide_rows_melt_into_three(tmp_path, suffix):
    path = _write(tmp_path / f"wide{suffix}", [WIDE_ROW])
    assert guess_format(path) == "wide"
    read = read_source(path)
    assert read.records == 1
    assert [(r.fields["headnote_language"], r.fields["headnote"]) for r in read.rows] == [
        ("de", "Kopf."), ("fr", "Tête."), ("it", "Testa.")]
    assert {r.fields["decision"] for r in read.rows} == {"Faits A. Le recourant."}
    assert read.rows[2].column("headnote") == "headnote_it"


def test_malformed_jsonl_names_line(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(LONG_ROWS[0]) + "\n\n{not json\n", encoding="utf-8")
    with pytest.raises(SourceError) as error:
        read_source(path, "slds")
    assert error.value.line == 3 and "malformed JSON" in str(error.value)


def test_jsonl_line_must_be_object(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text("[1, 2]\n", encoding="utf-8")
    with pytest.raises(SourceError, match="expected a JSON object, found list"):
        read_source(path, "slds")


def test_csv_field_count_mismatch(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text("decision_id,decision\nd1,text,extra\n", encoding="utf-8")
    with pytest.raises(SourceError) as error:
        read_source(path, "slds")
    assert error.value.line == 2 and "3 fields, expected 2" in str(error.value)


def test_unsupported_suffix_and_missing_file(tmp_path):
    with pytest.raises(SourceError, match="unsupported file suffix '.xlsx'"):
        read_source(tmp_path / "rows.xlsx", "slds")
    with pytest.raises(SourceError, match="file not found"):
        read_source(tmp_path / "absent.csv")
    with pytest.raises(SourceError, match="unknown source format 'xml'"):
        read_source(_write(tmp_path / "rows.csv", LONG_ROWS), "xml")


def test_broken_parquet(tmp_path):
    path = tmp_path / "rows.parquet"
    path.write_bytes(b"not parquet")
    with pytest.raises(SourceError, match="not a readable parquet file"):
        read_source(path, "slds")


@pytest.mark.parametrize(("suffix", "where"), [
    (".jsonl", "offset 17 of the line"),  # after '{"decision": "caf'
    (".json", "offset 17 of the line"),
    (".csv", "offset"),
])
def test_non_utf8_byte_names_file_and_line(tmp_path, suffix, where):
    path = tmp_path / f"rows{suffix}"
    if suffix == ".csv":  # the bad byte is in the second record, on line 3
        _write(path, LONG_ROWS)
        path.write_bytes(path.read_bytes().replace(b"Regeste un.", b"Regeste \xe9."))
    else:
        path.write_bytes(json.dumps(LONG_ROWS[0]).encode() + b'\n{"decision": "caf\xe9"}\n')
    with pytest.raises(SourceError) as caught:
        read_source(path, "slds")
    error = caught.value
    assert error.path == str(path) and error.line == (3 if suffix == ".csv" else 2)
    assert f"byte 0xe9 at {where}" in str(error)
    assert "is not valid UTF-8; expected a UTF-8" in str(error)


def test_non_utf8_json_guess_reaches_the_reader(tmp_path):
    path = tmp_path / "rows.json"
    path.write_bytes(b'{"decision_id": "d\xe9"}\n')
    with pytest.raises(SourceError) as caught:
        read_source(path)
    assert caught.value.line == 1 and "not valid UTF-8" in str(caught.value)


def test_csv_bad_quoting_is_an_error(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text('decision_id,decision\nd1,"text" extra\nd2,ok\n', encoding="utf-8")
    with pytest.raises(SourceError) as caught:
        read_source(path, "slds")
    assert caught.value.line == 2 and "malformed CSV" in str(caught.value)
    assert "expected RFC 4180 quoting" in str(caught.value)


def test_jsonl_splits_records_on_line_feeds_only(tmp_path):
    texts = ["Sachverhalt A.\u2028Zeile zwei.", "Sachverhalt\u0085B.\u2029C.\x1cD."]
    rows = [dict(LONG_ROWS[0], decision=texts[0]),
            dict(LONG_ROWS[1], decision=texts[1], sample_id=None)]
    path = tmp_path / "rows.jsonl"
    path.write_bytes("".join(json.dumps(r, ensure_ascii=False) + "\r\n"
                             for r in rows).encode("utf-8"))
    read = read_source(path, "slds")
    assert [row.fields["decision"] for row in read.rows] == texts
    assert [row.line for row in read.rows] == [1, 2]


def test_utf8_bom_is_dropped(tmp_path):
    for suffix in (".jsonl", ".csv"):
        path = _write(tmp_path / f"rows{suffix}", LONG_ROWS)
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
        assert read_source(path, "slds").rows[0].fields["decision_id"] == "d1"


# ----------------------------------------------------------------- entscheidsuche responses

def _hit(hit_id: str, *, hierarchy=("CH", "CH_BGE", "CH_BGE_001"), reference="BGE 140 I 2",
         date="2014-01-01", language="fr", abstract=None, content=None) -> dict:
    source = {
        "date": date, "hierarchy": list(hierarchy), "reference": [reference],
        "abstract": abstract if abstract is not None else {
            "de": "Regeste\n<br>Art. 8 Abs. 1 BV; Rechtsgleichheit (E. 2).",
            "fr": "Regeste\n<br>Art. 8 al. 1 Cst.; égalité &amp; droit (consid. 2).",
            "it": "Regesto\n<br>Art. 8 cpv. 1 Cost.; uguaglianza (consid. 2)."},
        "attachment": {"content": content if content is not None else
                       "Urteilskopf\n140 I 2\nRegeste\nArt. 8 al. 1 Cst.\n\n  Faits à partir "
                       "de page 3\n\nA. Le recourant   a saisi le tribunal.\n\nConsidérant en "
                       "droit:\n1. Le recours est recevable.",
                       "content_url": f"https://example.org/{hit_id}.html"},
    }
    if language is not None:
        source["language"] = language
    return {"_id": hit_id, "_index": "entscheidsuche.v2-ch_bge", "_source": source}


def _response(tmp_path: Path, hits: list[dict], name: str = "response.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"took": 1, "hits": {"hits": hits}}), encoding="utf-8")
    return path


def test_entscheidsuche_keeps_landmarks_and_counts_skips(tmp_path):
    hits = [
        _hit("keep"),
        _hit("ordinary", hierarchy=("CH", "CH_BGer", "CH_BGer_005"), reference="5A_56/2024"),
        _hit("no-headnote", abstract={"de": "Regeste\n<br>Kopf.", "fr": "", "it": None}),
        _hit("no-start", content="Urteilskopf\nRegeste\nNur Kopf."),
        _hit("leak", abstract={"de": "Kopf A.", "fr": "Tête A.", "it": "Testa A."},
             content="Sachverhalt\nA. Tête A. im Text."),
    ]
    path = _response(tmp_path, hits)
    assert guess_format(path) == "entscheidsuche"
    read = read_entscheidsuche(path)
    assert read.records == 5
    assert dict(read.skipped) == {SKIP_NOT_LANDMARK: 1, SKIP_NO_HEADNOTE: 1,
                                  SKIP_NO_DECISION_START: 1, SKIP_HEADNOTE_IN_DECISION: 1}
    assert [r.fields["headnote_language"] for r in read.rows] == ["de", "fr", "it"]
    row = read.rows[1]
    assert row.fields["headnote"] == "Art. 8 al. 1 Cst.; égalité & droit (consid. 2)."
    assert row.fields["decision"].startswith("Faits à partir de page 3 A. Le recourant a saisi")
    assert "Urteilskopf" not in row.fields["decision"]
    assert (row.fields["volume"], row.fields["year"], row.bge_volume) == ("I", 2014, 140)
    assert row.line == 1 and row.fields["decision_id"] == "keep"


def test_entscheidsuche_directory_and_missing_language(tmp_path):
    _response(tmp_path, [_hit("a", language=None)], "page1.json")
    _response(tmp_path, [_hit("b", reference="BGE 140 I 9")], "page2.json")
    read = read_source(tmp_path)
    assert read.records == 2
    assert [r.fields["decision_id"] for r in read.rows[::3]] == ["a", "b"]
    assert read.rows[0].fields["decision_language"] is None  # left for detection


def test_entscheidsuche_not_a_response(tmp_path):
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"hits": 3}), encoding="utf-8")
    with pytest.raises(SourceError, match="not a search response"):
        read_entscheidsuche(path)
    path.write_text("{broken", encoding="utf-8")
    with pytest.raises(SourceError, match="malformed JSON"):
        read_entscheidsuche(path)
    with pytest.raises(SourceError, match="no search-response JSON file"):
        read_entscheidsuche(tmp_path / "empty_dir_absent")


def test_entscheidsuche_hit_without_source(tmp_path):
    path = _response(tmp_path, [{"_id": "x"}])
    with pytest.raises(SourceError) as error:
        read_entscheidsuche(path)
    assert error.value.line == 1 and error.value.column == "_source"


def test_helpers():
    assert parse_bge_reference("BGE 151 II 245") == (151, "II", 245)
    assert parse_bge_reference("BGE 101 Ia 20") == (101, "Ia", 20)
    assert parse_bge_reference("5A_56/2024") is None
    assert clean_headnote("Regesto\n<br>Art. 6 <i>cpv.</i> 1 LResp;") == "Art. 6 cpv. 1 LResp;"
    assert cut_decision("Kopf\nRegeste\nx\nErwägungen:\n1. Text") == "Erwägungen: 1. Text"
    assert cut_decision("no heading at all") is None


def test_real_bge_151_ii_245(shared_data):
    read = read_source(shared_data / "slds" / "search_law_1.json")
    assert read.records == 3
    assert dict(read.skipped) == {SKIP_NOT_LANDMARK: 2}
    assert len(read.rows) == 3
    fields = [row.fields for row in read.rows]
    assert {f["decision_id"] for f in fields} == {"CH_BGE_004_BGE-151-II-245_2025"}
    assert [f["headnote_language"] for f in fields] == ["de", "fr", "it"]
    assert {(f["volume"], f["year"], f["decision_language"]) for f in fields} == {
        ("II", 2025, "de")}
    decision = fields[0]["decision"]
    assert decision.startswith("Sachverhalt ab Seite 246")
    for f in fields:
        assert not f["headnote"].startswith(("Regeste", "Regesto"))
        assert "<br>" not in f["headnote"]
        assert f["headnote"] not in decision
    assert fields[0]["headnote"].startswith("Art. 6 Abs. 1 und 2 VG; Genugtuungsanspruch")
    assert "Genugtuungsanspruch des Ehemanns in Zusammenhang" not in decision
    assert "Urteilskopf" not in decision


def test_wide_row_without_one_headnote_names_its_column(tmp_path):
    from slds.validate import validate_rows

    path = _write(tmp_path / "wide.jsonl", [dict(WIDE_ROW, headnote_it="")])
    with pytest.raises(SourceError) as error:
        validate_rows(read_source(path).rows)
    assert (error.value.line, error.value.column) == (1, "headnote_it")
    assert str(error.value).startswith(f"{path}, line 1, column 'headnote_it': empty")


def test_search_response_that_is_not_utf8_names_file_and_line(tmp_path):
    from courtbench.errors import SourceError
    from slds.readers.entscheidsuche import _read_response

    path = tmp_path / "response.json"
    path.write_bytes(b'{"hits": {"hits": [\n{"_id": "caf\xe9"}]}}')
    with pytest.raises(SourceError, match=r"response.json, line 2: byte 0xe9 at offset \d+ of the file is not valid UTF-8"):
        _read_response(path, __import__("collections").Counter())


def test_the_cli_format_choices_are_the_readers_formats():
    from slds.defaults import SOURCE_FORMATS
    from slds.readers import READERS, STREAMS

    assert tuple(READERS) == tuple(STREAMS) == SOURCE_FORMATS
