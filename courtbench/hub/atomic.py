"""Output folders courtbench owns: written all or nothing, replaced only when provably ours.

Every folder courtbench writes (Hub dataset folders, predictions folders, reports, demo
parts) goes through :func:`atomic_output_dir`, which:

- refuses, before any work, an existing ``--out`` that is not empty unless it carries the
  marker file :data:`MARKER` (``.courtbench.json``: kind, courtbench version, the files it
  wrote with their sha256, the folder it was written for) of the same kind, was written for
  this very folder and holds nothing but the files that marker lists, each with the content
  courtbench wrote — a folder with anything else in it, a hand-edited file, or a marker
  copied from another folder is refused with the list, never deleted;
- writes into a hidden sibling ``.<out>.partial-<pid>-<random>`` (same file system, so the
  final rename is atomic), then writes the marker and swaps the folder into place;
- on any exception (``KeyboardInterrupt`` and the CLI's SIGTERM included) removes the partial
  folder and leaves ``--out`` as it was; a disk-full or permission error becomes one
  :class:`~courtbench.errors.CourtbenchError` line saying that nothing was replaced;
- removes partial folders of processes that died without cleaning up (``kill -9``), and
  restores a previous output whose replacement was interrupted mid-swap; a partial folder is
  stale only when nobody holds its lock (``fcntl.flock`` on the folder, held for the whole
  run), so a live build in another PID namespace or container sharing the volume is never
  taken for a dead one;
- gives the folder the permissions of the user's umask (``mkdtemp`` alone makes it 0700).

Inputs never live inside an output: :func:`refuse_inputs_inside` checks that before any work.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from courtbench import __version__
from courtbench.errors import CourtbenchError

#: Name of the ownership marker inside every output folder courtbench writes.
MARKER = ".courtbench.json"
#: Version of the marker's layout (2: ``sha256`` per file and the ``folder`` written for).
MARKER_FORMAT = 2
#: Output kinds recorded in markers (a writer may name its own).
HUB_FOLDER_KIND = "Hub dataset folder"
PREDICTIONS_KIND = "predictions folder"
REPORT_KIND = "report folder"
#: How many foreign entries a refusal lists before summarising.
MAX_LISTED = 10
#: Errors of writing (not of reading inputs) that become one clear line.
WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EACCES,
                          errno.EPERM, errno.EIO, errno.ENAMETOOLONG})
_SCRATCH = re.compile(r"^\.(?P<name>.+)\.(?P<what>partial|old)-(?P<pid>\d+)-[^/]*$")


def read_marker(folder: Path) -> dict | None:
    """The marker of ``folder`` (``{"kind", "courtbench_version", "files", "format"}``), or
    ``None`` when it has none.

    Raises:
        CourtbenchError: the marker exists but is not a marker courtbench wrote.
    """
    path = Path(folder) / MARKER
    if not path.is_file() or path.is_symlink():
        return None
    try:
        marker = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CourtbenchError(f"{path}: unreadable ownership marker ({error}); refusing to "
                              "replace the folder") from None
    files = marker.get("files") if isinstance(marker, dict) else None
    hashes = marker.get("sha256", {}) if isinstance(marker, dict) else None
    if (not isinstance(files, list) or not all(isinstance(f, str) for f in files)
            or not isinstance(marker.get("kind"), str) or not isinstance(hashes, dict)):
        raise CourtbenchError(f"{path}: not an ownership marker courtbench wrote (expected an "
                              "object with 'kind' and a list 'files'); refusing to replace "
                              "the folder")
    return marker


def _entries(folder: Path) -> list[str]:
    """POSIX paths, relative to ``folder``, of every entry that is not a real directory
    (files, symlinks, sockets …) and of every empty directory; symlinks are never followed."""
    found = []
    for root, dirs, files in os.walk(folder, followlinks=False):
        base = Path(root)
        for name in list(dirs):
            if (base / name).is_symlink():
                files.append(name)  # a link to a folder is an entry, not a place to walk
                dirs.remove(name)
        found += [(base / name).relative_to(folder).as_posix() for name in files]
        if not dirs and not files and base != folder:
            found.append(base.relative_to(folder).as_posix() + "/")
    return sorted(found)


def foreign_entries(folder: Path, marker: dict) -> list[str]:
    """Entries of ``folder`` its marker does not list (the marker itself excluded)."""
    listed = set(marker["files"]) | {MARKER}
    return [entry for entry in _entries(folder) if entry not in listed]


def _content_digest(path: Path) -> str:
    """sha256 of a file's bytes, or ``link:<target>`` for a symbolic link (never followed)."""
    if path.is_symlink():
        return "link:" + os.readlink(path)
    if not path.is_file():
        return "not-a-file"
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _folder_id(folder: Path) -> str:
    """The absolute path a marker records as the folder it was written for."""
    folder = Path(folder).absolute()
    return str(folder.parent.resolve() / folder.name)


