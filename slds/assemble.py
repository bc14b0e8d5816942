"""From validated rows to the Hub configs: year splits, one-shot marks, ten configs.

Rows are sorted once by (split, language pair, year, sample_id) into one typed
``datasets.Dataset``; every split of every config is then a contiguous slice of it
(zero-copy ``select`` of a range), so 60,000 long rows are held in memory once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import datasets
import numpy as np
import pyarrow as pa
from datasets.table import InMemoryTable

from courtbench.hub import ConfigSpec
from slds.one_shot import one_shot_index
from slds.schema import COLUMNS, FEATURES, PAIRS, pair_name
from slds.splits import SplitBoundaries, split_order

ONE_SHOT_SPLIT = "one_shot_examples"
TAKE_CHUNK_ROWS = 2048
DEFAULT_CONFIG = "default"


@dataclass
class Assembled:
    """All rows in one Dataset, and where each split and (split, pair) block lies in it.

    Attributes:
        dataset: every row, sorted by (split, pair, year, sample_id), typed by FEATURES.
        splits: split name -> (start, stop) row range, in split order.
        blocks: (split, pair name) -> (start, stop) row range (only non-empty blocks).
        one_shot: pair name -> row index of its one-shot example (pairs with validation rows).
        columns: the same rows as Python lists by column (texts shared with the source rows,
            law_area as label index), for statistics without converting Arrow back.
    """

    dataset: datasets.Dataset
    splits: dict[str, tuple[int, int]]
    blocks: dict[tuple[str, str], tuple[int, int]]
    one_shot: dict[str, int]
    columns: dict[str, list[Any]]


def shared_text_column(texts: Sequence[str], keys: Sequence[str]) -> pa.ChunkedArray:
    """Arrow string column of ``texts`` where rows with the same key share one text.

    Each distinct text is converted to Arrow once and the rows are gathered with ``take``
    in chunks of :data:`TAKE_CHUNK_ROWS`: memory stays near the final column size (building
    60,000 long decisions row by row doubles buffers and copies), and no chunk comes near
    the 2 GiB offset limit of an Arrow string array.

    Raises:
        ValueError: two rows with one key have different texts; storing one would drop
            the other silently (:func:`slds.validate.validate_rows` rejects such sources).
    """
    position: dict[str, int] = {}
    unique: list[str] = []
    index = np.empty(len(texts), dtype=np.int64)
    for row, (key, text) in enumerate(zip(keys, texts, strict=True)):
        if key not in position:
            position[key] = len(unique)
            unique.append(text)
        elif text != unique[position[key]]:
            raise ValueError(f"row {row}: key {key!r} has a text different from that of its "
                             f"first row; expected the rows of one key to share one text")
        index[row] = position[key]
    values = pa.array(unique, type=pa.string())
    chunks = [values.take(pa.array(index[start:start + TAKE_CHUNK_ROWS]))
              for start in range(0, len(index), TAKE_CHUNK_ROWS)]
    return pa.chunked_array(chunks, type=pa.string())


def assemble(rows: Sequence[dict[str, Any]], boundaries: SplitBoundaries) -> Assembled:
    """Sort validated rows into split/pair blocks and mark the one-shot examples.

    Args:
        rows: canonical rows (:func:`slds.validate.validate_rows`), law_area as a label name.
        boundaries: the split years.
    """
    if not rows:
        raise ValueError("rows is empty; expected at least one validated row")
    split_names = split_order(boundaries.split_of(row["year"]) for row in rows)
    split_rank = {name: rank for rank, name in enumerate(split_names)}
    pair_rank = {pair_name(*pair): rank for rank, pair in enumerate(PAIRS)}

    def key(row: dict[str, Any]) -> tuple[int, int, int, str]:
        return (split_rank[boundaries.split_of(row["year"])],
                pair_rank[pair_name(row["decision_language"], row["headnote_language"])],
                row["year"], row["sample_id"])

    ordered = sorted(rows, key=key)
    law_area = FEATURES["law_area"]
    columns = {name: [row[name] for row in ordered] for name in COLUMNS}
    columns["law_area"] = [law_area.str2int(name) for name in columns["law_area"]]
    arrays = {name: pa.array(columns[name], type=FEATURES.arrow_schema.field(name).type)
              for name in COLUMNS if name != "decision"}
    arrays["decision"] = shared_text_column(columns["decision"], columns["decision_id"])
    table = pa.table({name: arrays[name] for name in COLUMNS}, schema=FEATURES.arrow_schema)
    # An explicit fingerprint: by default datasets hashes the whole in-memory table (a
    # transient copy of every decision text).
    fingerprint = hashlib.sha256("\n".join(columns["sample_id"]).encode()).hexdigest()[:16]
    dataset = datasets.Dataset(InMemoryTable(table), info=datasets.DatasetInfo(features=FEATURES),
                               fingerprint=f"slds-{fingerprint}")

    splits: dict[str, tuple[int, int]] = {}
    blocks: dict[tuple[str, str], tuple[int, int]] = {}
    for index, row in enumerate(ordered):
        split = boundaries.split_of(row["year"])
        pair = pair_name(row["decision_language"], row["headnote_language"])
        start, _ = splits.get(split, (index, index))
        splits[split] = (start, index + 1)
        start, _ = blocks.get((split, pair), (index, index))
        blocks[(split, pair)] = (start, index + 1)

    one_shot: dict[str, int] = {}
    for (split, pair), (start, stop) in blocks.items():
        if split == "validation":
            chosen = one_shot_index(columns["decision"][start:stop],
                                    columns["sample_id"][start:stop])
            if chosen is not None:
                one_shot[pair] = start + chosen
    return Assembled(dataset, splits, blocks, one_shot, columns)


def _slice(dataset: datasets.Dataset, bounds: tuple[int, int]) -> datasets.Dataset:
    return dataset.select(range(*bounds))


def make_configs(assembled: Assembled) -> list[ConfigSpec]:
    """``default`` (all rows, year splits) and one config per language pair present.

    A pair config holds its rows of each year split, plus ``one_shot_examples`` when the
    pair has validation rows; empty splits are left out (the Hub cannot hold an empty
    split's schema-only file meaningfully, and an empty split would only mislead).
    """
    data = assembled.dataset
    configs = [ConfigSpec(DEFAULT_CONFIG,
                          {split: _slice(data, bounds) for split, bounds in assembled.splits.items()},
                          default=True)]
    for pair in PAIRS:
        name = pair_name(*pair)
        splits = {split: _slice(data, assembled.blocks[(split, name)])
                  for split in assembled.splits if (split, name) in assembled.blocks}
        if name in assembled.one_shot:
            index = assembled.one_shot[name]
            splits[ONE_SHOT_SPLIT] = _slice(data, (index, index + 1))
        if splits:
            configs.append(ConfigSpec(name, splits))
    return configs
