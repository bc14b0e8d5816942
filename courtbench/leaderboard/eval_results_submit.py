"""``courtbench submit --eval-results MODEL_REPO``: a verified record, exported to the Hub's
Eval Results as a pull request on the model's repository.

The record is built exactly as ``courtbench submit`` builds it (re-scored report, accepted
data, protocol, complete run without fallback-filled cases, every number recomputed from the
predictions); then :mod:`courtbench.leaderboard.eval_results` turns the figures the
benchmark exports into ``EvalResultEntry`` objects, one YAML file per system under
``.eval_results/``, and one ``create_commit(create_pr=True)`` on the model repository adds
them. ``--dry-run`` prints the files and sends nothing.
"""

from __future__ import annotations

import argparse
from typing import Any

from courtbench.errors import CourtbenchError
from courtbench.leaderboard.eval_results import (
    Export,
    benchmark_spec,
    dumps_entries,
    export_record,
    pull_request_text,
)
from courtbench.leaderboard.hub import create_pull_request
from courtbench.leaderboard.results_schema import record_path
from courtbench.publish.repo_id import check_repo_id


def check_options(args: argparse.Namespace) -> bool:
    """Whether ``args`` ask for an Eval Results export; refuses (one line, before anything
    is read) a bad ``--eval-results`` or ``--benchmark-dataset`` repo id, the first without
    the second, and options that have no meaning there (``--unofficial``: the Hub has no
    unofficial table; ``--plan-out``: the dry run prints the files). The parser already
    refuses ``--benchmark-dataset`` without ``--eval-results``."""
    if args.eval_results is None:
        return False
    check_repo_id(args.eval_results, option="--eval-results")
    if args.benchmark_dataset is None:
        raise CourtbenchError("--eval-results needs --benchmark-dataset ORG/NAME: the "
                              "benchmark's dataset repository on the Hub (where its "
                              "eval.yaml lives), which every entry names")
    check_repo_id(args.benchmark_dataset, option="--benchmark-dataset")
    if args.unofficial:
        raise CourtbenchError("--unofficial with --eval-results: the Hub's Eval Results have "
                              "no unofficial table; only records of the main table are "
                              "exported")
    if args.plan_out is not None:
        raise CourtbenchError("--plan-out with --eval-results: the dry run prints the Eval "
                              "Results files instead of writing a plan")
    named = [name for value in args.system or () for name in value.split(",") if name]
    if len(named) > 1:
        raise CourtbenchError(f"--systems {','.join(named)}: --eval-results exports one "
                              "system (a model repository is one model); name one")
    return True


def record_url(results_repo: str, record: dict[str, Any]) -> str:
    """Where the full record lives once the leaderboard pull request is merged."""
    from huggingface_hub import constants

    return f"{constants.ENDPOINT}/datasets/{results_repo}/blob/main/{record_path(record)}"


def _one_record(records: list[dict[str, Any]]) -> dict[str, Any]:
    if len(records) != 1:
        raise CourtbenchError(f"--eval-results names one model repository, and the report "
                              f"gives {len(records)} systems "
                              f"({', '.join(r['system'] for r in records)}); choose the "
                              "model's system with --systems NAME")
    return records[0]


def run(records: list[dict[str, Any]], left_out: dict[str, str],
        args: argparse.Namespace, *, api: Any = None) -> int:
    """Export the one verified record of ``records`` (``args.eval_results``: the model
    repository; ``args.benchmark_dataset``: the benchmark dataset; ``args.repo_id``: the
    results dataset holding the full record); print the files on ``--dry-run``, else open
    the pull request."""
    record = _one_record(records)
    url = record_url(args.repo_id, record)
    export = export_record(record, benchmark_spec(record["benchmark"]),
                           dataset_id=args.benchmark_dataset, source_url=url)
    files = {export.path: dumps_entries(export.entries)}
    title, body = pull_request_text([export], args.eval_results, args.benchmark_dataset,
                                    lambda _: url)
    if args.dry_run:
        _print_dry_run(export, files, title, left_out, args.eval_results)
        return 0
    opened = create_pull_request(args.eval_results, "model", files, title, body, api=api)
    print(f"pull request opened: {opened}")
    return 0


def _print_dry_run(export: Export, files: dict[str, str], title: str,
                   left_out: dict[str, str], model_repo: str) -> None:
    print(f"dry run: would open a pull request on model {model_repo}: {title}")
    for path, text in files.items():
        print(f"--- {path} ({len(export.entries)} entries)")
        print(text, end="")
    for task, why in export.left_out.items():
        print(f"  not exported: {task} ({why})")
    for system, why in sorted(left_out.items()):
        print(f"  left out: {system} ({why})")
    print("nothing was sent")
