"""Strict reading of the release's ``case_level.csv`` (and ``applicant_level.csv``).

:func:`read_case_level` turns the CSV into one canonical typed ``pyarrow.Table`` whose
schema is :data:`ecthr_npd.schema.CANONICAL_FEATURES` (ClassLabel columns hold label
indices). Nothing passes silently: non-UTF-8 bytes, bad quoting, ragged rows, a wrong header,
a value outside its type or value set, and the cross-column rules of the release raise
:class:`courtbench.errors.SourceError` naming the file, line, column, value and expectation.
The whole file is checked before any table is returned; there is no partial table.
"""

from __future__ import annotations

import datetime as dt
import io
import math
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from courtbench.errors import SourceError, quoted
from courtbench.hub.features import arrow_type
from courtbench.textio import decode_utf8, read_input_bytes, strict_csv
from ecthr_npd import schema
from ecthr_npd.schema import LIST_SEPARATOR, UNKNOWN, Column

# ASCII digits only: ``\d`` would accept other scripts' digits, which int() then converts.
_INT = re.compile(r"-?[0-9]+")
_FLOAT = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def read_rows(path: Path, expected_header: Sequence[str] | None = None,
              required: Sequence[str] = ()) -> tuple[list[str], list[list[str]], list[int]]:
    """Parse a CSV file strictly.

    Args:
        path: the CSV file.
        expected_header: when given, the header must equal it exactly (names and order).
        required: columns that must be present (when ``expected_header`` is not given).

    Returns:
        ``(header, columns, lines)``: the header, one list of raw strings per column, and the
        1-based line on which each record starts.

    Raises:
        SourceError: non-UTF-8 bytes, bad quoting, an empty file, a wrong header, a row with
            the wrong number of fields.
    """
    path = Path(path)
    text = _source_text(path)
    header, records = strict_csv(path, io.StringIO(text, newline=""))
    _check_header(path, header, expected_header, required)
    lines: list[int] = []
    rows = []
    for start, row in records:  # strict_csv checked every row's field count
        lines.append(start)
        rows.append(row)
    columns = ([list(values) for values in zip(*rows, strict=True)] if rows
               else [[] for _ in header])
    return header, columns, lines


def read_string_table(path: Path, expected_header: Sequence[str]) -> tuple[pa.Table, list[int]]:
    """:func:`read_rows` with the values as an Arrow table of strings.

    The strictness is the csv module's, as in :func:`read_rows` (quoting, field counts, the
    header, each record's line); the values are then parsed from the same text by pyarrow's
    CSV reader, which agrees with the csv module on every file the strict parse accepts and
    saves converting every value from a Python string (the reader's largest cost).

    Returns:
        ``(table, lines)``: one string column per header name, and the 1-based line on
        which each record starts.
    """
    path = Path(path)
    text = _source_text(path)
    header, records = strict_csv(path, io.StringIO(text, newline=""))
    _check_header(path, header, expected_header, ())
    lines = [start for start, _ in records]  # strict_csv checks every row as it goes
    if not lines:
        return pa.table({name: pa.array([], type=pa.string()) for name in header}), lines
    table = pa_csv.read_csv(
        io.BytesIO(text.encode("utf-8")),
        read_options=pa_csv.ReadOptions(column_names=header, skip_rows=1),
        parse_options=pa_csv.ParseOptions(newlines_in_values=True),
        convert_options=pa_csv.ConvertOptions(
            column_types={name: pa.string() for name in header}, strings_can_be_null=False,
            quoted_strings_can_be_null=False))
    if table.num_rows != len(lines):  # never seen; refuse rather than guess which is right
        raise SourceError(path, f"the csv module read {len(lines):,} records but pyarrow "
                          f"{table.num_rows:,}; expected the same records from both")
    return table, lines


def _source_text(path: Path) -> str:
    """The source file's text: at most :data:`MAX_SOURCE_BYTES`, UTF-8, BOM dropped."""
    return decode_utf8(path, read_input_bytes(path, expected="CSV file",
                                              max_bytes=MAX_SOURCE_BYTES,
                                              size_note=SOURCE_SIZE_NOTE),
                       expected="(ASCII) CSV file")


