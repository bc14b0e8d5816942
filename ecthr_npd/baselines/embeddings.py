"""Dense and sparse text scorers on sentence-transformers, from a local model folder.

:class:`TextEncoder` loads ``--text-model PATH`` (never a Hub name: nothing is downloaded) as
a ``SentenceTransformer``: the folder's own modules (pooling, dense layers, normalisation;
a plain transformers folder gets sentence-transformers' mean pooling). It cuts each text into
chunks of at most ``chunk_tokens`` tokens, special tokens included (the model's
``max_seq_length`` when smaller), ending a chunk only between words unless a single word is
longer than a chunk; ``max_chunks`` keeps the first N. A chunk is handed to the model as the
text it covers, and word-aligned text re-tokenises to exactly its tokens (tested for WordPiece
and SentencePiece tokenizers): that is why a chunk ends between words.

- :class:`DenseScorer`: ``SentenceTransformer.encode`` of every chunk, L2-normalised; a text's
  vector is the token-weighted mean of its chunks, L2-normalised; similarity = cosine.
  Vectors are rounded to 1e-6 and written to the cache
  (:mod:`ecthr_npd.baselines.embedding_cache`) after every group of ``batch_size`` texts, so
  an interrupted run keeps what it finished and a rerun embeds only what is missing.
- :class:`SparseScorer`: BGE-M3's lexical weights. sentence-transformers' ``SparseEncoder``
  covers SPLADE (the MLM head), static and CSR encoders, not BGE-M3's separately trained
  ``sparse_linear.pt`` head; so the token states come from ``SentenceTransformer.encode``
  and only the head is ours: ReLU of ``sparse_linear`` on each token's state, the maximum
  per vocabulary id over the text's chunks, special tokens and non-positive weights left out;
  similarity = Σ over shared ids of the two weights.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from courtbench.errors import CourtbenchError
from ecthr_npd.baselines.embedding_cache import EmbeddingCache, model_fingerprint

#: What installs the dense/sparse runtime, from a clone (courtbench is not on PyPI).
INSTALL = ("from the clone: make embeddings (the CPU torch and the embeddings extra into .venv), "
           "or .venv/bin/pip install -e '.[embeddings]'")
RUNTIME = ("torch", "sentence_transformers")
DEFAULT_CHUNK_TOKENS = 512
#: Cache key part naming the chunking rule (word-aligned chunks since sentence-transformers).
CHUNK_RULE = "word-aligned"


def require_runtime(system: str) -> None:
    """One-line CourtbenchError when torch or sentence-transformers is missing."""
    import importlib.util

    missing = [m for m in RUNTIME if importlib.util.find_spec(m) is None]
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


def word_aligned_spans(word_ids: list[int | None], budget: int) -> list[tuple[int, int]]:
    """Token ranges [start, end) of at most ``budget`` tokens that end between words.

    Args:
        word_ids: the word index of every token (no special tokens).
        budget: tokens per chunk, special tokens excluded (≥ 1).

    Returns: consecutive ranges covering every token; a range ends inside a word only when
    that word alone is longer than ``budget``. Empty input: no range.
    """
    spans, start, total = [], 0, len(word_ids)
    while start < total:
        end = min(start + budget, total)
        if end < total:
            starts = [t for t in range(start + 1, end + 1) if word_ids[t] != word_ids[t - 1]]
            end = starts[-1] if starts else end
        spans.append((start, end))
        start = end
    return spans


def chunk_texts(tokenizer, texts: list[str], chunk_tokens: int, max_chunks: int | None = None
                ) -> tuple[list[str], list[int], list[int]]:
    """Cut texts into word-aligned chunks (see the module docstring).

    Args:
        tokenizer: a fast Hugging Face tokenizer (offsets and word ids).
        texts: the texts.
        chunk_tokens: tokens per chunk, the tokenizer's special tokens included.
        max_chunks: keep only the first N chunks of a text (None: all).

    Returns: (the text of every chunk, the index of its text, its tokens with the special
    ones); an empty text is one empty chunk.
    """
    special = tokenizer.num_special_tokens_to_add()
    encoded = tokenizer(texts, add_special_tokens=False, return_offsets_mapping=True,
                        verbose=False)  # whole texts: longer than the model is fine
    pieces, owners, sizes = [], [], []
    for index, text in enumerate(texts):
        offsets = encoded["offset_mapping"][index]
        spans = word_aligned_spans(encoded.word_ids(index), chunk_tokens - special)
        for start, end in (spans or [(0, 0)])[:max_chunks]:
            pieces.append(text[offsets[start][0]:offsets[end - 1][1]] if end else "")
            owners.append(index)
            sizes.append(end - start + special)
    return pieces, owners, sizes


class TextEncoder:
    """A SentenceTransformer from a local folder and the chunking rule (module docstring)."""

    def __init__(self, folder: Path, *, device: str = "cpu", batch_size: int = 16,
                 chunk_tokens: int = DEFAULT_CHUNK_TOKENS, max_chunks: int | None = None,
                 progress: bool = False) -> None:
        import torch
        from sentence_transformers import SentenceTransformer

        if device == "cuda" and not torch.cuda.is_available():
            raise CourtbenchError("--device cuda: no CUDA device is available; use --device cpu")
        self.folder = Path(folder)
        self.batch_size = batch_size
        self.max_chunks = max_chunks
        self.progress = progress
        self.model = SentenceTransformer(str(folder), device=device, local_files_only=True)
        self.device = self.model.device
        self.tokenizer = self.model.tokenizer
        self.chunk_tokens = min(chunk_tokens, self.model.max_seq_length or chunk_tokens)

    def chunks(self, texts: list[str]) -> tuple[list[str], list[int], list[int]]:
        """:func:`chunk_texts` with this model's tokenizer and settings."""
        return chunk_texts(self.tokenizer, texts, self.chunk_tokens, self.max_chunks)

    def groups(self, texts: list[str]) -> Iterator[list[str]]:
        """``texts`` in groups of ``batch_size``, with a progress bar over texts."""
        from tqdm.auto import tqdm

        with tqdm(total=len(texts), desc="embedding", unit="text",
                  disable=not self.progress) as bar:
            for start in range(0, len(texts), self.batch_size):
                group = texts[start:start + self.batch_size]
                yield group
                bar.update(len(group))

    def encode(self, pieces: list[str], **options) -> Any:
        """``SentenceTransformer.encode`` of chunk texts in batches of ``batch_size``."""
        return self.model.encode(pieces, batch_size=self.batch_size, show_progress_bar=False,
                                 **options)

    def fingerprint(self) -> str:
        return model_fingerprint(self.folder)


