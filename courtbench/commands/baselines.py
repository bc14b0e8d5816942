"""``courtbench baselines NAME --data DIR --out PRED_DIR``: run a dataset's reference baselines.

Writes one predictions file per system, plus the fitted settings; the dataset-specific
options come from the dataset's plugin (``courtbench baselines NAME -h``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from courtbench.hub.atomic import PREDICTIONS_KIND
from courtbench.plugins import add_dataset_subparsers


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, required=True,
                        help="Hub folder written by `courtbench build`")
    parser.add_argument("--out", type=Path, required=True, help="folder for the predictions files")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("baselines", help="run a dataset's reference baselines",
                                   description=__doc__)
    add_dataset_subparsers(parser, arguments_hook="add_baseline_arguments",
                           run_hook="run_baselines", add_common=_common,
                           output_kind=PREDICTIONS_KIND)
