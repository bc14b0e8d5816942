"""Reader for wide rows: one row per decision with ``headnote_de``, ``headnote_fr`` and
``headnote_it``, melted into three canonical rows.

Columns: ``decision_id``, ``decision``, ``decision_language`` (may be empty: detected),
``headnote_de``, ``headnote_fr``, ``headnote_it``, ``law_area`` (optional), ``year``,
``volume``, ``url``. Parquet, JSON Lines or CSV (see :mod:`slds.readers.tabular`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from slds.readers.base import RawRow, SourceRead
from slds.readers.tabular import iter_records
from slds.schema import LANGUAGES

SHARED_COLUMNS: tuple[str, ...] = ("decision_id", "decision", "decision_language", "law_area",
                                   "year", "volume", "url")
HEADNOTE_COLUMNS: tuple[str, ...] = tuple(f"headnote_{lang}" for lang in LANGUAGES)


def iter_melted(records: Iterable[tuple[int, Mapping[str, Any]]], source: Path
                ) -> Iterator[RawRow]:
    """Turn ``(position, wide record)`` pairs into three raw rows each (de, fr, it headnote),
    lazily. The decision text object is shared, not copied, between a decision's three rows.
    """
    for line, record in records:
        shared = {name: record.get(name) for name in SHARED_COLUMNS}
        for language, column in zip(LANGUAGES, HEADNOTE_COLUMNS, strict=True):
            fields = dict(shared, headnote=record.get(column), headnote_language=language,
                          sample_id=None)
            yield RawRow(line=line, fields=fields, source=source,
                         column_names={"headnote": column})


def melt_wide_records(records: Iterable[tuple[int, Mapping[str, Any]]], source: Path
                      ) -> list[RawRow]:
    """:func:`iter_melted` as a list."""
    return list(iter_melted(records, source))


def _counted(records: Iterable[tuple[int, Mapping[str, Any]]], read: SourceRead
             ) -> Iterator[tuple[int, Mapping[str, Any]]]:
    for record in records:
        read.records += 1
        yield record


def stream_wide_rows(path: Path) -> SourceRead:
    """A wide file as a one-pass stream of melted raw rows (records read in batches)."""
    read = SourceRead(path=path, rows=iter(()))
    read.rows = iter_melted(_counted(iter_records(path), read), path)
    return read


def read_wide_rows(path: Path) -> SourceRead:
    """Read a wide file and melt it into raw long rows (not yet validated)."""
    read = stream_wide_rows(path)
    read.rows = list(read.rows)
    return read
