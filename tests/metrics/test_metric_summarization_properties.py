"""metrics/summarization_properties: the indexed greedy fragments against a plain
re-implementation of the published algorithm, every property against a plain reference,
tokenization, formulaicness, input validation, and loading through evaluate."""

from __future__ import annotations

import doctest
import json
import statistics

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from metric_helpers import check_module_folder, run_card_examples
from rouge_score import rouge_scorer

from courtbench.metric_modules import load_metric_module

sp = load_metric_module("summarization_properties")

BGE_ID = "CH_BGE_004_BGE-151-II-245_2025"


# --------------------------------------------------------------------------- references


def reference_fragments(summary, source):
    """Grusky et al. (2018), Algorithm 1, as written in the paper (and Newsroom's
    ``Fragments._match``): i, j start at the first tokens; for each summary position i the
    source is scanned; where S[i] = A[j] the match is extended to (i', j'), kept when
    strictly longer than the best so far, and the scan continues at j ← j'; otherwise j ← j+1.
    Then i ← i + max(|f|, 1), j ← first source token, and a non-empty f is recorded."""
    fragments = []
    i = j = 0
    while i < len(summary):
        best = None
        best_length = 0
        while j < len(source):
            if summary[i] == source[j]:
                i_end, j_end = i, j
                while i_end < len(summary) and j_end < len(source) \
                        and summary[i_end] == source[j_end]:
                    i_end += 1
                    j_end += 1
                if i_end - i > best_length:
                    best = (i, j, i_end - i)
                    best_length = i_end - i
                j = j_end
            else:
                j += 1
        i += max(best_length, 1)
        j = 0
        if best is not None:
            fragments.append(best)
    return fragments


def reference_pair(summary, source):
    """Every same-language property of one pair of token lists, computed plainly."""
    fragments = reference_fragments(summary, source)
    out = {
        "compression_ratio": len(source) / len(summary),
        "coverage": sum(f[2] for f in fragments) / len(summary),
        "density": sum(f[2] ** 2 for f in fragments) / len(summary),
    }
    for n in range(1, 5):
        grams = {tuple(summary[i:i + n]) for i in range(len(summary) - n + 1)}
        source_grams = {tuple(source[i:i + n]) for i in range(len(source) - n + 1)}
        out[f"novelty_{n}"] = 100 * len(grams - source_grams) / len(grams) if grams else None
    words = set(summary)
    for k, segment in enumerate(np.array_split(np.array(source, dtype=object), 10), start=1):
        out[f"coverage_increment_{k:02d}"] = 100 * len(words & set(segment.tolist())) / len(words)
    return out


def assert_close(actual: dict, expected: dict) -> None:
    assert set(actual) == set(expected)
    for key, value in expected.items():
        if value is None:
            assert actual[key] is None, key
        else:
            assert actual[key] == pytest.approx(value, rel=1e-12, abs=1e-12), key


def module_pair(summary_text, source_text, language="de"):
    result = sp.summarization_properties([source_text], [summary_text], [language], [language],
                                         return_per_pair=True)
    return {name: values[0] for name, values in result["per_pair"].items()}


# --------------------------------------------------------------------------- fragments


def test_advances_past_matched_span_like_the_published_algorithm():
    # The scan resumes after the match at source 0..1, so the longer match "a a b" that
    # starts at source 1 is never tried: the published algorithm returns 2, not 3.
    assert reference_fragments("a a b".split(), "a a a b".split()) == [(0, 0, 2), (2, 3, 1)]
    assert sp.extractive_fragments("a a b".split(), "a a a b".split()) == [(0, 0, 2), (2, 3, 1)]


def test_first_longest_match_wins():
    assert sp.extractive_fragments(["x", "y"], "x y z x y".split()) == [(0, 0, 2)]
    assert sp.extractive_fragments(["x", "q"], "z x y x".split()) == [(0, 1, 1)]


