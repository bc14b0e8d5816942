"""The SLDS fine-tuning recipe on ``transformers.Trainer`` + ``peft`` (paper Appendix G).

:func:`load_examples` tokenises the train and validation rows of the chosen language pairs;
:func:`sweep` trains a fresh adapter for ``--sweep-steps`` at each learning rate of
``--lr-sweep`` and measures the validation loss (a finished sweep run is not repeated on
``--resume``); :func:`final_trainer` builds the run with the chosen rate, whose best checkpoint
by validation loss is loaded at the end.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from courtbench.errors import CourtbenchError
from courtbench.training.checkpoints import last_checkpoint
from courtbench.training.options import training_arguments
from courtbench.training.run_folder import record_files, write_text
from slds.data import read_split
from slds.generate import Prompts
from slds.schema import pair_name
from slds.training.examples import Collator, HeadnoteExamples, encode

COLUMNS = ("decision", "headnote", "decision_language", "headnote_language")
SWEEP = "sweep"
FINAL = "final"


@dataclass
class Examples:
    """Tokenised train and validation examples, with what was cut."""

    train: HeadnoteExamples
    validation: HeadnoteExamples
    counts: dict


def _encode_split(args, tokenizer, prompts: Prompts, split: str, limit: int | None):
    rows = read_split(args.data, split, columns=COLUMNS)
    encoded = []
    for row in rows:
        if pair_name(row["decision_language"], row["headnote_language"]) not in args.configs:
            continue
        encoded.append(encode(tokenizer, prompts, row["decision"], row["headnote"],
                              row["headnote_language"], max_length=args.max_length,
                              max_target_tokens=args.max_target_tokens))
        if limit is not None and len(encoded) >= limit:
            break
    if not encoded:
        raise CourtbenchError(f"--data {args.data}: split {split!r} has no row of "
                              f"{', '.join(args.configs)}")
    counts = {"examples": len(encoded), "decisions_cut": sum(e.decision_cut for e in encoded),
              "headnotes_cut": sum(e.target_cut for e in encoded),
              "tokens": sum(len(e.input_ids) for e in encoded)}
    return HeadnoteExamples(encoded), counts


def load_examples(args: argparse.Namespace, tokenizer, prompts: Prompts) -> Examples:
    """Train rows of ``args.configs`` (all) and validation rows (``--max-eval-samples``)."""
    train, train_counts = _encode_split(args, tokenizer, prompts, "train", None)
    validation, validation_counts = _encode_split(args, tokenizer, prompts, "validation",
                                                  args.max_eval_samples)
    return Examples(train, validation, {"train": train_counts, "validation": validation_counts})


def load_base(args: argparse.Namespace, precision: str):
    """The base causal LM with a fresh LoRA adapter (seeded), and the LoRA targets used."""
    import torch
    from transformers import AutoModelForCausalLM, set_seed

    from slds.training.lora import choose_targets, linear_names, with_adapter

    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(precision, torch.float32)
    try:
        model = AutoModelForCausalLM.from_pretrained(str(args.base_model), dtype=dtype,
                                                     local_files_only=True)
    except (OSError, ValueError) as error:
        raise CourtbenchError(f"--base-model {args.base_model}: cannot load a causal LM with "
                              f"transformers: {str(error).splitlines()[0]}") from None
    targets, absent = choose_targets(args.lora_targets, linear_names(model))
    set_seed(args.seed)
    model = with_adapter(model, rank=args.lora_rank, alpha=args.lora_alpha,
                         dropout=args.lora_dropout, targets=targets,
                         checkpointing=args.gradient_checkpointing)
    return model, {"targets": targets, "absent": absent}


def check_targets(args: argparse.Namespace) -> None:
    """Refuse ``--lora-targets`` that name none of the model's linear layers, from the
    model's configuration alone (an empty skeleton: no weights are read)."""
    from accelerate import init_empty_weights
    from transformers import AutoConfig, AutoModelForCausalLM

    from slds.training.lora import choose_targets, linear_names

    try:
        config = AutoConfig.from_pretrained(str(args.base_model), local_files_only=True)
        with init_empty_weights():
            skeleton = AutoModelForCausalLM.from_config(config)
    except (OSError, ValueError) as error:
        raise CourtbenchError(f"--base-model {args.base_model}: cannot read a causal LM "
                              f"configuration: {str(error).splitlines()[0]}") from None
    choose_targets(args.lora_targets, linear_names(skeleton))


def _trainer(args, examples: Examples, tokenizer, model, output_dir: Path, callbacks, **override):
    from transformers import PrinterCallback, Trainer

    arguments = training_arguments(args, str(output_dir), metric="loss", greater_is_better=False,
                                   **override)
    trainer = Trainer(model=model, args=arguments, train_dataset=examples.train,
                      eval_dataset=examples.validation, data_collator=Collator(tokenizer.pad_token_id),
                      callbacks=callbacks)
    trainer.remove_callback(PrinterCallback)
    return trainer


def _train(trainer, checkpoints: Path, resume: bool) -> dict:
    start = last_checkpoint(checkpoints) if resume else None
    output = trainer.train(resume_from_checkpoint=str(start) if start else None)
    return {"metrics": output.metrics, "resumed_from": start.name if start else None}


def sweep(args, examples: Examples, tokenizer, precision: str, callbacks) -> dict:
    """Validation loss after ``--sweep-steps`` at each rate; ``{"results", "chosen"}``."""
    results = {}
    for rate in args.lr_sweep:
        folder = Path(args.out) / SWEEP / f"lr-{rate:g}"
        done = folder / "result.json"
        if args.resume and done.is_file():
            results[f"{rate:g}"] = json.loads(done.read_text(encoding="utf-8"))
            continue
        model, _ = load_base(args, precision)
        steps = args.eval_steps or args.sweep_steps
        trainer = _trainer(args, examples, tokenizer, model, folder / "checkpoints",
                           callbacks(f"slds sweep lr {rate:g}"), learning_rate=rate,
                           max_steps=args.sweep_steps, eval_strategy="no",
                           save_strategy="steps", save_steps=min(steps, args.sweep_steps),
                           load_best_model_at_end=False)
        trained = _train(trainer, folder / "checkpoints", args.resume)
        result = {"learning_rate": rate, "eval_loss": trainer.evaluate()["eval_loss"],
                  "steps": trainer.state.global_step, "resumed_from": trained["resumed_from"]}
        results[f"{rate:g}"] = result
        if trainer.is_world_process_zero():
            write_text(done, json.dumps(result, indent=2, sort_keys=True) + "\n")
            record_files(Path(args.out))
            print(f"sweep: learning rate {rate:g} → validation loss {result['eval_loss']:.4f}",
                  file=sys.stderr)
    chosen = min(results.values(), key=lambda r: (r["eval_loss"], r["learning_rate"]))
    return {"results": results, "chosen": chosen["learning_rate"], "steps": args.sweep_steps,
            "criterion": "validation loss after the sweep steps"}


def final_trainer(args, examples: Examples, tokenizer, model, rate: float, callbacks):
    """The final run's Trainer: ``--epochs`` at ``rate``, checkpoints in ``RUN_DIR/final``."""
    return _trainer(args, examples, tokenizer, model, Path(args.out) / FINAL / "checkpoints",
                    callbacks(f"slds train lr {rate:g}"), learning_rate=rate)


def train_final(trainer, args) -> dict:
    """Train (resuming when asked) and return the training metrics."""
    return _train(trainer, Path(args.out) / FINAL / "checkpoints", args.resume)
