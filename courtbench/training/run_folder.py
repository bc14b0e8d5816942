"""The run folder of ``courtbench train``: checkpoints, the run manifest and the outputs.

Unlike the other outputs, a run folder is written in place (a killed run must leave its
checkpoints for ``--resume``), so ownership is the marker :data:`courtbench.hub.atomic.MARKER`
of kind :data:`RUN_KIND`, rewritten with every file present after each checkpoint and at the
end (:func:`record_files`). A new run (no ``--resume``) replaces only a run folder that holds
nothing but the files its marker lists (:func:`courtbench.hub.atomic.check_replaceable`);
``--resume`` needs a run folder courtbench started. Single files (the manifest) are written
to a temporary file renamed into place.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from courtbench import __version__
from courtbench.errors import CourtbenchError
from courtbench.hub.atomic import MARKER, MARKER_FORMAT, check_replaceable, read_marker
from courtbench.jsonio import dumps_strict

RUN_KIND = "training run"
MANIFEST = "manifest.json"
#: Options a resumed run may change (they do not change what is computed).
FREE_ON_RESUME = ("resume", "threads")


def _entries(folder: Path) -> list[str]:
    """POSIX paths of every file (and empty folder, with a trailing ``/``) under ``folder``."""
    found = []
    for root, dirs, files in os.walk(folder):
        base = Path(root)
        found += [(base / name).relative_to(folder).as_posix() for name in files]
        if not dirs and not files and base != folder:
            found.append(base.relative_to(folder).as_posix() + "/")
    return sorted(entry for entry in found if entry != MARKER)


def record_files(folder: Path) -> None:
    """Rewrite ``folder``'s marker so it lists every file now in it (atomically)."""
    marker = {"format": MARKER_FORMAT, "kind": RUN_KIND, "courtbench_version": __version__,
              "files": _entries(folder)}
    write_text(folder / MARKER, json.dumps(marker, indent=2, sort_keys=True) + "\n")


def is_main_process() -> bool:
    """False in the other processes of an ``accelerate launch`` / ``torchrun`` run (``RANK`` >
    0): only the main process prepares the run folder and writes outside the Trainer."""
    return os.environ.get("RANK", "0") == "0"


def _check_same_options(out: Path, options: dict) -> None:
    """Refuse to resume with options other than the first run's (its running manifest)."""
    try:
        first = json.loads((out / MANIFEST).read_text(encoding="utf-8")).get("options", {})
    except (OSError, ValueError, AttributeError):
        return  # no readable record: the checkpoints alone decide
    options = json.loads(json.dumps(options))  # tuples as lists, as the record holds them
    changed = sorted(key for key in set(first) | set(options) if key not in FREE_ON_RESUME
                     and first.get(key) != options.get(key))
    if changed:
        raise CourtbenchError(f"--resume: {', '.join('--' + k.replace('_', '-') for k in changed)} "
                              f"differ from the run in {out}; resume with the same options "
                              "(or start a new run without --resume)")


def prepare(out: Path, *, resume: bool, options: dict | None = None) -> bool:
    """Make ``out`` ready for a run; returns True when an earlier run's folder is continued.
    A new run records ``options`` in a running manifest, which ``--resume`` compares with its
    own. Only the main process touches the folder (:func:`is_main_process`).

    Raises:
        CourtbenchError: ``--resume`` on a folder courtbench did not start as a training run
            or with other options, or a new run over a folder that is not a replaceable
            training run.
    """
    out = Path(out)
    if resume:
        marker = read_marker(out) if out.is_dir() else None
        if marker is None or marker.get("kind") != RUN_KIND:
            raise CourtbenchError(f"--resume: --out {out} is not a run folder that "
                                  "`courtbench train` started; start without --resume")
        if options is not None:
            _check_same_options(out, options)
        return True
    if not is_main_process():
        return False
    check_replaceable(out, kind=RUN_KIND)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    write_manifest(out, {"status": "running", "options": options or {}})
    return False


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
