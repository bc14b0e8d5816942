"""Read a predictions file (JSON Lines or CSV) strictly against the ids of a split.

Shared by the evaluation commands: ``courtbench judge`` reads generated headnotes, the
ECtHR-NPD evaluation reads award predictions. Every problem names the file, the line, the
column and the value; id mismatches (unknown, duplicate, missing) are collected and reported
together so that one run shows everything to fix.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Hashable, Iterable, Iterator
from pathlib import Path
from typing import Any

from courtbench.errors import CourtbenchError, SourceError
from courtbench.textio import decode_utf8, strict_csv

JSONL_SUFFIXES = (".jsonl", ".ndjson")
CSV_SUFFIXES = (".csv",)
MAX_LISTED = 20


def _records_jsonl(path: Path, text: str) -> Iterator[tuple[int, dict]]:
    # only "\n" ends a record: str.splitlines() would also split on U+2028, U+0085 and form
    # feeds, which json.dumps(ensure_ascii=False) leaves inside strings
    for number, line in enumerate(text.split("\n"), start=1):
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
    expected = {}
    for sample_id in expected_ids:
        key = _id_key(sample_id)
        if key in expected:
            raise CourtbenchError(f"expected ids contain {sample_id!r} twice; a split's ids must be unique")
        expected[key] = sample_id
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
    records = (_records_jsonl(path, text) if suffix in JSONL_SUFFIXES
               else _records_csv(path, text, (id_column, value_column)))

    values: dict[str, Any] = {}
    first_line: dict[str, int] = {}
    unknown: list[tuple[str, int]] = []
    duplicate: list[tuple[str, int, int]] = []
    bad_values: list[tuple[int, Any, str]] = []
    for line, record in records:
        for column in (id_column, value_column):
            if column not in record:
                raise SourceError(path, f"field missing (fields: {', '.join(map(str, record))})",
                                  line=line, column=column)
        raw_id = record[id_column]
        if raw_id is None or isinstance(raw_id, (dict, list, bool)) or str(raw_id).strip() == "":
            raise SourceError(path, f"invalid sample id {raw_id!r}", line=line, column=id_column)
        if parse_id is not None:
            try:
                raw_id = parse_id(raw_id)
            except ValueError as error:
                raise SourceError(path, str(error), line=line, column=id_column) from None
        key = _id_key(raw_id)
        try:
            value = parse_value(record[value_column])
        except (ValueError, TypeError, OverflowError) as error:
            bad_values.append((line, record[value_column], str(error)))
            continue
        if key not in expected:
            unknown.append((key, line))
        elif key in values:
            duplicate.append((key, line, first_line[key]))
        else:
            values[key] = value
            first_line[key] = line
    if bad_values:
        (line, value, reason), others = bad_values[0], bad_values[1:]
        listed = _listing([f"line {n} ({v!r}: {r})" for n, v, r in others])
        raise SourceError(path, f"bad value {value!r}: {reason}"
                          + (f"; {len(others)} more bad value(s): {listed}" if others else ""),
                          line=line, column=value_column)
    missing = [key for key in expected if key not in values]
    if unknown or duplicate or missing:
        raise CourtbenchError(_mismatch_message(path, len(expected), unknown, duplicate, missing))
    return {expected[key]: values[key] for key in expected}


def _listing(items: list[str]) -> str:
    shown = ", ".join(items[:MAX_LISTED])
    return shown + (f", ... ({len(items) - MAX_LISTED} more)" if len(items) > MAX_LISTED else "")


def _mismatch_message(path: Path, n_expected: int, unknown: list, duplicate: list,
                      missing: list) -> str:
    parts = []
    if unknown:
        parts.append(f"{len(unknown)} unknown sample id(s) not in the split: "
                     + _listing([f"{key!r} (line {line})" for key, line in unknown]))
    if duplicate:
        parts.append(f"{len(duplicate)} duplicate sample id(s): "
                     + _listing([f"{key!r} (line {line}, first on line {first})"
                                 for key, line, first in duplicate]))
    if missing:
        parts.append(f"{len(missing)} of {n_expected} sample id(s) of the split have no prediction: "
                     + _listing([repr(key) for key in missing]))
    return f"{path}: " + "; ".join(parts)