def _check_header(path: Path, header: list[str], expected: Sequence[str] | None,
                  required: Sequence[str]) -> None:
    duplicates = sorted({name for name in header if header.count(name) > 1})
    if duplicates:
        raise SourceError(path, f"header repeats column(s) {duplicates}", line=1)
    if expected is not None and list(header) != list(expected):
        _header_mismatch(path, header, expected)
    missing = [name for name in required if name not in header]
    if missing:
        raise SourceError(path, f"header lacks required column(s) {missing}", line=1)


def _header_mismatch(path: Path, header: list[str], expected: Sequence[str]) -> None:
    """Raise the SourceError for a header that differs from ``expected``: the missing and
    unexpected names, or else the first column out of the release's order."""
    missing = [name for name in expected if name not in header]
    extra = [name for name in header if name not in expected]
    if missing or extra:
        raise SourceError(path, f"header: missing column(s) {missing}, unexpected column(s) "
                          f"{extra}; expected the release's {len(expected)} columns", line=1)
    position = next(i for i, (a, b) in enumerate(zip(header, expected, strict=True)) if a != b)
    raise SourceError(path, f"header: column {position + 1} is {quoted(header[position])}, "
                      f"expected {expected[position]!r} (the release's column order)", line=1,
                      column=header[position])


#: Largest release file read. The release's case_level.csv is 3.2 MiB; reading holds the
#: whole file and its columns, about 14 bytes of memory per byte (benchmarks/
#: bench_reader_memory.py: 1.3 GiB for 95 MiB), so a bound keeps a wrong file from
#: exhausting memory.
MAX_SOURCE_BYTES = 64 * 2**20
SOURCE_SIZE_NOTE = (" (the release's case_level.csv is about 3 MiB; reading needs about 14 "
                    "times the file size in memory)")
#: Largest value of an integer column (stored as int32).
INT32_MAX = 2**31 - 1

class _Invalid(Exception):
    """A raw value does not parse; ``expected`` says what was expected instead."""

    def __init__(self, expected: str) -> None:
        super().__init__(expected)
        self.expected = expected


