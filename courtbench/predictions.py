"""Read a predictions file (JSON Lines, JSON, CSV or an Inspect ``.eval`` log) strictly against
the ids of a split.

Shared by the dataset plugins' evaluation commands (generated texts, predicted numbers,
whatever a dataset predicts). Every problem names the file, the line, the
column and the value; id mismatches (unknown, duplicate, missing) are collected and reported
together so that one run shows everything to fix. A CSV header naming a column twice and a JSON
object holding a key twice are refused (which one would count?), and :func:`parse_decimal`
reads numbers as plain ASCII decimals only.
"""

from __future__ import annotations

import io
import json
import re
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
JSON_SUFFIXES = (".json",)
CSV_SUFFIXES = (".csv",)
EVAL_SUFFIXES = (".eval",)
MAX_LISTED = 20

_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NON_FINITE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE)


def parse_decimal(text: str) -> float:
    """A number written as plain ASCII decimal text (``1500``, `` 2.5e3``, ``-3``) as a float.

    ``float()`` also reads ``5_000``, full-width and Arabic-Indic digits; a predictions file
    holding them was not written as numbers by a program, so they are refused here, as are
    hexadecimal (``0x1388``) and any other text.

    Raises:
        ValueError: an empty field, ``nan`` / ``inf`` (not finite), or any other text, with
            the form that was expected.
    """
    stripped = text.strip()
    if not stripped:
        raise ValueError("empty field; expected a number")
    if _NON_FINITE.fullmatch(stripped):
        raise ValueError("not finite; expected a finite number")
    if not _DECIMAL.fullmatch(stripped):
        raise ValueError("not a plain decimal number; expected a number in ASCII digits 0-9 "
                         "with an optional '.' and exponent (no '_' separators, hexadecimal "
                         "or digits of other scripts)")
    return float(stripped)


class _DuplicateKey(ValueError):
    """A JSON object holds one key twice."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict:
    """``object_pairs_hook`` refusing a key given twice (json keeps the last one silently)."""
    record: dict = {}
    for key, value in pairs:
        if key in record:
            raise _DuplicateKey(key)
        record[key] = value
    return record


def _loads(path: Path, text: str, line: int) -> Any:
    try:
        return json.loads(text, object_pairs_hook=_unique_pairs)
    except _DuplicateKey as error:
        raise SourceError(path, "the key appears twice in one JSON object; expected each key "
                          "once", line=line, column=error.key) from None
    except json.JSONDecodeError as error:
        raise SourceError(path, f"invalid JSON ({error.msg} at character {error.pos + 1})",
                          line=line) from None


def _records_jsonl(path: Path, text: str) -> Iterator[tuple[int, dict]]:
    # only "\n" ends a record: str.splitlines() would also split on U+2028, U+0085 and form
    # feeds, which json.dumps(ensure_ascii=False) leaves inside strings
    for number, line in enumerate(_lines(text), start=1):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        record = _loads(path, line, number)
        if not isinstance(record, dict):
            raise SourceError(path, f"expected a JSON object per line, got {type(record).__name__}",
                              line=number)
        yield number, record


def _records_json(path: Path, text: str) -> Iterator[tuple[int, dict]]:
    """The objects of a JSON array, each with the line on which it starts."""
    decoder = json.JSONDecoder(object_pairs_hook=_unique_pairs)
    position = _skip_space(text, 0)
    if not text.startswith("[", position):
        raise SourceError(path, "expected a JSON array of objects (one per sample) or JSON "
                          "Lines (.jsonl)", line=text.count("\n", 0, position) + 1)
    position = _skip_space(text, position + 1)
    first = True
    while not text.startswith("]", position):
        line = text.count("\n", 0, position) + 1
        if not first:
            if not text.startswith(",", position):
                raise SourceError(path, "invalid JSON (expected ',' or ']' between records)",
                                  line=line)
            position = _skip_space(text, position + 1)
            line = text.count("\n", 0, position) + 1
        try:
            record, position = decoder.raw_decode(text, position)
        except _DuplicateKey as error:
            raise SourceError(path, "the key appears twice in one JSON object; expected each "
                              "key once", line=line, column=error.key) from None
        except json.JSONDecodeError as error:
            raise SourceError(path, f"invalid JSON ({error.msg})",
                              line=text.count("\n", 0, error.pos) + 1) from None
        if not isinstance(record, dict):
            raise SourceError(path, f"expected a JSON object per record, got "
                              f"{type(record).__name__}", line=line)
        yield line, record
        position, first = _skip_space(text, position), False
    if text[position + 1:].strip():
        raise SourceError(path, "invalid JSON (text after the closing ']')",
                          line=text.count("\n", 0, position) + 1)


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position


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


def _records_csv(path: Path, text: str, columns: tuple[tuple[str, ...], ...]
                 ) -> Iterator[tuple[int, dict]]:
    header, records = strict_csv(path, io.StringIO(text, newline=""), skip_blank=True)
    repeated = next((name for index, name in enumerate(header) if name in header[:index]), None)
    if repeated is not None:
        raise SourceError(path, f"the header names this column twice ({header}); expected each "
                          "column once", line=1, column=repeated)
    missing = [" or ".join(names) for names in columns if not set(names) & set(header)]
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
    *,
    id_aliases: tuple[str, ...] = (),
    value_aliases: tuple[str, ...] = (),
    allow_missing: bool = False,
) -> dict:
    """Read one prediction per expected id from a JSON Lines, JSON or CSV file.

    Args:
        path: ``*.jsonl`` / ``*.ndjson`` (one JSON object per line; blank lines ignored) or
            ``*.json`` (one JSON array of such objects) or ``*.csv`` (UTF-8, header row,
            RFC 4180 quoting so values may span lines). A key or column named twice is
            refused.
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
        id_aliases, value_aliases: other names accepted for ``id_column`` / ``value_column``
            (a record must use exactly one name of each).
        allow_missing: return only the ids found instead of refusing missing ones (the
            caller decides what coverage it accepts); unknown and duplicate ids are still
            refused.

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
    expected = _expected_keys(expected_ids)
    ignored = {_id_key(i) for i in ignored_ids} - set(expected)
    columns = ((id_column, *id_aliases), (value_column, *value_aliases))
    records = (_canonical(path, line, record, columns)
               for line, record in _read_records(path, columns))
    parse_id = _id_parser(parse_id, expected_ids)
    found = _Found(expected)
    for line, record in records:
        key = _record_key(path, line, record, id_column, value_column, parse_id)
        if key not in ignored:
            found.add(key, line, record[value_column], parse_value)
    _raise_bad_values(path, found.bad_values, value_column)
    missing = [] if allow_missing else [key for key in expected if key not in found.values]
    if found.unknown or found.duplicate or missing:
        raise CourtbenchError(_mismatch_message(path, len(expected), found.unknown,
                                                found.duplicate, missing))
    return {expected[key]: found.values[key] for key in expected if key in found.values}


