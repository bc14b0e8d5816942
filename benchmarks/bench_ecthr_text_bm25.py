"""BM25 over the facts of the full-size synthetic stand-in (14,575 cases), indexing included.

Timed: the ``bm25`` system's fit (tokenising and indexing the 10,217 training texts, ranking
validation for every k of the grid) and its predictions for all 14,575 cases (tokenising
every query, scoring against the pool, the retrieval protocol). Budget: 60 s on 2 cores.
Reference run in the same process: the structured ``knn`` baseline fitted and predicting the
same cases; ``bm25_over_knn`` is the ratio. Sizes: words in all texts, vocabulary.
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks.text_sources import synthetic_with_facts
from ecthr_npd.baselines.bm25 import BM25Scorer
from ecthr_npd.baselines.knn import KNNBaseline
from ecthr_npd.baselines.retrieval import TextRetrieval
from ecthr_npd.data import SPLITS, inputs_only

BUDGET_SECONDS = 60.0


def main() -> dict:
    """Figures: bm25 fit / predict / total seconds, the knn reference, their ratio."""
    _, data, _ = synthetic_with_facts()
    words = sum(len(t.split()) for t in data.facts.values())
    train, validation = data.splits["train"], data.splits["validation"]

    start = time.perf_counter()
    knn = KNNBaseline(k=20).fit(train)
    for split in SPLITS:
        knn.predict(inputs_only(data.splits[split]))
    knn_seconds = time.perf_counter() - start

    start = time.perf_counter()
    system = TextRetrieval("bm25", BM25Scorer(), data.facts).fit(train, validation)
    fitted = time.perf_counter()
    predictions = np.concatenate([system.predict(inputs_only(data.splits[s])) for s in SPLITS])
    done = time.perf_counter()
    total = done - start
    assert predictions.size == len(data.all_ids()) and np.isfinite(predictions).all()
    return {
        "cases": predictions.size, "pool": train.num_rows, "words": words,
        "vocabulary": system.scorer.settings()["vocabulary_size"], "chosen_k": system.k,
        "bm25_fit_seconds": round(fitted - start, 2),
        "bm25_predict_seconds": round(done - fitted, 2),
        "bm25_total_seconds": round(total, 2), "budget_seconds": BUDGET_SECONDS,
        "within_budget": total < BUDGET_SECONDS,
        "knn_reference_seconds": round(knn_seconds, 2),
        "bm25_over_knn": round(total / knn_seconds, 2),
    }
