"""``courtbench generate NAME --data DIR --base-url URL --model NAME --out FILE``.

Generates predictions for a built Hub folder with a language model behind any
OpenAI-compatible endpoint (vLLM, llama.cpp, Ollama, OpenAI ...), through
:mod:`courtbench.llm` (cache, retries, bounded concurrency); the prompts and the output format
come from the dataset's plugin (``courtbench generate NAME -h``). Exit status 1 when any
request could not be completed after retries (the output is still written, those rows marked).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from courtbench.llm import add_decoding_arguments, add_endpoint_arguments
from courtbench.plugins import add_dataset_subparsers


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, required=True, metavar="DIR",
                        help="Hub folder written by `courtbench build`")
    parser.add_argument("--out", type=Path, required=True, metavar="FILE",
                        help="predictions file; a manifest is written beside it")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace an existing --out that courtbench did not write")
    # not required: a plugin may offer a local model instead (it checks them)
    add_endpoint_arguments(parser, required=False)
    add_decoding_arguments(parser)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("generate", help="generate predictions with a language model "
                                   "(any OpenAI-compatible endpoint)", description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_dataset_subparsers(parser, arguments_hook="add_generate_arguments", run_hook="generate",
                           add_common=_common)