def changed_entries(folder: Path, marker: dict) -> list[str]:
    """Listed files whose content is not what courtbench wrote (or, for a marker without
    hashes, every listed file: its content cannot be proved)."""
    hashes = marker.get("sha256") or {}
    changed = []
    for name in marker["files"]:
        path = Path(folder) / name
        if name.endswith("/") or not (path.exists() or path.is_symlink()):
            continue  # empty folders carry no content; a missing file is nothing to lose
        if hashes.get(name) != _content_digest(path):
            changed.append(name)
    return changed


def _listing(entries: list[str]) -> str:
    shown = ", ".join(entries[:MAX_LISTED])
    more = len(entries) - MAX_LISTED
    return shown + (f" … ({more} more)" if more > 0 else "")


def check_replaceable(out_dir: Path, *, kind: str,
                      is_ours: Callable[[Path], bool] | None = None) -> None:
    """Refuse (CourtbenchError) to replace ``out_dir`` unless it is missing, empty, or an
    output of ``kind`` that courtbench wrote and that holds only the files it wrote.

    ``kind`` names what the folder should be ("Hub dataset folder", "predictions folder",
    "report folder" …); it must equal the kind in the folder's marker. ``is_ours`` is kept
    for callers of the earlier interface and no longer decides anything: ownership is the
    marker, never a guess from a file name.
    """
    del is_ours  # ownership is the marker only
    out_dir = Path(out_dir)
    if out_dir.is_symlink():
        raise CourtbenchError(f"--out {out_dir}: is a symbolic link; give a real folder path "
                              "(courtbench never replaces a link or writes through one)")
    if not out_dir.exists():
        return
    if not out_dir.is_dir():
        raise CourtbenchError(f"--out {out_dir}: exists and is not a folder; expected a new "
                              f"or existing {kind}")
    entries = _entries(out_dir)
    if not entries:
        return
    marker = read_marker(out_dir)
    if marker is None:
        raise CourtbenchError(
            f"--out {out_dir}: refusing to replace it: the folder is not empty and carries no "
            f"{MARKER} marker, so courtbench did not write it (holds {_listing(entries)}); "
            f"nothing was changed; choose a new or empty folder")
    if marker["kind"] != kind:
        raise CourtbenchError(
            f"--out {out_dir}: refusing to replace it: it is a {marker['kind']} written by "
            f"courtbench, not a {kind}; nothing was changed; choose another folder")
    foreign = foreign_entries(out_dir, marker)
    if foreign:
        raise CourtbenchError(
            f"--out {out_dir}: refusing to replace it: besides the {kind} courtbench wrote it "
            f"holds {len(foreign)} file(s) courtbench did not write: {_listing(foreign)}; "
            "nothing was changed; move them away or choose another folder")
    _check_marker_content(out_dir, marker)


def _check_marker_content(out_dir: Path, marker: dict) -> None:
    """Refuse a marker written for another folder, and listed files whose content changed."""
    if marker.get("folder") != _folder_id(out_dir):
        raise CourtbenchError(
            f"--out {out_dir}: refusing to replace it: its {MARKER} was written for "
            f"{marker.get('folder') or 'another folder (a marker without a folder)'}, not this "
            "one (copied or moved), so its files cannot be proved courtbench's; nothing was "
            "changed; choose another folder or remove it yourself")
    changed = changed_entries(out_dir, marker)
    if changed:
        raise CourtbenchError(
            f"--out {out_dir}: refusing to replace it: {len(changed)} file(s) differ from "
            f"what courtbench wrote (edited by hand?): {_listing(changed)}; nothing was "
            "changed; move them away or choose another folder")


