"""BM25 over the facts text with ``bm25s`` (the paper's library; optional extra ``text``).

Tokenisation: ``bm25s.tokenize`` — lower-cased, scikit-learn's token pattern
``(?u)\\b\\w\\w+\\b``, bm25s's English stopword list, no stemmer. Scoring: bm25s's eager index
(``method="lucene"``, ``k1=1.5``, ``b=0.75``) holds the BM25 weight of every (pool document,
term); a query's score for a document is the sum of those weights over the query's tokens,
each occurrence counted (what ``BM25.get_scores`` computes), done here as one sparse × matrix
product per block of queries: the columns of terms in at least :data:`DENSE_DF_SHARE` of the
pool (at most :data:`MAX_DENSE_TERMS`) as a dense block, the rest sparse.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from courtbench.errors import CourtbenchError
from courtbench.extras import install_command

BM25S_VERSION = "0.3.8"
INSTALL = f"{install_command('text')} (bm25s=={BM25S_VERSION})"
K1, B, METHOD = 1.5, 0.75, "lucene"
STOPWORDS = "en"
DENSE_DF_SHARE = 0.01
MAX_DENSE_TERMS = 4096


def require_bm25s():
    """The bm25s module, or a one-line CourtbenchError saying what to install."""
    try:
        import bm25s
    except ImportError:
        raise CourtbenchError(f"--systems bm25 needs the bm25s library: {INSTALL}") from None
    return bm25s


class BM25Scorer:
    """BM25 scores of queries against a pool of texts (see the module docstring)."""

    def __init__(self, k1: float = K1, b: float = B) -> None:
        self.k1, self.b = k1, b
        self._bm25s = require_bm25s()
        self._vocab: dict[str, int] = {}
        self._tokens: dict[str, list[int]] = {}

    def _tokenize(self, texts: list[str]) -> list[list[str]]:
        return self._bm25s.tokenize(texts, lower=True, stopwords=STOPWORDS, return_ids=False,
                                    show_progress=False)

    def fit(self, pool_texts: list[str]) -> BM25Scorer:
        import scipy.sparse as sp

        tokens = self._tokenize(pool_texts)
        self._vocab = {}
        ids = [[self._vocab.setdefault(t, len(self._vocab)) for t in doc] for doc in tokens]
        self._tokens = dict(zip(pool_texts, ids, strict=True))
        retriever = self._bm25s.BM25(k1=self.k1, b=self.b, method=METHOD)
        retriever.index(self._bm25s.tokenization.Tokenized(ids=ids, vocab=self._vocab),
                        show_progress=False)
        scores = retriever.scores
        shape = (scores["num_docs"], len(scores["indptr"]) - 1)
        weights = sp.csc_matrix((scores["data"], scores["indices"], scores["indptr"]),
                                shape=shape, dtype=np.float32)
        df = np.diff(weights.indptr)
        frequent = np.flatnonzero(df >= max(1, DENSE_DF_SHARE * shape[0]))
        frequent = frequent[np.argsort(-df[frequent], kind="stable")][:MAX_DENSE_TERMS]
        rare = np.setdiff1d(np.arange(shape[1]), frequent)
        self._frequent, self._rare = frequent, rare
        self._dense = np.ascontiguousarray(weights[:, frequent].toarray().T)  # terms × docs
        self._sparse = weights[:, rare].T.tocsr()  # terms × docs
        self._n_docs = shape[0]
        return self

    def encode(self, texts: list[str]):
        """Token counts of each query over the pool vocabulary (scipy CSR, rows × terms)."""
        import scipy.sparse as sp

        unknown = [t for t in dict.fromkeys(texts) if t not in self._tokens]
        for text, doc in zip(unknown, self._tokenize(unknown), strict=True):
            self._tokens[text] = [self._vocab[t] for t in doc if t in self._vocab]
        rows = [np.asarray(self._tokens[t], dtype=np.int64) for t in texts]
        lengths = np.array([r.size for r in rows], dtype=np.int64)
        columns = np.concatenate(rows) if rows else np.empty(0, dtype=np.int64)
        matrix = sp.csr_matrix((np.ones(columns.size, dtype=np.float32),
                                (np.repeat(np.arange(len(rows)), lengths), columns)),
                               shape=(len(rows), len(self._vocab)))
        matrix.sum_duplicates()
        return matrix

    def score(self, queries) -> np.ndarray:
        """(queries × pool) BM25 scores, float64."""
        dense = queries[:, self._frequent] @ self._dense
        rare = (queries[:, self._rare] @ self._sparse).toarray()
        return np.asarray(dense, dtype=np.float64) + rare

    def settings(self) -> dict[str, Any]:
        return {"library": "bm25s", "version": self._bm25s.__version__, "method": METHOD,
                "k1": self.k1, "b": self.b,
                "tokenisation": {"lower": True, "token_pattern": r"(?u)\b\w\w+\b",
                                 "stopwords": STOPWORDS, "stemmer": None},
                "query": "every token of the target's facts text, each occurrence counted",
                "vocabulary_size": len(self._vocab)}
