"""Open the pull request that adds result records to the leaderboard's results repository."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import requests
from huggingface_hub import CommitOperationAdd, HfApi, hf_hub_download
from huggingface_hub.errors import HfHubHTTPError

from courtbench.errors import CourtbenchError
from courtbench.hub.card import read_card_metadata
from courtbench.leaderboard.protocol import accepted_data
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
    except (requests.exceptions.RequestException, OSError) as error:
        raise CourtbenchError(f"{repo_id}: could not reach the Hub to open the pull request "
                              f"({type(error).__name__}: {str(error).splitlines()[0][:200]}); "
                              "nothing was sent; try again later") from None
    return info.pr_url or info.commit_url


def read_accepted_data(repo_id: str, *, results_folder: Path | None = None,
                       download=hf_hub_download) -> dict[str, dict[str, str]]:
    """The accepted data ``{benchmark: {fingerprint: data_kind}}`` of the results dataset:
    from the card of ``results_folder`` when given (a local copy), else from the card of
    ``repo_id`` on the Hub.

    Raises:
        CourtbenchError: the Hub cannot be reached or refuses, or the card declares none.
    """
    if results_folder is not None:
        return accepted_data(read_card_metadata(Path(results_folder)), str(results_folder))
    try:
        card = Path(download(repo_id, "README.md", repo_type="dataset"))
    except HfHubHTTPError as error:
        status = error.response.status_code if error.response is not None else None
        raise CourtbenchError(f"{repo_id}: could not read the results dataset's card (HTTP "
                              f"{status}); nothing was sent") from None
    except (requests.exceptions.RequestException, OSError, ValueError) as error:
        raise CourtbenchError(f"{repo_id}: could not reach the Hub to read the accepted data "
                              f"({type(error).__name__}: {str(error).splitlines()[0][:200]}); "
                              "nothing was sent; try again later, or pass --results-folder "
                              "with a local copy of the results dataset") from None
    return accepted_data(read_card_metadata(card.parent), f"{repo_id} (README.md)")