def test_empty_inputs_give_no_fragments():
    assert sp.extractive_fragments([], ["a"]) == []
    assert sp.extractive_fragments(["a"], []) == []
    assert sp.fragment_coverage_density([], ["a"]) == (None, None)


tokens_small = st.lists(st.integers(min_value=0, max_value=3), max_size=40)
tokens_wide = st.lists(st.integers(min_value=0, max_value=12), max_size=120)


@settings(max_examples=300, deadline=None)
@given(summary=tokens_small, source=tokens_small)
def test_fragments_equal_reference_small_vocabulary(summary, source):
    assert sp.extractive_fragments(summary, source) == reference_fragments(summary, source)


@settings(max_examples=150, deadline=None)
@given(summary=tokens_wide, source=tokens_wide)
def test_fragments_equal_reference_wider_vocabulary(summary, source):
    assert sp.extractive_fragments(summary, source) == reference_fragments(summary, source)


@settings(max_examples=100, deadline=None)
@given(summary=st.lists(st.integers(0, 2), min_size=1, max_size=20),
       source=st.lists(st.integers(0, 2), max_size=30))
def test_fragments_on_repeated_source_equal_reference(summary, source):
    repeated = source * 3 + summary  # long repeats and a guaranteed full match
    assert sp.extractive_fragments(summary, repeated) == reference_fragments(summary, repeated)


# --------------------------------------------------------------------------- properties

WORDS = ["der", "die", "das", "art", ".", ",", "gericht", "recht", "abs", "e", "1", "2"]


@settings(max_examples=100, deadline=None)
@given(summary=st.lists(st.sampled_from(WORDS), min_size=1, max_size=30),
       source=st.lists(st.sampled_from(WORDS), max_size=60))
def test_pair_properties_equal_reference(summary, source):
    summary_text, source_text = " ".join(summary), " ".join(source)
    expected = reference_pair(sp.tokenize(summary_text, "de"), sp.tokenize(source_text, "de"))
    assert_close(module_pair(summary_text, source_text), expected)


@settings(max_examples=100, deadline=None)
@given(summary=st.lists(st.integers(1, 4), min_size=1, max_size=12),
       source=st.lists(st.integers(0, 4), max_size=30))
def test_novelty_paths_agree_with_reference(summary, source):
    expected = reference_pair(summary, source)
    wanted = [expected[f"novelty_{n}"] for n in range(1, 5)]
    assert sp._novelty_sets(summary, source) == pytest.approx(wanted)
    s_local, b_local, k = sp._local_ids(np.array(summary), np.array(source))
    assert sp._novelty(s_local, b_local, k) == pytest.approx(wanted)


def test_property_names_and_aggregate_layout():
    result = sp.summarization_properties(["a b c"], ["a b"], ["de"], ["de"])
    assert tuple(result["aggregates"]) == sp.PROPERTY_NAMES
    assert sp.PROPERTY_NAMES[:7] == ("compression_ratio", "coverage", "density", "novelty_1",
                                     "novelty_2", "novelty_3", "novelty_4")
    assert len(sp.PROPERTY_NAMES) == 17
    for stats in result["aggregates"].values():
        assert set(stats) == {"mean", "std", "min", "median", "max", "n"}


