"""What a folder to publish holds, where it goes on the Hub, and which files may leave it.

Two kinds of folder are published:

- a **dataset** folder written by ``courtbench build``: ``README.md`` whose YAML front matter
  has ``configs:``, and a ``data/`` folder. It goes to a Hub *dataset* repository.
  Uploadable: ``README.md``, ``data/**/*.parquet``, ``*.png`` at the top level.
- a **metric** folder ``<name>/`` (``metrics/<name>``): ``<name>.py``, ``README.md``, ``app.py``
  and ``requirements.txt``. It goes to a Hub *Space* with the gradio SDK. Uploadable: those
  four files, plain-text (UTF-8) prompt templates ``*.txt`` at the top level, and the
  top-level ``*.py`` files the script imports relatively (``from .judge_client import ...`` at the
  start of a line: evaluate copies exactly those into its module cache) and the top-level
  ``*.py`` files that ``app.py`` imports (directly or through each other): the Space page's
  helpers.

- a **leaderboard Space** folder (``courtbench leaderboard space``): card with
  ``courtbench_space: leaderboard``, ``app.py`` and the modules beside it (``results_schema.py``,
  ``record_check.py``, ``boundary.py``, ``paired_bootstrap.py``, the verifiers and what they
  import), ``requirements.txt``, ``results_repo.txt``. It goes to a Space with the gradio SDK.
- a **results** folder (``courtbench leaderboard init``): card with ``courtbench_results:``
  and ``results/<benchmark>/<system>.json``. It goes to a dataset repository; publishing it
  never deletes a remote result file (submissions arrive there as pull requests).

Every other file (caches, hidden files, symlinks, scratch output) stays on the machine.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from courtbench.errors import CourtbenchError, VerificationError
from courtbench.hub import read_card_metadata
from courtbench.hub.atomic import MARKER
from courtbench.metric_modules import shipped_link_target
from courtbench.publish.pyimports import module_level_imports

DATASET = "dataset"
METRIC = "metric"
LEADERBOARD = "leaderboard Space"
RESULTS = "results"
LEADERBOARD_FILES = ("README.md", "requirements.txt", "results_repo.txt")

CARD_FILE = "README.md"
METRIC_FILES = (CARD_FILE, "app.py", "requirements.txt")  # besides <name>.py


@dataclass(frozen=True)
class HubTarget:
    """Where a kind of folder goes: ``repo_type`` for ``HfApi``, and the Space SDK if any."""

    repo_type: str
    space_sdk: str | None


TARGETS = {DATASET: HubTarget("dataset", None), METRIC: HubTarget("space", "gradio"),
           LEADERBOARD: HubTarget("space", "gradio"), RESULTS: HubTarget("dataset", None)}


def _marked_kind(folder: Path) -> str | None:
    """:data:`LEADERBOARD` or :data:`RESULTS` when the card carries that kind's marker."""
    if not (folder / CARD_FILE).is_file():
        return None
    try:
        metadata = read_card_metadata(folder)
    except VerificationError:
        return None
    if metadata.get("courtbench_space") == "leaderboard":
        return LEADERBOARD
    if metadata.get("courtbench_results"):
        return RESULTS
    return None


def _dataset_mismatch(folder: Path) -> str | None:
    """Why ``folder`` is not a dataset folder, or None when it is one."""
    if not (folder / CARD_FILE).is_file():
        return f"no {CARD_FILE}"
    if not (folder / "data").is_dir():
        return "no data/ folder"
    try:
        metadata = read_card_metadata(folder)
    except VerificationError as error:
        return str(error)
    if "configs" not in metadata:
        return f"{CARD_FILE} YAML has no 'configs:'"
    return None


def _metric_mismatch(folder: Path) -> str | None:
    """Why ``folder`` is not a metric folder, or None when it is one."""
    missing = [f for f in (f"{folder.name}.py", *METRIC_FILES) if not (folder / f).is_file()]
    return f"missing {', '.join(missing)}" if missing else None


