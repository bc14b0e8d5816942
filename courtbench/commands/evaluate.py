"""``courtbench evaluate NAME --data DIR --predictions FILE... --out REPORT_DIR``.

Scores prediction files against a built Hub folder and writes the paper-style report
(Markdown, JSON, CSV and PNG figures); the dataset-specific options come from the dataset's
plugin (``courtbench evaluate NAME -h``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from courtbench.plugins import load_plugins


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("evaluate", help="score predictions and write a report",
                                   description=__doc__)
    sub = parser.add_subparsers(dest="dataset", metavar="DATASET", required=True)
    for name, plugin in load_plugins().items():
        if plugin.evaluate is None or plugin.add_evaluate_arguments is None:
            continue
        dataset_parser = sub.add_parser(name, help=plugin.summary)
        dataset_parser.add_argument("--data", type=Path, required=True,
                                    help="Hub folder written by `courtbench build`")
        dataset_parser.add_argument("--predictions", type=Path, nargs="+", required=True,
                                    metavar="FILE", help="one predictions file per system; the "
                                    "system is named after the file stem")
        dataset_parser.add_argument("--out", type=Path, required=True,
                                    help="report folder (replaced atomically)")
        plugin.add_evaluate_arguments(dataset_parser)
        dataset_parser.set_defaults(func=plugin.evaluate)
