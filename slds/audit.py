"""SLDS-specific checks of a built Hub folder, run by ``courtbench verify`` (and publish).

Returns problems (empty when the folder passes):

- every pair config holds only its pair's decision/headnote languages;
- each ``one_shot_examples`` split has exactly one row, which is the validation row with
  the shortest decision of that pair (ties by sample_id) — unless the card lists the pair
  under ``one_shot_published`` (the source's published row, kept as it is);
- in ``default`` every decision lies in one split only, a ``test_<year>`` split holds only
  that year, and the pair configs' year splits partition ``default``'s rows;
- no decision text contains its own headnote (headnote leakage into the model input).

Reads the parquet files column by column with pyarrow (decision texts batch by batch).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pyarrow.parquet as pq

from courtbench.hub.card import read_card_metadata
from slds.assemble import DEFAULT_CONFIG, ONE_SHOT_SPLIT
from slds.one_shot import one_shot_index

BATCH_ROWS = 512


def _files(folder: Path) -> dict[str, dict[str, Path]]:
    configs = read_card_metadata(folder).get("configs") or []
    return {c["config_name"]: {f["split"]: folder / f["path"] for f in c.get("data_files") or []}
            for c in configs}


def _column(path: Path, name: str) -> list:
    return pq.read_table(path, columns=[name]).column(name).to_pylist()


def _pair_problems(config: str, splits: dict[str, Path], published: bool = False) -> list[str]:
    problems = []
    decision_language, headnote_language = config.split("_")
    for split, path in splits.items():
        found = set(zip(_column(path, "decision_language"), _column(path, "headnote_language"),
                        strict=True))
        if found - {(decision_language, headnote_language)}:
            problems.append(f"{config}/{split}: language pairs {sorted(found)}; expected only "
                            f"({decision_language!r}, {headnote_language!r})")
    if ONE_SHOT_SPLIT in splits:
        shot = _column(splits[ONE_SHOT_SPLIT], "sample_id")
        if len(shot) != 1:
            problems.append(f"{config}/{ONE_SHOT_SPLIT}: {len(shot)} rows; expected 1")
        elif published:
            pass  # the source's own example, kept as published
        elif "validation" not in splits:
            problems.append(f"{config}/{ONE_SHOT_SPLIT}: present without a validation split")
        else:
            ids = _column(splits["validation"], "sample_id")
            chosen = one_shot_index(_column(splits["validation"], "decision"), ids)
            if chosen is None or ids[chosen] != shot[0]:
                problems.append(f"{config}/{ONE_SHOT_SPLIT}: row {shot[0]!r} is not the "
                                f"validation row with the shortest decision "
                                f"({ids[chosen] if chosen is not None else None!r})")
    return problems


def _leakage_problems(split: str, path: Path) -> list[str]:
    problems = []
    for batch in pq.ParquetFile(path).iter_batches(batch_size=BATCH_ROWS,
                                                   columns=["sample_id", "decision", "headnote"]):
        columns = batch.to_pydict()
        for sample_id, decision, headnote in zip(columns["sample_id"], columns["decision"],
                                                 columns["headnote"], strict=True):
            if headnote and headnote in decision:
                problems.append(f"{DEFAULT_CONFIG}/{split}: decision of {sample_id!r} contains "
                                "its own headnote")
    return problems


def _default_problems(default: dict[str, Path]) -> tuple[list[str], dict[str, set[str]]]:
    """Problems of the ``default`` config's splits (a decision in two splits, a ``test_<year>``
    split holding other years, headnote leakage) and its sample ids per split."""
    problems: list[str] = []
    split_of_decision: dict[str, str] = {}
    default_ids: dict[str, set[str]] = {}
    for split, path in default.items():
        default_ids[split] = set(_column(path, "sample_id"))
        for decision_id in set(_column(path, "decision_id")):
            first = split_of_decision.setdefault(decision_id, split)
            if first != split:
                problems.append(f"decision {decision_id!r} is in splits {first!r} and {split!r}")
        if split.startswith("test_"):
            years = set(_column(path, "year"))
            if years != {int(split.removeprefix("test_"))}:
                problems.append(f"{DEFAULT_CONFIG}/{split}: years {sorted(years)}; expected only "
                                f"{split.removeprefix('test_')}")
        problems.extend(_leakage_problems(split, path))
    return problems, default_ids


def _pair_configs_problems(files: dict[str, dict[str, Path]], published: set[str] = frozenset()
                           ) -> tuple[list[str], dict[str, set[str]]]:
    """Problems of the pair configs (each on its own, and sample ids shared between pairs)
    and the union of their sample ids per split (one-shot examples left out)."""
    problems: list[str] = []
    pair_ids: dict[str, set[str]] = defaultdict(set)
    for config, splits in files.items():
        if config == DEFAULT_CONFIG:
            continue
        problems.extend(_pair_problems(config, splits, config in published))
        for split, path in splits.items():
            if split != ONE_SHOT_SPLIT:
                ids = _column(path, "sample_id")
                if pair_ids[split] & set(ids):
                    problems.append(f"{config}/{split}: sample ids also in another pair config")
                pair_ids[split].update(ids)
    return problems, pair_ids


def audit_folder(folder: Path) -> list[str]:
    """Run the checks listed in the module docstring on a built SLDS Hub folder."""
    files = _files(Path(folder))
    default = files.get(DEFAULT_CONFIG)
    if default is None:
        return [f"no {DEFAULT_CONFIG!r} config in the card"]
    problems, default_ids = _default_problems(default)
    published = set(read_card_metadata(Path(folder)).get("one_shot_published") or [])
    pair_problems, pair_ids = _pair_configs_problems(files, published)
    problems += pair_problems
    for split, ids in default_ids.items():
        if pair_ids.get(split, set()) != ids:
            problems.append(f"{DEFAULT_CONFIG}/{split}: its {len(ids):,} rows are not exactly "
                            f"the union of the pair configs' {split} rows "
                            f"({len(pair_ids.get(split, set())):,})")
    return problems