class DenseScorer:
    """Cosine similarity of pooled chunk embeddings (see the module docstring)."""

    def __init__(self, encoder: TextEncoder, cache_path: Path | None = None) -> None:
        self.encoder = encoder
        self.model_hash = encoder.fingerprint()
        namespace = (f"{self.model_hash}|{CHUNK_RULE}|{encoder.chunk_tokens}|"
                     f"{encoder.max_chunks}")
        self.cache = EmbeddingCache(cache_path, namespace)
        self._pool: np.ndarray | None = None

    def embed(self, texts: list[str]) -> np.ndarray:
        """(texts × dim) float32 unit vectors: cached ones read, the others embedded and
        written to the cache group by group."""
        found = self.cache.get_many(texts)
        todo = list(dict.fromkeys(t for t in texts if t not in found))
        for group in self.encoder.groups(todo):
            fresh = dict(zip(group, self._embed_uncached(group), strict=True))
            self.cache.put_many(fresh)
            found.update(fresh)
        return np.stack([found[t] for t in texts]) if texts else np.empty((0, 0), np.float32)

    def _embed_uncached(self, texts: list[str]) -> np.ndarray:
        pieces, owners, sizes = self.encoder.chunks(texts)
        vectors = self.encoder.encode(pieces, normalize_embeddings=True).astype(np.float64)
        sums = np.zeros((len(texts), vectors.shape[1]))
        np.add.at(sums, owners, np.asarray(sizes, dtype=np.float64)[:, None] * vectors)
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
                "library": _library_version(), "chunk_tokens": self.encoder.chunk_tokens,
                "chunking": CHUNK_RULE, "max_chunks": self.encoder.max_chunks,
                "text_pooling": "token-weighted mean of L2-normalised chunk vectors, "
                "L2-normalised", "similarity": "cosine",
                "device": str(self.encoder.device), "batch_size": self.encoder.batch_size,
                "cache": {"path": None if self.cache.path is None else str(self.cache.path),
                          "hits": self.cache.hits, "misses": self.cache.misses}}


class SparseScorer:
    """BGE-M3 lexical-weight matching (see the module docstring)."""

    def __init__(self, encoder: TextEncoder) -> None:
        import torch

        self.encoder = encoder
        state = torch.load(encoder.folder / "sparse_linear.pt", map_location=encoder.device,
                           weights_only=True)
        weight = state["weight"]
        self.head = torch.nn.Linear(weight.shape[1], weight.shape[0]).to(encoder.device)
        self.head.load_state_dict(state)
        self.special = np.array(sorted(encoder.tokenizer.all_special_ids), dtype=np.int64)
        self._pool = None

    def encode(self, texts: list[str]):
        """(texts × tokenizer vocabulary) scipy CSR of lexical weights."""
        import scipy.sparse as sp

        rows = [self._weights(group) for group in self.encoder.groups(texts)]
        width = len(self.encoder.tokenizer)
        return sp.vstack(rows, format="csr") if rows else sp.csr_matrix((0, width))

    def _weights(self, texts: list[str]):
        """The CSR rows of ``texts``: the maximum ReLU weight per token id over the chunks."""
        import scipy.sparse as sp
        import torch

        pieces, owners, _ = self.encoder.chunks(texts)
        best = np.zeros((len(texts), len(self.encoder.tokenizer)))
        for owner, item in zip(owners, self.encoder.encode(pieces, output_value=None),
                               strict=True):
            mask = item["attention_mask"].bool()
            with torch.inference_mode():
                weight = torch.relu(self.head(item["token_embeddings"][mask])).squeeze(-1)
            np.maximum.at(best[owner], item["input_ids"][mask].cpu().numpy(),
                          weight.float().cpu().numpy())
        best[:, self.special] = 0.0
        return sp.csr_matrix(best)

    def fit(self, pool_texts: list[str]) -> SparseScorer:
        self._pool = self.encode(pool_texts).T.tocsc()
        return self

    def score(self, queries) -> np.ndarray:
        return np.round((queries @ self._pool).toarray(), 9)

    def settings(self) -> dict[str, Any]:
        return {"model_folder": self.encoder.folder.name,
                "model_sha256": self.encoder.fingerprint(), "library": _library_version(),
                "weights": "BGE-M3 lexical weights (ReLU of sparse_linear on the token "
                "states, max per token id)", "chunk_tokens": self.encoder.chunk_tokens,
                "chunking": CHUNK_RULE, "max_chunks": self.encoder.max_chunks,
                "similarity": "sum over shared token ids of the product of weights",
                "device": str(self.encoder.device), "batch_size": self.encoder.batch_size}


def _library_version() -> str:
    from importlib.metadata import version

    return f"sentence-transformers {version('sentence-transformers')}"
