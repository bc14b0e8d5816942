"""On-disk cache of text embeddings: one SQLite file, keyed by model hash and text hash.

Key: sha256 of (model fingerprint, encoding settings, sha256 of the text). Value: the
embedding as little-endian float32 bytes. A rerun over the same texts with the same model
and settings reads every vector and embeds nothing; a different model (any file of its
folder changed, its pooling config included) or setting (chunk length, chunking rule) misses.
Each ``put_many`` is one transaction (the dense scorer calls it after every group of texts),
so an interrupted run keeps what it finished.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import numpy as np


def model_fingerprint(folder: Path) -> str:
    """sha256 over the relative path, size and content of every file of the model folder."""
    digest = hashlib.sha256()
    folder = Path(folder)
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode("utf-8") + b"\0")
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


class EmbeddingCache:
    """``get`` / ``put`` of float32 vectors by (namespace, text); ``path=None``: in memory."""

    def __init__(self, path: Path | None, namespace: str) -> None:
        self.path = path
        self.namespace = namespace
        if path is not None:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(":memory:" if path is None else str(path))
        self._db.execute("CREATE TABLE IF NOT EXISTS embeddings (key TEXT PRIMARY KEY, "
                         "vector BLOB NOT NULL)")
        self.hits = 0
        self.misses = 0

    def key(self, text: str) -> str:
        text_hash = hashlib.sha256(text.encode("utf-8")).hexdigest()
        return hashlib.sha256(f"{self.namespace}\0{text_hash}".encode()).hexdigest()

    def get_many(self, texts: list[str]) -> dict[str, np.ndarray]:
        """text → cached vector, for the texts that are cached."""
        keys = {self.key(t): t for t in texts}
        found: dict[str, np.ndarray] = {}
        items = list(keys)
        for start in range(0, len(items), 500):
            part = items[start:start + 500]
            marks = ",".join("?" * len(part))
            for key, blob in self._db.execute(
                    f"SELECT key, vector FROM embeddings WHERE key IN ({marks})", part):
                found[keys[key]] = np.frombuffer(blob, dtype="<f4")
        self.hits += len(found)
        self.misses += len(keys) - len(found)
        return found

    def put_many(self, vectors: dict[str, np.ndarray]) -> None:
        with self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO embeddings (key, vector) VALUES (?, ?)",
                [(self.key(t), np.asarray(v, dtype="<f4").tobytes()) for t, v in vectors.items()])

    def close(self) -> None:
        self._db.close()
