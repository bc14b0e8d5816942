"""``courtbench submit``: send an evaluation report's systems to the leaderboard.

    courtbench submit REPORT_DIR --repo-id ORG/courtbench-results [--systems NAME[,NAME] ...]
        [--family NAME] [--model-size-b N] [--unofficial] [--results-folder DIR] [--dry-run]

The report (written by ``courtbench evaluate``) is re-scored first: the data folder and the
prediction files it names must have the recorded fingerprint and hashes, the metric code the
recorded signature, and every number must come out the same. Only comparable records are
sent: the data must be data the results dataset accepts (its card lists the accepted
fingerprints per benchmark, written by ``courtbench leaderboard init``; ``data_kind`` comes
from the data's own card), and the report must be scored with the benchmark's protocol (the
test split, the default thresholds and tokenizers, at least 1,000 resamples). Anything else is
refused with the difference named, unless ``--unofficial`` sends it to the labelled
"unofficial data" table. Then one JSON record per system goes to the results dataset
repository as a single pull request; ``--dry-run`` prints the files and the pull request
instead.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from courtbench import option_checks
from courtbench.leaderboard.hub import open_pull_request, pr_description, read_accepted_data
from courtbench.leaderboard.records import verified_records
from courtbench.leaderboard.results_schema import dumps_record, record_path


def run(args: argparse.Namespace) -> int:
    overrides = {}
    if args.family:
        overrides["family"] = args.family
    if args.model_size_b is not None:
        overrides["model_size_b"] = args.model_size_b
    accepted = read_accepted_data(args.repo_id, results_folder=args.results_folder)
    systems = [name for value in args.system or () for name in value.split(",") if name] or None
    records = verified_records(args.report, systems=systems, overrides=overrides,
                               accepted=accepted, unofficial=args.unofficial)
    if args.dry_run:
        title, body = pr_description(records)
        print(f"would open a pull request on dataset {args.repo_id}: {title}\n{body}\n")
        for record in records:
            print(f"--- {record_path(record)}")
            print(dumps_record(record), end="")
        return 0
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
                             "all in the report)")
    parser.add_argument("--family", help="system family shown on the page (default: from the "
                                         "runner manifest or baseline settings)")
    parser.add_argument("--model-size-b", type=_size, metavar="N",
                        help="model size in billions of parameters (default: from its name)")
    parser.add_argument("--unofficial", action="store_true",
                        help="submit records off the protocol or off the accepted data to the "
                             "labelled 'unofficial data' table instead of refusing them")
    parser.add_argument("--results-folder", type=Path, metavar="DIR",
                        help="read the accepted data from this local copy of the results "
                             "dataset instead of from --repo-id on the Hub")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the files and the pull request; send nothing")
    parser.set_defaults(func=run)
