"""From validated rows to the Hub configs, streamed: blocks on disk, then ten configs.

Rows arrive in batches in source order. :class:`RowBlocks` appends each batch to one
scratch Arrow IPC file (LZ4-compressed), one record batch per *block* — the rows of one
(split, language pair, year) — and remembers which record batches hold each block. The
output order is (split, pair, year, :func:`slds.schema.row_key`), so every split of every
config is the concatenation of its blocks in that order: :func:`write_configs` reads one
block at a time, sorts it and appends it to the ``default`` split file and to the pair's
split file (:class:`courtbench.hub.streaming.ParquetStreamWriter`). Memory holds one block
and one row group per open file, not the dataset.

One-shot examples: :class:`OneShotChooser` keeps, per pair, the validation row with the
shortest decision seen so far (:mod:`slds.one_shot`); its row is copied from its block into
the pair's ``one_shot_examples`` file.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc
from tqdm import tqdm

from courtbench.hub.streaming import ParquetStreamWriter, WrittenSplit
from courtbench.hub.writer import data_file_path
from slds.schema import COLUMNS, FEATURES, PAIRS, pair_name, row_key
from slds.splits import SplitBoundaries, split_order

ONE_SHOT_SPLIT = "one_shot_examples"
DEFAULT_CONFIG = "default"
SCRATCH_FILE = "rows.arrow"
PAIR_RANK: dict[str, int] = {pair_name(*pair): rank for rank, pair in enumerate(PAIRS)}

Block = tuple[str, str, int]
"""(split, pair name, year)."""


def rows_table(rows: Sequence[dict[str, Any]]) -> pa.Table:
    """Canonical rows as an Arrow table typed by :data:`slds.schema.FEATURES`."""
    schema = FEATURES.arrow_schema
    return pa.table({name: pa.array([row[name] for row in rows], type=schema.field(name).type)
                     for name in COLUMNS}, schema=schema)


class RowBlocks:
    """Validated rows on disk, grouped into (split, pair, year) blocks.

    Args:
        folder: scratch folder (the caller removes it); the rows go to ``SCRATCH_FILE``.
        boundaries: the split years.
    """

    def __init__(self, folder: Path, boundaries: SplitBoundaries) -> None:
        self.boundaries = boundaries
        self.path = Path(folder) / SCRATCH_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._sink = pa.OSFile(str(self.path), "wb")
        self._writer = ipc.new_file(self._sink, FEATURES.arrow_schema,
                                    options=ipc.IpcWriteOptions(compression="lz4"))
        self._batches = 0
        self.where: dict[Block, list[int]] = {}
        self.sizes: dict[Block, int] = {}

    def block_of(self, row: dict[str, Any]) -> Block:
        """The block of one canonical row."""
        return (self.boundaries.split_of(row["year"]),
                pair_name(row["decision_language"], row["headnote_language"]), row["year"])

    def add(self, rows: Sequence[dict[str, Any]]) -> None:
        """Append a batch of canonical rows."""
        grouped: dict[Block, list[dict[str, Any]]] = {}
        for row in rows:
            grouped.setdefault(self.block_of(row), []).append(row)
        for block, members in grouped.items():
            for batch in rows_table(members).to_batches():
                self._writer.write_batch(batch)
                self.where.setdefault(block, []).append(self._batches)
                self._batches += 1
            self.sizes[block] = self.sizes.get(block, 0) + len(members)

    def close_writing(self) -> None:
        """Finish the scratch file (before :meth:`ordered` and :meth:`read`)."""
        if self._writer is not None:
            self._writer.close()
            self._sink.close()
            self._writer = None

    def splits(self) -> list[str]:
        """Split names present, in split order."""
        return split_order(split for split, _, _ in self.where)

    def ordered(self) -> list[Block]:
        """Every block, in output order (split, pair, year)."""
        rank = {split: i for i, split in enumerate(self.splits())}
        return sorted(self.where, key=lambda b: (rank[b[0]], PAIR_RANK[b[1]], b[2]))

    def read(self, reader: ipc.RecordBatchFileReader, block: Block) -> pa.Table:
        """One block's rows, sorted by :func:`slds.schema.row_key`."""
        table = pa.Table.from_batches([reader.get_batch(i) for i in self.where[block]],
                                      schema=FEATURES.arrow_schema)
        keys = [row_key(d, h) for d, h in zip(table["decision_id"].to_pylist(),
                                              table["headnote_language"].to_pylist(),
                                              strict=True)]
        order = sorted(range(len(keys)), key=keys.__getitem__)
        return table.take(pa.array(order, type=pa.int64())).combine_chunks()


