"""``courtbench build NAME ... --out DIR``: build a dataset's Hub folder.

The dataset-specific options come from the dataset's plugin (``courtbench build NAME -h``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from courtbench.plugins import load_plugins


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("build", help="build a dataset's Hub folder from its source",
                                   description=__doc__)
    datasets_parsers = parser.add_subparsers(dest="dataset", metavar="DATASET", required=True)
    for name, plugin in load_plugins().items():
        sub = datasets_parsers.add_parser(name, help=plugin.summary, description=plugin.summary)
        sub.add_argument("--out", type=Path, required=True,
                         help="output folder (replaced atomically when the build succeeds)")
        plugin.add_build_arguments(sub)
        sub.set_defaults(func=plugin.build)
