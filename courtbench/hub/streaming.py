"""Streamed Hub folders: parquet files written row group by row group as rows arrive.

:class:`ParquetStreamWriter` appends Arrow tables to one parquet file and cuts row groups
by the rows' own sizes (at most :data:`~courtbench.hub.parquet.MAX_ROW_GROUP_BYTES`
uncompressed and :data:`~courtbench.hub.parquet.MAX_ROW_GROUP_ROWS` rows), so memory stays
at about one row group whatever the file's size, and the file depends only on the sequence
of rows, never on how they were batched. :func:`write_streamed_hub_folder` runs a producer
inside :func:`courtbench.hub.atomic.atomic_output_dir` and writes the card from what it
wrote, with the same YAML as :func:`courtbench.hub.writer.write_hub_folder`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from courtbench.hub.atomic import atomic_output_dir
from courtbench.hub.card import CARD_FILE, render_card
from courtbench.hub.features import TableFeatures
from courtbench.hub.files import list_files
from courtbench.hub.parquet import MAX_ROW_GROUP_BYTES, MAX_ROW_GROUP_ROWS
from courtbench.hub.writer import (
    ConfigSpec,
    HubFolderReport,
    card_yaml,
    draw_figures,
    is_hub_folder,
)


def row_sizes(table: pa.Table) -> np.ndarray:
    """Uncompressed Arrow bytes of each row (int64): string/binary values plus their 4-byte
    offset, fixed-width values at their width (validity bits ignored)."""
    sizes = np.zeros(table.num_rows, dtype=np.int64)
    for column in table.columns:
        if pa.types.is_string(column.type) or pa.types.is_binary(column.type):
            lengths = pc.fill_null(pc.binary_length(column), 0)
            sizes += lengths.to_numpy(zero_copy_only=False).astype(np.int64) + 4
        elif pa.types.is_large_string(column.type) or pa.types.is_large_binary(column.type):
            lengths = pc.fill_null(pc.binary_length(column), 0)
            sizes += lengths.to_numpy(zero_copy_only=False).astype(np.int64) + 8
        else:
            sizes += max(1, column.type.bit_width // 8)
    return sizes


class ParquetStreamWriter:
    """Append tables to one deterministic parquet file (zstd, statistics, features metadata).

    A row group is closed before a row that would take it past ``max_bytes`` (a single
    larger row is a group of its own) or past ``max_rows``. Use as a context manager or call
    :meth:`close`; after closing, :attr:`num_rows` and :attr:`num_bytes` (uncompressed Arrow
    bytes of the written groups, the ``num_bytes`` of the card's ``dataset_info``) are final.
    """

    def __init__(self, path: Path, schema: pa.Schema, *, max_bytes: int = MAX_ROW_GROUP_BYTES,
                 max_rows: int = MAX_ROW_GROUP_ROWS) -> None:
        self.path = Path(path)
        self.schema = schema
        self.max_bytes = max_bytes
        self.max_rows = max_rows
        self.num_rows = 0
        self.num_bytes = 0
        self._pending: list[pa.Table] = []
        self._pending_rows = 0
        self._pending_bytes = 0
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._writer = pq.ParquetWriter(self.path, schema, compression="zstd",
                                        write_statistics=True, store_schema=True)

    def write(self, table: pa.Table) -> None:
        """Append ``table``'s rows (cast to the writer's schema)."""
        if table.schema != self.schema:
            table = table.cast(self.schema)
        start = 0
        for row, size in enumerate(row_sizes(table).tolist()):
            full = (self._pending_rows >= self.max_rows
                    or self._pending_bytes + size > self.max_bytes)
            if self._pending_rows and full:
                if row > start:
                    self._pending.append(table.slice(start, row - start))
                self._flush()
                start = row
            self._pending_rows += 1
            self._pending_bytes += size
        if start < table.num_rows:
            self._pending.append(table.slice(start))

    def _flush(self) -> None:
        group = pa.concat_tables(self._pending).combine_chunks()
        self._writer.write_table(group, row_group_size=group.num_rows)
        self.num_rows += group.num_rows
        self.num_bytes += group.nbytes
        self._pending, self._pending_rows, self._pending_bytes = [], 0, 0

    def close(self) -> None:
        """Write the last row group and close the file."""
        if self._writer is None:
            return
        if self._pending_rows:
            self._flush()
        self._writer.close()
        self._writer = None

    def __enter__(self) -> ParquetStreamWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


@dataclass(frozen=True)
class WrittenSplit:
    """One split file a producer wrote: its features, rows and uncompressed Arrow bytes."""

    features: TableFeatures
    num_rows: int
    num_bytes: int


@dataclass
class StreamedFolder:
    """What a producer of :func:`write_streamed_hub_folder` returns.

    Attributes:
        configs: config name -> split name -> :class:`WrittenSplit`, in card order; the
            split files are at ``data/<config>/<split>.parquet``.
        default: name of the default config.
        card_context: template variables (``configs`` and ``figures_written`` are added).
        card_metadata: YAML keys before ``configs``; must hold ``courtbench_dataset``.
        figures: file name -> function writing that PNG (ImportError: skipped, reported).
        result: anything the producer wants handed back to its caller.
    """

    configs: dict[str, dict[str, WrittenSplit]]
    default: str
    card_context: Mapping[str, Any]
    card_metadata: Mapping[str, Any]
    figures: Mapping[str, Callable[[Path], None]] = field(default_factory=dict)
    result: Any = None


def write_streamed_hub_folder(out_dir: Path, produce: Callable[[Path], StreamedFolder], *,
                              card_template: Path) -> tuple[HubFolderReport, Any]:
    """Run ``produce(folder)`` in a temporary folder, add figures and the card, and move it
    into place as ``out_dir`` — all or nothing, like :func:`write_hub_folder`.

    ``produce`` writes ``data/<config>/<split>.parquet`` (with :class:`ParquetStreamWriter`)
    and returns a :class:`StreamedFolder`; anything else it leaves in the folder is part of
    the output, so scratch files belong in a sub-folder it removes itself. An existing
    ``out_dir`` is replaced only when courtbench wrote it (checked before ``produce`` runs).

    Returns:
        ``(report of the folder as it now is, StreamedFolder.result)``.
    """
    with atomic_output_dir(Path(out_dir), kind="Hub dataset folder",
                           is_ours=is_hub_folder) as tmp_dir:
        folder = produce(tmp_dir)
        if "courtbench_dataset" not in folder.card_metadata:
            raise ValueError("card_metadata must name the dataset plugin under "
                             "'courtbench_dataset'")
        specs = [ConfigSpec(name, splits, default=name == folder.default)
                 for name, splits in folder.configs.items()]
        split_bytes = {name: {s: w.num_bytes for s, w in splits.items()}
                       for name, splits in folder.configs.items()}
        split_sizes = {name: {s: w.num_rows for s, w in splits.items()}
                       for name, splits in folder.configs.items()}
        written, skipped = draw_figures(folder.figures, tmp_dir)
        context = {**folder.card_context, "figures_written": written,
                   "configs": [{"name": c, "splits": sizes} for c, sizes in split_sizes.items()]}
        card = render_card(card_template, context,
                           card_yaml(specs, split_bytes, folder.card_metadata))
        (tmp_dir / CARD_FILE).write_text(card, encoding="utf-8")
    report = HubFolderReport(Path(out_dir), list_files(Path(out_dir)), split_sizes, skipped)
    return report, folder.result
