"""Single output files of the runners (generations, judge results) and their manifests.

A runner writes ``OUT`` (e.g. ``preds.jsonl``) and beside it ``OUT-stem.manifest.json``
(``preds.manifest.json``), which records what was run and marks the pair as courtbench's:
``{"courtbench_output": {"kind": ..., "file": "preds.jsonl", "sha256": ...}, ...}``.
Only a file whose manifest names it with its current sha256 is ever replaced without
``--overwrite``; a directory is never a valid ``OUT``. Both are checked before any work.
Writes go to a temporary file renamed into place, so nothing is left half-written.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from courtbench.errors import CourtbenchError
from courtbench.hub.files import sha256_file

MARK = "courtbench_output"


def manifest_path(out: Path) -> Path:
    """``preds.jsonl`` -> ``preds.manifest.json`` (same folder)."""
    return out.with_name(out.stem + ".manifest.json")




def _mark(manifest: Path) -> dict | None:
    """The ownership mark of a manifest file, ``None`` when it is no courtbench manifest."""
    try:
        document = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    mark = document.get(MARK) if isinstance(document, dict) else None
    return mark if isinstance(mark, dict) else None


def read_manifest(out: Path) -> dict | None:
    """The manifest courtbench wrote beside the output file ``out``, or ``None``.

    ``None`` when there is none, when it is not a courtbench manifest, or when it names
    another file or another sha256 than ``out`` has now (a stale manifest says nothing about
    the file). Evaluation reads runner counts (failures, fallbacks) from it.
    """
    manifest = manifest_path(Path(out))
    mark = _mark(manifest) if manifest.is_file() else None
    if mark is None or mark.get("file") != Path(out).name or not Path(out).is_file() \
            or mark.get("sha256") != sha256_file(out):
        return None
    return json.loads(manifest.read_text(encoding="utf-8"))


def check_output_file(out: Path, *, kind: str, overwrite: bool, option: str = "--out",
                      suffixes: tuple[str, ...] = ()) -> None:
    """Refuse ``out`` unless courtbench may write it (call before any slow work).

    Args:
        out: the output file.
        kind: the runner's output kind (e.g. ``"<dataset>-generation"``); a file written by another
            kind of run is not replaced without ``overwrite``.
        overwrite: replace an existing file courtbench did not write.
        option: the option name used in messages.
        suffixes: accepted file suffixes (lower case), empty for any.

    Raises:
        CourtbenchError: ``out`` is a directory, has a wrong suffix, its folder is a file,
            or it (or its manifest) exists and was not written by a courtbench ``kind`` run.
    """
    if suffixes and out.suffix.lower() not in suffixes:
        raise CourtbenchError(f"{option} {out}: expected a file name ending in "
                              f"{' or '.join(suffixes)}")
    if out.is_dir():
        raise CourtbenchError(f"{option} {out}: is a directory; expected a file path")
    if out.parent.exists() and not out.parent.is_dir():
        raise CourtbenchError(f"{option} {out}: {out.parent} is not a directory")
    manifest = manifest_path(out)
    if manifest.is_dir():
        raise CourtbenchError(f"{option} {out}: {manifest} is a directory")
    if overwrite:
        return
    mark = _mark(manifest) if manifest.exists() else None
    ours = mark is not None and mark.get("kind") == kind and mark.get("file") == out.name
    if manifest.exists() and not ours:
        raise CourtbenchError(f"{option} {out}: {manifest} exists and was not written by a "
                              f"courtbench {kind} run; remove it or pass --overwrite")
    if out.exists() and not (ours and mark.get("sha256") == sha256_file(out)):
        raise CourtbenchError(f"{option} {out}: the file exists and was not written by a "
                              "courtbench run (or was changed since); remove it or pass "
                              "--overwrite")


def _write_atomic(path: Path, data: bytes) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_output_file(out: Path, data: bytes, manifest: dict, *, kind: str) -> Path:
    """Write ``out`` then its manifest (``manifest`` plus the ownership mark), each atomically.

    Returns the manifest's path. Every JSON courtbench writes is strict (no NaN/Infinity).
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    _write_atomic(out, data)
    document = {MARK: {"kind": kind, "file": out.name,
                       "sha256": hashlib.sha256(data).hexdigest()}, **manifest}
    path = manifest_path(out)
    _write_atomic(path, (json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False)
                         + "\n").encode("utf-8"))
    return path
