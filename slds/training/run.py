"""``courtbench train slds``: LoRA fine-tuning for headnote generation (paper Appendix G).

LoRA rank 16, alpha 16 on the q/k/v/o/gate/up/down projections the model has; effective
batch 32 (accumulation over ``--per-device-batch``); learning-rate sweep ``--lr-sweep
1e-5,5e-5,1e-4`` of ``--sweep-steps 500`` each, chosen by validation loss; then the chosen
rate for 3 epochs, 200 warm-up steps, linear decay; 8-bit AdamW (bitsandbytes, GPU) else
AdamW; at most 8,192 tokens (decisions cut). The prompt is the zero-shot prompt of
``courtbench generate slds`` (same packaged wording, the model's chat template).

Run folder (``--out``)::

    sweep/lr-<rate>/     the sweep runs' checkpoints and result.json (validation loss)
    final/checkpoints/   the final run's checkpoints (``--resume`` continues from the last)
    model/               merged model (default) or adapter + tokenizer: transformers,
                         ``vllm serve``, ``courtbench generate slds --local-model``
    manifest.json        every option, versions, seed, data fingerprint, model hash, LoRA
                         targets, sweep results, the selected checkpoint, training metrics
"""

from __future__ import annotations

import argparse
import re
import time
from pathlib import Path

from courtbench import option_checks
from courtbench.boundary import shown
from courtbench.errors import CourtbenchError
from courtbench.hub.atomic import refuse_inputs_inside
from courtbench.hub.files import fingerprint, list_files
from courtbench.training import extra, options, run_folder
from courtbench.training.manifest import device_info, folder_hash, library_versions
from slds.generate import CONFIG_NAMES
from slds.training.lora import DEFAULT_TARGETS

DEFAULTS = options.Defaults(learning_rate=1e-4, epochs=3, effective_batch=32, warmup=200,
                            weight_decay=0.0, optimizer="adamw-8bit", seed=42)
MODEL = "model"


#: Most learning rates a sweep tries (each a run of --sweep-steps).
MAX_SWEEP_RATES = 20
#: Largest LoRA rank and alpha.
MAX_LORA = 65_536
RATES = option_checks.ListOption(option_checks.number(0.0, 1.0, low_open=True,
                                                      what="a learning rate"),
                                 what="learning rates", max_items=MAX_SWEEP_RATES,
                                 none_word="none")
PAIRS = option_checks.ListOption(option_checks.ChoiceItem(CONFIG_NAMES, "a language pair"),
                                 what="language pairs", max_items=len(CONFIG_NAMES))
_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


def _configs(text: str) -> tuple[str, ...]:
    """``--configs``: ``all`` or distinct language pairs, comma-separated."""
    return CONFIG_NAMES if text.strip().lower() == "all" else PAIRS(text)


def _module_name(text: str) -> str:
    if not _MODULE_NAME.fullmatch(text):
        raise argparse.ArgumentTypeError(f"expected a module name (letters, digits, '_', '.'), "
                                         f"got {shown(text)}")
    return text


TARGETS = option_checks.ListOption(_module_name, what="module names", max_items=64)


def add_train_arguments(parser: argparse.ArgumentParser) -> None:
    """``courtbench train slds`` options (``--data``, ``--out`` come from the command)."""
    count = option_checks.count
    add = parser.add_argument
    add("--base-model", type=Path, required=True, metavar="PATH",
        help="local causal LM folder with a chat template (Qwen2.5-*-Instruct …)")
    add("--configs", type=_configs, default="all", metavar="PAIRS|all",
        help=f"language pairs to train on, comma-separated ({', '.join(CONFIG_NAMES)}) or all")
    add("--lr-sweep", type=RATES, default="1e-5,5e-5,1e-4", metavar="R,R,…|none",
        help="rates tried for --sweep-steps each, the lowest validation loss wins "
             "(default 1e-5,5e-5,1e-4; none: train at --learning-rate)")
    add("--sweep-steps", type=options.STEPS, default=500, metavar="N", help="default 500")
    add("--max-length", type=count(option_checks.MAX_LENGTH, low=2, what="a number of tokens"),
        default=8192, metavar="N",
        help="tokens per example, prompt + headnote (default 8,192; decisions are cut)")
    add("--max-target-tokens", type=count(option_checks.MAX_LENGTH, what="a number of tokens"),
        default=1024, metavar="N",
        help="headnote tokens kept (default 1,024, as generate's --max-tokens)")
    add("--max-eval-samples", type=count(option_checks.MAX_ROWS, what="a number of examples"),
        metavar="N", help="validation examples evaluated at checkpoints (default: all)")
    add("--lora-rank", type=count(MAX_LORA, what="a LoRA rank"), default=16, help="default 16")
    add("--lora-alpha", type=count(MAX_LORA, what="a LoRA alpha"), default=16, help="default 16")
    add("--lora-dropout", type=option_checks.number(0.0, 1.0, high_open=True, what="a dropout"),
        default=0.05, help="default 0.05")
    add("--lora-targets", type=TARGETS, default=DEFAULT_TARGETS, metavar="NAMES",
        help=f"projections (default {','.join(DEFAULT_TARGETS)}; those the model lacks are "
             "skipped and recorded)")
    add("--save", choices=("merged", "adapter"), default="merged",
        help="model/ holds the merged model (default) or the LoRA adapter")
    add("--system-prompt", type=Path, metavar="FILE",
        help="replace the packaged system prompt (pass the same file to generate)")
    add("--user-prompt", type=Path, metavar="FILE",
        help="replace the packaged user template (pass the same file to generate)")
    options.add_trainer_arguments(parser, DEFAULTS)