class OneShotChooser:
    """Per pair, the validation row with the shortest decision (characters), ties by the
    smaller ``sample_id`` — the rule of :func:`slds.one_shot.one_shot_index`."""

    def __init__(self) -> None:
        self.best: dict[str, tuple[int, int]] = {}

    def add(self, row: dict[str, Any], split: str) -> None:
        if split != "validation":
            return
        pair = pair_name(row["decision_language"], row["headnote_language"])
        candidate = (len(row["decision"]), row["sample_id"])
        if pair not in self.best or candidate < self.best[pair]:
            self.best[pair] = candidate

    def sample_ids(self) -> dict[str, int]:
        """Pair name -> sample id of its one-shot row."""
        return {pair: sample_id for pair, (_, sample_id) in self.best.items()}


def write_configs(folder: Path, blocks: RowBlocks, one_shot: dict[str, int], *,
                  progress: bool | None = None,
                  published: dict[str, dict[str, Any]] | None = None
                  ) -> dict[str, dict[str, WrittenSplit]]:
    """Write ``default`` (all rows, year splits) and one config per language pair present.

    A pair config holds its rows of each year split, plus ``one_shot_examples``: the
    source's published row for that pair when ``published`` has one (kept as it is), else
    the recomputed one (when the pair has validation rows); empty splits are left out (an
    empty split would only mislead).

    Returns:
        config -> split -> :class:`WrittenSplit`, configs in order (``default``, then the
        pairs ``de_de`` … ``it_it``), splits in split order.
    """
    blocks.close_writing()
    written: dict[str, dict[str, WrittenSplit]] = {DEFAULT_CONFIG: {}}
    written.update({pair_name(*pair): {} for pair in PAIRS})
    shots: dict[str, pa.Table] = {}
    open_files: dict[tuple[str, str], ParquetStreamWriter] = {}

    def finish(config: str, split: str) -> None:
        writer = open_files.pop((config, split))
        writer.close()
        written[config][split] = WrittenSplit(FEATURES, writer.num_rows, writer.num_bytes)

    def writer_for(config: str, split: str) -> ParquetStreamWriter:
        if (config, split) not in open_files:
            # blocks come in (split, pair) order: a new default split ends the previous
            # default split, a new pair block run ends the previous pair's file
            is_default = config == DEFAULT_CONFIG
            for other in [key for key in open_files if (key[0] == DEFAULT_CONFIG) == is_default]:
                finish(*other)
            open_files[(config, split)] = ParquetStreamWriter(
                folder / data_file_path(config, split), FEATURES.arrow_schema)
        return open_files[(config, split)]

    with pa.OSFile(str(blocks.path), "rb") as source:
        reader = ipc.open_file(source)
        ordered = blocks.ordered()
        for split, pair, year in tqdm(ordered, desc="slds: writing blocks", unit="block",
                                      disable=None if progress is None else not progress):
            table = blocks.read(reader, (split, pair, year))
            writer_for(DEFAULT_CONFIG, split).write(table)
            writer_for(pair, split).write(table)
            if split == "validation" and pair in one_shot and pair not in (published or {}):
                chosen = table.filter(pc.equal(table["sample_id"], one_shot[pair]))
                if chosen.num_rows:
                    shots[pair] = chosen
        for key in list(open_files):
            finish(*key)
    shots.update({pair: rows_table([row]) for pair, row in (published or {}).items()})
    for pair, table in sorted(shots.items(), key=lambda item: PAIR_RANK[item[0]]):
        with ParquetStreamWriter(folder / data_file_path(pair, ONE_SHOT_SPLIT),
                                 FEATURES.arrow_schema) as writer:
            writer.write(table)
        written[pair][ONE_SHOT_SPLIT] = WrittenSplit(FEATURES, writer.num_rows, writer.num_bytes)
    return {config: splits for config, splits in written.items() if splits}