def detect_kind(folder: Path) -> str:
    """Return :data:`DATASET` or :data:`METRIC` for ``folder``.

    Raises:
        CourtbenchError: the folder does not exist, matches neither kind (the message says
            what each kind needs and what is missing), or matches both.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise CourtbenchError(f"{folder}: not a folder")
    marked = _marked_kind(folder)
    if marked is not None:
        return marked
    not_dataset = _dataset_mismatch(folder)
    not_metric = _metric_mismatch(folder)
    if not_dataset is None and not_metric is None:
        raise CourtbenchError(f"{folder}: looks like both a dataset folder and a metric folder; "
                              "expected exactly one kind")
    if not_dataset is None:
        return DATASET
    if not_metric is None:
        return METRIC
    raise CourtbenchError(
        f"{folder}: neither a dataset folder (README.md with YAML 'configs:' and data/; here: "
        f"{not_dataset}) nor a metric folder (<name>.py, README.md, app.py, requirements.txt "
        f"with <name> = {folder.name!r}; here: {not_metric})")


def _is_plain_text(path: Path) -> bool:
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return False
    return "\x00" not in text


def sibling_modules(folder: Path) -> set[str]:
    """Names of the existing top-level ``*.py`` files that ``<name>.py`` imports relatively
    (a line starting ``from .<module> import``, the form evaluate recognises)."""
    try:
        source = (Path(folder) / f"{Path(folder).name}.py").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return set()
    names = re.findall(r"^from\s+\.(\w+)\s+import\b", source, flags=re.MULTILINE)
    return {f"{name}.py" for name in names if (Path(folder) / f"{name}.py").is_file()}


def app_sibling_files(folder: Path) -> set[str]:
    """Top-level ``*.py`` files of a metric folder that its ``app.py`` imports at module level,
    directly or through each other (a file that cannot be read or parsed adds nothing)."""
    found: set[str] = set()
    pending = ["app.py"]
    while pending:
        try:
            source = (folder / pending.pop()).read_text(encoding="utf-8")
            imports = module_level_imports(source, "app.py")
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
        for _, module in imports:
            name = f"{module}.py"
            if name not in found and name != "app.py" and (folder / name).is_file():
                found.add(name)
                pending.append(name)
    return found


def _dataset_reason(relative: PurePosixPath) -> str | None:
    if relative.as_posix() == CARD_FILE:
        return None
    if relative.parts[0] == "data" and relative.suffix == ".parquet":
        return None
    if len(relative.parts) == 1 and relative.suffix == ".png":
        return None
    return "not README.md, data/**/*.parquet or a top-level *.png"


def _results_reason(relative: PurePosixPath) -> str | None:
    if relative.as_posix() == CARD_FILE or (relative.parts[0] in ("results", "gold")
                                            and relative.suffix == ".json"):
        return None
    return "not README.md, results/**/*.json or gold/**/*.json"


def _leaderboard_reason(relative: PurePosixPath) -> str | None:
    if len(relative.parts) == 1 and (relative.name in LEADERBOARD_FILES
                                     or relative.suffix == ".py"):
        return None
    return f"not one of {', '.join(LEADERBOARD_FILES)} or a top-level *.py"


def _metric_reason(folder: Path, relative: PurePosixPath, app_siblings: frozenset[str]
                   ) -> str | None:
    if len(relative.parts) == 1:
        if relative.name in (f"{folder.name}.py", *METRIC_FILES, *app_siblings):
            return None
        if relative.name in sibling_modules(folder):
            return None
        if relative.suffix == ".txt":
            return None if _is_plain_text(folder / relative) else (
                "*.txt that is not UTF-8 plain text")
    return (f"not {folder.name}.py, README.md, app.py, requirements.txt, a top-level *.txt, "
            f"a top-level *.py that {folder.name}.py imports relatively or one that app.py "
            "imports")


def is_shared_source_link(path: Path, kind: str) -> bool:
    """Whether ``path`` is a link that a metric folder may hold: a top-level file of the
    folder linked to a shared source that courtbench ships; it is uploaded as the file it
    links to (a Space receives real files)."""
    if kind not in (METRIC, LEADERBOARD) or path.parent.is_symlink() or not path.is_symlink():
        return False
    try:
        return shipped_link_target(path) is not None
    except CourtbenchError:
        return False


def _exclusion_reason(folder: Path, relative: PurePosixPath, kind: str,
                      app_siblings: frozenset[str] = frozenset()) -> str | None:
    """Why the file at ``relative`` must not be uploaded, or None when it may be."""
    path = folder / relative
    if path.is_symlink() and not (len(relative.parts) == 1 and is_shared_source_link(path, kind)):
        return "symbolic link"
    if not path.is_symlink() and not is_regular_file(path):
        return "not a regular file (a FIFO, device or socket)"
    if any(part.startswith(".") for part in relative.parts):
        return "hidden"
    if kind == METRIC:
        return _metric_reason(folder, relative, app_siblings)
    return {DATASET: _dataset_reason, RESULTS: _results_reason,
            LEADERBOARD: _leaderboard_reason}[kind](relative)


def select_files(folder: Path, kind: str) -> tuple[list[str], dict[str, str]]:
    """Split the files under ``folder`` into uploadable ones and left-out ones.

    Args:
        folder: the folder to publish.
        kind: :data:`DATASET` or :data:`METRIC`.

    Returns:
        ``(included, excluded)``: sorted POSIX paths relative to ``folder`` that may be
        uploaded, and ``{path: reason}`` for every other file (symlinks included).
    """
    folder = Path(folder)
    included: list[str] = []
    excluded: dict[str, str] = {}
    app_siblings = frozenset(app_sibling_files(folder)) if kind == METRIC else frozenset()
    for path in sorted(folder.rglob("*")):
        if (path.is_dir() and not path.is_symlink()) or path == folder / MARKER:
            continue  # the ownership marker is courtbench's bookkeeping, never uploaded
        relative = PurePosixPath(path.relative_to(folder).as_posix())
        reason = _exclusion_reason(folder, relative, kind, app_siblings)
        if reason is None:
            included.append(relative.as_posix())
        else:
            excluded[relative.as_posix()] = reason
    return included, excluded


PARQUET_MAGIC = b"PAR1"


def _is_parquet(path: Path) -> bool:
    """Whether ``path`` starts and ends with the parquet magic bytes (a cheap check before
    the full load in verification, so that a bad file is named)."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as handle:
            head = handle.read(4)
            handle.seek(max(0, size - 4))
            tail = handle.read(4)
    except OSError:
        return False
    return size >= 12 and head == PARQUET_MAGIC and tail == PARQUET_MAGIC


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def is_regular_file(path: Path) -> bool:
    """Whether ``path`` itself (not followed) is a regular file — never a FIFO, a device or a
    socket, which reading would block on or never finish (``/dev/zero``)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _is_png(path: Path) -> bool:
    """Whether a regular file starts with the PNG signature."""
    try:
        with open(path, "rb") as handle:
            return handle.read(len(PNG_SIGNATURE)) == PNG_SIGNATURE
    except OSError:
        return False


def _dataset_file_problem(folder: Path, path: Path, relative: str) -> str | None:
    """What makes a regular file of a dataset folder unpublishable: anything under ``data/``
    that is not a readable parquet file, a top-level ``*.png`` that is not a PNG image."""
    if relative.startswith("data/"):
        if not relative.endswith(".parquet"):
            return (f"{relative}: not a parquet file; data/ may hold only "
                    "data/<config>/<split>.parquet")
        if not _is_parquet(path):
            return (f"{relative}: not a readable parquet file (no PAR1 magic bytes at start "
                    "and end); rebuild the folder")
    if path.parent == folder and path.suffix == ".png" and not _is_png(path):
        return f"{relative}: named *.png but not a PNG image (no PNG signature); remove it"
    return None


def _entry_problem(folder: Path, path: Path, is_file: bool, kind: str) -> str | None:
    """What makes one entry of a folder unpublishable (see :func:`file_problems`)."""
    relative = path.relative_to(folder).as_posix()
    if path.is_symlink():
        if path.parent == folder and is_shared_source_link(path, kind):
            return None
        return (f"{relative}: a symbolic link (to {os.readlink(path)}); courtbench never "
                "follows or uploads links: put the file itself there")
    hidden = any(part.startswith(".") for part in PurePosixPath(relative).parts)
    if not is_file or hidden:
        return None
    if not is_regular_file(path):
        return f"{relative}: not a regular file (a FIFO, device or socket); remove it"
    if kind == DATASET:
        return _dataset_file_problem(folder, path, relative)
    return None


def file_problems(folder: Path, kind: str) -> list[str]:
    """Files that make ``folder`` unpublishable, each named: any symbolic link (never
    followed, never uploaded: a link would upload a file from outside the folder, or be
    left out silently) except, in a metric folder, a link to a shared source courtbench
    ships (:func:`is_shared_source_link`, uploaded as that file); any FIFO, device or socket
    (never opened); for a dataset any file under ``data/`` that is not parquet and any
    top-level ``*.png`` that is not a PNG image (its signature is checked)."""
    folder = Path(folder)
    problems = []
    for root, dirs, files in os.walk(folder, followlinks=False):
        base = Path(root)
        for name in sorted(dirs + files):
            problem = _entry_problem(folder, base / name, name in files, kind)
            if problem:
                problems.append(problem)
        dirs[:] = [d for d in dirs if not (base / d).is_symlink()]
    return problems


def is_managed_remote_path(path: str, kind: str) -> bool:
    """Whether a file in the Hub repo belongs to what courtbench publishes for ``kind``.

    Managed remote files that are not in a new plan are deleted by that plan's commit (a
    data file the new build no longer has, a figure or prompt template that was dropped);
    anything else in the repo (``.gitattributes``, files added by hand) is left alone.
    """
    parts = PurePosixPath(path).parts
    if path == CARD_FILE:
        return True
    if kind == RESULTS:
        return False  # result files arrive by pull request; a publish never deletes one
    if kind == DATASET:
        return parts[0] == "data" or (len(parts) == 1 and path.endswith(".png"))
    return len(parts) == 1 and path.endswith((".py", ".txt"))
