"""``courtbench train``: CPU throughput of the tiny models, and the wrapper's overhead.

Tiny models built offline as the tests build them (``tests/helpers/training_helpers.py``): a 2-layer
ModernBERT-style encoder (hidden 32) on a synthetic ECtHR-NPD folder of 400 cases with
generated Facts text (128 tokens per case), and a 2-layer Qwen2-style LM (hidden 32) with
LoRA on a synthetic SLDS folder (10 decisions, 480 tokens per example). One torch thread.

- Throughput: training samples per second of ``trainer.train()`` in a full ``courtbench
  train`` run (validation evaluation and checkpoints included), and that run's wall seconds.
- Overhead: ``trainer.train()`` seconds with courtbench's Trainer (its TrainingArguments,
  collator, progress bar and marker refresh at every checkpoint) ÷ a bare
  ``transformers.Trainer`` with the same model, data, collator and arguments and no
  courtbench callback, in 4 pairs (which one goes first alternating); the figure is the
  median of the pairs' ratios (best seconds of each side reported too). Target ≤ 1.05.
  On a loaded shared machine the pair ratios scatter widely, so the time spent inside
  courtbench's callbacks (the only code the wrapped run adds to the Trainer's loop) is
  measured too: ``callback_share_of_train``.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests" / "helpers"
ECTHR_OPTIONS = ["--max-length", "128", "--effective-batch", "8", "--per-device-batch", "4",
                 "--learning-rate", "1e-3", "--epochs", "2", "--eval-steps", "10",
                 "--logging-steps", "5", "--threads", "1"]
SLDS_OPTIONS = ["--max-length", "480", "--max-target-tokens", "48", "--effective-batch", "4",
                "--per-device-batch", "2", "--warmup", "0", "--lr-sweep", "none",
                "--max-steps", "24", "--eval-steps", "6", "--threads", "1"]
REPEAT = 4


def _inputs(root: Path) -> dict[str, Path]:
    sys.path.insert(0, str(TESTS))
    from training_helpers import tiny_causal_lm, tiny_encoder, write_facts

    from courtbench.errors import CourtbenchError
    from ecthr_npd.build import build_synthetic as build_ecthr
    from slds.build import build_synthetic as build_slds
    from slds.data import read_split
    from slds.generate import load_prompts

    def absent(name):
        raise CourtbenchError(f"{name}: not computed in this benchmark")

    build_ecthr(root / "ecthr", n=400, seed=3)
    texts = write_facts(root / "ecthr")
    corpus = [text for split in texts.values() for text in split]
    build_slds(root / "slds", decisions=10, seed=1, properties_loader=absent)
    rows = read_split(root / "slds", ["train", "validation"], columns=("decision", "headnote"))
    prompts = load_prompts()
    slds_corpus = [t[:3000] for t in rows["decision"]] + list(rows["headnote"]) + [
        prompts.system, prompts.user]
    return {"ecthr": root / "ecthr", "encoder": tiny_encoder(corpus, root / "mbert",
                                                             kind="modernbert"),
            "slds": root / "slds", "lm": tiny_causal_lm(slds_corpus, root / "lm")}


def _ecthr_argv(inputs, out: Path) -> list[str]:
    return ["train", "ecthr_npd", "--data", str(inputs["ecthr"]), "--text-model",
            str(inputs["encoder"]), "--arch", "modernbert", "--out", str(out), *ECTHR_OPTIONS]


def _slds_argv(inputs, out: Path) -> list[str]:
    return ["train", "slds", "--data", str(inputs["slds"]), "--base-model", str(inputs["lm"]),
            "--out", str(out), *SLDS_OPTIONS]


def _full_run(argv: list[str], out: Path) -> dict:
    import json

    from courtbench.cli import main

    start = time.perf_counter()
    assert main(argv) == 0
    seconds = time.perf_counter() - start
    metrics = json.loads((out / "manifest.json").read_text())["train_metrics"]
    return {"train_samples_per_second": metrics["train_samples_per_second"],
            "train_runtime_seconds": metrics["train_runtime"],
            "command_seconds": round(seconds, 3)}


class _Clock:
    """Seconds spent inside the wrapped callbacks' event methods."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def wrap(self, callbacks: list) -> list:
        for callback in callbacks:
            for event in ("on_train_begin", "on_step_end", "on_log", "on_save", "on_train_end"):
                method = getattr(callback, event)

                def timed(*args, _method=method, **kwargs):
                    start = time.perf_counter()
                    try:
                        return _method(*args, **kwargs)
                    finally:
                        self.seconds += time.perf_counter() - start
                setattr(callback, event, timed)
        return callbacks


CLOCK = _Clock()


