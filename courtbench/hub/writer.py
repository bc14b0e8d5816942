"""Write a Hub dataset folder: parquet per config and split, card, figures — atomically."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from courtbench.errors import VerificationError
from courtbench.hub.atomic import HUB_FOLDER_KIND, atomic_output_dir
from courtbench.hub.card import CARD_FILE, read_card_metadata, render_card
from courtbench.hub.features import TableFeatures
from courtbench.hub.files import FileEntry, list_files
from courtbench.hub.parquet import write_parquet

SPLIT_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789_")


@dataclass(frozen=True)
class ConfigSpec:
    """One dataset config: its name, its splits (name → rows, in order) and default mark.

    A split's rows are a ``pyarrow.Table`` cast to a :class:`TableFeatures` schema (what the
    builders make: no ``datasets`` import) or a ``datasets.Dataset``; anything with
    ``num_rows`` and ``features`` serves where only the card is written
    (:mod:`courtbench.hub.streaming`).
    """

    name: str
    splits: Mapping[str, Any]
    default: bool = False


@dataclass
class HubFolderReport:
    """What :func:`write_hub_folder` wrote: files with sizes and digests, rows per split."""

    out_dir: Path
    files: list[FileEntry]
    split_sizes: dict[str, dict[str, int]]
    figures_skipped: list[str] = field(default_factory=list)


def is_hub_folder(folder: Path) -> bool:
    """True when ``folder`` holds a card written by courtbench (``courtbench_dataset`` in its
    YAML): the only kind of folder :func:`write_hub_folder` may replace."""
    try:
        return "courtbench_dataset" in read_card_metadata(folder)
    except VerificationError:
        return False


def data_file_path(config: str, split: str) -> str:
    """Relative path of one split's parquet file inside a Hub folder."""
    return f"data/{config}/{split}.parquet"


def _check_configs(configs: Sequence[ConfigSpec]) -> None:
    names = [c.name for c in configs]
    if not configs:
        raise ValueError("configs is empty; expected at least one ConfigSpec")
    if len(set(names)) != len(names):
        raise ValueError(f"configs: duplicate config names in {names}")
    defaults = [c.name for c in configs if c.default]
    if len(defaults) != 1:
        raise ValueError(f"configs: exactly one config must have default=True, got {defaults}")
    for config in configs:
        if not config.splits:
            raise ValueError(f"config {config.name!r} has no splits")
        for split in config.splits:
            if not split or not set(split) <= SPLIT_NAME_CHARS:
                raise ValueError(f"config {config.name!r}: split name {split!r} must match "
                                 "[a-z0-9_]+ (a Hub split name)")


def card_yaml(configs: Sequence[ConfigSpec], split_bytes: Mapping[str, Mapping[str, int]],
              card_metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The card's YAML: ``card_metadata``, then ``configs`` and ``dataset_info`` from the data."""
    metadata = dict(card_metadata)
    metadata["configs"] = [
        {"config_name": c.name,
         "data_files": [{"split": s, "path": data_file_path(c.name, s)} for s in c.splits],
         **({"default": True} if c.default else {})}
        for c in configs
    ]
    metadata["dataset_info"] = [
        {"config_name": c.name,
         "features": TableFeatures.of(next(iter(c.splits.values()))).yaml_list(),
         "splits": [{"name": s, "num_bytes": split_bytes[c.name][s], "num_examples": d.num_rows}
                    for s, d in c.splits.items()],
         "dataset_size": sum(split_bytes[c.name].values())}
        for c in configs
    ]
    return metadata


def draw_figures(figures: Mapping[str, Callable[[Path], None]], folder: Path
                 ) -> tuple[list[str], list[str]]:
    """Draw every figure into ``folder``; returns ``(written, skipped)`` file names.

    A figure whose function raises ImportError (the plots extra is not installed) is skipped
    with a note on stderr; any other failure propagates.
    """
    written: list[str] = []
    skipped: list[str] = []
    for name, draw in figures.items():
        try:
            draw(folder / name)
            written.append(name)
        except ImportError as error:
            skipped.append(name)
            print(f"courtbench: figure {name} skipped ({error}); install the 'plots' extra",
                  file=sys.stderr)
    return written, skipped


def write_hub_folder(
    out_dir: Path,
    configs: Sequence[ConfigSpec],
    *,
    card_template: Path,
    card_context: Mapping[str, Any],
    card_metadata: Mapping[str, Any],
    figures: Mapping[str, Callable[[Path], None]] | None = None,
    extra_files: Mapping[str, bytes] | None = None,
) -> HubFolderReport:
    """Write a complete Hub dataset folder at ``out_dir`` (replacing it), all or nothing.

    Args:
        out_dir: destination folder.
        configs: the configs; every split of a config must share the config's features.
        card_template: jinja2 template of the card body.
        card_context: template variables; ``configs`` (name and split sizes) and
            ``figures_written`` (names of the figures drawn, so a card links only those) are
            added.
        card_metadata: YAML keys written before ``configs`` and ``dataset_info``; must hold
            ``courtbench_dataset`` (the plugin name, used by ``verify`` and ``publish``).
        figures: file name → function writing that PNG; a function raising ImportError
            (plotting extra not installed) is skipped and listed in the report.
        extra_files: top-level file name → its bytes (a report that goes with the data).

    Returns:
        A :class:`HubFolderReport` of the folder as it now is.
    """
    _check_configs(configs)
    if "courtbench_dataset" not in card_metadata:
        raise ValueError("card_metadata must name the dataset plugin under 'courtbench_dataset'")
    for config in configs:
        features = [TableFeatures.of(d) for d in config.splits.values()]
        if any(f != features[0] for f in features[1:]):
            raise ValueError(f"config {config.name!r}: splits have different features")
    split_sizes = {c.name: {s: d.num_rows for s, d in c.splits.items()} for c in configs}
    with atomic_output_dir(Path(out_dir), kind=HUB_FOLDER_KIND) as tmp_dir:
        split_bytes: dict[str, dict[str, int]] = {}
        for config in configs:
            split_bytes[config.name] = {
                split: write_parquet(dataset, tmp_dir / data_file_path(config.name, split))
                for split, dataset in config.splits.items()
            }
        written, skipped = draw_figures(figures or {}, tmp_dir)
        for name, content in (extra_files or {}).items():
            (tmp_dir / name).write_bytes(content)
        context = {**card_context, "figures_written": written,
                   "configs": [{"name": c, "splits": sizes} for c, sizes in split_sizes.items()]}
        card = render_card(card_template, context, card_yaml(configs, split_bytes, card_metadata))
        (tmp_dir / CARD_FILE).write_text(card, encoding="utf-8")
    return HubFolderReport(Path(out_dir), list_files(Path(out_dir)), split_sizes, skipped)
