"""Read the records of a tabular file (parquet, JSON Lines or CSV) with their positions."""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from courtbench.errors import SourceError

SUFFIXES: dict[str, str] = {
    ".parquet": "parquet", ".pq": "parquet",
    ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl",
    ".csv": "csv",
}


def file_kind(path: Path) -> str:
    """Return ``"parquet"``, ``"jsonl"`` or ``"csv"`` from the file suffix.

    Raises:
        SourceError: unknown suffix.
    """
    kind = SUFFIXES.get(path.suffix.lower())
    if kind is None:
        raise SourceError(path, f"unsupported file suffix {path.suffix!r}; expected one of "
                                f"{', '.join(sorted(SUFFIXES))}")
    return kind


def iter_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(position, record)`` for every record of a tabular file.

    The position is 1-based: the parquet row number, the JSON Lines line number, or the
    CSV line on which the record starts (the header is line 1; quoted fields may span
    lines). Blank JSON Lines lines are ignored.

    Raises:
        SourceError: unreadable file, malformed JSON line, or a CSV row whose field count
            differs from the header's.
    """
    kind = file_kind(path)
    if not path.is_file():
        raise SourceError(path, "file not found")
    if kind == "parquet":
        try:
            table = pq.read_table(path)
        except Exception as error:  # noqa: BLE001 - any pyarrow failure is a bad source
            raise SourceError(path, f"not a readable parquet file: {error}") from error
        yield from enumerate(table.to_pylist(), start=1)
    elif kind == "jsonl":
        yield from _iter_jsonl(path)
    else:
        yield from _iter_csv(path)


def _iter_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise SourceError(path, f"malformed JSON: {error.msg} at character "
                                        f"{error.pos}", line=number) from error
            if not isinstance(record, dict):
                raise SourceError(path, f"expected a JSON object, found "
                                        f"{type(record).__name__}", line=number)
            yield number, record


def _iter_csv(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))  # decisions exceed the 128 KiB default
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle)
        try:
            header = next(reader)
        except StopIteration:
            return
        while True:
            start = reader.line_num + 1
            try:
                values = next(reader)
            except StopIteration:
                return
            except csv.Error as error:
                raise SourceError(path, f"malformed CSV: {error}", line=start) from error
            if not values:
                continue
            if len(values) != len(header):
                raise SourceError(path, f"{len(values)} fields, expected {len(header)} as in "
                                        f"the header", line=start)
            yield start, dict(zip(header, values, strict=True))
