"""Picklable drawing jobs for tests/test_figure_worker.py (the child process imports this
module by name, so the jobs cannot live in the test file's local scope)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class WriteBytes:
    """Writes ``data`` to the path, after printing ``noise`` to stdout (which must not reach
    the parent's answer stream)."""

    data: bytes
    noise: str = ""

    def __call__(self, path: Path) -> None:
        if self.noise:
            print(self.noise)
            sys.stdout.flush()
        Path(path).write_bytes(self.data)


@dataclass(frozen=True)
class Fail:
    """Raises ``error`` (an exception instance) instead of drawing."""

    error: Exception

    def __call__(self, path: Path) -> None:
        raise self.error


@dataclass(frozen=True)
class DieWithStatus:
    """Ends the drawing process at once with ``status``, answering nothing."""

    status: int

    def __call__(self, path: Path) -> None:
        os._exit(self.status)
