"""The options every ``courtbench train NAME`` recipe has, and their ``TrainingArguments``.

A recipe passes its own defaults (:class:`Defaults`: the paper's settings); every one is an
option and lands in the run manifest (:func:`recorded`). Batches: ``--per-device-batch`` × the
gradient accumulation × the processes of an ``accelerate launch`` / ``torchrun`` run (its
``WORLD_SIZE``) = ``--effective-batch``; the accumulation is derived, never guessed.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import math
import os
import sys
from dataclasses import dataclass
from typing import Any

from courtbench import option_checks
from courtbench.boundary import BoundaryError, check_integer, check_number
from courtbench.errors import CourtbenchError

PRECISIONS = ("auto", "bf16", "fp16", "fp32")
OPTIMIZERS = ("adamw", "adamw-8bit")
SCHEDULERS = ("linear", "cosine", "constant_with_warmup")
_SAID: set[str] = set()  # fallback notes already printed by this process


@dataclass(frozen=True)
class Defaults:
    """A recipe's defaults (learning rate per step, warm-up as a ratio < 1 or steps >= 1)."""

    learning_rate: float
    epochs: float
    effective_batch: int
    warmup: float
    weight_decay: float = 0.0
    per_device_batch: int = 1
    optimizer: str = "adamw"
    seed: int = 42


#: Most optimizer steps one ``courtbench train`` command runs (``--max-steps``, or what
#: ``--epochs`` come to, plus a recipe's sweep runs): 1,000,000, about 200 times the papers'
#: longest recipe, so no option can start a run that never ends.
MAX_STEPS = 1_000_000
#: Most epochs (a run's steps are capped by :data:`MAX_STEPS` as well).
MAX_EPOCHS = 10_000.0
#: Most examples per device and per optimizer step.
MAX_BATCH = 65_536
#: Most checkpoints kept.
MAX_CHECKPOINTS_KEPT = 1_000
_WHERE = "option"


def _max_steps(value):
    if value == -1:
        return -1
    try:
        return check_integer(value, _WHERE, low=1, high=MAX_STEPS, what="a number of steps")
    except BoundaryError as error:
        raise BoundaryError(_WHERE, value, f"{error.expected}, or -1 (--epochs decide; 0 "
                                           "is no step count)") from None


def _warmup(value):
    try:
        ratio_or_steps = check_number(value, _WHERE, low=0.0, high=MAX_STEPS)
        if ratio_or_steps >= 1:
            check_integer(value, _WHERE, low=1, high=MAX_STEPS)
    except BoundaryError:
        raise BoundaryError(_WHERE, value, f"a warm-up ratio in [0, 1) or whole warm-up steps "
                                           f"in [1, {MAX_STEPS:,}]") from None
    return ratio_or_steps


SEED = option_checks.SEED
LEARNING_RATE = option_checks.number(0.0, 1.0, low_open=True, what="a learning rate")
EPOCHS = option_checks.number(0.0, MAX_EPOCHS, low_open=True, what="a number of epochs")
MAX_STEPS_OPTION = option_checks.OptionType(_max_steps, "optimizer steps",
                                            f"-1 or [1, {MAX_STEPS:,}]", integer=True)
BATCH = option_checks.count(MAX_BATCH, what="a batch size")
WARMUP = option_checks.OptionType(_warmup, "warm-up", f"a ratio in [0, 1) or whole steps in "
                                                      f"[1, {MAX_STEPS:,}]")
WEIGHT_DECAY = option_checks.number(0.0, 1.0, what="a weight decay")
STEPS = option_checks.count(MAX_STEPS, what="a number of steps")
CHECKPOINTS_KEPT = option_checks.count(MAX_CHECKPOINTS_KEPT, what="a number of checkpoints")
THREADS = option_checks.count(option_checks.MAX_PARALLEL, what="a number of threads")