def test_cross_lingual_pairs_are_null_not_zero_and_excluded_from_aggregates():
    sources = ["Das Gericht weist die Beschwerde ab.", "Le Tribunal rejette le recours.",
               "Das Gericht heisst die Beschwerde gut.", "Il ricorso è respinto."]
    summaries = ["Beschwerde abgewiesen.", "Beschwerde abgewiesen.", "", "Ricorso respinto."]
    result = sp.summarization_properties(sources, summaries, ["de", "fr", "de", "it"],
                                         ["de", "de", "de", "it"], return_per_pair=True)
    per_pair = result["per_pair"]
    assert per_pair["coverage"][1] is None and per_pair["novelty_1"][1] is None
    assert per_pair["coverage_increment_01"][1] is None
    assert per_pair["compression_ratio"][1] == pytest.approx(6 / 3)
    # empty summary: every ratio is undefined
    assert all(per_pair[name][2] is None for name in sp.PROPERTY_NAMES)
    assert result["n_pairs"] == 4 and result["n_same_language"] == 3
    assert result["aggregates"]["compression_ratio"]["n"] == 3
    assert result["aggregates"]["coverage"]["n"] == 2
    defined = [v for v in per_pair["density"] if v is not None]
    stats = result["aggregates"]["density"]
    assert stats["mean"] == pytest.approx(statistics.mean(defined))
    assert stats["std"] == pytest.approx(statistics.stdev(defined))
    assert stats["median"] == pytest.approx(statistics.median(defined))
    assert (stats["min"], stats["max"]) == (min(defined), max(defined))


def test_values_are_plain_python_numbers():
    result = sp.summarization_properties(["a b c. d e", "x"], ["a b d", "y"], ["fr", "fr"],
                                         ["fr", "fr"], return_per_pair=True)
    for values in result["per_pair"].values():
        assert all(type(v) is float or v is None for v in values)
    for stats in result["aggregates"].values():
        assert all(type(v) in (float, int) or v is None for v in stats.values())
    json.dumps(result)


def test_card_examples_run():
    tries, failures = run_card_examples("summarization_properties", vars(sp))
    assert failures == 0 and tries >= 2


def test_shared_sources_give_the_same_values_as_separate_calls():
    source = "Art. 6 Abs. 1 VG ist anwendbar. Das Gericht weist die Beschwerde ab."
    summaries = ["Art. 6 VG ist anwendbar.", "Abweisung der Beschwerde.", "Art. 6 Abs. 1 VG."]
    together = sp.summarization_properties([source] * 3, summaries, ["de"] * 3, ["de"] * 3,
                                           return_per_pair=True)["per_pair"]
    for i, summary in enumerate(summaries):
        alone = module_pair(summary, source)
        assert {k: v[i] for k, v in together.items()} == alone


@pytest.mark.realdata
def test_real_decision_and_german_headnote_equal_reference(shared_data):
    hits = json.loads((shared_data / "slds" / "search_law_1.json").read_text())["hits"]["hits"]
    source = next(h for h in hits if h["_id"] == BGE_ID)["_source"]
    decision = source["attachment"]["content"]
    headnote = source["abstract"]["de"]
    summary_tokens, source_tokens = sp.tokenize(headnote, "de"), sp.tokenize(decision, "de")
    assert len(source_tokens) > 2500 and len(summary_tokens) > 80
    assert sp.extractive_fragments(summary_tokens, source_tokens) == \
        reference_fragments(summary_tokens, source_tokens)
    assert_close(module_pair(headnote, decision), reference_pair(summary_tokens, source_tokens))
    # the French headnote of a German decision is a cross-lingual pair
    cross = sp.summarization_properties([decision], [source["abstract"]["fr"]], ["de"], ["fr"],
                                        return_per_pair=True)["per_pair"]
    assert cross["coverage"] == [None] and cross["compression_ratio"][0] > 10


# --------------------------------------------------------------------------- tokenization

TRICKY = ["z.B.", "Art.", "d'", "l'", "aujourd'hui", "c.-à-d.", "BGE", "151", "II", "(E.",
          "5.1-5.5).", "Abs.", "al.", "cpv.", "«", "»", "n°", "S.", "ecc.", "etc.", "Mio.",
          "1'000", "-", "/", "http://www.bger.ch", "e-mail", "Ä", "é", "à", "ß", ":", ";"]


@settings(max_examples=150, deadline=None)
@given(chunks=st.lists(st.sampled_from(TRICKY) | st.text(alphabet="aéB.'-(),:1 ", max_size=6),
                       max_size=25),
       separators=st.lists(st.sampled_from([" ", "  ", "\n", "\n\n ", "\t", "\xa0"]),
                           min_size=25, max_size=25),
       language=st.sampled_from(["de", "fr", "it"]))
