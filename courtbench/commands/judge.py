"""``courtbench judge NAME --data DIR --predictions FILE --base-url URL --model NAME --out FILE``.

Scores predictions with an LLM judge — any model Inspect AI runs, an OpenAI-compatible server
with ``--base-url`` included — through the dataset's judge (``courtbench judge NAME -h``) and
:mod:`courtbench.inspect_glue`. Options and ``--out`` are checked before any
data is loaded or any request is sent: ``--out`` must not be a directory, and an existing file
courtbench did not write is replaced only with ``--overwrite``. Exit status 1 when any request
could not be completed after retries or no sample was scored. Needs the ``inspect`` extra.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from courtbench.inspect_glue.options import add_model_arguments
from courtbench.plugins import add_dataset_subparsers


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, required=True, metavar="DIR",
                        help="Hub folder written by `courtbench build`")
    parser.add_argument("--predictions", type=Path, required=True, metavar="FILE",
                        help="predictions file (JSON Lines, CSV or an Inspect .eval log)")
    parser.add_argument("--out", type=Path, required=True, metavar="FILE",
                        help="results JSON; a manifest is written beside it")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace an existing --out that courtbench did not write")
    add_model_arguments(parser)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("judge", help="score predictions with an LLM judge "
                                   "(through Inspect AI)", description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_dataset_subparsers(parser, arguments_hook="add_judge_arguments", run_hook="judge",
                           add_common=_common)