def add_trainer_arguments(parser: argparse.ArgumentParser, defaults: Defaults) -> None:
    """Add the shared training options to ``parser`` with ``defaults``; every value is
    checked while parsing (:mod:`courtbench.option_checks`), before anything is written."""
    group = parser.add_argument_group("training (transformers Trainer)")
    add = group.add_argument
    add("--seed", type=SEED, default=defaults.seed, help=f"default {defaults.seed}")
    add("--learning-rate", type=LEARNING_RATE, default=defaults.learning_rate,
        help=f"peak learning rate (default {defaults.learning_rate:g})")
    add("--epochs", type=EPOCHS, default=defaults.epochs, help=f"default {defaults.epochs:g}")
    add("--max-steps", type=MAX_STEPS_OPTION, default=-1, metavar="N",
        help="optimizer steps; overrides --epochs (default -1: --epochs decide)")
    add("--per-device-batch", type=BATCH, default=defaults.per_device_batch, metavar="N",
        help=f"examples per device and forward pass (default {defaults.per_device_batch})")
    add("--effective-batch", type=BATCH, default=defaults.effective_batch, metavar="N",
        help=f"examples per optimizer step over all devices (default {defaults.effective_batch}); "
             "the gradient accumulation is derived from it")
    add("--warmup", type=WARMUP, default=defaults.warmup, metavar="R|N",
        help=f"linear warm-up: a ratio of the steps when < 1, else steps (default {defaults.warmup:g})")
    add("--weight-decay", type=WEIGHT_DECAY, default=defaults.weight_decay,
        help=f"AdamW weight decay (default {defaults.weight_decay:g})")
    add("--scheduler", choices=SCHEDULERS, default="linear", help="default linear (decay to 0)")
    add("--optimizer", choices=OPTIMIZERS, default=defaults.optimizer,
        help=f"default {defaults.optimizer}; adamw-8bit (bitsandbytes) needs a GPU and falls back "
             "to adamw, saying so")
    add("--precision", choices=PRECISIONS, default="auto",
        help="auto (default): bf16 where the GPU supports it, else fp32")
    add("--gradient-checkpointing", action=argparse.BooleanOptionalAction, default=True,
        help="recompute activations in the backward pass (default on)")
    add("--eval-steps", type=STEPS, metavar="N",
        help="evaluate on validation and checkpoint every N optimizer steps (default: every epoch)")
    add("--save-total-limit", type=CHECKPOINTS_KEPT, default=2, metavar="N",
        help="checkpoints kept (default 2; the selected one is always kept)")
    add("--logging-steps", type=STEPS, default=10, metavar="N", help="default 10")
    add("--threads", type=THREADS, metavar="N", help="CPU threads of torch (default: torch's)")
    add("--resume", action="store_true",
        help="continue the run in --out from its last checkpoint (same options)")


def check(args: argparse.Namespace) -> None:
    """One-line errors for options that cannot work together (each value's own range was
    checked while parsing)."""
    accumulation(args)


def planned_steps(args: argparse.Namespace, train_examples: int) -> int:
    """Optimizer steps the Trainer will run over ``train_examples``: ``--max-steps``, else
    ``--epochs`` × the steps of one epoch (batches per process, then accumulation)."""
    if args.max_steps > 0:
        return args.max_steps
    batches = math.ceil(train_examples / (args.per_device_batch * world_size()))
    per_epoch = max(math.ceil(batches / accumulation(args)), 1)
    return math.ceil(args.epochs * per_epoch)


def check_total_steps(args: argparse.Namespace, train_examples: int, *, other_steps: int = 0,
                      other: str = "") -> int:
    """Refuse (CourtbenchError) a command whose optimizer steps — the final run's
    (:func:`planned_steps`) plus ``other_steps`` (a sweep's, described by ``other``) —
    exceed :data:`MAX_STEPS`; returns the total."""
    steps = planned_steps(args, train_examples)
    total = steps + other_steps
    if total > MAX_STEPS:
        how = (f"--max-steps {args.max_steps:,}" if args.max_steps > 0 else
               f"--epochs {args.epochs:g} of {train_examples:,} examples at --effective-batch "
               f"{args.effective_batch}")
        raise CourtbenchError(f"{how} come to {steps:,} optimizer steps{other}: more than "
                              f"the ceiling of {MAX_STEPS:,} steps per command; lower --epochs "
                              "or give --max-steps (nothing was written)")
    return total


def world_size() -> int:
    """Processes of the launch (``WORLD_SIZE`` set by accelerate launch / torchrun), else 1."""
    return int(os.environ.get("WORLD_SIZE", "1"))


def accumulation(args: argparse.Namespace) -> int:
    """Gradient accumulation steps giving ``--effective-batch``; refuses a remainder."""
    per_step = args.per_device_batch * world_size()
    if args.effective_batch % per_step:
        raise CourtbenchError(f"--effective-batch {args.effective_batch}: not a multiple of "
                              f"--per-device-batch {args.per_device_batch} × {world_size()} "
                              "process(es)")
    return args.effective_batch // per_step


