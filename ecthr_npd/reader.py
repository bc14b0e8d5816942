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

import pyarrow as pa

from courtbench.errors import SourceError, quoted
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
    text = decode_utf8(path, read_input_bytes(path, expected="CSV file",
                                              max_bytes=MAX_SOURCE_BYTES,
                                              size_note=SOURCE_SIZE_NOTE),
                       expected="(ASCII) CSV file")
    header, records = strict_csv(path, io.StringIO(text, newline=""))
    _check_header(path, header, expected_header, required)
    columns: list[list[str]] = [[] for _ in header]
    lines: list[int] = []
    for start, row in records:
        lines.append(start)
        for values, value in zip(columns, row, strict=True):
            values.append(value)
    return header, columns, lines


def _check_header(path: Path, header: list[str], expected: Sequence[str] | None,
                  required: Sequence[str]) -> None:
    duplicates = sorted({name for name in header if header.count(name) > 1})
    if duplicates:
        raise SourceError(path, f"header repeats column(s) {duplicates}", line=1)
    if expected is not None and list(header) != list(expected):
        missing = [name for name in expected if name not in header]
        extra = [name for name in header if name not in expected]
        if missing or extra:
            raise SourceError(path, f"header: missing column(s) {missing}, unexpected column(s) "
                              f"{extra}; expected the release's {len(expected)} columns", line=1)
        position = next(i for i, (a, b) in enumerate(zip(header, expected, strict=True)) if a != b)
        raise SourceError(path, f"header: column {position + 1} is {quoted(header[position])}, "
                          f"expected {expected[position]!r} (the release's column order)", line=1,
                          column=header[position])
    missing = [name for name in required if name not in header]
    if missing:
        raise SourceError(path, f"header lacks required column(s) {missing}", line=1)


#: Largest release file read. The release's case_level.csv is 3.2 MiB; reading holds the
#: whole file and its columns, about 14 bytes of memory per byte (benchmarks/
#: bench_reader_memory.py: 1.3 GiB for 95 MiB), so a bound keeps a wrong file from
#: exhausting memory.
MAX_SOURCE_BYTES = 64 * 2**20
SOURCE_SIZE_NOTE = (" (the release's case_level.csv is about 3 MiB; reading needs about 14 "
                    "times the file size in memory)")
#: Largest value of an integer column (stored as int32).
INT32_MAX = 2**31 - 1

class _Converter:
    """Converts one column's raw strings to an Arrow array, raising at the first bad value."""

    def __init__(self, path: Path, column: Column, lines: list[int]) -> None:
        self.path, self.column, self.lines = path, column, lines

    def fail(self, index: int, value: str, expected: str) -> SourceError:
        return SourceError(self.path, f"value {quoted(value)}: expected {expected}",
                           line=self.lines[index], column=self.column.name)

    def convert(self, raw: list[str]) -> pa.Array:
        column = self.column
        kind = column.kind
        if kind in ("str_set", "int_set"):
            return self._sets(raw)
        parse = getattr(self, f"_{kind}")
        values = []
        for index, value in enumerate(raw):
            if value == UNKNOWN and column.nullable:
                values.append(None)
                continue
            values.append(parse(index, value))
        return pa.array(values, type=column.feature.pa_type if kind != "label" else pa.int64())

    def _string(self, index: int, value: str) -> str:
        pattern = self.column.pattern
        if not value or (pattern is not None and not pattern.fullmatch(value)):
            raise self.fail(index, value, f"a string matching the pattern {pattern.pattern}"
                            if pattern is not None else "a non-empty string")
        return value

    def _label(self, index: int, value: str) -> int:
        try:
            return self.column.values.index(value)
        except ValueError:
            allowed = list(self.column.values) + ([UNKNOWN] if self.column.nullable else [])
            raise self.fail(index, value, f"one of {allowed}") from None

    def _date(self, index: int, value: str) -> dt.date:
        if _DATE.fullmatch(value):
            try:
                return dt.date.fromisoformat(value)
            except ValueError:
                pass
        raise self.fail(index, value, "an ISO date yyyy-mm-dd")

    def _number(self, index: int, value: str, pattern: re.Pattern, cast: type, what: str):
        if not pattern.fullmatch(value):
            raise self.fail(index, value, what + self._null_note())
        number = cast(value)
        if not math.isfinite(number):
            raise self.fail(index, value, "a finite number")
        minimum = self.column.minimum
        if minimum is not None and number < minimum:
            raise self.fail(index, value, f"a number >= {minimum:g}")
        if cast is int and number > INT32_MAX:  # the column is stored as int32
            raise self.fail(index, value, f"an integer <= {INT32_MAX:,}")
        return number

    def _int(self, index: int, value: str) -> int:
        return self._number(index, value, _INT, int, "an integer")

    def _float(self, index: int, value: str) -> float:
        return self._number(index, value, _FLOAT, float, "a decimal number")

    def _bool(self, index: int, value: str) -> bool:
        true, false = self.column.true_false
        if value == true:
            return True
        if value == false:
            return False
        raise self.fail(index, value, f"{true!r} or {false!r}" + self._null_note())

    def _null_note(self) -> str:
        return f" or {UNKNOWN!r}" if self.column.nullable else ""

    def _sets(self, raw: list[str]) -> pa.Array:
        column = self.column
        is_int = column.kind == "int_set"
        values: list[list | None] = []
        for index, value in enumerate(raw):
            if value == UNKNOWN and column.nullable:
                values.append(None)
                continue
            members = value.split(LIST_SEPARATOR)
            if len(set(members)) != len(members):
                raise self.fail(index, value, "a ';'-separated set without repeated members")
            parsed = []
            for member in members:
                if member == UNKNOWN and column.nullable:
                    parsed.append(None)
                elif is_int:
                    minimum = column.minimum if column.minimum is not None else float("-inf")
                    if (not _INT.fullmatch(member) or int(member) < minimum
                            or int(member) > INT32_MAX):
                        raise self.fail(index, value, f"';'-separated integers >= {minimum:g}"
                                        f" and <= {INT32_MAX:,}"
                                        f"{self._null_note()} (member {quoted(member)} is not)")
                    parsed.append(int(member))
                elif column.values and member not in column.values:
                    raise self.fail(index, value, f"';'-separated members of {list(column.values)}"
                                    + self._null_note())
                elif column.pattern is not None and not column.pattern.fullmatch(member):
                    raise self.fail(index, value, f"';'-separated members matching the "
                                    f"pattern {column.pattern.pattern}")
                elif not member:
                    raise self.fail(index, value, "';'-separated non-empty members")
                else:
                    parsed.append(member)
            values.append(parsed)
        return pa.array(values, type=column.feature.pa_type)


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
    _, raw_columns, lines = read_rows(path, expected_header=schema.HEADER)
    if not lines:
        raise SourceError(path, "no data rows; expected at least one case", line=2)
    arrays = {column.name: _Converter(path, column, lines).convert(raw)
              for column, raw in zip(schema.COLUMNS, raw_columns, strict=True)}
    table = pa.table(arrays).cast(schema.CANONICAL_FEATURES.arrow_schema)
    check_rules(path, table, lines)
    return table


