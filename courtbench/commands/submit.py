"""``courtbench submit``: send an evaluation report's systems to the leaderboard.

    courtbench submit REPORT_DIR --repo-id ORG/courtbench-results [--system NAME[,NAME] ...]
        [--family NAME] [--model-size-b N] [--unofficial] [--results-folder DIR]
        [--dry-run [--plan-out FILE]]
    courtbench submit REPORT_DIR --repo-id ORG/courtbench-results --eval-results ORG/MODEL
        --benchmark-dataset ORG/NAME [--systems NAME] [--dry-run]

The report (written by ``courtbench evaluate``) is re-scored first: the data folder and the
prediction files it names must have the recorded fingerprint and hashes, the metric code the
recorded signature, and every number must come out the same. Each record then carries the
system's predictions, and every number in it is recomputed from them against the accepted
data's gold values — the check ``courtbench leaderboard check`` and the leaderboard Space
repeat. Only comparable records are sent: the data must be data the results dataset accepts
(its card lists the accepted fingerprints per benchmark, written by ``courtbench leaderboard
init``), the report must be scored with the benchmark's protocol (the test split, the default
thresholds and tokenizers, at least 1,000 resamples), and a model's run must be complete with
no case filled by a fallback (its manifest beside the predictions says so). Anything else is
refused with the difference named, unless ``--unofficial`` sends it to the labelled
"unofficial" table. A system named like a reference baseline is refused (reference rows come
only from ``courtbench leaderboard init``); by default the report's reference baselines are
left out. Then one JSON record per system goes to the results dataset repository as a single
pull request; ``--dry-run`` prints a short summary and writes the full plan (pull request text
and every record) to ``--plan-out`` (default: ``<REPORT_DIR>.submission.json`` beside the
report folder).

``--eval-results MODEL_REPO`` exports one system's verified record to the Hub's Eval Results
instead: the figures its benchmark exports (one number per task; the MAE-like ones lower is
better, which the Hub cannot say) as ``.eval_results/*.yaml`` entries in one pull request on
the model's repository, each linking the full record in the results dataset; ``--dry-run``
prints them and sends nothing (docs/eval_results.md).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from courtbench import option_checks
from courtbench.boundary import name_key
from courtbench.errors import CourtbenchError
from courtbench.leaderboard import eval_results_submit
from courtbench.leaderboard.hub import open_pull_request, pr_description, read_results_card
from courtbench.leaderboard.protocol import accepted_data
from courtbench.leaderboard.records import build_records, read_report
from courtbench.leaderboard.results_schema import (
    REFERENCES_KEY,
    dumps_record,
    primary_metric,
    record_path,
)
from courtbench.output_files import check_output_file, write_output_file
from courtbench.publish.repo_id import check_repo_id

PLAN_KIND = "leaderboard-submission-plan"


def default_plan_path(report: Path) -> Path:
    """``report/`` → ``report.submission.json`` beside it."""
    folder = Path(report).resolve()
    return folder.with_name(folder.name + ".submission.json")


def _taken_names(results_folder: Path | None, records: list[dict]) -> None:
    """Refuse a system whose name differs only in case or Unicode width from one the local
    results folder already holds ("GBT" against "gbt")."""
    if results_folder is None:
        return
    for record in records:
        folder = Path(results_folder) / "results" / record["benchmark"]
        existing = [p.stem for p in folder.glob("*.json")] if folder.is_dir() else []
        clash = [n for n in existing if name_key(n) == name_key(record["system"])
                 and n != record["system"]]
        if clash:
            raise CourtbenchError(f"system {record['system']!r}: the leaderboard already has "
                                  f"{clash[0]!r} in {record['benchmark']} (system names are "
                                  "compared ignoring case and Unicode width); choose another "
                                  "name")


def plan_document(records: list[dict], repo_id: str) -> dict:
    """The full plan of a dry run: the pull request's text and every record it would add."""
    title, body = pr_description(records)
    return {"repo_id": repo_id, "pull_request": {"title": title, "body": body},
            "files": [{"path": record_path(r), "bytes": len(dumps_record(r).encode("utf-8")),
                       "record": r} for r in records]}


def summary_lines(records: list[dict], left_out: dict[str, str]) -> list[str]:
    """One line per record (path, table, primary metric with its interval, predictions,
    size), then the systems left out and why."""
    lines = []
    for record in records:
        metric = primary_metric(record)
        interval = (f" [{metric['ci_low']:,.4f}, {metric['ci_high']:,.4f}]"
                    if metric["ci_low"] is not None else "")
        count = len(record["predicted_values"]) or sum(t is not None
                                                       for t in record["predicted_texts"])
        lines.append(f"  {record_path(record)}  {record['leaderboard_table']}  "
                     f"{metric['name']} {metric['value']:,.4f}{interval}  {count:,} predictions"
                     f"  {len(dumps_record(record).encode('utf-8')):,} bytes")
        if record["unofficial_reason"]:
            lines.append(f"    unofficial: {record['unofficial_reason']}")
    lines += [f"  left out: {system} ({why})" for system, why in sorted(left_out.items())]
    return lines


