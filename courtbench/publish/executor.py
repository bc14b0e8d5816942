"""Carry out a :class:`~courtbench.publish.plan.PublishPlan` on the Hub, in one commit.

Steps, each named in the error when it fails:

1. ``create repo``: ``create_repo(repo_id, repo_type, private, exist_ok=True, space_sdk)``;
2. ``create branch`` (only with a revision other than main): ``create_branch(exist_ok=True)``;
3. ``list remote files``: ``list_repo_files`` on the target branch;
4. ``commit``: one ``create_commit`` holding a ``CommitOperationAdd`` per planned file and a
   ``CommitOperationDelete`` per remote file courtbench manages that the plan no longer has.

A commit is atomic on the Hub and steps 1–3 are idempotent, so a run that fails anywhere
leaves either the previous content or the new one; rerunning finishes the job. Every request
waits at most ``COURTBENCH_HUB_TIMEOUT`` (default 20) seconds per socket operation and is not
retried after a timeout (:mod:`courtbench.publish.network`): a Hub that accepts connections
and never answers fails the step within seconds, not minutes.

The token is passed to ``HfApi`` only: it is never printed, logged or put in a message.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import huggingface_hub
from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi
from huggingface_hub.errors import HfHubHTTPError

from courtbench.compat import http_error_base
from courtbench.errors import CourtbenchError
from courtbench.publish.kinds import is_managed_remote_path
from courtbench.publish.network import bounded_hub_requests
from courtbench.publish.plan import PublishPlan

# HfHubHTTPError and connection failures and timeouts all derive from it
_STEP_ERRORS = (http_error_base(), OSError, ValueError)
MAIN_BRANCH = "main"


class PublishError(CourtbenchError):
    """Publishing failed at a named step (the message says which, and what to do)."""


@dataclass(frozen=True)
class PublishResult:
    """What a publication did: the repo and commit, the files uploaded and deleted."""

    repo_url: str
    commit_id: str
    commit_url: str
    uploaded: tuple[str, ...]
    deleted: tuple[str, ...]


def resolve_token() -> str:
    """The Hub token: ``HF_TOKEN``, else huggingface_hub's stored login.

    Raises:
        PublishError: no token found; says how to provide one.
    """
    token = os.environ.get("HF_TOKEN") or huggingface_hub.get_token()
    if not token:
        raise PublishError("no Hugging Face token found: set the HF_TOKEN environment variable "
                           "or run `hf auth login` (the token needs write access to the org)")
    return token


def _scrub(text: str, token: str | None) -> str:
    return text.replace(token, "<token>") if token else text


def _run_step(step: str, plan: PublishPlan, token: str | None, call: Any, /, *args: Any,
              **kwargs: Any) -> Any:
    """Call ``call(*args, **kwargs)``; turn a Hub or network failure into a PublishError."""
    try:
        return call(*args, **kwargs)
    except HfHubHTTPError as error:
        status = error.response.status_code if error.response is not None else None
        detail = _scrub(str(error).splitlines()[0] if str(error) else type(error).__name__, token)
        if status in (401, 403):
            raise PublishError(
                f"{plan.repo_id}: step '{step}' failed: the Hub rejected the token "
                f"(HTTP {status}: {detail}). Check that HF_TOKEN (or `hf auth login`) holds a "
                f"token with write access to {plan.repo_id.split('/')[0]!r}.") from None
        raise PublishError(f"{plan.repo_id}: step '{step}' failed (HTTP {status}): {detail}. "
                           "Nothing partial was committed; rerun to finish.") from None
    except _STEP_ERRORS as error:
        detail = _scrub(f"{type(error).__name__}: {error}", token)
        raise PublishError(f"{plan.repo_id}: step '{step}' failed: {detail}. "
                           "Nothing partial was committed; rerun to finish.") from None


def stale_remote_files(plan: PublishPlan, remote_files: list[str]) -> list[str]:
    """Remote files courtbench manages for this kind that the plan no longer has, sorted."""
    planned = {entry.path for entry in plan.files}
    return sorted(path for path in remote_files
                  if path not in planned and is_managed_remote_path(path, plan.kind))


def commit_operations(plan: PublishPlan,
                      stale: list[str]) -> list[CommitOperationAdd | CommitOperationDelete]:
    """One add per planned file (digest checked against the plan), one delete per stale file.

    Raises:
        PublishError: a file changed after the plan was made.
    """
    additions = []
    for entry in plan.files:
        operation = CommitOperationAdd(path_in_repo=entry.path,
                                       path_or_fileobj=str(plan.folder / entry.path))
        if operation.upload_info.sha256.hex() != entry.sha256:
            raise PublishError(f"{plan.folder / entry.path}: the file changed after it was "
                               "checked (sha256 differs from the plan); check and plan again")
        additions.append(operation)
    return additions + [CommitOperationDelete(path_in_repo=path) for path in stale]


def publish(plan: PublishPlan, *, api: Any = None, token: str | None = None) -> PublishResult:
    """Publish ``plan`` with one commit.

    Args:
        plan: from :func:`~courtbench.publish.plan.make_plan`.
        api: an object with HfApi's ``create_repo``, ``create_branch``, ``list_repo_files``
            and ``create_commit``; default ``HfApi(token=token)``.
        token: the Hub token; default :func:`resolve_token` (only used to build the default
            ``api`` and to keep it out of error messages).

    Returns:
        The repo URL, the commit id and URL, the paths uploaded and deleted.

    Raises:
        PublishError: missing or rejected token, or a failed step (named).
    """
    if api is None:
        token = token or resolve_token()
        api = HfApi(token=token)
    with bounded_hub_requests():
        return _publish_steps(plan, api, token)


def _publish_steps(plan: PublishPlan, api: Any, token: str | None) -> PublishResult:
    """The four steps of :func:`publish`."""
    repo_url = _run_step("create repo", plan, token, api.create_repo, plan.repo_id,
                         repo_type=plan.repo_type, private=plan.private, exist_ok=True,
                         space_sdk=plan.space_sdk)
    if plan.revision and plan.revision != MAIN_BRANCH:
        _run_step("create branch", plan, token, api.create_branch, plan.repo_id,
                  branch=plan.revision, repo_type=plan.repo_type, exist_ok=True)
    remote = _run_step("list remote files", plan, token, api.list_repo_files, plan.repo_id,
                       repo_type=plan.repo_type, revision=plan.revision)
    stale = stale_remote_files(plan, list(remote))
    operations = commit_operations(plan, stale)
    info = _run_step("commit", plan, token, api.create_commit, plan.repo_id, operations,
                     commit_message=plan.commit_message,
                     commit_description=plan.commit_description,
                     repo_type=plan.repo_type, revision=plan.revision)
    return PublishResult(repo_url=str(repo_url), commit_id=info.oid, commit_url=info.commit_url,
                         uploaded=tuple(entry.path for entry in plan.files), deleted=tuple(stale))