def precision(choice: str) -> str:
    """``bf16`` / ``fp16`` / ``fp32`` for ``--precision`` (``auto``: bf16 on a GPU that has it)."""
    import torch

    cuda = torch.cuda.is_available()
    if choice == "auto":
        return "bf16" if cuda and torch.cuda.is_bf16_supported() else "fp32"
    if choice == "fp16" and not cuda:
        raise CourtbenchError("--precision fp16: needs a CUDA GPU; use bf16 or fp32 on CPU")
    return choice


def optimizer(choice: str) -> tuple[str, str | None]:
    """The Trainer ``optim`` name for ``--optimizer`` and a note when it falls back."""
    if choice == "adamw":
        return "adamw_torch", None
    import torch

    if importlib.util.find_spec("bitsandbytes") is not None and torch.cuda.is_available():
        return "adamw_bnb_8bit", None
    why = "no GPU" if importlib.util.find_spec("bitsandbytes") else "bitsandbytes is not installed"
    return "adamw_torch", f"--optimizer adamw-8bit: {why}; falling back to AdamW (torch)"


def recorded(args: argparse.Namespace) -> dict[str, Any]:
    """Every parsed option as JSON values (paths as strings), for the manifest."""
    skip = {"func", "command", "dataset"}
    return {key: (str(value) if isinstance(value, os.PathLike) else value)
            for key, value in sorted(vars(args).items()) if key not in skip}


def training_arguments(args: argparse.Namespace, output_dir: str, *, metric: str,
                       greater_is_better: bool, **overrides: Any):
    """``transformers.TrainingArguments`` of the shared options.

    Validation evaluation and checkpoints share one schedule (``--eval-steps``, else every
    epoch); the best checkpoint by ``metric`` on validation is loaded at the end.
    ``overrides`` replace any field (a sweep's ``max_steps``, ``learning_rate`` …).
    """
    import torch
    from transformers import TrainingArguments

    chosen = precision(args.precision)
    optim, note = optimizer(args.optimizer)
    if note and note not in _SAID:
        _SAID.add(note)
        print(f"courtbench train: {note}", file=sys.stderr)
    strategy = "steps" if args.eval_steps else "epoch"
    values = dict(
        output_dir=output_dir, seed=args.seed, data_seed=args.seed,
        learning_rate=args.learning_rate, num_train_epochs=args.epochs, max_steps=args.max_steps,
        per_device_train_batch_size=args.per_device_batch,
        per_device_eval_batch_size=args.per_device_batch,
        gradient_accumulation_steps=accumulation(args), warmup_steps=args.warmup,
        weight_decay=args.weight_decay, lr_scheduler_type=args.scheduler, optim=optim,
        bf16=chosen == "bf16", fp16=chosen == "fp16", eval_strategy=strategy,
        save_strategy=strategy, eval_steps=args.eval_steps, save_steps=args.eval_steps,
        load_best_model_at_end=True, metric_for_best_model=metric,
        greater_is_better=greater_is_better, save_total_limit=args.save_total_limit,
        logging_steps=args.logging_steps, report_to="none", disable_tqdm=True,
        remove_unused_columns=False, dataloader_num_workers=0,
        dataloader_pin_memory=torch.cuda.is_available(),
        ddp_find_unused_parameters=False)  # every parameter takes part in each step
    if not torch.cuda.is_available() and not torch.backends.mps.is_available():
        values["use_cpu"] = True  # CPU: bf16 autocast there, gloo under torchrun
    values.update(_checkpointing(args.gradient_checkpointing))
    values.update(overrides)
    try:
        return TrainingArguments(**values)
    except ValueError as error:
        raise CourtbenchError(f"these training options do not work together here: "
                              f"{str(error).splitlines()[0]}") from None


def _checkpointing(enabled: bool) -> dict[str, Any]:
    """Activation checkpointing under the field name this transformers has."""
    from transformers import TrainingArguments

    names = {field.name for field in dataclasses.fields(TrainingArguments)}
    prefix = "activation" if "activation_checkpointing" in names else "gradient"
    return {f"{prefix}_checkpointing": enabled,
            f"{prefix}_checkpointing_kwargs": {"use_reentrant": False} if enabled else None}
