"""Training examples of the Facts-text regressor: token chunks, features, target, batches.

- Text: the Facts text tokenised once, cut into ``chunks`` windows of ``max_length`` tokens
  (special tokens included): ModernBERT one window of 8,192, Longformer two of 4,096; text
  beyond the last window is dropped, a short text fills fewer windows.
- Structured features (late fusion): the baselines' one-hot encoder
  (:class:`ecthr_npd.baselines.features.FeatureEncoder`, fitted on train), each column then
  standardised with the train mean and standard deviation.
- Target: ``(log1p(y) − mean) / std`` with the train mean and std (:class:`Standardiser`);
  predictions go back through :meth:`Standardiser.inverse` (EUR, clipped at 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import torch

from courtbench.errors import CourtbenchError
from ecthr_npd.baselines.features import FEATURE_SETS, FeatureEncoder


@dataclass(frozen=True)
class Standardiser:
    """log1p(EUR) standardised with the training split's mean and std (std 1 when constant)."""

    mean: float
    std: float

    @classmethod
    def fit(cls, amounts: np.ndarray) -> Standardiser:
        logged = np.log1p(np.asarray(amounts, dtype=np.float64))
        std = float(logged.std())
        return cls(float(logged.mean()), std if std > 0 else 1.0)

    def forward(self, amounts: np.ndarray) -> np.ndarray:
        """EUR → standardised log1p, float32."""
        return ((np.log1p(np.asarray(amounts, dtype=np.float64)) - self.mean)
                / self.std).astype(np.float32)

    def inverse(self, values: np.ndarray) -> np.ndarray:
        """Standardised log1p → EUR (float64): inverse-standardised, expm1, clipped at 0."""
        logged = np.asarray(values, dtype=np.float64) * self.std + self.mean
        return np.clip(np.expm1(np.minimum(logged, 700.0)), 0.0, None)


def chunk_tokens(tokenizer, texts: list[str], max_length: int, chunks: int) -> list[list[list[int]]]:
    """Per text, its first ``chunks`` consecutive token windows of at most ``max_length``
    tokens each, every window wrapped in the tokenizer's special tokens ([CLS] … [SEP])."""
    if max_length <= tokenizer.num_special_tokens_to_add(pair=False):
        raise CourtbenchError(f"--max-length {max_length}: leaves no room for text beside the "
                              "tokenizer's special tokens")
    encoded = tokenizer(texts, add_special_tokens=True, truncation=True, max_length=max_length,
                        stride=0, return_overflowing_tokens=True)
    windows: list[list[list[int]]] = [[] for _ in texts]
    for ids, text in zip(encoded["input_ids"], encoded["overflow_to_sample_mapping"], strict=True):
        if len(windows[text]) < chunks:
            windows[text].append(list(ids))
    return windows


class StructuredFeatures:
    """The late-fusion branch's input: one-hot features of ``feature_set`` (``X0``, ``X1`` or
    ``all``), standardised per column with the training split's statistics."""

    def __init__(self, feature_set: str) -> None:
        predictors = None if feature_set == "all" else FEATURE_SETS[feature_set]
        self.encoder = FeatureEncoder(predictors=predictors)
        self.mean = self.scale = np.zeros(0)

    def fit(self, train: pa.Table) -> StructuredFeatures:
        matrix = self.encoder.fit(train).transform(train, "one_hot")
        self.mean = matrix.mean(axis=0)
        scale = matrix.std(axis=0)
        self.scale = np.where(scale > 0, scale, 1.0)
        return self

    @property
    def size(self) -> int:
        return int(self.mean.shape[0])

    def transform(self, table: pa.Table) -> np.ndarray:
        """float32 matrix, one row per case of ``table``."""
        matrix = self.encoder.transform(table, "one_hot")
        return ((matrix - self.mean) / self.scale).astype(np.float32)


class CaseExamples(torch.utils.data.Dataset):
    """One example per case: ``chunks`` (token windows), ``features`` (or None) and
    ``labels`` (standardised target, or None for a split predicted without its labels)."""

    def __init__(self, chunks: list[list[list[int]]], features: np.ndarray | None,
                 labels: np.ndarray | None) -> None:
        self.chunks, self.features, self.labels = chunks, features, labels

    def __len__(self) -> int:
        return len(self.chunks)

    def __getitem__(self, index: int) -> dict:
        return {"chunks": self.chunks[index],
                "features": None if self.features is None else self.features[index],
                "labels": None if self.labels is None else self.labels[index]}

    def with_features(self, features: np.ndarray) -> CaseExamples:
        """The same cases with other structured features (to see what the model makes of them)."""
        return CaseExamples(self.chunks, features, self.labels)


@dataclass(frozen=True)
class Collator:
    """Batches of ``input_ids`` / ``attention_mask`` (cases × chunks × tokens, padded),
    ``chunk_mask`` (cases × chunks), ``features`` and ``labels`` when the examples have them."""

    pad_id: int

    def __call__(self, items: list[dict]) -> dict:
        chunks = max(len(item["chunks"]) for item in items)
        length = max(len(window) for item in items for window in item["chunks"])
        ids = torch.full((len(items), chunks, length), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(items), chunks, length), dtype=torch.long)
        chunk_mask = torch.zeros((len(items), chunks), dtype=torch.long)
        for i, item in enumerate(items):
            for j, window in enumerate(item["chunks"]):
                ids[i, j, :len(window)] = torch.tensor(window, dtype=torch.long)
                mask[i, j, :len(window)] = 1
                chunk_mask[i, j] = 1
        batch = {"input_ids": ids, "attention_mask": mask, "chunk_mask": chunk_mask}
        if items[0]["features"] is not None:
            batch["features"] = torch.from_numpy(np.stack([item["features"] for item in items]))
        if items[0]["labels"] is not None:
            batch["labels"] = torch.tensor([item["labels"] for item in items], dtype=torch.float32)
        return batch
