"""``courtbench predict NAME --data DIR --out FILE ...``: run a model over a dataset's cases.

Sends every case of the chosen splits to a model (an OpenAI-compatible endpoint, through
:mod:`courtbench.llm`) and writes a predictions file that ``courtbench evaluate NAME`` reads,
with a manifest and the raw answers beside it; the dataset-specific options (prompt kinds,
parameters, endpoint) come from the dataset's plugin (``courtbench predict NAME -h``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from courtbench.llm import add_decoding_arguments, add_endpoint_arguments
from courtbench.plugins import add_dataset_subparsers


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, required=True,
                        help="Hub folder written by `courtbench build`")
    parser.add_argument("--out", type=Path, required=True,
                        help="predictions file to write (a manifest and the raw answers are "
                             "written beside it)")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace existing output files that courtbench did not write")
    add_endpoint_arguments(parser)
    add_decoding_arguments(parser, top_k_option="--sampling-top-k")  # --top-k: agent references


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("predict", help="predict with a model over an endpoint",
                                   description=__doc__)
    add_dataset_subparsers(parser, arguments_hook="add_predict_arguments", run_hook="predict",
                           add_common=_common)
