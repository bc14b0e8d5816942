"""Strict reading of text sources: UTF-8 decoding and RFC 4180 CSV, with errors that name
the file, the line, the offending value and what was expected.

Shared by every reader of user files (dataset sources and releases, prediction files),
so that they all reject the same malformed input the same way.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator
from pathlib import Path

from courtbench.errors import SourceError

CSV_QUOTING = ("expected RFC 4180 quoting: a quoted field closes with '\"' followed by a comma "
               "or the line end, and a '\"' inside it is doubled")

#: Longest CSV field accepted, in characters. Decisions run to hundreds of KiB (csv's default
#: limit of 128 KiB is too small); a field beyond this is almost always an unclosed quote that
#: swallowed the rest of the file, and refusing it bounds the memory a reader needs.
MAX_FIELD_CHARS = 16 * 2**20
csv.field_size_limit(MAX_FIELD_CHARS)


def _csv_problem(error: csv.Error) -> str:
    if "field larger than field limit" in str(error):
        return (f"a field longer than {MAX_FIELD_CHARS:,} characters (often a quote that is "
                "never closed, so that the rest of the file became one field)")
    return f"malformed CSV ({error}); {CSV_QUOTING}"


def read_input_bytes(path: str | Path, *, expected: str = "file",
                     max_bytes: int | None = None, size_note: str = "") -> bytes:
    """The bytes of the input file ``path``.

    Args:
        path: the file.
        expected: what it should be, for messages ("CSV file").
        max_bytes: refuse a larger file before reading it (a reader that holds the whole
            file needs several times its size in memory); ``size_note`` says why, in the
            message.

    Raises:
        SourceError: the path does not exist, is a folder, is larger than ``max_bytes`` or
            cannot be read — one line naming the path and what was expected.
    """
    path = Path(path)
    if path.is_dir():
        raise SourceError(path, f"is a folder; expected a {expected}")
    if max_bytes is not None and path.is_file() and path.stat().st_size > max_bytes:
        raise SourceError(path, f"is {path.stat().st_size / 2**20:,.1f} MiB; expected a "
                                f"{expected} of at most {max_bytes / 2**20:,.0f} MiB{size_note}")
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise SourceError(path, f"not found; expected a {expected}") from None
    except OSError as error:
        raise SourceError(path, f"cannot be read ({error.strerror}); expected a {expected}") \
            from None


def not_utf8_error(path: str | Path, data: bytes, error: UnicodeDecodeError, *, line: int,
                   expected: str, offset_in: str = "file") -> SourceError:
    """The error for the first byte of ``data`` that is not UTF-8, on ``line``; ``data`` is
    the whole file or one line (``offset_in``), which the byte offset counts from."""
    return SourceError(path, f"byte 0x{data[error.start]:02x} at offset {error.start} of the "
                             f"{offset_in} is not valid UTF-8; expected a UTF-8 {expected}",
                       line=line)


def decode_utf8(path: str | Path, data: bytes, *, expected: str = "text file") -> str:
    """``data`` decoded as UTF-8 with a leading BOM dropped.

    Raises:
        SourceError: naming the line (counted after LF, CR LF or CR, as csv counts) and byte
            offset of the first invalid byte.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        before = data[:error.start]
        line = len(before.splitlines()) + (not before or before.endswith((b"\n", b"\r")))
        raise not_utf8_error(path, data, error, line=line, expected=expected) from None
    return text.removeprefix("\ufeff")


def strict_csv(path: str | Path, lines: Iterable[str], *, skip_blank: bool = False,
               allow_empty: bool = False) -> tuple[list[str], Iterator[tuple[int, list[str]]]]:
    """Parse CSV strictly: the header, and an iterator of ``(line, values)`` per record.

    Args:
        path: the file, for messages.
        lines: the text, e.g. an open file (``newline=""``) or ``io.StringIO(text, newline="")``.
        skip_blank: skip empty lines instead of reporting them as rows with no field.
        allow_empty: an empty file gives no header and no record instead of an error.

    Returns:
        ``(header, records)``; ``line`` is the 1-based line on which a record starts (quoted
        fields may span lines; the header is line 1).

    Raises:
        SourceError: empty file, bad quoting, or a row whose field count differs from the
            header's — with the line (raised while iterating for records).
    """
    reader = csv.reader(lines, strict=True)
    try:
        header = next(reader)
    except StopIteration:
        if allow_empty:
            return [], iter(())
        raise SourceError(path, "file is empty; expected a header row", line=1) from None
    except csv.Error as error:
        raise SourceError(path, f"header: {_csv_problem(error)}",
                          line=reader.line_num) from None

    def records() -> Iterator[tuple[int, list[str]]]:
        while True:
            start = reader.line_num + 1
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as error:
                raise SourceError(path, _csv_problem(error), line=start) from None
            if skip_blank and not row:
                continue
            if len(row) != len(header):
                raise SourceError(path, f"row has {len(row)} fields, expected {len(header)} "
                                  "(one per header column)", line=start)
            yield start, row

    return header, records()
