"""``courtbench leaderboard``: create the leaderboard's results folder and Space folder.

    courtbench leaderboard init OUT --reference-report REPORT_DIR [--reference-report ...]
    courtbench leaderboard space OUT --results-repo ORG/courtbench-results
    courtbench leaderboard check RESULTS_DIR

``init`` writes a results dataset folder seeded with the reference baselines of the given
evaluation reports (verified like a submission; every other system of a report is listed as
left out, with why), the gold values of their data (``gold/``) and the card pinning both, so
that a new leaderboard is never empty; publish it with ``courtbench publish OUT --repo-id
ORG/courtbench-results``. ``space`` writes the Gradio Space that shows it (publish with
``courtbench publish OUT --repo-id ORG/leaderboard``). ``check`` recomputes every number of
every record of a results folder from its predictions against the gold values, as the Space
does at every load, and refuses (exit 1) when any record differs, naming the file, the field
and both values.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from courtbench.leaderboard.folders import (
    read_results_folder,
    write_results_folder,
    write_space_folder,
)


def _init(args: argparse.Namespace) -> int:
    written, left_out = write_results_folder(args.out, args.reference_report)
    print(f"{args.out}: results folder with {len(written)} reference record(s)")
    for path in written:
        print(f"  {path}")
    for report, systems in left_out.items():
        print(f"left out of {report}: {len(systems)} system(s) that are not reference rows")
        for system, why in sorted(systems.items()):
            print(f"  {system}: {why}")
    return 0


def _space(args: argparse.Namespace) -> int:
    write_space_folder(args.out, args.results_repo)
    print(f"{args.out}: leaderboard Space reading {args.results_repo}")
    return 0


def _check(args: argparse.Namespace) -> int:
    records = read_results_folder(args.folder)
    print(f"{args.folder}: {len(records)} record(s), every number recomputed from the "
          "predictions and found the same")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "leaderboard", help="create or check the leaderboard's results and Space folders",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="leaderboard_command", metavar="ACTION", required=True)
    init = sub.add_parser("init", help="a results folder seeded with reference baselines")
    init.add_argument("out", type=Path, metavar="OUT")
    init.add_argument("--reference-report", type=Path, action="append", required=True,
                      metavar="REPORT_DIR", help="a `courtbench evaluate` report (repeatable)")
    init.set_defaults(func=_init)
    space = sub.add_parser("space", help="the leaderboard's Gradio Space folder")
    space.add_argument("out", type=Path, metavar="OUT")
    space.add_argument("--results-repo", required=True, metavar="ORG/NAME")
    space.set_defaults(func=_space)
    check = sub.add_parser("check", help="validate every record of a results folder")
    check.add_argument("folder", type=Path, metavar="RESULTS_DIR")
    check.set_defaults(func=_check)
