"""Synthetic ECtHR-NPD builds whose held-out targets are sentinels: a distinctive award per
validation/test case (``base + 1.01 * i``, in no training award) and, optionally, sentinel
strings in every audit column, so that a test can tell whether a target or an audit value
reached a request, a trace or an output."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ecthr_npd.build import build_synthetic

HELD_OUT = ("validation", "test")


def _plant_awards(out: Path, base: float) -> None:
    offset = 0
    for split in HELD_OUT:
        path = out / "data" / "default" / f"{split}.parquet"
        table = pq.read_table(path)
        awards = [round(base + 1.01 * (offset + i), 2) for i in range(table.num_rows)]
        offset += table.num_rows
        index = table.column_names.index("y_amount_eur")
        table = table.set_column(index, table.schema.field(index), pa.array(awards, pa.float64()))
        pq.write_table(table, path)


def _plant_audit_strings(out: Path, sentinel: str) -> None:
    for split in HELD_OUT:
        path = out / "data" / "audit" / f"{split}.parquet"
        table = pq.read_table(path)
        for name in table.column_names[1:]:
            values = [f"{sentinel}-{name}-{split}-{i}" for i in range(table.num_rows)]
            table = table.set_column(table.column_names.index(name), name, pa.array(values))
        pq.write_table(table, path)


def build_with_sentinels(out: Path, *, n: int, seed: int, award_base: float,
                         audit_sentinel: str | None = None) -> Path:
    """``out``: a synthetic build of ``n`` cases whose held-out awards are ``award_base +
    1.01 * i`` (EUR, i counting validation then test cases) and, with ``audit_sentinel``,
    whose held-out audit columns hold ``"<sentinel>-<column>-<split>-<i>"``."""
    build_synthetic(out, n=n, seed=seed)
    if audit_sentinel is not None:
        _plant_audit_strings(out, audit_sentinel)
    _plant_awards(out, award_base)
    return out
