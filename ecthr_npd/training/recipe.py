"""The ECtHR-NPD Facts-text regressor trained with ``transformers.Trainer`` (paper Table 22).

:func:`prepare` reads the built folder (inputs, target, Facts text), tokenises, fits the
target standardisation and the feature encoder on train only, and builds the model;
:func:`fit` trains with validation evaluation at every checkpoint and loads the checkpoint
with the best validation score; :func:`predict_eur` turns a split's outputs into EUR.
Test labels are never read: the test examples carry none.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from courtbench.errors import CourtbenchError
from courtbench.training.checkpoints import last_checkpoint
from courtbench.training.options import training_arguments
from ecthr_npd.data import BenchmarkData, load_benchmark
from ecthr_npd.training.examples import (
    CaseExamples,
    Collator,
    Standardiser,
    StructuredFeatures,
    chunk_tokens,
)
from ecthr_npd.training.facts import read_facts

CHECKPOINTS = "checkpoints"


@dataclass
class Prepared:
    """Everything a run needs: data, examples per split, target scaling, model, tokenizer."""

    data: BenchmarkData
    examples: dict[str, CaseExamples]
    standardiser: Standardiser
    features: StructuredFeatures | None
    model: object
    tokenizer: object
    token_counts: dict[str, dict[str, float]]


def _load_encoder(path: Path):
    from transformers import AutoModel, AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        encoder = AutoModel.from_pretrained(str(path), local_files_only=True)
    except (OSError, ValueError) as error:
        raise CourtbenchError(f"--text-model {path}: cannot load an encoder and its tokenizer "
                              f"with transformers: {str(error).splitlines()[0]}") from None
    if tokenizer.pad_token_id is None:
        raise CourtbenchError(f"--text-model {path}: the tokenizer has no padding token")
    return tokenizer, encoder


def _counts(chunks: list[list[list[int]]]) -> dict[str, float]:
    tokens = np.array([sum(len(w) for w in windows) for windows in chunks], dtype=np.float64)
    return {"cases": len(chunks), "mean_tokens": round(float(tokens.mean()), 1),
            "max_tokens": int(tokens.max()),
            "cases_filling_every_chunk": int(sum(len(w) == max(map(len, chunks)) for w in chunks))}


def prepare(args: argparse.Namespace) -> Prepared:
    """Read, tokenise and build (see the module docstring); the seed is set before the head
    is initialised, so a resumed run starts from the same weights as the first."""
    from transformers import set_seed

    from ecthr_npd.training.model import TextRegressor

    data = load_benchmark(args.data)
    tokenizer, encoder = _load_encoder(args.text_model)
    standardiser = Standardiser.fit(data.target("train"))
    features = StructuredFeatures(args.feature_set).fit(data.splits["train"]) \
        if args.late_fusion else None
    examples, counts = {}, {}
    for split in ("train", "validation", "test"):
        texts = read_facts(args.data, split, data.ids(split))
        chunks = chunk_tokens(tokenizer, texts, args.max_length, args.chunks)
        labels = None if split == "test" else standardiser.forward(data.target(split))
        matrix = None if features is None else features.transform(data.splits[split])
        examples[split], counts[split] = CaseExamples(chunks, matrix, labels), _counts(chunks)
    set_seed(args.seed)
    model = TextRegressor(encoder, feature_size=features.size if features else 0,
                          fusion_hidden=args.fusion_hidden, fusion_out=args.fusion_out,
                          beta=args.smooth_l1_beta)
    return Prepared(data, examples, standardiser, features, model, tokenizer, counts)


def _metrics(standardiser: Standardiser, amounts: np.ndarray):
    """compute_metrics: validation MAE and RMSE in EUR (predictions in dataset order)."""
    def compute(prediction) -> dict[str, float]:
        values = standardiser.inverse(np.asarray(prediction.predictions).reshape(-1))
        errors = values[:len(amounts)] - amounts
        return {"mae": float(np.abs(errors).mean()), "rmse": float(np.sqrt((errors ** 2).mean()))}
    return compute


def make_trainer(args: argparse.Namespace, prepared: Prepared, callbacks: list):
    """The ``transformers.Trainer`` of a run (checkpoints in ``RUN_DIR/checkpoints``)."""
    from transformers import PrinterCallback, Trainer

    metric = args.selection_metric
    arguments = training_arguments(args, str(Path(args.out) / CHECKPOINTS), metric=metric,
                                   greater_is_better=False)
    trainer = Trainer(model=prepared.model, args=arguments,
                   train_dataset=prepared.examples["train"],
                   eval_dataset=prepared.examples["validation"],
                   data_collator=Collator(prepared.tokenizer.pad_token_id),
                   compute_metrics=_metrics(prepared.standardiser,
                                            prepared.data.target("validation")),
                   callbacks=callbacks)
    trainer.remove_callback(PrinterCallback)  # the progress bar shows loss and validation
    return trainer


def fit(trainer, run_dir: Path, *, resume: bool) -> dict:
    """Train (from the last checkpoint with ``resume``); returns the training metrics and
    where it started."""
    start = last_checkpoint(Path(run_dir) / CHECKPOINTS) if resume else None
    output = trainer.train(resume_from_checkpoint=str(start) if start else None)
    return {"metrics": output.metrics, "resumed_from": start.name if start else None}


def predict_eur(trainer, examples: CaseExamples, standardiser: Standardiser) -> np.ndarray:
    """Predictions in EUR (float64, >= 0) for every example, in order."""
    output = trainer.predict(examples)
    values = np.asarray(output.predictions, dtype=np.float64).reshape(-1)[:len(examples)]
    return standardiser.inverse(values)