def check_rules(path: Path, table: pa.Table, lines: list[int]) -> None:
    """The release's cross-column rules; SourceError at the first row that breaks one.

    ``case_id`` unique; ``y_binary == int(y_amount_eur > 0)``; ``violated_articles_count`` =
    number of distinct codes; ``judgment_year`` = year of ``judgment_date``; decision body,
    court formation and ``is_grand_chamber`` agree; one state name per ``country_alpha2``;
    ``test_view`` is ID/OOD exactly on test and ``not_applicable`` elsewhere;
    ``test_challenging_view`` only on test.
    """
    col = {name: table.column(name).to_pylist() for name in (
        "case_id", "split", "test_view", "test_challenging_view", "judgment_date",
        "judgment_year", "respondent_state", "country_alpha2", "hudoc_decision_body",
        "court_formation", "is_grand_chamber", "violated_articles", "violated_articles_count",
        "y_amount_eur", "y_binary")}
    test = schema.SPLITS.index("test")
    not_applicable = schema.TEST_VIEWS.index("not_applicable")
    grand = schema.COURT_FORMATIONS.index("Grand Chamber")
    first_line: dict[str, int] = {}
    state_of: dict[str, tuple[str, int]] = {}

    def fail(i: int, column: str, problem: str) -> SourceError:
        return SourceError(path, problem, line=lines[i], column=column)

    for i, case_id in enumerate(col["case_id"]):
        if case_id in first_line:
            raise fail(i, "case_id", f"value {quoted(case_id)} repeats the case on line "
                       f"{first_line[case_id]}; expected unique case ids")
        first_line[case_id] = lines[i]
        amount, binary = col["y_amount_eur"][i], col["y_binary"][i]
        if binary != int(amount > 0):
            raise fail(i, "y_binary", f"value {binary} with y_amount_eur {amount:g}; expected "
                       f"int(y_amount_eur > 0) = {int(amount > 0)}")
        articles, count = col["violated_articles"][i], col["violated_articles_count"][i]
        if count != len(set(articles)):
            raise fail(i, "violated_articles_count", f"value {count} with violated_articles "
                       f"{';'.join(articles)!r}; expected the number of distinct codes, "
                       f"{len(set(articles))}")
        year, date = col["judgment_year"][i], col["judgment_date"][i]
        if year != date.year:
            raise fail(i, "judgment_year", f"value {year} with judgment_date {date}; expected "
                       f"{date.year}")
        body, formation = col["hudoc_decision_body"][i], col["court_formation"][i]
        if body != formation:  # same index order in both value sets
            raise fail(i, "court_formation", f"value {schema.COURT_FORMATIONS[formation]!r} with "
                       f"hudoc_decision_body {schema.DECISION_BODIES[body]!r}; expected "
                       f"{schema.COURT_FORMATIONS[body]!r}")
        if col["is_grand_chamber"][i] != (formation == grand):
            raise fail(i, "is_grand_chamber", f"value {'yes' if col['is_grand_chamber'][i] else 'no'}"
                       f" with court_formation {schema.COURT_FORMATIONS[formation]!r}; expected "
                       f"{'yes' if formation == grand else 'no'}")
        alpha2, state = col["country_alpha2"][i], col["respondent_state"][i]
        known = state_of.setdefault(alpha2, (state, lines[i]))
        if known[0] != state:
            raise fail(i, "respondent_state", f"value {state!r} for country_alpha2 {alpha2!r}, "
                       f"which line {known[1]} names {known[0]!r}; expected one state per code")
        split, view = col["split"][i], col["test_view"][i]
        if (split == test) == (view == not_applicable):
            expected = "'ID' or 'OOD' on test" if split == test else "'not_applicable' off test"
            raise fail(i, "test_view", f"value {schema.TEST_VIEWS[view]!r} on split "
                       f"{schema.SPLITS[split]!r}; expected {expected}")
        if col["test_challenging_view"][i] and split != test:
            raise fail(i, "test_challenging_view", f"value 'yes' on split "
                       f"{schema.SPLITS[split]!r}; expected 'no' outside test")


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
