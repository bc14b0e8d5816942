"""What the tests' stand-ins for ``huggingface_hub.HfApi`` answer: one place that knows the
shape of the Hub's reply to a commit."""

from __future__ import annotations

import huggingface_hub


def commit_info(repo_url: str, commit_message: str, *, oid: str = "abc",
                pull_request: int | None = None) -> huggingface_hub.CommitInfo:
    """The ``CommitInfo`` the Hub returns for a commit to ``repo_url``
    (``https://huggingface.co/[datasets/]ORG/NAME``), opened as pull request
    ``pull_request`` when given."""
    return huggingface_hub.CommitInfo(
        commit_url=f"{repo_url}/commit/{oid}", commit_message=commit_message,
        commit_description="", oid=oid,
        pr_url=f"{repo_url}/discussions/{pull_request}" if pull_request is not None else None)