def test_chunk_memo_tokenization_equals_chunkwise_spacy(chunks, separators, language):
    text = "".join(c + s for c, s in zip(chunks, separators, strict=False))
    tokens = sp._Tokens()
    tokens.ids("Art. 5 Abs. 2 z.B. l'arrêt", language)  # a warm memo must not change results
    ids = tokens.ids(text, language).tolist()
    inverse = {i: t for t, i in tokens.vocab.items()}
    assert [inverse[i] for i in ids] == sp.tokenize(text, language)


@pytest.mark.realdata
def test_chunk_memo_tokenization_on_real_texts(shared_data):
    texts = []
    for name in ("search_law_1.json", "search_bger_1.json"):
        for hit in json.loads((shared_data / "slds" / name).read_text())["hits"]["hits"]:
            texts.append(hit["_source"]["attachment"]["content"])
            texts.extend((hit["_source"].get("abstract") or {}).values())
    for language in ("de", "fr", "it"):
        tokens = sp._Tokens()
        for text in texts:
            ids = tokens.ids(text, language).tolist()
            inverse = {i: t for t, i in tokens.vocab.items()}
            whole = [t.lower_ for t in sp._tokenizer(language)(text) if not t.is_space]
            assert [inverse[i] for i in ids] == sp.tokenize(text, language) == whole


def test_tokens_are_lowercased_spacy_tokens_without_whitespace():
    assert sp.tokenize("Art. 6 Abs. 1\n\nVG;  Für", "de") == \
        ["art", ".", "6", "abs.", "1", "vg", ";", "für"]


def test_chunks_are_tokenized_without_their_neighbours():
    # Whole-text spaCy lets the emoticon special case ":))" span the space and then drops
    # it, splitting ":)" too; chunk by chunk (and in a warm memo) the result never depends on
    # the neighbouring chunk.
    whole = [t.text for t in sp._tokenizer("de")("1:) )")]
    assert whole == ["1", ":", ")", ")"]
    tokens = sp._Tokens()
    ids = tokens.ids("1:) )", "de").tolist() + tokens.ids("1:)", "de").tolist()
    inverse = {i: t for t, i in tokens.vocab.items()}
    assert [inverse[i] for i in ids] == ["1", ":)", ")", "1", ":)"] == \
        sp.tokenize("1:) )", "de") + sp.tokenize("1:)", "de")


# --------------------------------------------------------------------------- formulaicness

word_lists = st.lists(st.sampled_from(["a", "b", "c", "ä", "é"]), max_size=25)


@settings(max_examples=150, deadline=None)
@given(a=word_lists, b=word_lists)
def test_rouge_l_equals_rouge_score_lcs(a, b):
    expected = rouge_scorer._score_lcs(b, a).fmeasure
    assert sp.rouge_l_f1(a, b) == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_formulaicness_small_corpus_is_the_mean_over_all_pairs():
    headnotes = ["Art. 6 VG; Genugtuung.", "Art. 6 VG; Haftung des Bundes.", "Genugtuung.",
                 "Art. 8 EMRK."]
    result = sp.formulaicness(headnotes, ["de"] * 4, subset_size=10, subsets=3, seed=1)["de"]
    tokens = [sp.word_tokens(h) for h in headnotes]
    pairs = [rouge_scorer._score_lcs(tokens[j], tokens[i]).fmeasure
             for i in range(4) for j in range(i + 1, 4)]
    assert result["mean"] == pytest.approx(100 * statistics.mean(pairs))
    assert (result["subset_size"], result["subsets"], result["n_headnotes"]) == (4, 1, 4)
    assert result["std"] is None