def _id_parser(parse_id: Callable[[Any], Hashable] | None, expected_ids: list[Hashable]
               ) -> Callable[[Any], Hashable] | None:
    """``parse_id``, else :func:`integer_id` when every expected id is an integer, else None
    (ids matched by their text)."""
    if parse_id is None and expected_ids and all(
            isinstance(i, int) and not isinstance(i, bool) for i in expected_ids):
        return integer_id
    return parse_id


class _Found:
    """The predictions read so far (``values``: ``{key: parsed value}``, first one wins) and
    the problems met: unknown ids, duplicate ids and values ``parse_value`` refused."""

    def __init__(self, expected: dict) -> None:
        self.expected = expected
        self.values: dict[str, Any] = {}
        self.first_line: dict[str, int] = {}
        self.unknown, self.duplicate, self.bad_values = _Collected(), _Collected(), _Collected()

    def add(self, key: str, line: int, raw: Any, parse_value: Callable[[Any], Any]) -> None:
        """One record: its value parsed, then matched against the expected ids."""
        try:
            value = parse_value(raw)
        except (ValueError, TypeError, OverflowError) as error:
            # a parser's message may repeat the whole value (float's does): cut it too
            self.bad_values.add((line, quoted(raw), shorten_message(str(error),
                                                                    MAX_QUOTED_CHARS)))
            return
        if key not in self.expected:
            self.unknown.add((key, line))
        elif key in self.values:
            self.duplicate.add((key, line, self.first_line[key]))
        else:
            self.values[key] = value
            self.first_line[key] = line


def _canonical(path: Path, line: int, record: dict, columns: tuple[tuple[str, ...], ...]
               ) -> tuple[int, dict]:
    """``(line, record)`` with an aliased id / value field renamed to its canonical name."""
    for names in columns:
        if names[0] in record and len(names) == 1:
            continue
        present = [name for name in names if name in record]
        if len(present) > 1:
            raise SourceError(path, f"fields {' and '.join(present)} both given; expected one "
                              f"of {', '.join(names)}", line=line, column=present[1])
        if present and present[0] != names[0]:
            record = {**{k: v for k, v in record.items() if k != present[0]},
                      names[0]: record[present[0]]}
    return line, record


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


def _read_records(path: Path, columns: tuple[tuple[str, ...], ...]
                  ) -> Iterator[tuple[int, dict]]:
    """``[(line, record)]`` of a JSON Lines, JSON or CSV predictions file, or of an Inspect
    log (``.eval``: :mod:`courtbench.inspect_glue.eval_logs`; its record numbers are sample
    numbers)."""
    suffix = path.suffix.lower()
    if suffix in EVAL_SUFFIXES:
        if not path.is_file():
            raise SourceError(path, "file not found")
        from courtbench.inspect_glue.eval_logs import eval_log_records

        return eval_log_records(path, columns[0][0], columns[1][0])
    if suffix not in JSONL_SUFFIXES + JSON_SUFFIXES + CSV_SUFFIXES:
        raise SourceError(path, f"unknown predictions format {suffix or '(no suffix)'!r}; expected "
                          f"JSON Lines ({', '.join(JSONL_SUFFIXES)}), JSON (.json), CSV (.csv) "
                          "or an Inspect log (.eval)")
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SourceError(path, "file not found") from None
    except OSError as error:
        raise SourceError(path, f"cannot read the file: {error}") from None
    text = decode_utf8(path, data, expected="predictions file")
    if suffix in JSONL_SUFFIXES:
        return _records_jsonl(path, text)
    if suffix in JSON_SUFFIXES:
        return _records_json(path, text)
    return _records_csv(path, text, columns)


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
