"""Open the pull request that adds result records to the leaderboard's results repository,
and read that repository's card. Every Hub call is bounded in time
(:mod:`courtbench.publish.network`): a network that accepts connections and never answers
fails within a minute."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from huggingface_hub import CommitOperationAdd, HfApi, hf_hub_download
from huggingface_hub.errors import HfHubHTTPError

from courtbench.compat import http_error_base
from courtbench.errors import CourtbenchError
from courtbench.hub.card import read_card_metadata
from courtbench.leaderboard.protocol import accepted_data
from courtbench.leaderboard.results_schema import dumps_record, primary_metric, record_path
from courtbench.publish.executor import resolve_token
from courtbench.publish.network import call_with_deadline

#: Longest wait for the results dataset's card and for opening the pull request (seconds).
CARD_SECONDS = 60.0
PULL_REQUEST_SECONDS = 120.0


def pr_description(records: list[dict[str, Any]]) -> tuple[str, str]:
    """Title and body of the pull request for ``records``."""
    benchmark = records[0]["benchmark"]
    systems = ", ".join(r["system"] for r in records)
    title = f"Add {benchmark} results: {systems}"
    lines = [f"Submitted with courtbench {records[0]['courtbench_version']}; re-scored against "
             f"data fingerprint `{records[0]['data_fingerprint'][:16]}…` "
             f"({records[0]['data_kind']}) before submission. Every number can be recomputed "
             "from the predictions in the record (`courtbench leaderboard check`).", ""]
    for record in records:
        primary = primary_metric(record)
        lines.append(f"- `{record_path(record)}`: {primary['name']} {primary['value']:,.4f}"
                     + (f" (model {record['model_name']})" if record["model_name"] else "")
                     + (f" — unofficial: {record['unofficial_reason']}"
                        if record["leaderboard_table"] == "unofficial" else ""))
    return title, "\n".join(lines)


def _network_errors() -> tuple[type[BaseException], ...]:
    return (http_error_base(), OSError, ValueError)


def _status_text(error: BaseException) -> str:
    response = getattr(error, "response", None)
    status = getattr(response, "status_code", None)
    first = str(error).splitlines()[0][:200] if str(error) else type(error).__name__
    return f"HTTP {status}: {first}" if status else f"{type(error).__name__}: {first}"


def open_pull_request(records: list[dict[str, Any]], repo_id: str, *,
                      api: Any = None, seconds: float = PULL_REQUEST_SECONDS) -> str:
    """One ``create_commit(create_pr=True)`` adding one JSON file per record to the results
    dataset; returns the pull request's URL.

    Raises:
        CourtbenchError: no token, the Hub refused (the message names the status), or no
            answer within ``seconds``.
    """
    files = {record_path(r): dumps_record(r) for r in records}
    title, body = pr_description(records)
    return create_pull_request(repo_id, "dataset", files, title, body, api=api,
                               seconds=seconds)


def create_pull_request(repo_id: str, repo_type: str, files: dict[str, str], title: str,
                        body: str, *, api: Any = None,
                        seconds: float = PULL_REQUEST_SECONDS) -> str:
    """One ``create_commit(create_pr=True)`` on ``repo_id`` (a ``dataset`` or ``model``
    repository) adding ``files`` (path in the repository → UTF-8 text); every request
    bounded (:func:`courtbench.publish.network.call_with_deadline`). Returns the pull
    request's URL.

    Raises:
        CourtbenchError: no token, the Hub refused (the message names the status), or no
            answer within ``seconds``.
    """
    operations = [CommitOperationAdd(path_in_repo=path, path_or_fileobj=text.encode("utf-8"))
                  for path, text in files.items()]
    if api is None:
        api = HfApi(token=resolve_token())
    try:
        info = call_with_deadline(
            api.create_commit, repo_id, operations, commit_message=title,
            commit_description=body, repo_type=repo_type, create_pr=True, seconds=seconds,
            what=f"{repo_id}: opening the pull request",
            after=f"check {repo_id}'s pull requests before trying again")
    except HfHubHTTPError as error:
        raise CourtbenchError(f"{repo_id}: the Hub refused the pull request "
                              f"({_status_text(error)})") from None
    except _network_errors() as error:
        raise CourtbenchError(f"{repo_id}: could not reach the Hub to open the pull request "
                              f"({_status_text(error)}); nothing was sent; try again later"
                              ) from None
    return info.pr_url or info.commit_url


def read_results_card(repo_id: str, *, results_folder: Path | None = None,
                      download=None, seconds: float = CARD_SECONDS
                      ) -> dict[str, Any]:
    """The card metadata of the results dataset: of ``results_folder`` when given (a local
    copy), else of ``repo_id`` on the Hub (within ``seconds``). It declares the accepted data,
    the gold pins and the reference rows.

    Raises:
        CourtbenchError: the Hub cannot be reached, refuses or does not answer in time, or
            the card declares no accepted data.
    """
    if results_folder is not None:
        metadata = read_card_metadata(Path(results_folder))
        accepted_data(metadata, str(results_folder))
        return metadata
    try:
        card = Path(call_with_deadline(download or hf_hub_download, repo_id, "README.md", repo_type="dataset",
                                       seconds=seconds,
                                       what=f"{repo_id}: reading the results dataset's card"))
    except HfHubHTTPError as error:
        raise CourtbenchError(f"{repo_id}: could not read the results dataset's card "
                              f"({_status_text(error)}); nothing was sent") from None
    except _network_errors() as error:
        raise CourtbenchError(f"{repo_id}: could not reach the Hub to read the accepted data "
                              f"({_status_text(error)}); nothing was sent; try again later, "
                              "or pass --results-folder with a local copy of the results "
                              "dataset") from None
    metadata = read_card_metadata(card.parent)
    accepted_data(metadata, f"{repo_id} (README.md)")
    return metadata
