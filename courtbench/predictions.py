"""Read a predictions file (JSON Lines or CSV) strictly against the ids of a split.

Shared by the dataset plugins' evaluation commands (generated texts, predicted numbers,
whatever a dataset predicts). Every problem names the file, the line, the
column and the value; id mismatches (unknown, duplicate, missing) are collected and reported
together so that one run shows everything to fix.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Hashable, Iterable, Iterator
from pathlib import Path
from typing import Any

from courtbench.errors import (
    MAX_QUOTED_CHARS,
    CourtbenchError,
    SourceError,
    quoted,
    shorten_message,
)
from courtbench.textio import decode_utf8, strict_csv

JSONL_SUFFIXES = (".jsonl", ".ndjson")
CSV_SUFFIXES = (".csv",)
MAX_LISTED = 20


def _records_jsonl(path: Path, text: str) -> Iterator[tuple[int, dict]]:
    # only "\n" ends a record: str.splitlines() would also split on U+2028, U+0085 and form
    # feeds, which json.dumps(ensure_ascii=False) leaves inside strings
    for number, line in enumerate(_lines(text), start=1):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise SourceError(path, f"invalid JSON ({error.msg} at character {error.pos + 1})",
                              line=number) from None
        if not isinstance(record, dict):
            raise SourceError(path, f"expected a JSON object per line, got {type(record).__name__}",
                              line=number)
        yield number, record


def _lines(text: str) -> Iterator[str]:
    """``text.split("\n")`` lazily: a 100 MB file must not become a list of millions of
    strings before the first record is read."""
    start = 0
    while True:
        end = text.find("\n", start)
        if end < 0:
            yield text[start:]
            return
        yield text[start:end]
        start = end + 1


class _Collected:
    """The first problems of one kind (enough to list) and how many there were in all, so
    that a file of millions of bad lines costs no more memory than a good one."""

    def __init__(self) -> None:
        self.items: list = []
        self.total = 0

    def add(self, item: Any) -> None:
        self.total += 1
        if len(self.items) <= MAX_LISTED:
            self.items.append(item)

    def __bool__(self) -> bool:
        return self.total > 0


def _records_csv(path: Path, text: str, columns: tuple[str, str]) -> Iterator[tuple[int, dict]]:
    header, records = strict_csv(path, io.StringIO(text, newline=""), skip_blank=True)
    missing = [c for c in columns if c not in header]
    if missing:
        raise SourceError(path, f"header {header} lacks column(s) {', '.join(missing)}", line=1)
    for line, values in records:
        yield line, dict(zip(header, values, strict=True))


def _id_key(value: Any) -> str:
    """Ids are matched by their text, so CSV "17" matches a dataset id 17."""
    return str(value)


def integer_id(value: Any) -> int:
    """A predictions file's id as an integer: a JSON integer, or its decimal text (CSV).

    Raises:
        ValueError: anything else (a bool, a fraction, other text), naming the expected form.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isascii() and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    raise ValueError(f"sample id {value!r} is not an integer; expected the integer sample id "
                     f"of a dataset row (e.g. 4711)")


def read_predictions(
    path: str | Path,
    id_column: str,
    value_column: str,
    expected_ids: Iterable[Hashable],
    parse_value: Callable[[Any], Any],
    parse_id: Callable[[Any], Hashable] | None = None,
    ignored_ids: Iterable[Hashable] = (),
) -> dict:
    """Read one prediction per expected id from a JSON Lines or CSV file.

    Args:
        path: ``*.jsonl`` / ``*.ndjson`` (one JSON object per line; blank lines ignored) or
            ``*.csv`` (UTF-8, header row, RFC 4180 quoting so values may span lines).
        id_column: field holding the sample id; matched against ``expected_ids`` by text,
            or, when ``parse_id`` is given or every expected id is an integer, parsed with
            ``parse_id`` (default :func:`integer_id`) and matched as a number (CSV "17" is 17).
        value_column: field holding the prediction.
        expected_ids: the ids of the evaluated split, each exactly once.
        parse_value: converts the raw field (JSON value, or CSV string) into the prediction;
            raises ``ValueError`` or ``TypeError`` for a bad value.
        parse_id: converts the raw id into the dataset's id; raises ``ValueError`` (its
            message says the expected form) for an id of the wrong form.
        ignored_ids: ids of the dataset that are not evaluated (other splits): rows with
            them are skipped, neither matched nor refused as unknown.

    Returns:
        ``{expected_id: parsed value}`` in the order of ``expected_ids``.

    Raises:
        SourceError: unreadable file, unknown format, malformed line or missing field (with
            line and column); bad values are all collected and listed in one error, which
            names the first one's line.
        CourtbenchError: ids that the split lacks (unknown), ids given more than once
            (duplicate) and ids of the split without a prediction (missing), all listed.
    """
    path = Path(path)
    expected_ids = list(expected_ids)
    if parse_id is None and expected_ids and all(
            isinstance(i, int) and not isinstance(i, bool) for i in expected_ids):
        parse_id = integer_id
    expected = _expected_keys(expected_ids)
    ignored = {_id_key(i) for i in ignored_ids} - set(expected)
    records = _read_records(path, id_column, value_column)
    values: dict[str, Any] = {}
    first_line: dict[str, int] = {}
    unknown, duplicate, bad_values = _Collected(), _Collected(), _Collected()
    for line, record in records:
        key = _record_key(path, line, record, id_column, value_column, parse_id)
        if key in ignored:
            continue
        try:
            value = parse_value(record[value_column])
        except (ValueError, TypeError, OverflowError) as error:
            # a parser's message may repeat the whole value (float's does): cut it too
            bad_values.add((line, quoted(record[value_column]),
                            shorten_message(str(error), MAX_QUOTED_CHARS)))
            continue
        if key not in expected:
            unknown.add((key, line))
        elif key in values:
            duplicate.add((key, line, first_line[key]))
        else:
            values[key] = value
            first_line[key] = line
    _raise_bad_values(path, bad_values, value_column)
    missing = [key for key in expected if key not in values]
    if unknown or duplicate or missing:
        raise CourtbenchError(_mismatch_message(path, len(expected), unknown, duplicate, missing))
    return {expected[key]: values[key] for key in expected}


