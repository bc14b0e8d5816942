"""``courtbench generate NAME --data DIR --base-url URL --model NAME --out FILE``.

Generates predictions for a built Hub folder with any model Inspect AI runs — an
OpenAI-compatible server with ``--base-url`` (vLLM, llama.cpp, Ollama ...), or an Inspect model
name — through :mod:`courtbench.inspect_glue` (Inspect's cache, retries, concurrency and log);
the prompts and the output format come from the dataset's plugin (``courtbench generate NAME
-h``). Exit status 1 when more samples failed than ``--max-failure-share`` allows (the output
is still written, those rows marked). Needs the ``inspect`` extra (a dataset's local-model
path may not).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from courtbench.inspect_glue.options import add_model_arguments
from courtbench.plugins import add_dataset_subparsers


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, required=True, metavar="DIR",
                        help="Hub folder written by `courtbench build`")
    parser.add_argument("--out", type=Path, required=True, metavar="FILE",
                        help="predictions file; a manifest is written beside it")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace an existing --out that courtbench did not write")
    # not required: a plugin may offer a local model instead (it checks them)
    add_model_arguments(parser, required=False)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("generate", help="generate predictions with a language model "
                                   "(through Inspect AI)", description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_dataset_subparsers(parser, arguments_hook="add_generate_arguments", run_hook="generate",
                           add_common=_common)
