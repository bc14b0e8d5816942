"""Telling a failed write of a training run (disk full, quota, read-only, permission) from a bug.

The Trainer writes checkpoints through three libraries, and each reports a full disk its own
way: Python's ``OSError`` (errno ``ENOSPC``), safetensors' ``SafetensorError`` ("… No space
left on device (os error 28)") and torch's zip writer, a ``RuntimeError`` that has lost the
errno ("[enforce fail at inline_container.cc:…] . unexpected pos 576 vs 534", or
"PytorchStreamWriter failed writing file …"). :func:`write_failure` recognises all three (the
library texts are pinned by ``tests/toolkit/test_train_run_folder.py``); for torch's, the free space
of the run folder's file system decides whether to say the disk is full.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
from pathlib import Path

from courtbench.hub.atomic import WRITE_ERRNOS

#: Below this many free bytes a failed torch write is reported as a full disk.
LOW_SPACE_BYTES = 64 * 2**20
_OS_ERROR = re.compile(r"\(os error (\d+)\)")
_TORCH_WRITER = ("PytorchStreamWriter failed", "unexpected pos", "file write failed")


def _reason(code: int, filename: str | None = None) -> str:
    text = ("the disk is full" if code in (errno.ENOSPC, errno.EDQUOT)
            else os.strerror(code).lower())
    return text + (f" ({filename})" if filename else "")


def _free_bytes(folder: Path) -> int | None:
    for candidate in (Path(folder), *Path(folder).absolute().parents):
        try:
            return shutil.disk_usage(candidate).free
        except OSError:
            continue
    return None


def write_failure(error: BaseException, folder: Path) -> str | None:
    """Why writing into ``folder`` failed when ``error`` (or an exception it was raised from)
    is a failed write, in a few words ("the disk is full (…/model.safetensors)"); None when it
    is anything else."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        reason = _one(current, folder)
        if reason is not None:
            return reason
        current = current.__cause__ or current.__context__
    return None


def _one(error: BaseException, folder: Path) -> str | None:
    if isinstance(error, OSError):
        return _reason(error.errno, error.filename) if error.errno in WRITE_ERRNOS else None
    text = str(error)
    code = _OS_ERROR.search(text)
    if type(error).__name__ == "SafetensorError" and code and int(code.group(1)) in WRITE_ERRNOS:
        return _reason(int(code.group(1)))
    if isinstance(error, RuntimeError) and any(part in text for part in _TORCH_WRITER):
        free = _free_bytes(folder)
        if free is not None and free < LOW_SPACE_BYTES:
            return f"the disk is full ({free:,} bytes free)"
        return f"torch could not write a checkpoint file ({text.splitlines()[0][:200]})"
    return None
