"""Read the records of a tabular file (parquet, JSON Lines or CSV) with their positions."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import pyarrow.parquet as pq

from courtbench.errors import SourceError
from courtbench.textio import decode_utf8, not_utf8_error, strict_csv

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

    JSON Lines and CSV files must be UTF-8 (a leading BOM is dropped). JSON Lines are split
    on line feeds only, so U+2028, U+0085 and other Unicode line breaks inside JSON strings
    stay text (``str.splitlines`` would cut a record there).

    Raises:
        SourceError: unreadable file, a byte that is not UTF-8 (with its line), malformed
            JSON line, bad CSV quoting, or a CSV row whose field count differs from the
            header's.
    """
    kind = file_kind(path)
    if not path.is_file():
        raise SourceError(path, "file not found")
    if kind == "parquet":
        yield from _iter_parquet(path)
    elif kind == "jsonl":
        yield from _iter_jsonl(path)
    else:
        yield from _iter_csv(path)


PARQUET_BATCH_ROWS = 256
"""Parquet rows converted to Python at a time (long decisions: keep the batch small)."""


def _iter_parquet(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        batches = pq.ParquetFile(path).iter_batches(batch_size=PARQUET_BATCH_ROWS)
        position = 0
        for batch in batches:
            for record in batch.to_pylist():
                position += 1
                yield position, record
    except SourceError:
        raise
    except Exception as error:  # noqa: BLE001 - any pyarrow failure is a bad source
        raise SourceError(path, f"not a readable parquet file: {error}") from error


def _utf8_lines(path: Path, handle: BinaryIO) -> Iterator[str]:
    """The lines of a binary JSON Lines file, split on line feeds (LF) only (each keeps
    its line end) and decoded as UTF-8; SourceError naming the line of a byte that is not UTF-8."""
    for number, data in enumerate(handle, start=1):
        try:
            line = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise not_utf8_error(path, data, error, line=number, expected="JSON Lines file",
                                 offset_in="line") from None
        yield line.removeprefix("\ufeff") if number == 1 else line


def _csv_encoding_error(path: Path) -> SourceError:
    """The error for the first byte of ``path`` that is not UTF-8, with its line. Read only
    once decoding failed: the streaming decoder reports a position within its buffer."""
    try:
        decode_utf8(path, path.read_bytes(), expected="CSV file")
    except SourceError as error:
        return error
    return SourceError(path, "not valid UTF-8 while reading; expected a UTF-8 CSV file")


def _iter_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with path.open("rb") as handle:
        for number, line in enumerate(_utf8_lines(path, handle), start=1):
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
    try:
        yield from _csv_records(path)
    except UnicodeDecodeError as error:
        raise _csv_encoding_error(path) from error


def _csv_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        # an empty source holds no record; validation reports that there are no rows
        header, records = strict_csv(path, handle, skip_blank=True, allow_empty=True)
        for start, values in records:
            yield start, dict(zip(header, values, strict=True))