class _Converter:
    """Converts one column's raw strings to an Arrow array, raising at the first bad value.

    Each distinct raw value is parsed once (most columns repeat a few values over thousands
    of rows), in order of first occurrence, so the first bad value met is on the first bad row.
    """

    def __init__(self, path: Path, column: Column, lines: list[int]) -> None:
        self.path, self.column, self.lines = path, column, lines

    def fail(self, index: int, value: str, expected: str) -> SourceError:
        return SourceError(self.path, f"value {quoted(value)}: expected {expected}",
                           line=self.lines[index], column=self.column.name)

    def convert(self, raw: list[str] | pa.Array) -> pa.Array:
        """The column's raw strings (a list, or an Arrow string array) parsed and typed."""
        column = self.column
        kind = column.kind
        parse = self._set if kind in ("str_set", "int_set") else getattr(self, f"_{kind}")
        if not isinstance(raw, pa.Array):
            raw = pa.array(raw, type=pa.string())
        # distinct values in order of first occurrence, and each row's position among them
        encoded = pc.dictionary_encode(raw)
        parsed = []
        for value in encoded.dictionary.to_pylist():
            if value == UNKNOWN and column.nullable:
                parsed.append(None)
                continue
            try:
                parsed.append(parse(value))
            except _Invalid as error:
                raise self.fail(pc.index(raw, value).as_py(), value, error.expected) from None
        distinct = pa.array(parsed, type=arrow_type(column.feature))
        return distinct.take(encoded.indices)

    def _string(self, value: str) -> str:
        pattern = self.column.pattern
        if not value or (pattern is not None and not pattern.fullmatch(value)):
            raise _Invalid(f"a string matching the pattern {pattern.pattern}"
                           if pattern is not None else "a non-empty string")
        return value

    def _label(self, value: str) -> int:
        try:
            return self.column.values.index(value)
        except ValueError:
            allowed = list(self.column.values) + ([UNKNOWN] if self.column.nullable else [])
            raise _Invalid(f"one of {allowed}") from None

    def _date(self, value: str) -> dt.date:
        if _DATE.fullmatch(value):
            try:
                return dt.date.fromisoformat(value)
            except ValueError:
                pass
        raise _Invalid("an ISO date yyyy-mm-dd")

    def _number(self, value: str, pattern: re.Pattern, cast: type, what: str):
        if not pattern.fullmatch(value):
            raise _Invalid(what + self._null_note())
        number = cast(value)
        if not math.isfinite(number):
            raise _Invalid("a finite number")
        minimum = self.column.minimum
        if minimum is not None and number < minimum:
            raise _Invalid(f"a number >= {minimum:g}")
        if cast is int and number > INT32_MAX:  # the column is stored as int32
            raise _Invalid(f"an integer <= {INT32_MAX:,}")
        return number

    def _int(self, value: str) -> int:
        return self._number(value, _INT, int, "an integer")

    def _float(self, value: str) -> float:
        return self._number(value, _FLOAT, float, "a decimal number")

    def _bool(self, value: str) -> bool:
        true, false = self.column.true_false
        if value == true:
            return True
        if value == false:
            return False
        raise _Invalid(f"{true!r} or {false!r}" + self._null_note())

    def _null_note(self) -> str:
        return f" or {UNKNOWN!r}" if self.column.nullable else ""

    def _set(self, value: str) -> list:
        """One ';'-separated set: its members parsed (``unknown`` members null when the
        column is nullable), repeated members refused."""
        members = value.split(LIST_SEPARATOR)
        if len(set(members)) != len(members):
            raise _Invalid("a ';'-separated set without repeated members")
        return [None if member == UNKNOWN and self.column.nullable else self._member(member)
                for member in members]

    def _member(self, member: str) -> int | str:
        column = self.column
        if column.kind == "int_set":
            minimum = column.minimum if column.minimum is not None else float("-inf")
            if not _INT.fullmatch(member) or not minimum <= int(member) <= INT32_MAX:
                raise _Invalid(f"';'-separated integers >= {minimum:g} and <= {INT32_MAX:,}"
                               f"{self._null_note()} (member {quoted(member)} is not)")
            return int(member)
        if column.values and member not in column.values:
            raise _Invalid(f"';'-separated members of {list(column.values)}"
                           + self._null_note())
        if column.pattern is not None and not column.pattern.fullmatch(member):
            raise _Invalid(f"';'-separated members matching the pattern "
                           f"{column.pattern.pattern}")
        if not member:
            raise _Invalid("';'-separated non-empty members")
        return member


def read_case_level(path: str | Path) -> pa.Table:
    """Read and validate the release's ``case_level.csv``.

    Args:
        path: the CSV (the release, a sample of it, or the synthetic stand-in).

    Returns:
        A ``pyarrow.Table`` with the release's 33 columns in order, typed as
        :data:`ecthr_npd.schema.CANONICAL_FEATURES` (schema metadata included), rows in file
        order. Awards are nominal euros; GDP in US dollars; durations in months.

    Raises:
        SourceError: the first problem found (file, line, column, value, expectation).
    """
    path = Path(path)
    raw, lines = read_string_table(path, schema.HEADER)
    if not lines:
        raise SourceError(path, "no data rows; expected at least one case", line=2)
    arrays = {column.name: _Converter(path, column, lines).convert(
        raw.column(column.name).combine_chunks()) for column in schema.COLUMNS}
    table = pa.table(arrays).cast(schema.CANONICAL_FEATURES.arrow_schema)
    check_rules(path, table, lines)
    return table


