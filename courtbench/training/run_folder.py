"""The run folder of ``courtbench train``: checkpoints, the run manifest and the outputs.

It follows the rules of every courtbench output (:mod:`courtbench.hub.atomic`): only a folder
courtbench wrote is replaced. Unlike the other outputs it is written in place (a killed run
must leave its checkpoints for ``--resume``), so its marker :data:`~courtbench.hub.atomic.MARKER`
of kind :data:`RUN_KIND` — every file with its sha256 and the folder it was written for — is
rewritten after each checkpoint and at the end (:func:`record_files`).

- :func:`check_start`, before any work: a new run may replace a finished run folder (or one
  that holds no checkpoint yet) that holds only what courtbench wrote; a folder holding an
  unfinished run with checkpoints is kept and the refusal says to continue it with
  ``--resume``. ``--resume`` needs a run folder courtbench started, with the same options.
- :func:`prepare`, once every input is loaded: a new run empties the folder and records its
  options in a running manifest.
- :func:`guarded`, around the training: a run that fails or is interrupted before its first
  checkpoint removes the folder it made (nothing worth resuming); later, the folder keeps its
  checkpoints and the message says how to continue. A failed write (disk full, quota,
  read-only) is one line, never a library's traceback, and a checkpoint left half-written is
  removed.

Single files (the manifest, the marker) are written to a temporary file renamed into place.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from courtbench.errors import CourtbenchError
from courtbench.hub.atomic import MARKER, check_replaceable, marker_document, read_marker
from courtbench.jsonio import dumps_strict
from courtbench.training.checkpoints import complete_checkpoints, incomplete_checkpoints
from courtbench.training.failures import write_failure

RUN_KIND = "training run"
MANIFEST = "manifest.json"
#: Options a resumed run may change (they do not change what is computed).
FREE_ON_RESUME = ("resume", "threads")
#: Digests of files already hashed, per run folder (see marker_document's ``digests``).
_DIGESTS: dict[str, dict] = {}


def record_files(folder: Path) -> None:
    """Rewrite ``folder``'s marker so it lists every file now in it, with its sha256
    (files unchanged since the last call are not read again)."""
    folder = Path(folder)
    digests = _DIGESTS.setdefault(str(folder.absolute()), {})
    marker = marker_document(folder, RUN_KIND, digests=digests)
    write_text(folder / MARKER, json.dumps(marker, indent=2, sort_keys=True,
                                           ensure_ascii=False) + "\n")


def is_main_process() -> bool:
    """False in the other processes of an ``accelerate launch`` / ``torchrun`` run (``RANK`` >
    0): only the main process prepares the run folder and writes outside the Trainer."""
    return os.environ.get("RANK", "0") == "0"


def _manifest(out: Path) -> dict:
    try:
        manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return manifest if isinstance(manifest, dict) else {}


def _progress(out: Path) -> str | None:
    """The last complete checkpoint of an unfinished run in ``out`` (relative), or None when
    ``out`` holds no run, a finished one, or one without a complete checkpoint."""
    if not out.is_dir() or _manifest(out).get("status") == "complete":
        return None
    found = complete_checkpoints(out)
    return found[-1].relative_to(out).as_posix() if found else None


def _check_same_options(out: Path, options: dict) -> None:
    """Refuse to resume with options other than the first run's (its running manifest)."""
    first = _manifest(out).get("options")
    if not isinstance(first, dict):
        return  # no readable record: the checkpoints alone decide
    options = json.loads(json.dumps(options))  # tuples as lists, as the record holds them
    changed = sorted(key for key in set(first) | set(options) if key not in FREE_ON_RESUME
                     and first.get(key) != options.get(key))
    if changed:
        shown = "; ".join(f"--{key.replace('_', '-')} {first.get(key)!r} there, "
                          f"{options.get(key)!r} now" for key in changed[:5])
        raise CourtbenchError(f"--resume: the options differ from the run in {out} ({shown}); "
                              "resume with the same options, or choose another --out for a new "
                              "run")