def test_formulaicness_subsets_are_seeded_and_null_when_too_few():
    rng = np.random.default_rng(3)
    words = ["art", "abs", "vg", "genugtuung", "haftung", "bund", "recht", "e"]
    headnotes = [" ".join(rng.choice(words, size=12)) for _ in range(30)]
    languages = ["de"] * 30 + ["fr"]
    headnotes.append("Un seul arrêt.")
    first = sp.formulaicness(headnotes, languages, subset_size=8, subsets=4, seed=5)
    again = sp.formulaicness(headnotes, languages, subset_size=8, subsets=4, seed=5)
    other = sp.formulaicness(headnotes, languages, subset_size=8, subsets=4, seed=6)
    assert first == again and first["de"]["mean"] != other["de"]["mean"]
    assert first["de"]["subsets"] == 4 and first["de"]["subset_size"] == 8
    assert 0 <= first["de"]["mean"] <= 100 and first["de"]["std"] > 0
    assert first["fr"]["mean"] is None and first["fr"]["n_headnotes"] == 1


def test_formulaicness_rejects_bad_options():
    with pytest.raises(ValueError, match="subset_size = 1"):
        sp.formulaicness(["a", "b"], ["de", "de"], subset_size=1)
    with pytest.raises(ValueError, match=r"languages = '<1 items>': expected one per summary"):
        sp.formulaicness(["a", "b"], ["de"])


def test_options_are_returned():
    result = sp.summarization_properties(["a b"], ["a"], ["it"], ["it"],
                                         formulaicness_subset_size=5, formulaicness_subsets=2,
                                         seed=9)
    options = result["options"]
    assert (options["formulaicness_subset_size"], options["formulaicness_subsets"],
            options["seed"]) == (5, 2, 9)
    assert "spaCy" in options["tokenizer"]


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"sources": ["a", None]}, r"sources\[1\] = None"),
    ({"summaries": ["a", 3]}, r"summaries\[1\] = 3"),
    ({"summary_languages": ["de", "en"]}, r"summary_languages\[1\] = 'en'"),
    ({"source_languages": ["DE", "de"]}, r"source_languages\[0\] = 'DE'"),
    ({"sources": ["a"]}, r"summaries = '<2 items>': expected one per pair \(1 sources\)"),
    ({"sources": "ab"}, "sources = '<str>': expected a list"),
    ({"summaries": ["a", "lone \udc00"]}, r"summaries\[1\] = .*lone surrogate U\+DC00"),
    ({"sources": ["a", "nul \x00"]}, r"sources\[1\] = .*no NUL character"),
    ({"sources": [], "summaries": [], "source_languages": [], "summary_languages": []},
     "at least one pair"),
    ({"formulaicness_subset_size": 1}, "formulaicness_subset_size = 1"),
    ({"formulaicness_subsets": 0}, "formulaicness_subsets = 0"),
    ({"seed": -1}, "seed = -1"),
    ({"seed": 1.5}, r"seed = 1.5: expected an integer seed"),
    ({"formulaicness_subsets": 1_000_000_000}, r"formulaicness_subsets = 1000000000: expected a "
                                               r"number of subsets in \[1, 1,000\]"),
    ({"formulaicness_subsets": 1000}, r"formulaicness_subsets = 1000: expected at most "
                                      r"2,000,000 headnote pairs"),
    ({"formulaicness_subset_size": 10**6}, r"formulaicness_subset_size = 1000000: expected "
                                           r"headnotes per subset in \[2, 1,000\]"),
])
def test_bad_input_names_argument_and_index(kwargs, message):
    arguments = {"sources": ["a", "b"], "summaries": ["a", "b"],
                 "source_languages": ["de", "de"], "summary_languages": ["de", "de"]}
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=message):
        sp.summarization_properties(**arguments)


# --------------------------------------------------------------------------- module


def test_docstring_examples_run():
    parser = doctest.DocTestParser()
    test = parser.get_doctest(sp._KWARGS_DESCRIPTION, dict(vars(sp)), "kwargs", None, 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 2


def test_module_imports_one_per_line_and_only_requirements():
    check_module_folder("summarization_properties", {"datasets", "evaluate", "numpy", "spacy"})