def _expected_keys(expected_ids: list[Hashable]) -> dict:
    """``{matching key: expected id}``; CourtbenchError when an id repeats."""
    expected = {}
    for sample_id in expected_ids:
        key = _id_key(sample_id)
        if key in expected:
            raise CourtbenchError(f"expected ids contain {quoted(sample_id)} twice; a split's "
                                  "ids must be unique")
        expected[key] = sample_id
    return expected


def _read_records(path: Path, id_column: str, value_column: str) -> Iterator[tuple[int, dict]]:
    """``[(line, record)]`` of a JSON Lines or CSV predictions file."""
    suffix = path.suffix.lower()
    if suffix not in JSONL_SUFFIXES + CSV_SUFFIXES:
        raise SourceError(path, f"unknown predictions format {suffix or '(no suffix)'!r}; expected "
                          f"JSON Lines ({', '.join(JSONL_SUFFIXES)}) or CSV (.csv)")
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SourceError(path, "file not found") from None
    except OSError as error:
        raise SourceError(path, f"cannot read the file: {error}") from None
    text = decode_utf8(path, data, expected="predictions file")
    return (_records_jsonl(path, text) if suffix in JSONL_SUFFIXES
            else _records_csv(path, text, (id_column, value_column)))


def _record_key(path: Path, line: int, record: dict, id_column: str, value_column: str,
                parse_id: Callable[[Any], Hashable] | None) -> Hashable:
    """The matching key of a record's id; SourceError for a missing field or a bad id."""
    for column in (id_column, value_column):
        if column not in record:
            raise SourceError(path, f"field missing (fields: {', '.join(map(str, record))})",
                              line=line, column=column)
    raw_id = record[id_column]
    if raw_id is None or isinstance(raw_id, (dict, list, bool)) or str(raw_id).strip() == "":
        raise SourceError(path, f"invalid sample id {quoted(raw_id)}", line=line, column=id_column)
    if parse_id is not None:
        try:
            raw_id = parse_id(raw_id)
        except ValueError as error:
            raise SourceError(path, str(error), line=line, column=id_column) from None
    return _id_key(raw_id)


def _raise_bad_values(path: Path, bad_values: _Collected, value_column: str) -> None:
    """One SourceError listing every bad value (the first one's line named), if any."""
    if not bad_values:
        return
    (line, value, reason), others = bad_values.items[0], bad_values.items[1:]
    listed = _listing([f"line {n} ({v}: {r})" for n, v, r in others], bad_values.total - 1)
    raise SourceError(path, f"bad value {value}: {reason}"
                      + (f"; {bad_values.total - 1} more bad value(s): {listed}"
                         if others else ""),
                      line=line, column=value_column)


def _listing(items: list[str], total: int | None = None) -> str:
    total = len(items) if total is None else total
    shown = ", ".join(items[:MAX_LISTED])
    return shown + (f", ... ({total - MAX_LISTED} more)" if total > MAX_LISTED else "")


def _mismatch_message(path: Path, n_expected: int, unknown: _Collected, duplicate: _Collected,
                      missing: list) -> str:
    parts = []
    if unknown:
        parts.append(f"{unknown.total} unknown sample id(s) not in the split: "
                     + _listing([f"{quoted(key)} (line {line})" for key, line in unknown.items],
                                unknown.total))
    if duplicate:
        parts.append(f"{duplicate.total} duplicate sample id(s): "
                     + _listing([f"{quoted(key)} (line {line}, first on line {first})"
                                 for key, line, first in duplicate.items], duplicate.total))
    if missing:
        parts.append(f"{len(missing)} of {n_expected} sample id(s) of the split have no prediction: "
                     + _listing([repr(key) for key in missing]))
    return f"{path}: " + "; ".join(parts)
