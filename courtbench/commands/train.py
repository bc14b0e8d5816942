"""``courtbench train NAME --data DIR --out RUN_DIR ...``: fine-tune a dataset's reference system.

Trains with the Hugging Face stack (``transformers.Trainer``, ``peft``, ``accelerate``), so
the same command runs on one GPU, on several (``accelerate launch -m courtbench train ...`` or
``torchrun -m courtbench train ...``) and on several nodes, without a code change. The run
folder holds the checkpoints, a manifest (every option, library versions, seed, data
fingerprint, model hash, the selected checkpoint) and the outputs ``courtbench evaluate`` or
``courtbench generate`` take; ``--resume`` continues a killed run from its last checkpoint.
Needs the ``train`` extra. The recipe and its options come from the dataset's plugin
(``courtbench train NAME -h``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from courtbench.plugins import add_dataset_subparsers


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, required=True, metavar="DIR",
                        help="Hub folder written by `courtbench build`")
    parser.add_argument("--out", type=Path, required=True, metavar="RUN_DIR",
                        help="run folder: checkpoints, manifest.json and the outputs")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("train", help="fine-tune a dataset's reference system "
                                   "(train extra)", description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_dataset_subparsers(parser, arguments_hook="add_train_arguments", run_hook="train",
                           add_common=_common)
