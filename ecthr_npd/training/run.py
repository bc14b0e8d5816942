"""``courtbench train ecthr_npd``: fine-tune a text encoder on the Facts text (paper Table 22).

``--arch modernbert``: one pass over up to 8,192 tokens; ``--arch longformer``: two 4,096-token
chunks, their [CLS] states mean-pooled (``--max-length`` / ``--chunks`` override either).
Linear head over [CLS]; ``--late-fusion`` concatenates an MLP of the structured features
(256 → 768). SmoothL1 (β 1) on the standardised log1p award; AdamW (weight decay 0.01), 6%
linear warm-up then linear decay; bf16 where supported; effective batch 16 (1 × 16
accumulation); gradient checkpointing; checkpoint selected on validation (MAE in EUR).

Run folder (``--out``)::

    checkpoints/checkpoint-N/     Trainer checkpoints (``--resume`` continues from the last)
    predictions/<system>.csv      case_id,prediction (EUR) for validation and test, and
    predictions/settings.json     settings, as ``courtbench baselines`` writes them
    manifest.json                 every option, versions, seed, data fingerprint, model hash,
                                  target scaling, the selected checkpoint, training metrics

Score with ``courtbench evaluate ecthr_npd --splits validation,test --predictions
RUN_DIR/predictions/<system>.csv``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from courtbench import option_checks
from courtbench.errors import CourtbenchError
from courtbench.hub.atomic import refuse_inputs_inside
from courtbench.training import extra, options, run_folder
from courtbench.training.manifest import device_info, folder_hash, library_versions
from ecthr_npd.training.facts import check_facts

ARCHS = {"modernbert": (8192, 1), "longformer": (4096, 2)}
DEFAULTS = options.Defaults(learning_rate=2e-5, epochs=3, effective_batch=16, warmup=0.06,
                            weight_decay=0.01, optimizer="adamw", seed=42)
PREDICTIONS = "predictions"


MAX_CHUNKS = 1_000
#: Widest late-fusion layer.
MAX_WIDTH = 65_536
LENGTH = option_checks.count(option_checks.MAX_LENGTH, low=2, what="a number of tokens")
CHUNKS = option_checks.count(MAX_CHUNKS, what="a number of chunks")
WIDTH = option_checks.count(MAX_WIDTH, what="a layer width")
BETA = option_checks.number(0.0, 1e6, what="a SmoothL1 beta")


def add_train_arguments(parser: argparse.ArgumentParser) -> None:
    """``courtbench train ecthr_npd`` options (``--data``, ``--out`` come from the command)."""
    parser.add_argument("--text-model", type=Path, required=True, metavar="PATH",
                        help="local encoder folder (ModernBERT-base, Legal-Longformer …)")
    parser.add_argument("--arch", choices=sorted(ARCHS), required=True,
                        help="modernbert: one 8,192-token pass; longformer: two 4,096-token "
                             "chunks, mean-pooled [CLS]")
    parser.add_argument("--late-fusion", action="store_true",
                        help="concatenate an MLP of the structured features to [CLS]")
    parser.add_argument("--max-length", type=LENGTH, metavar="N",
                        help="tokens per chunk, special tokens included (default: the arch's)")
    parser.add_argument("--chunks", type=CHUNKS, metavar="N", help="chunks (default: the arch's)")
    parser.add_argument("--feature-set", choices=("X0", "X1", "all"), default="X1",
                        help="late fusion: structured features (default X1, as the tree systems)")
    parser.add_argument("--fusion-hidden", type=WIDTH, default=256, help="default 256")
    parser.add_argument("--fusion-out", type=WIDTH, default=768, help="default 768")
    parser.add_argument("--smooth-l1-beta", type=BETA, default=1.0,
                        help="default 1.0 (0: L1 loss)")
    parser.add_argument("--selection-metric", choices=("mae", "loss"), default="mae",
                        help="validation score choosing the checkpoint (default mae, EUR)")
    parser.add_argument("--system-name", metavar="NAME",
                        help="predictions file stem (default ARCH or ARCH-late-fusion)")
    options.add_trainer_arguments(parser, DEFAULTS)


def _check(args: argparse.Namespace) -> None:
    """Everything that can be checked before any loading: options together, inputs, the
    Facts config, and whether the run may start in ``--out``."""
    length, chunks = ARCHS[args.arch]
    args.max_length = args.max_length or length
    args.chunks = args.chunks or chunks
    args.system_name = args.system_name or args.arch + ("-late-fusion" if args.late_fusion else "")
    if not args.system_name.replace("-", "").replace("_", "").replace("+", "").isalnum():
        raise CourtbenchError(f"--system-name {args.system_name!r}: expected letters, digits, "
                              "'-', '_' or '+'")
    options.check(args)
    refuse_inputs_inside(args.out, [("--text-model", args.text_model)])
    check_facts(args.data)
    run_folder.check_start(args.out, resume=args.resume, options=options.recorded(args))


def train(args: argparse.Namespace) -> int:
    """CLI entry point: train, predict validation and test, write the manifest; returns 0.

    Every input is read and the model built before the run folder is written; a run that
    fails before its first checkpoint leaves no folder (:func:`run_folder.guarded`)."""
    extra.require()
    _check(args)
    model_hash = folder_hash(args.text_model, "--text-model")
    from courtbench.training.callbacks import ProgressBar, RecordCheckpoints
    from ecthr_npd.training import recipe

    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    started = time.perf_counter()
    prepared = recipe.prepare(args)
    options.check_total_steps(args, len(prepared.examples["train"]))
    run_folder.prepare(args.out, resume=args.resume, options=options.recorded(args))
    with run_folder.guarded(args.out, resume=args.resume):
        bar = ProgressBar(f"ecthr_npd train ({args.system_name})", args.effective_batch)
        trainer = recipe.make_trainer(args, prepared, [bar, RecordCheckpoints(args.out)])
        trained = recipe.fit(trainer, args.out, resume=args.resume)
        values = {split: recipe.predict_eur(trainer, prepared.examples[split],
                                            prepared.standardiser)
                  for split in ("validation", "test")}
        if not trainer.is_world_process_zero():
            return 0
        manifest = _manifest(args, prepared, trainer, trained, model_hash,
                             round(time.perf_counter() - started, 3))
        _write_predictions(args, prepared, values, manifest)
        path = run_folder.write_manifest(args.out, manifest)
    print(f"{args.system_name}: selected {manifest['selected_checkpoint']} (validation "
          f"{args.selection_metric} {manifest['best_metric']}); predictions "
          f"{args.out / PREDICTIONS / (args.system_name + '.csv')}; manifest {path}")
    return 0


def _manifest(args, prepared, trainer, trained, model_hash, seconds) -> dict:
    from courtbench.training.checkpoints import relative

    state = trainer.state
    return {
        "status": "complete", "dataset": "ecthr_npd", "recipe": "facts-text encoder regression (paper Table 22)",
        "system": args.system_name, "options": options.recorded(args),
        "resolved": {"precision": options.precision(args.precision),
                     "optimizer": trainer.args.optim.value if hasattr(trainer.args.optim, "value")
                     else str(trainer.args.optim),
                     "gradient_accumulation_steps": trainer.args.gradient_accumulation_steps,
                     "max_length": args.max_length, "chunks": args.chunks},
        "seed": args.seed, "versions": library_versions(), "device": device_info(),
        "data": {"path": str(args.data), "fingerprint": prepared.data.fingerprint,
                 "tokens": prepared.token_counts},
        "text_model": model_hash,
        "target_standardisation": {"mean": prepared.standardiser.mean,
                                   "std": prepared.standardiser.std},
        "late_fusion": None if prepared.features is None else {
            "feature_set": args.feature_set, "features": prepared.features.size},
        "selected_checkpoint": relative(state.best_model_checkpoint, args.out),
        "selection": f"validation {args.selection_metric} (never test)",
        "best_metric": state.best_metric, "global_step": state.global_step,
        "resumed_from": trained["resumed_from"], "train_metrics": trained["metrics"],
        "log_history": state.log_history, "seconds": seconds,
    }


def _write_predictions(args, prepared, values, manifest) -> None:
    import numpy as np

    from ecthr_npd.baselines.prediction_files import write_predictions

    ids = prepared.data.ids("validation") + prepared.data.ids("test")
    settings = {"systems": {args.system_name: {
        "settings": {"text_model": manifest["text_model"]["path"], "arch": args.arch,
                     "late_fusion": args.late_fusion,
                     "selected_checkpoint": manifest["selected_checkpoint"]},
        "variant": {"system": args.system_name, "selection": "validation", "seed": args.seed,
                    "refit": False, "replica_of": None}}},
        "seed": args.seed, "versions": manifest["versions"],
        "data": {"source": str(args.data), "fingerprint": prepared.data.fingerprint},
        "splits": ["validation", "test"]}
    write_predictions(args.out / PREDICTIONS, ids,
                      {args.system_name: np.concatenate([values["validation"], values["test"]])},
                      settings)
    print(f"wrote {args.out / PREDICTIONS}", file=sys.stderr)
