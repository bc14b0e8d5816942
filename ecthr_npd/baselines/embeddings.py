"""Dense and sparse text scorers from a local encoder folder (torch + transformers).

:class:`LocalEncoder` loads a Hugging Face model folder (``--text-model PATH``; never a Hub
name: nothing is downloaded) and cuts each text into chunks of at most ``chunk_tokens``
tokens (the model's own limit when smaller; ``max_chunks`` keeps the first N).

- :class:`DenseScorer`: one vector per chunk with the folder's sentence-transformers pooling
  (``1_Pooling/config.json``: CLS or mean; mean when absent), L2-normalised; a text's vector
  is the token-weighted mean of its chunks, L2-normalised; similarity = cosine. Vectors are
  rounded to 1e-6 and cached (:mod:`ecthr_npd.baselines.embedding_cache`), so a rerun embeds
  nothing and gives the same numbers.
- :class:`SparseScorer`: BGE-M3's lexical weights: ReLU of the folder's ``sparse_linear.pt``
  head on each token's last hidden state, the maximum per vocabulary id over the text's
  chunks, special tokens left out; similarity = Σ over shared ids of the two weights.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from courtbench.errors import CourtbenchError
from ecthr_npd.baselines.embedding_cache import EmbeddingCache, model_fingerprint

INSTALL = ("pip install 'courtbench[embeddings]'  (torch, transformers; on Linux install the "
           "CPU torch first: pip install torch --index-url https://download.pytorch.org/whl/cpu)")
DEFAULT_CHUNK_TOKENS = 512


def require_runtime(system: str) -> None:
    """One-line CourtbenchError when torch or transformers is missing."""
    import importlib.util

    missing = [m for m in ("torch", "transformers") if importlib.util.find_spec(m) is None]
    if missing:
        raise CourtbenchError(f"--systems {system} needs {' and '.join(missing)}: {INSTALL}")


def check_model_folder(path: Path | None, system: str, needs: tuple[str, ...] = ()) -> Path:
    """The local model folder, or a one-line CourtbenchError (missing, or lacking a file)."""
    if path is None:
        raise CourtbenchError(f"--systems {system} needs --text-model PATH: a local model "
                              "folder (config.json, weights, tokenizer); Hub names are not "
                              "downloaded")
    path = Path(path)
    lacking = [name for name in ("config.json", *needs) if not (path / name).is_file()]
    if lacking:
        raise CourtbenchError(f"--text-model {path}: {', '.join(lacking)} not found; expected "
                              f"a local model folder{' of BGE-M3' if needs else ''} holding it")
    return path


class LocalEncoder:
    """A transformers encoder from a local folder (see the module docstring)."""

    def __init__(self, folder: Path, *, device: str = "cpu", batch_size: int = 16,
                 chunk_tokens: int = DEFAULT_CHUNK_TOKENS, max_chunks: int | None = None,
                 progress: bool = False) -> None:
        import torch
        from transformers import AutoModel, AutoTokenizer

        if device == "cuda" and not torch.cuda.is_available():
            raise CourtbenchError("--device cuda: no CUDA device is available; use --device cpu")
        self.folder = Path(folder)
        self.device = torch.device(device)
        self.batch_size = batch_size
        self.max_chunks = max_chunks
        self.progress = progress
        self.tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
        self.model = AutoModel.from_pretrained(str(folder), local_files_only=True).to(
            self.device).eval()
        limit = min(getattr(self.model.config, "max_position_embeddings", chunk_tokens),
                    self.tokenizer.model_max_length or chunk_tokens, _st_max_length(folder))
        self.chunk_tokens = min(chunk_tokens, limit)

    def chunks(self, texts: list[str]) -> tuple[list[list[int]], list[int]]:
        """(token ids of every chunk, index of its text); special tokens included."""
        encoded = self.tokenizer(texts, truncation=True, max_length=self.chunk_tokens,
                                 return_overflowing_tokens=True, padding=False)
        ids, owners = encoded["input_ids"], encoded["overflow_to_sample_mapping"]
        if self.max_chunks is None:
            return list(ids), list(owners)
        kept, seen = [], {}
        for chunk, owner in zip(ids, owners, strict=True):
            seen[owner] = seen.get(owner, 0) + 1
            if seen[owner] <= self.max_chunks:
                kept.append((chunk, owner))
        return [c for c, _ in kept], [o for _, o in kept]

    def hidden_states(self, chunk_ids: list[list[int]]):
        """Yield (batch start, last hidden states, attention mask) over batches of chunks."""
        import torch
        from tqdm.auto import tqdm

        pad = self.tokenizer.pad_token_id or 0
        for start in tqdm(range(0, len(chunk_ids), self.batch_size), desc="embedding",
                          unit="batch", disable=not self.progress):
            batch = chunk_ids[start:start + self.batch_size]
            width = max(len(c) for c in batch)
            ids = torch.tensor([c + [pad] * (width - len(c)) for c in batch], device=self.device)
            mask = torch.tensor([[1] * len(c) + [0] * (width - len(c)) for c in batch],
                                device=self.device)
            with torch.inference_mode():
                states = self.model(input_ids=ids, attention_mask=mask).last_hidden_state
            yield start, states, mask

    def fingerprint(self) -> str:
        return model_fingerprint(self.folder)


def _st_max_length(folder: Path) -> int:
    config = Path(folder) / "sentence_bert_config.json"
    if config.is_file():
        return int(json.loads(config.read_text(encoding="utf-8")).get("max_seq_length", 10**9))
    return 10**9


def pooling_mode(folder: Path) -> str:
    """``cls`` or ``mean`` from the folder's sentence-transformers pooling config."""
    config = Path(folder) / "1_Pooling" / "config.json"
    if config.is_file() and json.loads(config.read_text(encoding="utf-8")).get(
            "pooling_mode_cls_token"):
        return "cls"
    return "mean"


