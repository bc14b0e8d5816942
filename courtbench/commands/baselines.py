"""``courtbench baselines NAME --data DIR --out PRED_DIR``: run a dataset's reference baselines.

Writes one predictions file per system, plus the fitted settings; the dataset-specific
options come from the dataset's plugin (``courtbench baselines NAME -h``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from courtbench.plugins import load_plugins


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("baselines", help="run a dataset's reference baselines",
                                   description=__doc__)
    sub = parser.add_subparsers(dest="dataset", metavar="DATASET", required=True)
    for name, plugin in load_plugins().items():
        if plugin.run_baselines is None or plugin.add_baseline_arguments is None:
            continue
        dataset_parser = sub.add_parser(name, help=plugin.summary)
        dataset_parser.add_argument("--data", type=Path, required=True,
                                    help="Hub folder written by `courtbench build`")
        dataset_parser.add_argument("--out", type=Path, required=True,
                                    help="folder for the predictions files")
        plugin.add_baseline_arguments(dataset_parser)
        dataset_parser.set_defaults(func=plugin.run_baselines)
