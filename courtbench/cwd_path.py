"""Keep the working folder out of the import path of ``python -m courtbench``."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def _same_folder(entry: str, folder: Path) -> bool:
    try:
        return Path(entry or os.curdir).resolve() == folder
    except OSError:
        return False


def drop_working_folder_from_path() -> list[str]:
    """Remove ``sys.path`` entries naming the current folder, unless courtbench itself is
    imported from there; returns the removed entries.

    Inputs: ``sys.path``, the current working folder and the location of ``courtbench``.
    Output: the entries removed (``sys.path`` is changed in place).
    """
    try:
        cwd = Path.cwd().resolve()
    except OSError:  # the working folder was deleted: nothing to shadow
        return []
    home = Path(__file__).resolve().parent.parent
    if home == cwd:
        return []
    removed = [entry for entry in sys.path if _same_folder(entry, cwd)]
    sys.path[:] = [entry for entry in sys.path if entry not in removed]
    return removed
