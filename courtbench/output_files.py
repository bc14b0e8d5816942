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

from courtbench.boundary import (
    BoundaryError,
    check_integer,
    check_quantity,
    loads_bounded,
)
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


#: Largest manifest read back (characters): a run's manifest lists its failures, one line
#: each, so a real one stays far below this.
MAX_MANIFEST_CHARS = 64 * 2**20
#: Counts a manifest may hold under ``counts`` / ``llm_run`` (whole numbers >= 0).
_COUNT_KEYS = ("cases", "samples", "failed", "filled", "written", "request_failed",
               "answer_failed", "sent", "cached", "attempts", "requests", "ok", "empty",
               "parsed", "filled_with_fallback", "truncated_answers")
#: Shares a manifest may hold under ``llm_run`` (0 to 1).
_SHARE_KEYS = ("failure_share", "fallback_share", "max_failure_share")


def read_manifest(out: Path) -> dict | None:
    """The manifest courtbench wrote beside the output file ``out``, or ``None``.

    ``None`` when there is none, when it is not a courtbench manifest, or when it names
    another file or another sha256 than ``out`` has now (a stale manifest says nothing about
    the file). Evaluation and submission read runner counts (failures, fallbacks,
    completeness) from it, so what they read passes the shared validator
    (:func:`check_manifest`).

    Raises:
        BoundaryError: the manifest is courtbench's but not valid JSON within bounds, or a
            count, share or flag in it is out of range (one line naming the file and field).
    """
    manifest = manifest_path(Path(out))
    mark = _mark(manifest) if manifest.is_file() else None
    if mark is None or mark.get("file") != Path(out).name or not Path(out).is_file() \
            or mark.get("sha256") != sha256_file(out):
        return None
    document = loads_bounded(manifest.read_text(encoding="utf-8", errors="replace"),
                             str(manifest), max_chars=MAX_MANIFEST_CHARS)
    check_manifest(document, str(manifest))
    return document


def check_manifest(document: dict, where: str) -> None:
    """Refuse (BoundaryError) a manifest whose run figures are out of range: ``complete``
    (top level and under ``llm_run``) a bool, counts whole numbers >= 0 within 64 bits,
    shares between 0 and 1."""
    if "complete" in document and not isinstance(document["complete"], bool):
        raise BoundaryError(f"{where}, field complete", document["complete"], "true or false")
    for section in ("counts", "llm_run"):
        values = document.get(section)
        if values is None:
            continue
        if not isinstance(values, dict):
            raise BoundaryError(f"{where}, field {section}", values, "an object")
        for key in _COUNT_KEYS:
            if key in values:
                check_integer(values[key], f"{where}, field {section}.{key}", low=0,
                              what="a count")
        for key in _SHARE_KEYS:
            if key in values:
                check_quantity(values[key], f"{where}, field {section}.{key}", "probability")
        if "complete" in values and not isinstance(values["complete"], bool):
            raise BoundaryError(f"{where}, field {section}.complete", values["complete"],
                                "true or false")


def _share(numerator, denominator) -> float | None:
    return numerator / denominator if isinstance(numerator, int) and denominator else None


def run_status(manifest: dict | None) -> dict:
    """What a (validated) runner manifest says of its run: ``complete`` (bool or None),
    ``failure_share`` (items without a usable answer) and ``fallback_share`` (items filled
    with a fallback instead of the model's answer), each a share 0–1 or None when the
    manifest does not say. Read from ``llm_run`` first, then from ``counts``."""
    manifest = manifest or {}
    run = manifest.get("llm_run") if isinstance(manifest.get("llm_run"), dict) else {}
    counts = manifest.get("counts") if isinstance(manifest.get("counts"), dict) else {}
    total = counts.get("cases") or counts.get("samples")
    failure = run.get("failure_share")
    if failure is None:
        failed = (counts.get("request_failed", 0) + counts.get("answer_failed", 0)
                  if "cases" in counts else counts.get("failed"))
        failure = _share(failed, total)
    fallback = run.get("fallback_share")
    if fallback is None:
        fallback = _share(counts.get("filled"), total)
    complete = manifest.get("complete", run.get("complete"))
    return {"complete": complete if isinstance(complete, bool) else None,
            "failure_share": None if failure is None else float(failure),
            "fallback_share": None if fallback is None else float(fallback)}


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