def check_start(out: Path, *, resume: bool, options: dict | None = None) -> None:
    """Refuse (CourtbenchError), before any work, a run that could not start in ``out``.

    - ``resume``: ``out`` must be a run folder ``courtbench train`` started, and ``options``
      (when given) those it recorded;
    - a new run: ``out`` must be missing, empty or a run folder courtbench wrote
      (:func:`courtbench.hub.atomic.check_replaceable`); an unfinished run with a checkpoint
      is kept (continue it with ``--resume``, or remove it to start over).

    Only the main process checks (the others follow it).
    """
    out = Path(out)
    if not is_main_process():
        return
    if resume:
        marker = read_marker(out) if out.is_dir() else None
        if marker is None or marker.get("kind") != RUN_KIND:
            raise CourtbenchError(f"--resume: --out {out} is not a run folder that "
                                  "`courtbench train` started; start without --resume")
        if options is not None:
            _check_same_options(out, options)
        return
    checkpoint = _progress(out)
    if checkpoint is not None:
        raise CourtbenchError(
            f"--out {out}: holds an unfinished training run (last checkpoint {checkpoint}); "
            "continue it with the same command plus --resume, or remove the folder (or choose "
            "another --out) to start over; nothing was changed")
    try:
        check_replaceable(out, kind=RUN_KIND)
    except CourtbenchError as error:
        marker = _run_marker(out)
        if marker and _manifest(out).get("status") != "complete":
            raise CourtbenchError(f"{error} (it holds an unfinished training run: to continue "
                                  "it, give the same command plus --resume)") from None
        raise


def _run_marker(out: Path) -> dict | None:
    try:
        marker = read_marker(out) if out.is_dir() else None
    except CourtbenchError:
        return None
    return marker if marker and marker.get("kind") == RUN_KIND else None


def prepare(out: Path, *, resume: bool, options: dict | None = None) -> bool:
    """Make ``out`` ready for a run; returns True when an earlier run's folder is continued.

    A new run replaces ``out`` (checked again: :func:`check_start`) and records ``options`` in
    a running manifest, which ``--resume`` compares with its own. Only the main process
    touches the folder (:func:`is_main_process`).
    """
    out = Path(out)
    check_start(out, resume=resume, options=options)
    if resume:
        return True
    if not is_main_process():
        return False
    if out.exists():
        shutil.rmtree(out)
    _DIGESTS.pop(str(out.absolute()), None)
    out.mkdir(parents=True, exist_ok=True)
    try:
        write_manifest(out, {"status": "running", "options": options or {}})
    except OSError as error:
        shutil.rmtree(out, ignore_errors=True)
        raise CourtbenchError(f"--out {out}: cannot start the run: {write_failure(error, out) or error}"
                              "; nothing was kept") from None
    return False


@contextmanager
def guarded(out: Path, *, resume: bool) -> Iterator[None]:
    """Around the training of a prepared run folder: on any failure or interrupt, remove the
    checkpoints this process left half-written; a new run without a complete checkpoint
    removes its folder (nothing to resume); otherwise the folder is kept for ``--resume``
    and stderr says so. A failed write becomes one :class:`CourtbenchError` line."""
    out = Path(out)
    before = set(incomplete_checkpoints(out))
    try:
        yield
    except BaseException as error:
        callbacks = sys.modules.get("courtbench.training.callbacks")
        if callbacks is not None:
            callbacks.close_progress_bars()  # the message starts on a line of its own
        if not is_main_process():
            raise
        for partial in incomplete_checkpoints(out):
            if partial not in before:
                shutil.rmtree(partial, ignore_errors=True)
        kept = _after_failure(out, resume)
        reason = write_failure(error, out)
        if reason is not None:
            raise CourtbenchError(f"--out {out}: writing the run failed: {reason}; {kept}") from None
        if isinstance(error, CourtbenchError):
            raise CourtbenchError(f"{error}; {kept}") from None
        print(f"courtbench train: {kept}", file=sys.stderr)
        raise


def _after_failure(out: Path, resume: bool) -> str:
    """Clean up after a failed run; returns what was kept and how to go on."""
    found = complete_checkpoints(out)
    if not found and not resume:
        shutil.rmtree(out, ignore_errors=True)
        return f"the run had no checkpoint yet, so its folder {out} was removed"
    try:
        record_files(out)
    except OSError:
        pass  # the last marker still lists every complete checkpoint
    last = found[-1].relative_to(out).as_posix() if found else "no checkpoint yet"
    return (f"the run folder keeps its checkpoints (last: {last}); continue with the same "
            "command plus --resume")


def write_text(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file renamed into place."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                         suffix=".partial")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_manifest(out: Path, manifest: dict) -> Path:
    """Write ``out/manifest.json`` (strict JSON, sorted keys) and refresh the marker."""
    path = Path(out) / MANIFEST
    write_text(path, dumps_strict(manifest, what=str(path), indent=2, sort_keys=True) + "\n")
    record_files(Path(out))
    return path
