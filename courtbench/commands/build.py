"""``courtbench build NAME ... --out DIR``: build a dataset's Hub folder.

The dataset-specific options come from the dataset's plugin (``courtbench build NAME -h``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from courtbench.hub.atomic import HUB_FOLDER_KIND
from courtbench.plugins import add_dataset_subparsers


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, required=True,
                        help="output folder (replaced atomically when the build succeeds)")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("build", help="build a dataset's Hub folder from its source",
                                   description=__doc__)
    add_dataset_subparsers(parser, arguments_hook="add_build_arguments", run_hook="build",
                           add_common=_common, output_kind=HUB_FOLDER_KIND)
