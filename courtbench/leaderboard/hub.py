"""Open the pull request that adds result records to the leaderboard's results repository."""

from __future__ import annotations

from typing import Any

from huggingface_hub import CommitOperationAdd, HfApi
from huggingface_hub.errors import HfHubHTTPError

from courtbench.errors import CourtbenchError
from courtbench.leaderboard.results_schema import dumps_record, record_path
from courtbench.publish.executor import resolve_token


def pr_description(records: list[dict[str, Any]]) -> tuple[str, str]:
    """Title and body of the pull request for ``records``."""
    benchmark = records[0]["benchmark"]
    systems = ", ".join(r["system"] for r in records)
    title = f"Add {benchmark} results: {systems}"
    lines = [f"Submitted with courtbench {records[0]['courtbench_version']}; re-scored against "
             f"data fingerprint `{records[0]['data_fingerprint'][:16]}…` "
             f"({records[0]['data_kind']}) before submission.", ""]
    for record in records:
        primary = next(m for m in record["metrics"] if m["primary"])
        lines.append(f"- `{record_path(record)}`: {primary['name']} {primary['value']:,.4f}"
                     + (f" (model {record['model_name']})" if record["model_name"] else ""))
    return title, "\n".join(lines)


def open_pull_request(records: list[dict[str, Any]], repo_id: str, *,
                      api: Any = None) -> str:
    """One ``create_commit(create_pr=True)`` adding one JSON file per record; returns the
    pull request's URL.

    Raises:
        CourtbenchError: no token, or the Hub refused (the message names the status).
    """
    operations = [CommitOperationAdd(path_in_repo=record_path(r),
                                     path_or_fileobj=dumps_record(r).encode("utf-8"))
                  for r in records]
    title, body = pr_description(records)
    if api is None:
        api = HfApi(token=resolve_token())
    try:
        info = api.create_commit(repo_id, operations, commit_message=title,
                                 commit_description=body, repo_type="dataset", create_pr=True)
    except HfHubHTTPError as error:
        status = error.response.status_code if error.response is not None else None
        raise CourtbenchError(f"{repo_id}: the Hub refused the pull request (HTTP {status}: "
                              f"{str(error).splitlines()[0] if str(error) else 'no detail'})"
                              ) from None
    return info.pr_url or info.commit_url
