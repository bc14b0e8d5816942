"""Single output files of the runners (generations, judge results) and their manifests.

A runner writes ``OUT`` (e.g. ``preds.jsonl``) and beside it ``OUT.manifest.json``
(``preds.jsonl.manifest.json``: named after the whole file name, so ``X.jsonl``, ``X.json``
and ``X.csv`` never share one), which records what was run and marks the pair as courtbench's:
``{"courtbench_output": {"kind": ..., "file": "preds.jsonl", "sha256": ...}, ...}``.
Only a file whose manifest names it with its current sha256 is ever replaced without
``--overwrite``; a directory is never a valid ``OUT``. Both are checked before any work.
Writes go to a temporary file renamed into place, so nothing is left half-written; a full
disk is one line naming the file and the bytes needed (:class:`CourtbenchError`).

Compatibility: the manifest name of courtbench before this layout (``preds.manifest.json``)
is read, never written, when deciding whether an existing ``OUT`` is courtbench's.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import tempfile
from pathlib import Path

from courtbench.errors import CourtbenchError
from courtbench.hub.files import sha256_file

MARK = "courtbench_output"


def manifest_path(out: Path) -> Path:
    """``preds.jsonl`` -> ``preds.jsonl.manifest.json`` (same folder)."""
    return out.with_name(out.name + ".manifest.json")


def legacy_manifest_path(out: Path) -> Path:
    """The manifest name used before: ``preds.jsonl`` -> ``preds.manifest.json`` (read only)."""
    return out.with_name(out.stem + ".manifest.json")


def _owner(out: Path) -> dict | None:
    """The mark that names ``out`` in its manifest (current name first, then the legacy one),
    or ``None``."""
    for manifest in (manifest_path(out), legacy_manifest_path(out)):
        mark = _mark(manifest) if manifest.is_file() else None
        if mark is not None and mark.get("file") == out.name:
            return mark
    return None

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
    _check_owner(out, manifest, kind, option)


def _check_owner(out: Path, manifest: Path, kind: str, option: str) -> None:
    """Refuse ``out`` (and its manifest) unless a courtbench ``kind`` run wrote them."""
    mark = _owner(out)
    if manifest.exists() and (_mark(manifest) or {}).get("file") != out.name:
        raise CourtbenchError(f"{option} {out}: {manifest} exists and was not written by "
                              "courtbench for this file; remove it or pass --overwrite")
    if not out.exists():
        return
    if mark is None:
        raise CourtbenchError(f"{option} {out}: the file exists and was not written by a "
                              "courtbench run; remove it or pass --overwrite")
    if mark.get("kind") != kind:
        raise CourtbenchError(f"{option} {out}: the file holds the output of a courtbench "
                              f"{mark.get('kind')} run, not of a {kind} run; choose another "
                              f"{option}")
    if mark.get("sha256") != sha256_file(out):
        raise CourtbenchError(f"{option} {out}: the file was changed since courtbench wrote it; "
                              f"keep your edits under another name or remove it, or choose "
                              f"another {option}")


def _write_bytes(stream, data: bytes) -> None:
    """Write and flush ``data`` to the open ``stream`` (one place a full disk shows up)."""
    stream.write(data)
    stream.flush()
    os.fsync(stream.fileno())


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``path`` through a temporary file renamed into place.

    Raises:
        CourtbenchError: no space left (or another OS error): one line naming the path and
            the bytes needed; no partial file remains and an existing ``path`` is untouched.
    """
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                             suffix=".partial")
    except OSError as error:
        raise _write_error(path, data, error) from None
    try:
        with os.fdopen(handle, "wb") as stream:
            _write_bytes(stream, data)
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise _write_error(path, data, error) from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


_write_atomic = write_atomic


def _write_error(path: Path, data: bytes, error: OSError) -> CourtbenchError:
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return CourtbenchError(f"{path}: no space left on the device while writing it "
                               f"({len(data):,} bytes needed); nothing was replaced and the "
                               "answers are kept in the response cache: free space and rerun")
    return CourtbenchError(f"{path}: cannot write it: {error.strerror or error}")


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
