"""Read the splits of a built SLDS Hub folder (the one loader every SLDS command uses).

Baselines, evaluation and the judge read rows of a folder written by ``courtbench build slds``
through :func:`read_split`: offline, one config, one or more splits, rows sorted by
``sample_id``, every problem a one-line :class:`~courtbench.errors.CourtbenchError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import datasets

from courtbench.errors import CourtbenchError
from courtbench.hub.offline import hub_offline


def read_split(folder: Path, split: str | Sequence[str] = "test", *, config: str = "default",
               columns: Sequence[str] = ("sample_id",)) -> datasets.Dataset:
    """Rows of ``split`` of ``config`` in the Hub folder ``folder``, sorted by ``sample_id``.

    Args:
        folder: a folder written by ``courtbench build slds``.
        split: a split name, or several whose rows are read together.
        config: the config (``default``, a language pair such as ``de_fr`` …).
        columns: columns the caller needs (``sample_id`` always); a missing one is an error.

    Raises:
        CourtbenchError: not a folder, the config cannot be loaded, a split is absent (the
            message lists the folder's splits) or a column is missing.
    """
    folder = Path(folder)
    names = [split] if isinstance(split, str) else list(split)
    if not folder.is_dir():
        raise CourtbenchError(f"--data {folder}: not a folder")
    try:
        with hub_offline(folder):
            loaded = datasets.load_dataset(str(folder), config)
    except (ValueError, FileNotFoundError, KeyError) as error:
        raise CourtbenchError(f"--data {folder}: cannot load config {config!r}: {error}") from None
    missing = [name for name in names if name not in loaded]
    if missing:
        raise CourtbenchError(f"split {', '.join(map(repr, missing))} not in config {config!r} of "
                              f"{folder} (splits: {', '.join(sorted(loaded))})")
    rows = (loaded[names[0]] if len(names) == 1
            else datasets.concatenate_datasets([loaded[name] for name in names]))
    absent = [c for c in ("sample_id", *columns) if c not in rows.column_names]
    if absent:
        raise CourtbenchError(f"--data {folder}, config {config!r}: columns "
                              f"{', '.join(dict.fromkeys(absent))} missing "
                              f"(has {', '.join(rows.column_names)})")
    ids = rows["sample_id"]
    return rows.select(sorted(range(rows.num_rows), key=ids.__getitem__))
