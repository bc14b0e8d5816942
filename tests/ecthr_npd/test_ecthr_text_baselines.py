"""Text retrieval baselines against brute-force references on small data: the shared
retrieval protocol, BM25 scores against the formula, and the command on a built synthetic
folder (dense and sparse: tests/ecthr_npd/test_ecthr_text_embeddings.py)."""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from courtbench.errors import CourtbenchError
from ecthr_npd.baselines.retrieval import TextRetrieval, medians_for_k, ranked_neighbours
from ecthr_npd.baselines.text_systems import TextOptions, check_text_systems

DOCS = [
    "The applicant was detained in the police station of Arden for three days.",
    "Proceedings before the district court lasted nine years and four months.",
    "The applicant complained of ill-treatment in detention; the detention cell was small.",
    "The municipality expropriated the applicant's house and land without compensation.",
    "The district court adjourned the proceedings; the appeal court quashed the judgment.",
    "Police officers struck the applicant during questioning at the station station.",
]


def _table(ids, dates, articles, y=None) -> pa.Table:
    columns = {"case_id": ids, "judgment_date": pa.array(dates, type=pa.date32()),
               "violated_articles": pa.array(articles, type=pa.list_(pa.string()))}
    if y is not None:
        columns["y_amount_eur"] = pa.array(y, type=pa.float64())
    return pa.table(columns)


# ---------------------------------------------------------------- the shared protocol

def test_ranked_neighbours_equals_a_plain_loop_with_ties_in_pool_order():
    rng = np.random.default_rng(0)
    scores = rng.integers(0, 5, size=(30, 40)).astype(np.float64)  # many ties
    eligible = rng.random((30, 40)) < 0.6
    ranked = ranked_neighbours(scores, eligible, 7)
    for row in range(30):
        candidates = [j for j in range(40) if eligible[row, j]]
        expected = sorted(candidates, key=lambda j: (-scores[row, j], j))[:7]
        assert ranked[row].tolist() == expected


def test_medians_for_k_falls_back_when_no_neighbour():
    ranked = [np.array([0, 1, 2]), np.array([], dtype=np.int64)]
    y = np.array([10.0, 30.0, 20.0])
    assert medians_for_k(ranked, y, 2, 99.0).tolist() == [20.0, 99.0]


class _Fixed:
    """A scorer giving every pool case the score of its position (the last is best)."""

    def fit(self, texts):
        self.n = len(texts)
        return self

    def encode(self, texts):
        return np.zeros((len(texts), 1))

    def score(self, rows):
        return np.tile(np.arange(self.n, dtype=np.float64), (len(rows), 1))

    def settings(self):
        return {}


def test_text_retrieval_keeps_earlier_cases_with_a_shared_article_and_never_itself():
    day = dt.date(2010, 1, 1)
    train = _table(["a", "b", "c", "d"], [day, day + dt.timedelta(1), day + dt.timedelta(2),
                                          day + dt.timedelta(3)],
                   [["6"], ["3"], ["6", "13"], ["6"]], [100.0, 200.0, 300.0, 400.0])
    facts = {c: c for c in "abcdxy"}
    system = TextRetrieval("t", _Fixed(), facts, k_grid=(1, 2)).fit(train)
    targets = _table(["d", "x", "y"], [day + dt.timedelta(3), day + dt.timedelta(10), day],
                     [["6"], ["3"], ["6"]])
    ranked = system.rank(targets)
    assert ranked[0].tolist() == [2, 0]  # d: earlier a, c share Art. 6; b does not; not d
    assert ranked[1].tolist() == [1]  # x: only b shares Art. 3
    assert ranked[2].tolist() == []  # y: nothing earlier → fallback
    assert system.predict(targets)[2] == system.fallback == 250.0


def test_k_is_chosen_on_validation_mae():
    day = dt.date(2010, 1, 1)
    train = _table([f"t{i}" for i in range(6)], [day] * 6, [["6"]] * 6,
                   [0.0, 0.0, 0.0, 0.0, 1000.0, 1000.0])
    validation = _table(["v"], [day + dt.timedelta(5)], [["6"]], [1000.0])
    facts = {**{f"t{i}": "x" for i in range(6)}, "v": "x"}
    system = TextRetrieval("t", _Fixed(), facts, k_grid=(1, 2, 6)).fit(train, validation)
    assert system.k in (1, 2) and system.validation_mae[6] == 1000.0
    assert system.settings()["k_grid"] == [1, 2, 6]


