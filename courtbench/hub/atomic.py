"""All-or-nothing output folders: a failed or interrupted build leaves nothing behind."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def atomic_output_dir(out_dir: Path) -> Iterator[Path]:
    """Yield a fresh temporary folder beside ``out_dir``; move it into place on success.

    The temporary folder lives in ``out_dir``'s parent (same file system, so the final
    rename is atomic) under a hidden name. On normal exit an existing ``out_dir`` is
    replaced; on any exception, ``KeyboardInterrupt`` included, the temporary folder is
    removed and ``out_dir`` is left as it was.
    """
    out_dir = Path(out_dir).absolute()
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