def check_rules(path: Path, table: pa.Table, lines: list[int]) -> None:
    """The release's cross-column rules; SourceError at the first row that breaks one.

    ``case_id`` unique; ``y_binary == int(y_amount_eur > 0)``; ``violated_articles_count`` =
    number of distinct codes; ``judgment_year`` = year of ``judgment_date``; decision body,
    court formation and ``is_grand_chamber`` agree; one state name per ``country_alpha2``;
    ``test_view`` is ID/OOD exactly on test and ``not_applicable`` elsewhere;
    ``test_challenging_view`` only on test. On the first row breaking any rule, the first
    rule it breaks (in this order) is reported. Checked column-wise on the whole table.
    """
    broken = _rule_masks(table)
    rows = np.flatnonzero(np.logical_or.reduce([mask for _, mask in broken]))
    if not len(rows):
        return
    i = int(rows[0])
    column = next(name for name, mask in broken if mask[i])
    row = {name: table.column(name)[i].as_py() for name in _RULE_COLUMNS}
    if column == "case_id":
        row["first_line"] = lines[_first_rows(table.column("case_id"))[i]]
    if column == "respondent_state":  # the state named on the code's first row
        first = int(_first_rows(table.column("country_alpha2"))[i])
        row["known_state"] = table.column("respondent_state")[first].as_py()
        row["known_line"] = lines[first]
    raise SourceError(path, _RULE_MESSAGES[column](row), line=lines[i], column=column)


_RULE_COLUMNS = (
    "case_id", "split", "test_view", "test_challenging_view", "judgment_date",
    "judgment_year", "respondent_state", "country_alpha2", "hudoc_decision_body",
    "court_formation", "is_grand_chamber", "violated_articles", "violated_articles_count",
    "y_amount_eur", "y_binary")


def _numpy(table: pa.Table, name: str) -> np.ndarray:
    return table.column(name).to_numpy()


def _first_rows(values: pa.ChunkedArray) -> np.ndarray:
    """Per row, the index of the first row holding the same value."""
    codes = pc.dictionary_encode(values.combine_chunks()).indices.to_numpy()
    _, first = np.unique(codes, return_index=True)
    return first[codes]


