"""File listings with sizes and sha256 digests (for build reports, verify and publish)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from courtbench.hub.atomic import MARKER


@dataclass(frozen=True)
class FileEntry:
    """One file of a folder: POSIX path relative to the folder, size in bytes, sha256 hex."""

    path: str
    size: int
    sha256: str


def sha256_file(path: Path, *, chunk_bytes: int = 1 << 20) -> str:
    """Hex sha256 digest of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(chunk_bytes):
            digest.update(chunk)
    return digest.hexdigest()


def list_files(folder: Path) -> list[FileEntry]:
    """Every regular file under ``folder`` (hidden files included), sorted by path — except
    the top-level ownership marker (:data:`courtbench.hub.atomic.MARKER`), which records who
    wrote the folder, not its content."""
    folder = Path(folder)
    entries = [
        FileEntry(path.relative_to(folder).as_posix(), path.stat().st_size, sha256_file(path))
        for path in folder.rglob("*")
        if path.is_file() and path != folder / MARKER
    ]
    return sorted(entries, key=lambda entry: entry.path)


def fingerprint(entries: list[FileEntry]) -> str:
    """sha256 over the sorted ``(path, sha256)`` pairs: one digest for a folder's content."""
    digest = hashlib.sha256()
    for entry in sorted(entries, key=lambda e: e.path):
        digest.update(f"{entry.path}\0{entry.sha256}\n".encode())
    return digest.hexdigest()
