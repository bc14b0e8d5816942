"""The publish plan: what will be sent where, fixed before any network call.

A :class:`PublishPlan` is made only for a folder that passed the pre-flight checks. It lists
exactly the files to upload with their sizes and sha256 digests, and carries the commit
message (courtbench version + content fingerprint). ``--dry-run`` prints it and stops;
the executor uploads exactly these files and checks their digests again on the way out.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from huggingface_hub import constants

from courtbench import __version__
from courtbench.hub.files import FileEntry, fingerprint, sha256_file
from courtbench.publish.checks import preflight
from courtbench.publish.kinds import TARGETS, detect_kind, select_files
from courtbench.publish.repo_id import check_repo_id


@dataclass(frozen=True)
class PublishPlan:
    """One folder's publication.

    Attributes:
        folder: the local folder.
        kind: ``"dataset"`` or ``"metric"``.
        repo_id: ``ORG/NAME`` on the Hub.
        repo_type: ``"dataset"`` or ``"space"``.
        space_sdk: ``"gradio"`` for a Space, else None.
        private: create the repository private (an existing repository keeps its visibility).
        revision: branch to commit to; None means the default branch (main).
        files: the files to upload (POSIX path, size in bytes, sha256 hex), sorted by path.
        excluded: ``{path: reason}`` for files of the folder that are not uploaded.
        checks: notes on the pre-flight checks that passed.
        fingerprint: sha256 over the sorted ``(path, sha256)`` pairs of ``files``.
        commit_message: the commit's summary line.
        commit_description: the commit's body: one line per file.
    """

    folder: Path
    kind: str
    repo_id: str
    repo_type: str
    space_sdk: str | None
    private: bool
    revision: str | None
    files: tuple[FileEntry, ...]
    excluded: dict[str, str]
    checks: tuple[str, ...]
    fingerprint: str
    commit_message: str
    commit_description: str

    @property
    def repo_url(self) -> str:
        """The repository's web address (``HF_ENDPOINT`` respected)."""
        prefix = "" if self.repo_type == "model" else f"{self.repo_type}s/"
        return f"{constants.ENDPOINT}/{prefix}{self.repo_id}"

    @property
    def total_bytes(self) -> int:
        return sum(entry.size for entry in self.files)


def commit_texts(kind: str, folder: Path, files: tuple[FileEntry, ...],
                 content_fingerprint: str) -> tuple[str, str]:
    """The commit message and description for a plan."""
    message = (f"courtbench {__version__}: publish {kind} {folder.name} "
               f"(content sha256 {content_fingerprint})")
    description = "\n".join(
        [f"Published with courtbench {__version__}. Content fingerprint: sha256 over the "
         "sorted (path, sha256) pairs of the files below.", ""]
        + [f"{entry.sha256}  {entry.size:>12}  {entry.path}" for entry in files])
    return message, description


def make_plan(folder: Path, repo_id: str, *, private: bool = False,
              revision: str | None = None, allow_unlicensed: bool = False) -> PublishPlan:
    """Check ``folder`` offline and plan its publication to ``repo_id``.

    Args:
        folder: a dataset folder built by ``courtbench build`` or a metric-module folder.
        repo_id: ``ORG/NAME``.
        private: create the repository private.
        revision: branch to commit to (created from main when missing); None for main.
        allow_unlicensed: publish a dataset whose source grants no licence (the caller holds
            the right to share it).

    Returns:
        The plan; nothing has touched the network.

    Raises:
        CourtbenchError: bad repo id or a folder of no known kind.
        PublishRefused: the folder fails its pre-flight checks.
    """
    folder = Path(folder)
    check_repo_id(repo_id)
    kind = detect_kind(folder)
    included, excluded = select_files(folder, kind)
    checks = preflight(folder, kind, included, allow_unlicensed=allow_unlicensed)
    files = tuple(FileEntry(path, (folder / path).stat().st_size, sha256_file(folder / path))
                  for path in included)
    content_fingerprint = fingerprint(list(files))
    message, description = commit_texts(kind, folder, files, content_fingerprint)
    target = TARGETS[kind]
    return PublishPlan(folder=folder, kind=kind, repo_id=repo_id, repo_type=target.repo_type,
                       space_sdk=target.space_sdk, private=private, revision=revision,
                       files=files, excluded=excluded, checks=tuple(checks),
                       fingerprint=content_fingerprint, commit_message=message,
                       commit_description=description)


def format_plan(plan: PublishPlan) -> str:
    """The plan as text for ``--dry-run``: repo, kind, checks, files, commit message."""
    width = max(len(entry.path) for entry in plan.files)
    lines = [
        f"repo:     {plan.repo_id} ({plan.repo_type}"
        + (f", sdk {plan.space_sdk}" if plan.space_sdk else "")
        + (", private" if plan.private else "") + f") {plan.repo_url}",
        f"branch:   {plan.revision or 'main (default)'}",
        f"kind:     {plan.kind} folder {plan.folder}",
        "checks:   " + "\n          ".join(plan.checks),
        f"files:    {len(plan.files)} to upload, {plan.total_bytes:,} bytes",
    ]
    lines += [f"  {entry.path:<{width}}  {entry.size:>12,}  {entry.sha256}" for entry in plan.files]
    if plan.excluded:
        lines.append(f"not uploaded: {len(plan.excluded)} file(s)")
        lines += [f"  {path}  ({reason})" for path, reason in plan.excluded.items()]
    lines += [
        "deletes:  remote files courtbench manages here ("
        + ("data/**, top-level *.png" if plan.kind == "dataset" else "top-level *.py, *.txt")
        + ") that are not in this plan; listed when publishing",
        f"commit:   {plan.commit_message}",
    ]
    return "\n".join(lines)
