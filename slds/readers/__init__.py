"""Source readers, one module per source shape, and :func:`read_source` to pick one.

- ``slds`` (:mod:`slds.readers.slds_rows`): the published long layout (parquet/JSONL/CSV);
- ``wide`` (:mod:`slds.readers.wide`): one row per decision with three headnote columns;
- ``entscheidsuche`` (:mod:`slds.readers.entscheidsuche`): search-API JSON responses.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq

from courtbench.errors import SourceError
from slds.readers.base import RawRow, SourceRead
from slds.readers.entscheidsuche import read_entscheidsuche, stream_entscheidsuche
from slds.readers.slds_rows import read_slds_rows, stream_slds_rows
from slds.readers.tabular import file_kind, iter_records
from slds.readers.wide import read_wide_rows, stream_wide_rows

READERS: dict[str, Callable[[Path], SourceRead]] = {
    "slds": read_slds_rows,
    "wide": read_wide_rows,
    "entscheidsuche": read_entscheidsuche,
}
STREAMS: dict[str, Callable[[Path], SourceRead]] = {
    "slds": stream_slds_rows,
    "wide": stream_wide_rows,
    "entscheidsuche": stream_entscheidsuche,
}
FORMATS: tuple[str, ...] = tuple(READERS)  # = slds.defaults.SOURCE_FORMATS (tested)


def guess_format(path: Path) -> str:
    """Source format of ``path`` when ``--format`` is not given.

    A directory, or a ``.json`` file holding an object with ``"hits"``, is an entscheidsuche
    response; a tabular file whose columns include ``headnote_de`` is wide; otherwise slds.
    """
    if path.is_dir():
        return "entscheidsuche"
    if not path.is_file():
        raise SourceError(path, "file not found")
    if path.suffix.lower() == ".json":
        # A peek only: an invalid byte is reported, with its line, by the reader.
        with path.open(encoding="utf-8", errors="replace") as handle:
            head = handle.read(4096)
        # a UTF-8 byte order mark is not whitespace to str.lstrip
        if head.lstrip("\ufeff \t\r\n").startswith("{") and '"hits"' in head:
            return "entscheidsuche"
    if file_kind(path) == "parquet":
        try:
            columns = set(pq.read_schema(path).names)
        except Exception as error:  # noqa: BLE001 - any pyarrow failure is a bad source
            raise SourceError(path, f"not a readable parquet file: {error}") from None
    else:
        first = next(iter_records(path), None)
        columns = set(first[1]) if first else set()
    return "wide" if "headnote_de" in columns else "slds"


def _format(path: Path, source_format: str | None) -> str:
    source_format = source_format or guess_format(path)
    if source_format not in READERS:
        raise SourceError(path, f"unknown source format {source_format!r}; expected one of "
                                f"{', '.join(FORMATS)}")
    return source_format


def read_source(path: Path, source_format: str | None = None) -> SourceRead:
    """Read ``path`` with the reader of ``source_format`` (guessed when ``None``)."""
    path = Path(path)
    return READERS[_format(path, source_format)](path)


def stream_source(path: Path, source_format: str | None = None) -> SourceRead:
    """Like :func:`read_source`, but ``rows`` is a one-pass iterator that reads the source
    in batches (bounded memory); ``records`` and ``skipped`` are complete once it is
    exhausted."""
    path = Path(path)
    return STREAMS[_format(path, source_format)](path)


__all__ = ["FORMATS", "READERS", "STREAMS", "RawRow", "SourceRead", "guess_format",
           "read_source", "stream_source"]
