"""Deterministic parquet files that carry their datasets Features."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from courtbench.hub.features import TableFeatures

# The dataset viewer reads one row group at a time; large groups of long documents make it
# time out. Groups are bounded in uncompressed bytes and in rows.
MAX_ROW_GROUP_BYTES = 32 * 1024 * 1024
MAX_ROW_GROUP_ROWS = 10_000


def arrow_table(split: Any) -> pa.Table:
    """A split's rows as one Arrow table in row order, its schema carrying its features.

    Args:
        split: a ``pyarrow.Table`` cast to a :class:`TableFeatures` schema (returned as it
            is; ValueError when its schema carries no features), or a ``datasets.Dataset``
            (indices mappings applied, cast to its features' schema).
    """
    if isinstance(split, pa.Table):
        TableFeatures.from_arrow_schema(split.schema)
        return split
    if split._indices is not None:  # select/shuffle keep an indices mapping; materialise it
        split = split.flatten_indices()
    return split.data.table.cast(split.features.arrow_schema)


def row_group_rows(table: pa.Table, *, max_bytes: int = MAX_ROW_GROUP_BYTES,
                   max_rows: int = MAX_ROW_GROUP_ROWS) -> int:
    """Rows per row group so that a group stays under ``max_bytes`` uncompressed on average."""
    if table.num_rows == 0:
        return 1
    bytes_per_row = max(1, table.nbytes // table.num_rows)
    return max(1, min(max_rows, max_bytes // bytes_per_row))


def row_groups(table: pa.Table, *, max_bytes: int | None = None,
               max_rows: int | None = None) -> list[tuple[int, int]]:
    """``(offset, length)`` of each row group: consecutive rows, each group at most
    ``max_rows`` rows and ``max_bytes`` uncompressed (a single larger row is its own group);
    the limits default to :data:`MAX_ROW_GROUP_ROWS` and :data:`MAX_ROW_GROUP_BYTES`.

    Starts from the average row size and halves a group while it is too large, so long
    documents clustered in one place still get small groups.
    """
    max_bytes = MAX_ROW_GROUP_BYTES if max_bytes is None else max_bytes
    max_rows = MAX_ROW_GROUP_ROWS if max_rows is None else max_rows
    groups, start = [], 0
    step = row_group_rows(table, max_bytes=max_bytes, max_rows=max_rows)
    while start < table.num_rows:
        length = min(step, table.num_rows - start)
        while length > 1 and table.slice(start, length).nbytes > max_bytes:
            length //= 2
        groups.append((start, length))
        start += length
    return groups


def write_parquet(split: Any, path: Path) -> int:
    """Write ``split`` (see :func:`arrow_table`) to ``path``; returns the uncompressed Arrow
    size in bytes.

    The schema metadata holds the features under the ``huggingface`` key (as
    ``Dataset.to_parquet`` does), so ClassLabel names and list types survive the round trip.
    Row groups follow :func:`row_groups`. The same rows and features give byte-identical
    files for a given pyarrow version.
    """
    table = arrow_table(split)
    path.parent.mkdir(parents=True, exist_ok=True)
    with pq.ParquetWriter(path, table.schema, compression="zstd", write_statistics=True,
                          store_schema=True) as writer:
        for offset, length in row_groups(table):
            writer.write_table(table.slice(offset, length), row_group_size=length)
    return table.nbytes