def _check(args: argparse.Namespace) -> None:
    """Options together, inputs, and whether the run may start in ``--out`` (each value's
    range was checked while parsing)."""
    if args.max_target_tokens >= args.max_length:
        raise CourtbenchError(f"--max-target-tokens {args.max_target_tokens}: must leave room "
                              f"for the decision within --max-length {args.max_length}")
    options.check(args)
    refuse_inputs_inside(args.out, [("--base-model", args.base_model)])
    run_folder.check_start(args.out, resume=args.resume, options=options.recorded(args))


def _tokenizer(path: Path):
    from transformers import AutoTokenizer

    from slds.training.examples import check_chat_template

    try:
        tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
    except (OSError, ValueError) as error:
        raise CourtbenchError(f"--base-model {path}: cannot load its tokenizer: "
                              f"{str(error).splitlines()[0]}") from None
    check_chat_template(tokenizer, f"--base-model {path}")
    if tokenizer.eos_token_id is None:
        raise CourtbenchError(f"--base-model {path}: the tokenizer has no end-of-sequence token")
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


def train(args: argparse.Namespace) -> int:
    """CLI entry point: sweep, train, write the model folder and the manifest; returns 0.

    Prompts, tokenizer and examples are read, and the LoRA targets checked against the
    model's layers, before the run folder is written; a run that fails before its first
    checkpoint leaves no folder (:func:`run_folder.guarded`)."""
    extra.require((*extra.TRAIN_MODULES, "peft"))
    _check(args)
    from slds.generate import load_prompts
    from slds.training import recipe

    prompts = load_prompts(args.system_prompt, args.user_prompt)
    model_hash = folder_hash(args.base_model, "--base-model")
    started = time.perf_counter()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    tokenizer = _tokenizer(args.base_model)
    recipe.check_targets(args)
    examples = recipe.load_examples(args, tokenizer, prompts)
    options.check_total_steps(args, len(examples.train),
                              other_steps=len(args.lr_sweep) * args.sweep_steps,
                              other=f" (plus {len(args.lr_sweep)} sweep run(s) of --sweep-steps "
                                    f"{args.sweep_steps:,})" if args.lr_sweep else "")
    run_folder.prepare(args.out, resume=args.resume, options=options.recorded(args))
    with run_folder.guarded(args.out, resume=args.resume):
        result = _run(args, tokenizer, examples)
        if result is None:
            return 0
        manifest = _manifest(args, prompts, result, model_hash,
                             round(time.perf_counter() - started, 3))
        path = run_folder.write_manifest(args.out, manifest)
    print(f"slds: learning rate {result['rate']:g}; selected {manifest['selected_checkpoint']} "
          f"(validation loss {manifest['best_metric']}); {args.save} model {args.out / MODEL}; "
          f"manifest {path}")
    return 0


def _run(args, tokenizer, examples) -> dict | None:
    """Sweep, final run and model folder; None on processes other than the main."""
    from courtbench.training.callbacks import ProgressBar, RecordCheckpoints
    from slds.training import recipe
    from slds.training.lora import save_model

    def callbacks(description: str) -> list:
        return [ProgressBar(description, args.effective_batch), RecordCheckpoints(args.out)]

    precision = options.precision(args.precision)
    swept = recipe.sweep(args, examples, tokenizer, precision, callbacks) if args.lr_sweep else None
    rate = swept["chosen"] if swept else args.learning_rate
    model, lora = recipe.load_base(args, precision)
    trainer = recipe.final_trainer(args, examples, tokenizer, model, rate, callbacks)
    trained = recipe.train_final(trainer, args)
    if not trainer.is_world_process_zero():
        return None
    state = trainer.state
    save_model(trainer.model, tokenizer, args.out / MODEL, merged=args.save == "merged")
    return {"rate": rate, "sweep": swept, "lora": lora, "trained": trained, "state": state,
            "examples": examples.counts, "precision": precision,
            "optimizer": str(getattr(trainer.args.optim, "value", trainer.args.optim)),
            "accumulation": trainer.args.gradient_accumulation_steps}


def _manifest(args, prompts, result: dict, model_hash: dict, seconds: float) -> dict:
    from courtbench.training.checkpoints import relative

    state = result["state"]
    return {
        "status": "complete", "dataset": "slds", "recipe": "LoRA headnote fine-tuning (paper Appendix G), zero-shot prompt",
        "options": options.recorded(args), "seed": args.seed,
        "resolved": {"precision": result["precision"], "optimizer": result["optimizer"],
                     "gradient_accumulation_steps": result["accumulation"],
                     "learning_rate": result["rate"]},
        "versions": library_versions(), "device": device_info(),
        "data": {"path": str(args.data), "fingerprint": fingerprint(list_files(args.data)),
                 "configs": args.configs, "examples": result["examples"]},
        "base_model": model_hash, "prompts": prompts.hashes(), "lora": {
            "rank": args.lora_rank, "alpha": args.lora_alpha, "dropout": args.lora_dropout,
            **result["lora"]},
        "lr_sweep": result["sweep"],
        "selected_checkpoint": relative(state.best_model_checkpoint, args.out),
        "selection": "validation loss (never test)", "best_metric": state.best_metric,
        "global_step": state.global_step, "resumed_from": result["trained"]["resumed_from"],
        "train_metrics": result["trained"]["metrics"], "log_history": state.log_history,
        "model": {"path": MODEL, "kind": args.save}, "seconds": seconds,
    }