def refuse_inputs_inside(out_dir: Path, inputs: Iterable[tuple[str, Path | None]]) -> None:
    """Refuse (CourtbenchError) any input that is ``out_dir`` or lies inside it.

    ``out_dir`` is replaced as a whole, so an input inside it would be deleted by the very
    run that reads it. ``inputs`` holds ``(argument, path)`` pairs such as
    ``("--source", Path("b/case_level.csv"))``; ``None`` paths are skipped. Symlinks are
    resolved, so a link from elsewhere into ``out_dir`` is caught too.
    """
    out = Path(out_dir).resolve()
    for argument, path in inputs:
        if path is None:
            continue
        resolved = Path(path).resolve()
        if resolved == out or out in resolved.parents:
            raise CourtbenchError(
                f"{argument} {path}: lies inside --out {out_dir}, which is replaced as a whole "
                "when the run succeeds, so the input would be deleted; write the output to "
                "another folder")


def _current_umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # the only portable way to read it: set and restore at once
    os.umask(mask)
    return mask


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # exists (another user's), or we cannot tell: keep its folder
    return True


def lock_folder(folder: Path) -> int:
    """Hold an exclusive ``flock`` on ``folder`` (returns the descriptor; close it to
    release). Processes in other PID namespaces or containers on the same kernel see it."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(descriptor)
        raise
    return descriptor


def _locked_by_someone(folder: Path) -> bool:
    """Whether another process holds the lock of a partial folder (unreadable: assume so)."""
    try:
        descriptor = lock_folder(folder)
    except BlockingIOError:
        return True
    except OSError:
        return True  # cannot tell (another user's folder): keep it
    os.close(descriptor)
    return False


def _in_use(entry: Path, what: str, pid: int) -> bool:
    """A partial folder is in use while its lock is held; an old-output folder (a swap in
    progress, which lasts two renames) while its process runs."""
    if what == "partial":
        return pid == os.getpid() or _locked_by_someone(entry)
    return _pid_alive(pid)


def clean_stale_scratch(out_dir: Path) -> list[Path]:
    """Remove the hidden partial folders of ``out_dir`` left by processes that no longer run;
    restore an interrupted replacement (``.<out>.old-<pid>-*`` of a dead process while
    ``out_dir`` is missing) to ``out_dir``. Returns the folders removed or restored."""
    out_dir = Path(out_dir).absolute()
    handled = []
    if not out_dir.parent.is_dir():
        return handled
    for entry in sorted(out_dir.parent.iterdir()):
        match = _SCRATCH.match(entry.name)
        if (not match or match["name"] != out_dir.name or entry.is_symlink()
                or not entry.is_dir() or _in_use(entry, match["what"], int(match["pid"]))):
            continue
        if match["what"] == "old" and not out_dir.exists():
            entry.rename(out_dir)
            note = f"restored {out_dir} from {entry.name}, whose replacement was interrupted"
        else:
            shutil.rmtree(entry, ignore_errors=True)
            note = f"removed {entry.name}, left by process {match['pid']} (no longer running)"
        print(f"courtbench: {note}", file=sys.stderr)
        handled.append(entry)
    return handled


def marker_document(folder: Path, kind: str, target: Path | None = None, *,
                    digests: dict | None = None) -> dict:
    """The marker of ``folder``: every entry (the marker itself excluded) with its content
    digest, and ``target`` (default ``folder``) as the folder it was written for.

    Args:
        digests: for a folder written in place and marked again and again (a training run
            after each checkpoint): ``name → (stat key, digest)`` kept between calls, so an
            unchanged file (same device, inode, size and modification time) is not read
            again. A stale entry can only make the marker claim content the file no longer
            has, which :func:`check_replaceable` then refuses: never a wrong acceptance.
    """
    folder = Path(folder)
    files = [name for name in _entries(folder) if name != MARKER]
    hashes = {}
    for name in files:
        if name.endswith("/"):
            continue
        path = folder / name
        if digests is None or path.is_symlink():
            hashes[name] = _content_digest(path)
            continue
        status = path.stat()
        key = (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns)
        known = digests.get(name)
        hashes[name] = known[1] if known and known[0] == key else _content_digest(path)
        digests[name] = (key, hashes[name])
    return {"format": MARKER_FORMAT, "kind": kind, "courtbench_version": __version__,
            "files": files, "folder": _folder_id(folder if target is None else target),
            "sha256": hashes}


def _write_marker(folder: Path, kind: str, target: Path) -> None:
    """Write the marker of ``folder`` (to be moved to ``target``): every entry with its
    content digest, and ``target`` as the folder it was written for."""
    if MARKER in _entries(folder):
        raise ValueError(f"{folder}: a writer wrote {MARKER} itself; the name is reserved")
    marker = marker_document(folder, kind, target)
    (folder / MARKER).write_text(json.dumps(marker, indent=2, sort_keys=True,
                                            ensure_ascii=False, allow_nan=False) + "\n",
                                 encoding="utf-8")


def _swap_into_place(tmp_dir: Path, out_dir: Path, kind: str) -> None:
    """Move ``tmp_dir`` to ``out_dir``, replacing a previous output of ``kind``."""
    if not out_dir.exists():
        tmp_dir.rename(out_dir)
        return
    # checked again: files may have been added while the run worked
    check_replaceable(out_dir, kind=kind)
    old_dir = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.old-{os.getpid()}-",
                                    dir=out_dir.parent))
    old_dir.rmdir()
    out_dir.rename(old_dir)
    try:
        tmp_dir.rename(out_dir)
    except BaseException:
        old_dir.rename(out_dir)
        raise
    shutil.rmtree(old_dir, ignore_errors=True)


def _write_failed(out_dir: Path, existed: bool, error: OSError) -> CourtbenchError:
    reason = "the disk is full" if error.errno in (errno.ENOSPC, errno.EDQUOT) else error.strerror
    where = f" ({error.filename})" if error.filename else ""
    kept = (f"the previous {out_dir} is intact (nothing was replaced)" if existed
            else f"nothing was written to {out_dir}")
    return CourtbenchError(f"--out {out_dir}: writing failed: {reason}{where}; {kept} and the "
                           "partial output was removed")


@contextmanager
def atomic_output_dir(out_dir: Path, *, kind: str = "courtbench output folder",
                      is_ours: Callable[[Path], bool] | None = None) -> Iterator[Path]:
    """Yield a fresh temporary folder beside ``out_dir``; move it into place on success.

    Args:
        out_dir: the output folder; refused before the body runs unless
            :func:`check_replaceable` allows it.
        kind: what the folder is; recorded in its marker and required of an existing one.
        is_ours: ignored (kept for callers of the earlier interface).

    On normal exit the marker listing every file written is added and ``out_dir`` replaced;
    on any exception, ``KeyboardInterrupt`` included, the temporary folder is removed and
    ``out_dir`` is left as it was.

    Raises:
        CourtbenchError: ``out_dir`` is not replaceable, or writing failed for lack of space
            or permission (the message says the previous folder is intact).
    """
    del is_ours
    out_dir = Path(out_dir).absolute()
    check_replaceable(out_dir, kind=kind)
    existed = out_dir.exists()
    try:
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        clean_stale_scratch(out_dir)
        tmp_dir = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.partial-{os.getpid()}-",
                                        dir=out_dir.parent))
        lock = lock_folder(tmp_dir)  # held until the folder is in place or removed
    except OSError as error:
        raise _write_failed(out_dir, existed, error) from None
    try:
        yield tmp_dir
        _write_marker(tmp_dir, kind, out_dir)
        tmp_dir.chmod(0o777 & ~_current_umask())
        _swap_into_place(tmp_dir, out_dir, kind)
    except BaseException as error:
        shutil.rmtree(tmp_dir, ignore_errors=True)
        if isinstance(error, OSError) and error.errno in WRITE_ERRNOS:
            raise _write_failed(out_dir, existed, error) from None
        raise
    finally:
        os.close(lock)
