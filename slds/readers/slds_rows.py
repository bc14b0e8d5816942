"""Reader for SLDS rows: the published long layout, one row per (decision, headnote language).

Accepts parquet, JSON Lines or CSV files with the columns of :data:`slds.schema.COLUMNS`.
``sample_id``, ``law_area`` and ``decision_language`` may be missing or empty: validation
derives the first two and detects the third (and records that it did).
"""

from __future__ import annotations

from pathlib import Path

from slds.readers.base import RawRow, SourceRead
from slds.readers.tabular import iter_records
from slds.schema import COLUMNS


def read_slds_rows(path: Path) -> SourceRead:
    """Read a long-layout SLDS file into raw rows (values as found, not yet validated)."""
    rows = [RawRow(line=line, fields={name: record.get(name) for name in COLUMNS}, source=path)
            for line, record in iter_records(path)]
    return SourceRead(path=path, rows=rows, records=len(rows))