class DenseScorer:
    """Cosine similarity of pooled chunk embeddings (see the module docstring)."""

    def __init__(self, encoder: LocalEncoder, cache_path: Path | None = None) -> None:
        self.encoder = encoder
        self.pooling = pooling_mode(encoder.folder)
        self.model_hash = encoder.fingerprint()
        namespace = (f"{self.model_hash}|{self.pooling}|{encoder.chunk_tokens}|"
                     f"{encoder.max_chunks}")
        self.cache = EmbeddingCache(cache_path, namespace)
        self._pool: np.ndarray | None = None

    def embed(self, texts: list[str]) -> np.ndarray:
        """(texts × dim) float32 unit vectors, cached ones read, the others embedded."""
        found = self.cache.get_many(texts)
        todo = list(dict.fromkeys(t for t in texts if t not in found))
        if todo:
            fresh = dict(zip(todo, self._embed_uncached(todo), strict=True))
            self.cache.put_many(fresh)
            found.update(fresh)
        return np.stack([found[t] for t in texts]) if texts else np.empty((0, 0), np.float32)

    def _embed_uncached(self, texts: list[str]) -> np.ndarray:
        chunk_ids, owners = self.encoder.chunks(texts)
        sums = None
        weights = np.zeros(len(texts))
        for start, states, mask in self.encoder.hidden_states(chunk_ids):
            if self.pooling == "cls":
                vectors = states[:, 0]
            else:
                m = mask.unsqueeze(-1).to(states.dtype)
                vectors = (states * m).sum(1) / m.sum(1).clamp(min=1)
            vectors = vectors.float().cpu().numpy().astype(np.float64)
            vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
            sums = np.zeros((len(texts), vectors.shape[1])) if sums is None else sums
            for offset, vector in enumerate(vectors):
                owner = owners[start + offset]
                size = len(chunk_ids[start + offset])
                sums[owner] += size * vector
                weights[owner] += size
        sums /= np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
        return np.round(sums, 6).astype(np.float32)

    def fit(self, pool_texts: list[str]) -> DenseScorer:
        self._pool = self.embed(pool_texts).astype(np.float64)
        return self

    def encode(self, texts: list[str]) -> np.ndarray:
        return self.embed(texts).astype(np.float64)

    def score(self, queries: np.ndarray) -> np.ndarray:
        return np.round(queries @ self._pool.T, 9)

    def settings(self) -> dict[str, Any]:
        return {"model_folder": self.encoder.folder.name, "model_sha256": self.model_hash,
                "pooling": self.pooling, "chunk_tokens": self.encoder.chunk_tokens,
                "max_chunks": self.encoder.max_chunks, "text_pooling": "token-weighted mean "
                "of L2-normalised chunk vectors, L2-normalised", "similarity": "cosine",
                "device": str(self.encoder.device), "batch_size": self.encoder.batch_size,
                "cache": {"path": None if self.cache.path is None else str(self.cache.path),
                          "hits": self.cache.hits, "misses": self.cache.misses}}


class SparseScorer:
    """BGE-M3 lexical-weight matching (see the module docstring)."""

    def __init__(self, encoder: LocalEncoder) -> None:
        import torch

        self.encoder = encoder
        state = torch.load(encoder.folder / "sparse_linear.pt", map_location=encoder.device,
                           weights_only=True)
        weight = state["weight"]
        self.head = torch.nn.Linear(weight.shape[1], weight.shape[0]).to(encoder.device)
        self.head.load_state_dict(state)
        self.special = set(encoder.tokenizer.all_special_ids)
        self._pool = None

    def encode(self, texts: list[str]):
        """(texts × tokenizer vocabulary) scipy CSR of lexical weights."""
        import scipy.sparse as sp
        import torch

        chunk_ids, owners = self.encoder.chunks(texts)
        best: list[dict[int, float]] = [{} for _ in texts]
        for start, states, _ in self.encoder.hidden_states(chunk_ids):
            with torch.inference_mode():
                values = torch.relu(self.head(states)).squeeze(-1).float().cpu().numpy()
            for offset in range(values.shape[0]):
                chunk = chunk_ids[start + offset]
                weights = best[owners[start + offset]]
                for token, value in zip(chunk, values[offset, :len(chunk)], strict=True):
                    if token not in self.special and value > weights.get(token, 0.0):
                        weights[token] = float(value)
        rows = [np.full(len(w), i) for i, w in enumerate(best)]
        cols = [np.fromiter(w.keys(), dtype=np.int64, count=len(w)) for w in best]
        data = [np.fromiter(w.values(), dtype=np.float64, count=len(w)) for w in best]
        shape = (len(texts), len(self.encoder.tokenizer))
        return sp.csr_matrix((np.concatenate(data), (np.concatenate(rows), np.concatenate(cols))),
                             shape=shape)

    def fit(self, pool_texts: list[str]) -> SparseScorer:
        self._pool = self.encode(pool_texts).T.tocsc()
        return self

    def score(self, queries) -> np.ndarray:
        return np.round((queries @ self._pool).toarray(), 9)

    def settings(self) -> dict[str, Any]:
        return {"model_folder": self.encoder.folder.name,
                "model_sha256": self.encoder.fingerprint(), "weights": "BGE-M3 lexical "
                "weights (ReLU of sparse_linear on the last hidden states, max per token id)",
                "chunk_tokens": self.encoder.chunk_tokens, "max_chunks": self.encoder.max_chunks,
                "similarity": "sum over shared token ids of the product of weights",
                "device": str(self.encoder.device), "batch_size": self.encoder.batch_size}
