"""ECtHR-NPD release reader: real samples, typed table, and every validation error."""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path

import datasets
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from courtbench.errors import SourceError
from ecthr_npd import reader, schema
from ecthr_npd.reader import read_applicant_level, read_case_level, read_rows, read_string_table
from ecthr_npd.synthetic import write_synthetic

SAMPLES = ("case_level.sample_train_2010.csv", "case_level.sample_test_2025.csv")


@pytest.fixture(scope="module")
def small_csv(tmp_path_factory) -> Path:
    """A valid 60-case release-format file (synthetic; no shared data needed)."""
    return write_synthetic(tmp_path_factory.mktemp("ecthr") / "case_level.csv", n=60, seed=3)


def _rows(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def _write(path: Path, rows: list[list[str]]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)
    return path


def _mutated(small_csv: Path, tmp_path: Path, row: int, column: str, value: str) -> Path:
    rows = _rows(small_csv)
    rows[row][rows[0].index(column)] = value
    return _write(tmp_path / "mutated.csv", rows)


def _row_where(small_csv: Path, column: str, predicate) -> int:
    rows = _rows(small_csv)
    index = rows[0].index(column)
    return next(i for i, row in enumerate(rows) if i > 0 and predicate(row[index]))


@pytest.mark.realdata
@pytest.mark.parametrize("name", SAMPLES)
def test_real_samples_read_into_the_canonical_typed_table(shared_data: Path, name: str) -> None:
    table = read_case_level(shared_data / "ecthr_npd" / name)
    assert table.num_rows in (68, 69)
    assert table.column_names == list(schema.HEADER)
    assert datasets.Features.from_arrow_schema(table.schema) == schema.CANONICAL_FEATURES.to_datasets()
    first = table.slice(0, 1).to_pylist()[0]
    assert isinstance(first["judgment_date"], dt.date)
    assert first["judgment_year"] == first["judgment_date"].year
    assert isinstance(first["violated_articles"], list)
    binary = table.column("y_binary").to_pylist()
    amounts = table.column("y_amount_eur").to_pylist()
    assert binary == [int(a > 0) for a in amounts]


@pytest.mark.realdata
def test_unknown_becomes_null_on_the_real_sample(shared_data: Path) -> None:
    path = shared_data / "ecthr_npd" / SAMPLES[0]
    raw = _rows(path)
    table = read_case_level(path)
    header = raw[0]
    for column in ("violation_duration_months", "applicant_sex", "beneficiary_type"):
        raw_values = [row[header.index(column)] for row in raw[1:]]
        typed = table.column(column).to_pylist()
        assert [v is None for v in typed] == [v == "unknown" for v in raw_values]
    # '100018' row: applicant_sex 'female;male' becomes a list
    assert table.column("applicant_sex")[0].as_py() == ["female", "male"]


def test_synthetic_file_reads_like_the_release(small_csv: Path) -> None:
    table = read_case_level(small_csv)
    assert table.num_rows == 60
    assert datasets.Features.from_arrow_schema(table.schema) == schema.CANONICAL_FEATURES.to_datasets()


def test_unknown_member_of_a_set_becomes_a_null_element(small_csv: Path, tmp_path: Path) -> None:
    path = _mutated(small_csv, tmp_path, 1, "applicant_birth_years", "1950;unknown")
    assert read_case_level(path).column("applicant_birth_years")[0].as_py() == [1950, None]


# (column, bad value, fragment of the expectation) — single-cell value errors
VALUE_ERRORS = [
    ("case_id", "001-12", r"\d{3}-\d{4,9}"),
    ("case_id", "abc-12345", r"\d{3}-\d{4,9}"),
    ("split", "dev", "one of ['train', 'validation', 'test']"),
    ("case_importance", "very_high", "one of ['key_case', 'high', 'medium', 'low']"),
    ("hudoc_decision_body", "PLENARY", "one of"),
    ("violation_type", "mixed", "one of"),
    ("applicant_nationality_scope", "dual", "one of"),
    ("target_status", "unknown", "one of"),
    ("is_grand_chamber", "true", "'yes' or 'no'"),
    ("represented", "maybe", "'yes' or 'no' or 'unknown'"),
    ("has_joint_beneficiary", "no", "'yes' or 'not_found' or 'unknown'"),
    ("judgment_date", "2010/07/20", "an ISO date"),
    ("judgment_date", "2010-02-30", "an ISO date"),
    ("num_applicants", "two", "an integer"),
    ("num_applicants", "0", ">= 1"),
    ("hudoc_application_count", "unknown", "an integer"),
    ("gdp_per_capita_current_usd", "n/a", "a decimal number or 'unknown'"),
    ("violation_duration_months", "-3", ">= 0"),
    ("y_amount_eur", "-100", ">= 0"),
    ("y_amount_eur", "nan", "a decimal number"),
    ("y_amount_eur", "inf", "a decimal number"),
    ("y_amount_eur", "1e999", "a finite number"),
    ("y_amount_eur", "", "a decimal number"),
    ("violated_articles", "6;Art. 3", "matching"),
    ("violated_articles", "6;6", "without repeated members"),
    ("applicant_sex", "male;other", "members of ['female', 'male', 'mixed']"),
    ("applicant_birth_years", "1950;19x0", "integers"),
    ("beneficiary_type", "applicant;state", "members of"),
    ("country_alpha2", "RU", "[a-z]{2}"),
    ("respondent_state", "", "a non-empty string"),
]


@pytest.mark.parametrize(("column", "value", "expected"), VALUE_ERRORS)
def test_value_errors_name_file_line_column_value_and_expectation(
        small_csv: Path, tmp_path: Path, column: str, value: str, expected: str) -> None:
    path = _mutated(small_csv, tmp_path, 5, column, value)
    with pytest.raises(SourceError) as caught:
        read_case_level(path)
    error = caught.value
    assert error.path == str(path)
    assert error.line == 6  # header is line 1, the mutated record is the 5th
    assert error.column == column
    assert repr(value) in str(error)
    assert expected in str(error)


def _first_mismatch(small_csv: Path, tmp_path: Path, column: str, value_for) -> tuple[Path, int]:
    rows = _rows(small_csv)
    header = rows[0]
    rows[7] = list(rows[7])
    rows[7][header.index(column)] = value_for(dict(zip(header, rows[7], strict=True)))
    return _write(tmp_path / "rule.csv", rows), 8


RULE_ERRORS = [
    ("y_binary", lambda row: "0" if float(row["y_amount_eur"]) > 0 else "1",
     "expected int(y_amount_eur > 0)"),
    ("violated_articles_count", lambda row: str(int(row["violated_articles_count"]) + 1),
     "expected the number of distinct codes"),
    ("judgment_year", lambda row: str(int(row["judgment_year"]) - 1), "expected"),
    ("court_formation",
     lambda row: "Committee" if row["court_formation"] != "Committee" else "Chamber",
     "with hudoc_decision_body"),
    ("is_grand_chamber", lambda row: "no" if row["is_grand_chamber"] == "yes" else "yes",
     "with court_formation"),
    ("respondent_state", lambda row: row["respondent_state"] + " (other)",
     "expected one state per code"),
]


@pytest.mark.parametrize(("column", "value_for", "expected"), RULE_ERRORS)
def test_cross_column_rules(small_csv: Path, tmp_path: Path, column, value_for, expected) -> None:
    if column == "respondent_state":  # needs a second row of the same country before it
        rows = _rows(small_csv)
        header = rows[0]
        alpha2 = header.index("country_alpha2")
        rows[8][alpha2] = rows[2][alpha2]
        rows[8][header.index("respondent_state")] = "Elsewhere"
        path, line = _write(tmp_path / "rule.csv", rows), 9
    else:
        path, line = _first_mismatch(small_csv, tmp_path, column, value_for)
    with pytest.raises(SourceError) as caught:
        read_case_level(path)
    assert caught.value.line == line
    assert caught.value.column == column
    assert expected in str(caught.value)


def test_duplicate_case_id_names_both_lines(small_csv: Path, tmp_path: Path) -> None:
    rows = _rows(small_csv)
    rows[10][0] = rows[3][0]
    path = _write(tmp_path / "dup.csv", rows)
    with pytest.raises(SourceError, match=r"repeats the case on line 4") as caught:
        read_case_level(path)
    assert (caught.value.line, caught.value.column) == (11, "case_id")


def test_view_tags_only_on_test(small_csv: Path, tmp_path: Path) -> None:
    train = _row_where(small_csv, "split", lambda v: v == "train")
    test = _row_where(small_csv, "split", lambda v: v == "test")
    cases = [
        (train, "test_view", "ID", "'not_applicable' off test"),
        (test, "test_view", "not_applicable", "'ID' or 'OOD' on test"),
        (train, "test_challenging_view", "yes", "expected 'no' outside test"),
    ]
    for row, column, value, expected in cases:
        path = _mutated(small_csv, tmp_path, row, column, value)
        with pytest.raises(SourceError) as caught:
            read_case_level(path)
        assert caught.value.column == column
        assert caught.value.line == row + 1
        assert expected in str(caught.value)


def test_header_errors(small_csv: Path, tmp_path: Path) -> None:
    rows = _rows(small_csv)
    missing = [row[:-1] for row in rows]
    with pytest.raises(SourceError, match=r"missing column\(s\) \['target_status'\]"):
        read_case_level(_write(tmp_path / "missing.csv", missing))
    extra = [row + (["x"] if i else ["leak"]) for i, row in enumerate(rows)]
    with pytest.raises(SourceError, match=r"unexpected column\(s\) \['leak'\]"):
        read_case_level(_write(tmp_path / "extra.csv", extra))
    swapped = [[row[1], row[0], *row[2:]] for row in rows]
    with pytest.raises(SourceError, match=r"column 1 is 'split', expected 'case_id'"):
        read_case_level(_write(tmp_path / "order.csv", swapped))
    repeated = [row[:-1] + [row[0]] for row in rows]
    with pytest.raises(SourceError, match=r"header repeats column\(s\) \['case_id'\]"):
        read_case_level(_write(tmp_path / "repeat.csv", repeated))


def test_malformed_csv_is_an_error_not_a_partial_table(small_csv: Path, tmp_path: Path) -> None:
    lines = small_csv.read_text(encoding="utf-8").splitlines(keepends=True)
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("".join(lines[:4] + [lines[4].rstrip("\n") + ",extra\n"] + lines[5:]))
    with pytest.raises(SourceError, match=r"row has 34 fields, expected 33") as caught:
        read_case_level(ragged)
    assert caught.value.line == 5
    short = tmp_path / "short.csv"
    short.write_text("".join(lines[:3] + [lines[3].rsplit(",", 1)[0] + "\n"] + lines[4:]))
    with pytest.raises(SourceError, match=r"row has 32 fields") as caught:
        read_case_level(short)
    assert caught.value.line == 4
    quoting = tmp_path / "quoting.csv"
    bad = lines[6].replace(",", ',"Turkey"x,', 1).split(",")
    del bad[2]
    quoting.write_text("".join(lines[:6] + [",".join(bad)] + lines[7:]))
    with pytest.raises(SourceError, match=r"malformed CSV .*quoting") as caught:
        read_case_level(quoting)
    assert caught.value.line == 7
    unclosed = tmp_path / "unclosed.csv"
    unclosed.write_text("".join(lines[:9]) + '001-1,"train\n')
    with pytest.raises(SourceError, match=r"malformed CSV"):
        read_case_level(unclosed)


def test_non_utf8_names_the_line(small_csv: Path, tmp_path: Path) -> None:
    data = small_csv.read_bytes()
    lines = data.split(b"\n")
    lines[12] = lines[12].replace(b"train", b"tr\xe4in", 1).replace(b"test", b"t\xe4st", 1)
    path = tmp_path / "latin1.csv"
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(SourceError, match=r"byte 0xe4 .* not valid UTF-8") as caught:
        read_case_level(path)
    assert caught.value.line == 13


def test_empty_file_and_header_only(tmp_path: Path) -> None:
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(SourceError, match="file is empty"):
        read_case_level(empty)
    header_only = tmp_path / "header.csv"
    header_only.write_text(",".join(schema.HEADER) + "\n")
    with pytest.raises(SourceError, match="no data rows"):
        read_case_level(header_only)


def test_applicant_rows_must_point_at_existing_cases(small_csv: Path, tmp_path: Path) -> None:
    table = read_case_level(small_csv)
    ids = table.column("case_id").to_pylist()
    header = ["case_id", "applicant_type", "npd_award_eur", "npd_award_scope", "npd_award_status"]
    good = _write(tmp_path / "applicants.csv", [
        header, [ids[0], "individual", "3000", "individual", "awarded"],
        [ids[1], "individual", "unknown", "unknown", "unknown"]])
    applicants = read_applicant_level(good, ids)
    assert applicants.column("npd_award_eur").to_pylist() == [3000.0, None]
    orphan = _write(tmp_path / "orphan.csv", [
        header, [ids[0], "individual", "3000", "individual", "awarded"],
        ["001-99999999", "individual", "10", "individual", "awarded"]])
    with pytest.raises(SourceError, match=r"'001-99999999' is not a case_id") as caught:
        read_applicant_level(orphan, ids)
    assert (caught.value.line, caught.value.column) == (3, "case_id")
    negative = _write(tmp_path / "negative.csv", [
        header, [ids[0], "individual", "-5", "individual", "awarded"]])
    with pytest.raises(SourceError, match=r">= 0") as caught:
        read_applicant_level(negative, ids)
    assert caught.value.column == "npd_award_eur"
    no_award = _write(tmp_path / "no_award.csv", [header[:2], [ids[0], "individual"]])
    with pytest.raises(SourceError, match=r"lacks required column"):
        read_applicant_level(no_award, ids)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(column=st.sampled_from(schema.HEADER), value=st.text(
    alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12))
def test_any_cell_value_either_reads_or_raises_source_error(small_csv: Path, tmp_path: Path,
                                                             column: str, value: str) -> None:
    path = _mutated(small_csv, tmp_path, 4, column, value)
    try:
        table = read_case_level(path)
    except SourceError as error:
        assert error.path == str(path)
        assert error.line is not None
        return
    assert table.num_rows == 60  # accepted: the whole file, typed


def test_non_ascii_digits_are_not_numbers(small_csv: Path, tmp_path: Path) -> None:
    path = _mutated(small_csv, tmp_path, 4, "num_applicants", "٣")
    with pytest.raises(SourceError, match="an integer"):
        read_case_level(path)


def test_the_first_bad_row_is_reported_when_a_later_row_repeats_an_earlier_bad_value(
        small_csv: Path, tmp_path: Path) -> None:
    # each distinct value is parsed once: the error must still name the first row holding a
    # bad value, not the first row of the bad value met first
    rows = _rows(small_csv)
    column = rows[0].index("num_applicants")
    rows[9][column], rows[4][column], rows[20][column] = "x", "y", "x"
    with pytest.raises(SourceError) as caught:
        read_case_level(_write(tmp_path / "bad.csv", rows))
    assert "line 5" in str(caught.value) and "value 'y'" in str(caught.value)


def test_the_earliest_row_breaking_any_rule_is_reported_before_a_later_row_breaking_an_earlier_rule(
        small_csv: Path, tmp_path: Path) -> None:
    rows = _rows(small_csv)
    header = rows[0]
    binary = header.index("y_binary")
    train = _row_where(small_csv, "split", lambda v: v == "train")
    later, earlier = train + 30, train  # y_binary is checked before test_challenging_view
    rows[later][binary] = "1" if rows[later][binary] == "0" else "0"
    rows[earlier][header.index("test_challenging_view")] = "yes"
    with pytest.raises(SourceError) as caught:
        read_case_level(_write(tmp_path / "bad.csv", rows))
    message = str(caught.value)
    assert f"line {earlier + 1}" in message and "test_challenging_view" in message


_FIELD = st.text(alphabet=st.sampled_from(list('ab ;,"\n\r\t-é')), max_size=8)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.lists(_FIELD, min_size=3, max_size=3), min_size=1, max_size=6),
       terminator=st.sampled_from(["\n", "\r\n", "\r"]))
def test_pyarrow_values_equal_the_csv_module_values_of_any_strictly_valid_file(
        tmp_path, rows, terminator):
    path = tmp_path / "any.csv"
    with open(path, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator=terminator).writerows([["a", "b", "c"], *rows])
    try:
        _, columns, lines = read_rows(path, expected_header=["a", "b", "c"])
    except SourceError:  # e.g. a lone CR splits a record: the strict parse refuses both ways
        with pytest.raises(SourceError):
            read_string_table(path, ["a", "b", "c"])
        return
    table, table_lines = read_string_table(path, ["a", "b", "c"])
    assert table_lines == lines
    assert [table.column(name).to_pylist() for name in "abc"] == columns


def test_a_disagreement_between_the_two_parsers_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "two.csv"
    path.write_text("a,b\n1,2\n3,4\n", encoding="utf-8")
    one_row_short = reader.pa_csv.read_csv
    monkeypatch.setattr(reader.pa_csv, "read_csv",
                        lambda *args, **kwargs: one_row_short(*args, **kwargs).slice(1))
    with pytest.raises(SourceError, match="csv module read 2 records but pyarrow 1"):
        read_string_table(path, ["a", "b"])
