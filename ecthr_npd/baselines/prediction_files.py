"""The predictions folder ``courtbench baselines ecthr_npd`` (and ``train ecthr_npd``) writes:
``<system>.csv`` (``case_id,prediction``, EUR) per system and ``settings.json``, atomically,
replacing only a folder courtbench wrote."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import numpy as np

from courtbench.hub.atomic import MARKER, atomic_output_dir
from courtbench.jsonio import dumps_strict
from ecthr_npd import schema


def is_predictions_folder(folder: Path) -> bool:
    """True when ``folder`` is a predictions folder written by this command."""
    return (folder / "settings.json").is_file()


def write_predictions(out_dir: Path, ids: list[str], predictions: dict[str, np.ndarray],
                      settings: dict[str, Any]) -> list[Path]:
    """Write ``<system>.csv`` per system and ``settings.json`` into ``out_dir`` (atomic)."""
    with atomic_output_dir(out_dir, kind="predictions folder",
                           is_ours=is_predictions_folder) as tmp:
        for name, values in predictions.items():
            with open(tmp / f"{name}.csv", "w", newline="", encoding="utf-8") as handle:
                writer = csv.writer(handle, lineterminator="\n")
                writer.writerow([schema.ID_COLUMN, schema.PREDICTION_COLUMN])
                writer.writerows(zip(ids, (repr(float(v)) for v in values), strict=True))
        (tmp / "settings.json").write_text(dumps_strict(settings, what="settings.json",
                                                        indent=2, sort_keys=True,
                                                        default=_json_default) + "\n",
                                           encoding="utf-8")
    return sorted(p for p in Path(out_dir).iterdir() if p.name != MARKER)


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"not JSON-serialisable: {type(value).__name__}")
