"""Finding the checkpoint to resume from and naming the selected one."""

from __future__ import annotations

import re
from pathlib import Path

_CHECKPOINT = re.compile(r"^checkpoint-(\d+)$")


def last_checkpoint(folder: Path) -> Path | None:
    """The complete checkpoint with the most steps in ``folder`` (one holding
    ``trainer_state.json``, written last), ``None`` when there is none."""
    folder = Path(folder)
    if not folder.is_dir():
        return None
    found = [(int(match.group(1)), path) for path in folder.iterdir()
             if (match := _CHECKPOINT.match(path.name)) and (path / "trainer_state.json").is_file()]
    return max(found)[1] if found else None


def relative(path: str | None, root: Path) -> str | None:
    """``path`` relative to ``root`` (POSIX), for the manifest; ``None`` stays ``None``."""
    if not path:
        return None
    try:
        return Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        return str(path)
