"""All-or-nothing output folders: a failed or interrupted build leaves nothing behind."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from courtbench.errors import CourtbenchError


def check_replaceable(out_dir: Path, *, kind: str, is_ours: Callable[[Path], bool]) -> None:
    """Refuse to replace an existing, non-empty ``out_dir`` unless ``is_ours(out_dir)``.

    Output folders are replaced as a whole, so pointing ``--out`` at a folder that holds
    anything else (``.``, a shared ``preds/``) would delete it. ``kind`` names what the folder
    should be, for the message.
    """
    out_dir = Path(out_dir)
    if not out_dir.exists():
        return
    if not out_dir.is_dir():
        raise CourtbenchError(f"--out {out_dir}: exists and is not a folder; expected a new "
                              f"or existing {kind}")
    if any(out_dir.iterdir()) and not is_ours(out_dir):
        raise CourtbenchError(f"--out {out_dir}: refusing to replace it: the folder is not empty "
                              f"and is not a {kind} written by courtbench (it is replaced as a "
                              "whole); choose a new or empty folder")


@contextmanager
def atomic_output_dir(out_dir: Path, *, kind: str = "courtbench output folder",
                      is_ours: Callable[[Path], bool] | None = None) -> Iterator[Path]:
    """Yield a fresh temporary folder beside ``out_dir``; move it into place on success.

    The temporary folder lives in ``out_dir``'s parent (same file system, so the final
    rename is atomic) under a hidden name. On normal exit an existing ``out_dir`` is
    replaced; on any exception, ``KeyboardInterrupt`` included, the temporary folder is
    removed and ``out_dir`` is left as it was. With ``is_ours``, an existing non-empty
    ``out_dir`` is replaced only when ``is_ours(out_dir)`` is true
    (:func:`check_replaceable`), checked before any work starts.
    """
    out_dir = Path(out_dir).absolute()
    if is_ours is not None:
        check_replaceable(out_dir, kind=kind, is_ours=is_ours)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp_dir = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.partial-", dir=out_dir.parent))
    try:
        yield tmp_dir
    except BaseException:
        shutil.rmtree(tmp_dir, ignore_errors=True)
        raise
    if out_dir.exists():
        old_dir = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.old-", dir=out_dir.parent))
        old_dir.rmdir()
        out_dir.rename(old_dir)
        tmp_dir.rename(out_dir)
        shutil.rmtree(old_dir, ignore_errors=True)
    else:
        tmp_dir.rename(out_dir)
