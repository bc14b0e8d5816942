"""``courtbench evaluate NAME --data DIR --predictions FILE... --out REPORT_DIR``.

Scores prediction files against a built Hub folder and writes the paper-style report
(Markdown, JSON, CSV and PNG figures); the dataset-specific options come from the dataset's
plugin (``courtbench evaluate NAME -h``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from courtbench.hub.atomic import REPORT_KIND
from courtbench.plugins import add_dataset_subparsers


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, required=True,
                        help="Hub folder written by `courtbench build`")
    parser.add_argument("--predictions", type=Path, nargs="+", required=True, metavar="FILE",
                        help="one predictions file per system; the system is named after the "
                             "file stem")
    parser.add_argument("--out", type=Path, required=True, help="report folder (replaced atomically)")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("evaluate", help="score predictions and write a report",
                                   description=__doc__)
    add_dataset_subparsers(parser, arguments_hook="add_evaluate_arguments", run_hook="evaluate",
                           add_common=_common,
                           output_kind=REPORT_KIND)
