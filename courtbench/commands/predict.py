"""``courtbench predict NAME --data DIR --out FILE ...``: run a model over a dataset's cases.

Runs the dataset's Inspect AI task (the one ``inspect eval courtbench/NAME`` runs) on any
model Inspect supports — an OpenAI-compatible server with ``--base-url``, or an Inspect model
name — through :mod:`courtbench.inspect_glue`, and writes a predictions file that
``courtbench evaluate NAME`` reads, with a manifest and the raw answers beside it and the
Inspect log in ``--log-dir``; the dataset-specific options (prompt kinds, parameters) come
from the dataset's plugin (``courtbench predict NAME -h``). Needs the ``inspect`` extra.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from courtbench.inspect_glue.options import add_model_arguments
from courtbench.plugins import add_dataset_subparsers


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, required=True,
                        help="Hub folder written by `courtbench build`")
    parser.add_argument("--out", type=Path, required=True,
                        help="predictions file to write (a manifest and the raw answers are "
                             "written beside it)")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace existing output files that courtbench did not write")
    add_model_arguments(parser, top_k_option="--sampling-top-k")  # --top-k: agent references


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("predict", help="predict with a model (through Inspect AI)",
                                   description=__doc__)
    add_dataset_subparsers(parser, arguments_hook="add_predict_arguments", run_hook="predict",
                           add_common=_common)