def _distinct_counts(lists: pa.ChunkedArray) -> np.ndarray:
    """Per row, the number of distinct members of a list column (no nulls)."""
    lists = lists.combine_chunks()
    parents = pc.list_parent_indices(lists).to_numpy().astype(np.int64)
    codes = pc.dictionary_encode(pc.list_flatten(lists)).indices.to_numpy()
    width = int(codes.max(initial=0)) + 1
    pairs = np.unique(parents * width + codes)  # one entry per distinct (row, member)
    return np.bincount(pairs // width, minlength=len(lists))


def _rule_masks(table: pa.Table) -> list[tuple[str, np.ndarray]]:
    """``(column, rows breaking the rule)`` for each rule, in the order they are reported."""
    every_row = np.arange(table.num_rows)
    split, view = _numpy(table, "split"), _numpy(table, "test_view")
    body, formation = _numpy(table, "hudoc_decision_body"), _numpy(table, "court_formation")
    on_test = split == schema.SPLITS.index("test")
    states = table.column("respondent_state").combine_chunks()
    first_state = states.take(pa.array(_first_rows(table.column("country_alpha2"))))
    return [
        ("case_id", _first_rows(table.column("case_id")) != every_row),
        ("y_binary", _numpy(table, "y_binary") != (_numpy(table, "y_amount_eur") > 0)),
        ("violated_articles_count", _numpy(table, "violated_articles_count")
         != _distinct_counts(table.column("violated_articles"))),
        ("judgment_year", _numpy(table, "judgment_year")
         != pc.year(table.column("judgment_date")).to_numpy()),
        ("court_formation", body != formation),  # same index order in both value sets
        ("is_grand_chamber", _numpy(table, "is_grand_chamber")
         != (formation == schema.COURT_FORMATIONS.index("Grand Chamber"))),
        ("respondent_state", pc.not_equal(states, first_state).to_numpy(zero_copy_only=False)),
        ("test_view", on_test == (view == schema.TEST_VIEWS.index("not_applicable"))),
        ("test_challenging_view", _numpy(table, "test_challenging_view") & ~on_test),
    ]


def _yes_no(flag: bool) -> str:
    return "yes" if flag else "no"


def _state_message(row: dict) -> str:
    return (f"value {row['respondent_state']!r} for country_alpha2 {row['country_alpha2']!r}, "
            f"which line {row['known_line']} names {row['known_state']!r}; expected one state "
            "per code")


def _view_message(row: dict) -> str:
    on_test = row["split"] == schema.SPLITS.index("test")
    expected = "'ID' or 'OOD' on test" if on_test else "'not_applicable' off test"
    return (f"value {schema.TEST_VIEWS[row['test_view']]!r} on split "
            f"{schema.SPLITS[row['split']]!r}; expected {expected}")


def _count_message(row: dict) -> str:
    articles = row["violated_articles"]
    return (f"value {row['violated_articles_count']} with violated_articles "
            f"{';'.join(articles)!r}; expected the number of distinct codes, "
            f"{len(set(articles))}")


#: column → the problem of a row breaking its rule, from the row's values (and, for case_id,
#: ``first_line``; for respondent_state, ``known_state`` and ``known_line``).
_RULE_MESSAGES = {
    "case_id": lambda row: (
        f"value {quoted(row['case_id'])} repeats the case on line {row['first_line']}; expected "
        "unique case ids"),
    "y_binary": lambda row: (
        f"value {row['y_binary']} with y_amount_eur {row['y_amount_eur']:g}; expected "
        f"int(y_amount_eur > 0) = {int(row['y_amount_eur'] > 0)}"),
    "violated_articles_count": _count_message,
    "judgment_year": lambda row: (
        f"value {row['judgment_year']} with judgment_date {row['judgment_date']}; expected "
        f"{row['judgment_date'].year}"),
    "court_formation": lambda row: (
        f"value {schema.COURT_FORMATIONS[row['court_formation']]!r} with hudoc_decision_body "
        f"{schema.DECISION_BODIES[row['hudoc_decision_body']]!r}; expected "
        f"{schema.COURT_FORMATIONS[row['hudoc_decision_body']]!r}"),
    "is_grand_chamber": lambda row: (
        f"value {_yes_no(row['is_grand_chamber'])} with court_formation "
        f"{schema.COURT_FORMATIONS[row['court_formation']]!r}; expected "
        f"{_yes_no(row['court_formation'] == schema.COURT_FORMATIONS.index('Grand Chamber'))}"),
    "respondent_state": _state_message,
    "test_view": _view_message,
    "test_challenging_view": lambda row: (
        f"value 'yes' on split {schema.SPLITS[row['split']]!r}; expected 'no' outside test"),
}


def read_applicant_level(path: str | Path, case_ids: Sequence[str]) -> pa.Table:
    """Read the companion ``applicant_level.csv`` (one row per applicant source record).

    Every column is kept; ``unknown`` becomes null; ``npd_award_eur`` is a float (EUR, ≥ 0,
    null when missing — missing never means zero); other columns are strings.

    Args:
        path: the CSV file.
        case_ids: the case table's ids; every applicant row must point at one of them.

    Raises:
        SourceError: malformed CSV, missing ``case_id`` / award columns, a bad award amount,
            or a ``case_id`` that is not a case of the case table.
    """
    path = Path(path)
    header, raw_columns, lines = read_rows(
        path, required=(schema.APPLICANT_KEY, *schema.APPLICANT_AWARD_COLUMNS))
    known = set(case_ids)
    arrays = {}
    for name, raw in zip(header, raw_columns, strict=True):
        if name == "npd_award_eur":
            column = Column(name, "float", schema.AUDIT, "", nullable=True, minimum=0)
            arrays[name] = _Converter(path, column, lines).convert(raw)
            continue
        if name == schema.APPLICANT_KEY:
            for index, value in enumerate(raw):
                if value not in known:
                    raise SourceError(path, f"value {quoted(value)} is not a case_id of the case table;"
                                      " expected applicant rows of existing cases",
                                      line=lines[index], column=name)
        arrays[name] = pa.array([None if v == UNKNOWN else v for v in raw], type=pa.string())
    return pa.table(arrays)
