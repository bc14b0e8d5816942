"""Finding the checkpoints of a run folder and naming the selected one."""

from __future__ import annotations

import json
import re
from pathlib import Path

_CHECKPOINT = re.compile(r"^checkpoint-(\d+)$")
#: The file the Trainer writes last into a checkpoint: a checkpoint without it is incomplete.
STATE = "trainer_state.json"


def is_complete(checkpoint: Path) -> bool:
    """Whether a checkpoint folder holds a readable ``trainer_state.json`` (the Trainer writes
    it last; a kill while it is written leaves it empty or cut)."""
    try:
        return isinstance(json.loads((Path(checkpoint) / STATE).read_text(encoding="utf-8")), dict)
    except (OSError, ValueError):
        return False


def last_checkpoint(folder: Path) -> Path | None:
    """The complete checkpoint (:func:`is_complete`) with the most steps in ``folder``,
    ``None`` when there is none."""
    folder = Path(folder)
    if not folder.is_dir():
        return None
    found = [(int(match.group(1)), path) for path in folder.iterdir()
             if (match := _CHECKPOINT.match(path.name)) and is_complete(path)]
    return max(found)[1] if found else None


def _checkpoint_folders(folder: Path) -> list[Path]:
    folder = Path(folder)
    if not folder.is_dir():
        return []
    return [path for path in folder.rglob("checkpoint-*") if _CHECKPOINT.match(path.name)
            and path.is_dir() and not path.is_symlink()]


def complete_checkpoints(folder: Path) -> list[Path]:
    """Every complete checkpoint anywhere under ``folder`` (a recipe may keep several runs,
    e.g. a sweep's), the most recently completed last."""
    found = [path for path in _checkpoint_folders(folder) if is_complete(path)]
    return sorted(found, key=lambda path: ((path / STATE).stat().st_mtime_ns, str(path)))


def incomplete_checkpoints(folder: Path) -> list[Path]:
    """Checkpoint folders under ``folder`` that are not complete: a save that did not finish
    (a full disk, a kill)."""
    return sorted(path for path in _checkpoint_folders(folder) if not is_complete(path))


def relative(path: str | None, root: Path) -> str | None:
    """``path`` relative to ``root`` (POSIX), for the manifest; ``None`` stays ``None``."""
    if not path:
        return None
    try:
        return Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        return str(path)
