"""What every SLDS source reader returns: raw rows with their provenance, before validation.

A reader only maps its source shape onto the canonical column names
(:data:`slds.schema.COLUMNS`); :mod:`slds.validate` then checks values, fills derived fields
(sample id, law area, a missing decision language) and raises errors that name the source,
the record and the field.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class RawRow:
    """One canonical row as read, not yet validated.

    Attributes:
        line: 1-based position of the record in its source (line of a JSON Lines or CSV
            file, row of a parquet file, hit number of a search response).
        fields: values by canonical column name; a missing value is ``None``. Values keep
            the source's types (CSV gives strings), validation coerces them.
        bge_volume: yearly BGE volume number from a parsed reference ("BGE 151 II 245" ->
            151) when the source carries one; validation checks it equals year − 1874.
        source: the file the row came from (a directory source holds several files).
        column_names: canonical field -> name of the column in the source (a wide row's
            headnote comes from ``headnote_fr``), so errors name what the user sees.
        source_split: the split a published row says it belongs to (the long layout's
            optional ``split`` column); ``one_shot_examples`` marks a pair's published
            one-shot example, which the build keeps instead of recomputing it.
    """

    line: int
    fields: dict[str, Any]
    source: Path
    bge_volume: int | None = None
    column_names: dict[str, str] = field(default_factory=dict)
    source_split: str | None = None

    def column(self, name: str) -> str:
        """Name of canonical field ``name`` in the source."""
        return self.column_names.get(name, name)


@dataclass
class SourceRead:
    """The rows of one source plus what the reader left out on purpose.

    Attributes:
        path: the source given by the user (file or directory).
        rows: rows in source order: a list (:func:`slds.readers.read_source`) or a one-pass
            iterator (:func:`slds.readers.stream_source`), in which case ``skipped`` and
            ``records`` are complete once it is exhausted.
        skipped: reason -> number of records skipped for that reason (only readers of
            mixed sources skip, e.g. non-landmark hits of a search response).
        records: number of records read (kept + skipped).
    """

    path: Path
    rows: Iterable[RawRow]
    skipped: Counter = field(default_factory=Counter)
    records: int = 0
