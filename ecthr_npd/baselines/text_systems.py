"""The text-input systems of ``courtbench baselines ecthr_npd``: ``bm25``, ``dense``, ``sparse``.

Each is a :class:`ecthr_npd.baselines.retrieval.TextRetrieval` over the built folder's
``facts`` config with its scorer: ``bm25`` (:mod:`ecthr_npd.baselines.bm25`, extra ``text``),
``dense`` and ``sparse`` (:mod:`ecthr_npd.baselines.embeddings` on sentence-transformers, extra
``embeddings`` and a local model folder ``--text-model``; ``sparse`` needs BGE-M3's
``sparse_linear.pt`` in it).
:func:`check_text_systems` refuses, in one line, a requested system whose runtime or model
is missing, before any data is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from courtbench.errors import CourtbenchError
from ecthr_npd.baselines.retrieval import K_GRID, TextRetrieval

TEXT_SYSTEMS = ("bm25", "dense", "sparse")


@dataclass(frozen=True)
class TextOptions:
    """Options of the text systems (see ``courtbench baselines ecthr_npd --help``)."""

    text_model: Path | None = None
    batch_size: int = 16
    device: str = "cpu"
    embedding_cache: Path | None = None
    chunk_tokens: int = 512
    max_chunks: int | None = None
    k_grid: tuple[int, ...] = K_GRID
    progress: bool = False


def check_text_systems(systems: list[str], options: TextOptions) -> None:
    """CourtbenchError (one line: what to install or give) for an unavailable text system."""
    from ecthr_npd.baselines.bm25 import require_bm25s
    from ecthr_npd.baselines.embeddings import INSTALL, check_model_folder, require_runtime

    if "bm25" in systems:
        require_bm25s()
    for name in ("dense", "sparse"):
        if name in systems:
            require_runtime(name)
            needs = ("sparse_linear.pt",) if name == "sparse" else ()
            if name == "sparse" and options.text_model is None:
                raise CourtbenchError("--systems sparse needs --text-model PATH: a local BGE-M3 "
                                      "folder (with sparse_linear.pt) and torch + "
                                      f"sentence-transformers ({INSTALL})")
            check_model_folder(options.text_model, name, needs)


def make_text_system(name: str, facts: dict[str, str] | None,
                     options: TextOptions) -> TextRetrieval:
    """An unfitted text system by name (one of :data:`TEXT_SYSTEMS`)."""
    if facts is None:
        raise CourtbenchError(f"--systems {name}: the data carry no facts text; build the "
                              "folder with --facts (or --synthetic)")
    if name == "bm25":
        from ecthr_npd.baselines.bm25 import BM25Scorer

        return TextRetrieval(name, BM25Scorer(), facts, options.k_grid)
    from ecthr_npd.baselines.embeddings import DenseScorer, SparseScorer, TextEncoder

    encoder = TextEncoder(options.text_model, device=options.device,
                           batch_size=options.batch_size, chunk_tokens=options.chunk_tokens,
                           max_chunks=options.max_chunks, progress=options.progress)
    if name == "dense":
        return TextRetrieval(name, DenseScorer(encoder, options.embedding_cache), facts,
                             options.k_grid)
    if name == "sparse":
        return TextRetrieval(name, SparseScorer(encoder), facts, options.k_grid)
    raise ValueError(f"unknown text system {name!r}; expected one of {TEXT_SYSTEMS}")
