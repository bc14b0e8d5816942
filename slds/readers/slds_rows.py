"""Reader for SLDS rows: the published long layout, one row per (decision, headnote language).

Accepts parquet, JSON Lines or CSV files with the columns of :data:`slds.schema.COLUMNS`.
``sample_id``, ``law_area`` and ``decision_language`` may be missing or empty: validation
derives the first two and detects the third (and records that it did). An optional ``split``
column (the published splits, e.g. rows exported with their split name) is read for one
value only: a row whose split is ``one_shot_examples`` is its pair's published one-shot
example, kept by the build as it is (the other splits follow from the year).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from slds.readers.base import RawRow, SourceRead
from slds.readers.tabular import iter_records
from slds.schema import COLUMNS


def _rows(path: Path, read: SourceRead) -> Iterator[RawRow]:
    for line, record in iter_records(path):
        read.records += 1
        split = record.get("split")
        yield RawRow(line=line, fields={name: record.get(name) for name in COLUMNS}, source=path,
                     source_split=split if isinstance(split, str) else None)


def stream_slds_rows(path: Path) -> SourceRead:
    """A long-layout SLDS file as a one-pass stream of raw rows (records read in batches)."""
    read = SourceRead(path=path, rows=iter(()))
    read.rows = _rows(path, read)
    return read


def read_slds_rows(path: Path) -> SourceRead:
    """Read a long-layout SLDS file into raw rows (values as found, not yet validated)."""
    read = stream_slds_rows(path)
    read.rows = list(read.rows)
    return read