def _timed(trainer) -> float:
    start = time.perf_counter()
    trainer.train()
    return time.perf_counter() - start


def _alternate(wrapped, bare, index: int) -> tuple[float, float]:
    """(wrapped seconds, bare seconds), the first trained alternating with ``index``."""
    if index % 2:
        bare_seconds = _timed(bare)
        return _timed(wrapped), bare_seconds
    wrapped_seconds = _timed(wrapped)
    return wrapped_seconds, _timed(bare)


def _ecthr_pair(inputs, root: Path, index: int) -> tuple[float, float]:
    """(courtbench Trainer seconds, bare Trainer seconds) on the same prepared data."""
    from transformers import Trainer

    from courtbench.cli import build_parser
    from courtbench.training import run_folder
    from courtbench.training.callbacks import ProgressBar, RecordCheckpoints
    from ecthr_npd.training import recipe, run

    args = build_parser().parse_args(_ecthr_argv(inputs, root / f"ecthr-wrapped-{index}"))
    run._check(args)
    run_folder.prepare(args.out, resume=False)
    prepared = recipe.prepare(args)
    wrapped = recipe.make_trainer(args, prepared, CLOCK.wrap([
        ProgressBar("bench", args.effective_batch), RecordCheckpoints(args.out)]))
    bare_args = wrapped.args.__class__(**{**wrapped.args.to_dict(),
                                          "output_dir": str(root / f"ecthr-bare-{index}")})
    prepared = recipe.prepare(args)  # fresh weights, same seed
    bare = Trainer(model=prepared.model, args=bare_args, train_dataset=wrapped.train_dataset,
                   eval_dataset=wrapped.eval_dataset, data_collator=wrapped.data_collator,
                   compute_metrics=wrapped.compute_metrics)
    return _alternate(wrapped, bare, index)


def _slds_pair(inputs, root: Path, index: int) -> tuple[float, float]:
    from transformers import Trainer

    from courtbench.cli import build_parser
    from courtbench.training import options, run_folder
    from courtbench.training.callbacks import ProgressBar, RecordCheckpoints
    from slds.generate import load_prompts
    from slds.training import recipe, run

    args = build_parser().parse_args(_slds_argv(inputs, root / f"slds-wrapped-{index}"))
    run._check(args)
    run_folder.prepare(args.out, resume=False)
    tokenizer = run._tokenizer(args.base_model)
    examples = recipe.load_examples(args, tokenizer, load_prompts())
    precision = options.precision(args.precision)
    model, _ = recipe.load_base(args, precision)
    wrapped = recipe.final_trainer(args, examples, tokenizer, model, args.learning_rate,
                                   lambda d: CLOCK.wrap([ProgressBar(d, 4),
                                                         RecordCheckpoints(args.out)]))
    bare_args = wrapped.args.__class__(**{**wrapped.args.to_dict(),
                                          "output_dir": str(root / f"slds-bare-{index}")})
    model, _ = recipe.load_base(args, precision)
    bare = Trainer(model=model, args=bare_args, train_dataset=examples.train,
                   eval_dataset=examples.validation, data_collator=wrapped.data_collator)
    return _alternate(wrapped, bare, index)


def main() -> dict:
    """Figures: throughput and command seconds per recipe; wrapper ÷ bare Trainer seconds
    (median over the pairs, each pair's ratio listed)."""
    import torch

    torch.set_num_threads(1)
    figures: dict = {"torch_threads": 1, "repeat": REPEAT}
    with tempfile.TemporaryDirectory(prefix="bench-training-") as tmp:
        root = Path(tmp)
        inputs = _inputs(root)
        figures["ecthr_npd"] = _full_run(_ecthr_argv(inputs, root / "ecthr-run"), root / "ecthr-run")
        figures["slds"] = _full_run(_slds_argv(inputs, root / "slds-run"), root / "slds-run")
        for name, pair in (("ecthr_npd", _ecthr_pair), ("slds", _slds_pair)):
            CLOCK.seconds = 0.0
            runs = [pair(inputs, root, index) for index in range(REPEAT)]
            wrapped_total = sum(r[0] for r in runs)
            ratios = sorted(ours / bare for ours, bare in runs)
            figures[name].update({
                "wrapper_train_seconds": round(min(r[0] for r in runs), 3),
                "bare_trainer_seconds": round(min(r[1] for r in runs), 3),
                "pair_ratios": [round(r, 3) for r in ratios],
                "wrapper_over_bare": round(statistics.median(ratios), 3),
                "callback_seconds": round(CLOCK.seconds, 4),
                "callback_share_of_train": round(CLOCK.seconds / wrapped_total, 4)})
    return figures