def test_a_case_without_facts_text_is_refused_in_one_line():
    day = dt.date(2010, 1, 1)
    train = _table(["a"], [day], [["6"]], [1.0])
    with pytest.raises(CourtbenchError, match="1 case.* have no facts text, e.g. a"):
        TextRetrieval("t", _Fixed(), {}).fit(train)


# ---------------------------------------------------------------- BM25

def _plain_bm25(docs: list[str], query: str, k1=1.5, b=0.75) -> np.ndarray:
    """BM25 (Lucene idf, Robertson tf part), every query occurrence counted."""
    from bm25s.stopwords import STOPWORDS_EN

    stop = set(STOPWORDS_EN)

    def tokens(text):
        return [t for t in re.findall(r"\b\w\w+\b", text.lower()) if t not in stop]

    bags = [Counter(tokens(d)) for d in docs]
    lengths = [sum(bag.values()) for bag in bags]
    average = sum(lengths) / len(docs)
    scores = np.zeros(len(docs))
    for term in tokens(query):
        df = sum(term in bag for bag in bags)
        if not df:
            continue
        idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
        for i, bag in enumerate(bags):
            tf = bag[term]
            scores[i] += idf * tf / (tf + k1 * (1 - b + b * lengths[i] / average))
    return scores


def test_bm25_scores_equal_the_formula():
    pytest.importorskip("bm25s")
    from ecthr_npd.baselines.bm25 import BM25Scorer

    scorer = BM25Scorer().fit(DOCS)
    queries = [DOCS[2], "police station detention detention", "nothing matches here zzz",
               DOCS[4] + " appeal appeal"]
    scores = scorer.score(scorer.encode(queries))
    for row, query in enumerate(queries):
        np.testing.assert_allclose(scores[row], _plain_bm25(DOCS, query), rtol=1e-5,
                                   atol=1e-6)
    assert scorer.settings()["version"] == "0.3.8"


def test_bm25_dense_and_sparse_term_blocks_agree_with_bm25s(monkeypatch):
    bm25s = pytest.importorskip("bm25s")
    from ecthr_npd.baselines import bm25

    monkeypatch.setattr(bm25, "MAX_DENSE_TERMS", 3)  # most terms in the sparse block
    scorer = bm25.BM25Scorer().fit(DOCS)
    retriever = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    retriever.index(bm25s.tokenize(DOCS, stopwords="en", show_progress=False),
                    show_progress=False)
    query = DOCS[5]
    expected = retriever.get_scores(bm25s.tokenize([query], stopwords="en", return_ids=False,
                                                   show_progress=False)[0])
    np.testing.assert_allclose(scorer.score(scorer.encode([query]))[0], expected, rtol=1e-5)


def test_bm25_missing_library_is_refused_in_one_line(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "bm25s", None)
    with pytest.raises(CourtbenchError, match=r"bm25s.*pip install -e '\.\[text\]'"):
        check_text_systems(["bm25"], TextOptions())


# ---------------------------------------------------------------- the command

@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    from ecthr_npd.build import build_synthetic

    out = tmp_path_factory.mktemp("text-systems") / "built"
    build_synthetic(out, n=300, seed=0)
    return out


def test_baselines_bm25_and_knn_metadata_on_synthetic_facts(built, tmp_path):
    pytest.importorskip("bm25s")
    from ecthr_npd.baselines.run import Options, run_baselines_on
    from ecthr_npd.data import load_benchmark

    data = load_benchmark(built, facts=True)
    out = tmp_path / "preds"
    options = Options(text=TextOptions(k_grid=(5, 20)))
    document = run_baselines_on(data, out, systems=["knn-metadata", "bm25"], options=options,
                                progress=False)
    settings = document["systems"]["bm25"]["settings"]
    assert settings["k"] in (5, 20) and settings["scorer"]["library"] == "bm25s"
    assert settings["scorer"]["tokenisation"]["stopwords"] == "en"
    rows = (out / "bm25.csv").read_text().splitlines()
    assert rows[0] == "case_id,prediction" and len(rows) == 301
    first = (out / "bm25.csv").read_bytes()
    run_baselines_on(data, out, systems=["bm25"], options=options, progress=False)
    assert (out / "bm25.csv").read_bytes() == first  # deterministic
    meta = json.loads((out / "settings.json").read_text())
    assert "bm25" in meta["systems"]


def test_text_systems_need_the_facts_config(built):
    from ecthr_npd.baselines.run import Options, fit_and_predict
    from ecthr_npd.data import load_benchmark

    pytest.importorskip("bm25s")
    with pytest.raises(CourtbenchError, match="carry no facts text"):
        fit_and_predict(load_benchmark(built), ["bm25"], options=Options())
