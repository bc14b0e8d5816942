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
import os
import sys
from dataclasses import dataclass
from typing import Any

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


def add_trainer_arguments(parser: argparse.ArgumentParser, defaults: Defaults) -> None:
    """Add the shared training options to ``parser`` with ``defaults``."""
    group = parser.add_argument_group("training (transformers Trainer)")
    add = group.add_argument
    add("--seed", type=int, default=defaults.seed, help=f"default {defaults.seed}")
    add("--learning-rate", type=float, default=defaults.learning_rate,
        help=f"peak learning rate (default {defaults.learning_rate:g})")
    add("--epochs", type=float, default=defaults.epochs, help=f"default {defaults.epochs:g}")
    add("--max-steps", type=int, default=-1, metavar="N",
        help="optimizer steps; overrides --epochs when > 0 (default -1: --epochs decide)")
    add("--per-device-batch", type=int, default=defaults.per_device_batch, metavar="N",
        help=f"examples per device and forward pass (default {defaults.per_device_batch})")
    add("--effective-batch", type=int, default=defaults.effective_batch, metavar="N",
        help=f"examples per optimizer step over all devices (default {defaults.effective_batch}); "
             "the gradient accumulation is derived from it")
    add("--warmup", type=float, default=defaults.warmup, metavar="R|N",
        help=f"linear warm-up: a ratio of the steps when < 1, else steps (default {defaults.warmup:g})")
    add("--weight-decay", type=float, default=defaults.weight_decay,
        help=f"AdamW weight decay (default {defaults.weight_decay:g})")
    add("--scheduler", choices=SCHEDULERS, default="linear", help="default linear (decay to 0)")
    add("--optimizer", choices=OPTIMIZERS, default=defaults.optimizer,
        help=f"default {defaults.optimizer}; adamw-8bit (bitsandbytes) needs a GPU and falls back "
             "to adamw, saying so")
    add("--precision", choices=PRECISIONS, default="auto",
        help="auto (default): bf16 where the GPU supports it, else fp32")
    add("--gradient-checkpointing", action=argparse.BooleanOptionalAction, default=True,
        help="recompute activations in the backward pass (default on)")
    add("--eval-steps", type=int, metavar="N",
        help="evaluate on validation and checkpoint every N optimizer steps (default: every epoch)")
    add("--save-total-limit", type=int, default=2, metavar="N",
        help="checkpoints kept (default 2; the selected one is always kept)")
    add("--logging-steps", type=int, default=10, metavar="N", help="default 10")
    add("--threads", type=int, metavar="N", help="CPU threads of torch (default: torch's)")
    add("--resume", action="store_true",
        help="continue the run in --out from its last checkpoint (same options)")


def check(args: argparse.Namespace) -> None:
    """One-line errors for option values that cannot work (before any loading)."""
    positive = {"--per-device-batch": args.per_device_batch,
                "--effective-batch": args.effective_batch, "--logging-steps": args.logging_steps,
                "--save-total-limit": args.save_total_limit}
    for option in ("eval_steps", "threads"):
        if getattr(args, option) is not None:
            positive["--" + option.replace("_", "-")] = getattr(args, option)
    bad = [f"{name} {value}" for name, value in positive.items() if value < 1]
    if args.learning_rate <= 0 or args.epochs <= 0:
        bad.append(f"--learning-rate {args.learning_rate:g} / --epochs {args.epochs:g}")
    if args.warmup < 0 or args.weight_decay < 0:
        bad.append(f"--warmup {args.warmup:g} / --weight-decay {args.weight_decay:g}")
    if bad:
        raise CourtbenchError(f"{'; '.join(bad)}: expected positive values")
    accumulation(args)


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
