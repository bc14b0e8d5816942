"""Reader for wide rows: one row per decision with ``headnote_de``, ``headnote_fr`` and
``headnote_it``, melted into three canonical rows.

Columns: ``decision_id``, ``decision``, ``decision_language`` (may be empty: detected),
``headnote_de``, ``headnote_fr``, ``headnote_it``, ``law_area`` (optional), ``year``,
``volume``, ``url``. Parquet, JSON Lines or CSV (see :mod:`slds.readers.tabular`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from slds.readers.base import RawRow, SourceRead
from slds.readers.tabular import iter_records
from slds.schema import LANGUAGES

SHARED_COLUMNS: tuple[str, ...] = ("decision_id", "decision", "decision_language", "law_area",
                                   "year", "volume", "url")
HEADNOTE_COLUMNS: tuple[str, ...] = tuple(f"headnote_{lang}" for lang in LANGUAGES)


def melt_wide_records(records: Iterable[tuple[int, Mapping[str, Any]]], source: Path
                      ) -> list[RawRow]:
    """Turn ``(position, wide record)`` pairs into three raw rows each (de, fr, it headnote).

    The decision text object is shared, not copied, between a decision's three rows.
    """
    rows: list[RawRow] = []
    for line, record in records:
        shared = {name: record.get(name) for name in SHARED_COLUMNS}
        for language, column in zip(LANGUAGES, HEADNOTE_COLUMNS, strict=True):
            fields = dict(shared, headnote=record.get(column), headnote_language=language,
                          sample_id=None)
            rows.append(RawRow(line=line, fields=fields, source=source,
                               column_names={"headnote": column}))
    return rows


def read_wide_rows(path: Path) -> SourceRead:
    """Read a wide file and melt it into raw long rows (not yet validated)."""
    records = list(iter_records(path))
    return SourceRead(path=path, rows=melt_wide_records(records, path), records=len(records))
