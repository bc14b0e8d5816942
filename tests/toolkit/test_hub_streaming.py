"""Streamed parquet files: row groups bounded by bytes and rows, the same file however the
rows are batched, and num_bytes equal to the groups' Arrow size."""

from __future__ import annotations

import hashlib

import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import given, settings
from hypothesis import strategies as st

from courtbench.hub.streaming import ParquetStreamWriter, row_sizes

SCHEMA = pa.schema([("id", pa.int64()), ("text", pa.string())])


def _table(lengths: list[int]) -> pa.Table:
    return pa.table({"id": list(range(len(lengths))),
                     "text": ["é" * n for n in lengths]}, schema=SCHEMA)


def _write(path, table: pa.Table, cuts: list[int]) -> tuple[bytes, int]:
    with ParquetStreamWriter(path, SCHEMA, max_bytes=200, max_rows=4) as writer:
        start = 0
        for cut in [*sorted(cuts), table.num_rows]:
            writer.write(table.slice(start, max(0, cut - start)))
            start = max(start, cut)
    return path.read_bytes(), writer.num_bytes


def test_row_sizes_count_utf8_bytes_offsets_and_widths():
    assert row_sizes(_table([0, 3])).tolist() == [8 + 4, 8 + 6 + 4]


@settings(max_examples=30, deadline=None)
@given(lengths=st.lists(st.integers(0, 150), min_size=1, max_size=25),
       cuts=st.lists(st.integers(0, 25), max_size=6))
def test_file_depends_on_rows_only(tmp_path_factory, lengths, cuts):
    folder = tmp_path_factory.mktemp("stream")
    table = _table(lengths)
    whole, whole_bytes = _write(folder / "whole.parquet", table, [])
    batched, batched_bytes = _write(folder / "batched.parquet", table,
                                    [c for c in cuts if c <= len(lengths)])
    assert hashlib.sha256(whole).digest() == hashlib.sha256(batched).digest()
    assert whole_bytes == batched_bytes
    metadata = pq.ParquetFile(folder / "whole.parquet").metadata
    groups = [metadata.row_group(i) for i in range(metadata.num_row_groups)]
    sizes = row_sizes(table).tolist()
    start = 0
    for group in groups:
        members = sizes[start:start + group.num_rows]
        assert 1 <= group.num_rows <= 4
        assert sum(members) <= 200 or group.num_rows == 1  # a larger row stands alone
        start += group.num_rows
    assert start == len(lengths)
    assert pq.read_table(folder / "whole.parquet").equals(table)