def _dry_run(records: list[dict], left_out: dict[str, str], args: argparse.Namespace) -> int:
    out = Path(args.plan_out) if args.plan_out else default_plan_path(args.report)
    check_output_file(out, kind=PLAN_KIND, overwrite=False, option="--plan-out",
                      suffixes=(".json",))
    data = (json.dumps(plan_document(records, args.repo_id), ensure_ascii=False,
                       allow_nan=False, sort_keys=True) + "\n").encode("utf-8")
    write_output_file(out, data, {"repo_id": args.repo_id, "records": len(records)},
                      kind=PLAN_KIND)
    title, _ = pr_description(records)
    print(f"dry run: would open a pull request on dataset {args.repo_id}: {title}")
    print("\n".join(summary_lines(records, left_out)))
    print(f"full plan (pull request text and every record): {out} ({len(data):,} bytes); "
          "nothing was sent")
    return 0


def run(args: argparse.Namespace) -> int:
    check_repo_id(args.repo_id)
    eval_results = eval_results_submit.check_options(args)
    read_report(args.report)  # a missing or broken report fails here, before any network
    overrides = {}
    if args.family:
        overrides["family"] = args.family
    if args.model_size_b is not None:
        overrides["model_size_b"] = args.model_size_b
    card = read_results_card(args.repo_id, results_folder=args.results_folder)
    systems = [name for value in args.system or () for name in value.split(",") if name] or None
    records, selection, _ = build_records(
        args.report, systems=systems, overrides=overrides,
        accepted=accepted_data(card, args.repo_id), references=card.get(REFERENCES_KEY) or {},
        unofficial=args.unofficial)
    _taken_names(args.results_folder, records)
    if eval_results:
        return eval_results_submit.run(records, selection.left_out, args)
    if args.dry_run:
        return _dry_run(records, selection.left_out, args)
    url = open_pull_request(records, args.repo_id)
    print(f"pull request opened: {url}")
    return 0


#: --model-size-b: billions of parameters, > 0 and < 1,000,000.
_size = option_checks.number(0.0, 1e6, low_open=True, high_open=True,
                             what="a number of billions of parameters")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "submit", help="re-score an evaluation report and open a leaderboard pull request",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("report", type=Path, metavar="REPORT_DIR",
                        help="a folder written by `courtbench evaluate`")
    parser.add_argument("--repo-id", required=True, metavar="ORG/NAME",
                        help="the results dataset repository (e.g. ORG/courtbench-results)")
    parser.add_argument("--system", action="append", metavar="NAME",
                        help="submit only these systems (comma-separated or repeated; default: "
                             "all in the report except its reference baselines)")
    parser.add_argument("--family", help="system family shown on the page (default: from the "
                                         "runner manifest or baseline settings)")
    parser.add_argument("--model-size-b", type=_size, metavar="N",
                        help="model size in billions of parameters (default: from its name)")
    parser.add_argument("--unofficial", action="store_true",
                        help="submit records off the protocol, or of an incomplete or "
                             "fallback-filled run, to the labelled 'unofficial' table instead "
                             "of refusing them")
    parser.add_argument("--results-folder", type=Path, metavar="DIR",
                        help="read the accepted data from this local copy of the results "
                             "dataset instead of from --repo-id on the Hub")
    parser.add_argument("--dry-run", action="store_true",
                        help="print a summary and write the full plan to --plan-out (with "
                             "--eval-results: print the Eval Results files); send nothing")
    parser.add_argument("--plan-out", type=Path, metavar="FILE",
                        help="where --dry-run writes the full plan (default: "
                             "<REPORT_DIR>.submission.json beside the report folder)")
    parser.add_argument("--eval-results", metavar="MODEL_REPO",
                        help="instead of the leaderboard pull request, open one on this model "
                             "repository adding the system's verified figures as the Hub's "
                             "Eval Results (.eval_results/*.yaml; one system; with "
                             "--dry-run: print them)")
    parser.add_argument("--benchmark-dataset", metavar="ORG/NAME",
                        help="with --eval-results: the benchmark's dataset repository on the "
                             "Hub that every entry names (where its eval.yaml lives)")
    parser.set_defaults(func=run)
