"""One rule per kind of input across the metric modules (issue #32, "Pages and modules"),
called on the plain functions (no evaluate load: fast):

- a language code is one of de, fr, it exactly, with the same refusal in the three SLDS
  modules (one source: ``metrics/_shared/slds_languages.py``);
- a text with a lone surrogate is refused in one line naming argument and index, before any
  tokenizer, model or pyarrow sees it, in every text metric;
- a seed is an integer in [0, 2**32 - 1]: 1.5 is refused, never rounded, in every module
  that takes one;
- every work parameter of every module has a cap, enforced by the module (its cap + 1 is
  refused naming the parameter, before any work: no allocation), and written in the
  module's card.
"""

from __future__ import annotations

import math
import re
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from courtbench.metric_modules import load_metric_module, metric_dir

hs = load_metric_module("headnote_similarity")
sp = load_metric_module("summarization_properties")
hj = load_metric_module("headnote_judge")
bm = load_metric_module("bootstrap_mae")
npd = load_metric_module("npd_regression")

JUDGE_ENDPOINT = {"base_url": "http://127.0.0.1:9/v1", "model": "m", "progress": False}
TEXTS = ["Art. 8 ZGB: Beweislast.", "Le recours est rejeté."]
SOURCES = ["Das Gericht weist die Beschwerde ab.", "Le Tribunal admet le recours."]


def similarity(**changes):
    arguments = {"predictions": TEXTS, "references": TEXTS, "prediction_languages": ["de", "fr"],
                 "bootstrap_resamples": 2, **changes}
    return hs.headnote_similarity(**arguments)


def properties(**changes):
    arguments = {"sources": SOURCES, "summaries": TEXTS, "source_languages": ["de", "fr"],
                 "summary_languages": ["de", "fr"], **changes}
    return sp.summarization_properties(**arguments)


def judge(**changes):
    arguments = {"predictions": TEXTS, "references": TEXTS, "headnote_languages": ["de", "fr"],
                 "decision_languages": ["de", "fr"], **JUDGE_ENDPOINT, **changes}
    return hj.headnote_judge(**arguments)


def bootstrap(**changes):
    arguments = {"predictions1": [1.0, 2.0], "predictions2": [2.0, 2.0], "references": [0.0, 0.0],
                 **changes}
    return bm.bootstrap_mae(**arguments)


def bootstrap_single(**changes):
    return bm.bootstrap_mae_single(**{"predictions": [1.0, 2.0], "references": [0.0, 0.0],
                                      **changes})


#: (call, language argument) of every SLDS module.
LANGUAGE_ARGUMENTS = [(similarity, "prediction_languages"), (similarity, "source_languages"),
                      (properties, "source_languages"), (properties, "summary_languages"),
                      (judge, "headnote_languages"), (judge, "decision_languages")]


def refusal(call, **changes):
    with pytest.raises(ValueError) as error:
        call(**changes)
    message = str(error.value)
    assert "\n" not in message and type(error.value).__name__ == "BoundaryError", message
    return message


# ----------------------------------------------------------------------------- languages


def test_the_slds_modules_take_their_languages_from_one_source():
    from slds.schema import LANGUAGES

    assert hs.LANGUAGES == sp.LANGUAGES == hj.HEADNOTE_LANGUAGES == LANGUAGES
    for name in ("headnote_similarity", "summarization_properties", "headnote_judge"):
        link = metric_dir(name) / "slds_languages.py"
        assert link.is_symlink() and link.resolve() == (
            metric_dir(name).parent / "_shared" / "slds_languages.py").resolve()


@pytest.mark.parametrize("code", ["xx", "DE", "de ", " de", "En", "", "fr\u200b", "ｄｅ", None,
                                  1, b"de", ["de"]])
def test_a_language_code_is_refused_the_same_way_by_every_slds_module(code):
    """'xx' and 'DE' (the judge used to accept both) and every other non-code: one message,
    whichever module and argument."""
    for call, argument in LANGUAGE_ARGUMENTS:
        message = refusal(call, **{argument: [code, "fr"]})
        assert message == f"{argument}[0] = {code!r}: expected one of 'de', 'fr', 'it'", message


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=4).filter(lambda code: code not in ("de", "fr", "it")))
def test_any_other_text_is_refused_as_a_language_by_all_three(code):
    expected = {refusal(call, **{argument: ["de", code]}).split(" = ", 1)[1]
                for call, argument in LANGUAGE_ARGUMENTS}
    assert len(expected) == 1, expected


# ----------------------------------------------------------------------------- texts

#: (call, text argument) of every text metric.
NO_NUL = st.text(st.characters(blacklist_characters="\x00"), max_size=30)  # NUL is refused first
TEXT_ARGUMENTS = [(similarity, "predictions"), (similarity, "references"),
                  (properties, "sources"), (properties, "summaries"),
                  (judge, "predictions"), (judge, "references")]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(TEXT_ARGUMENTS), st.integers(0xD800, 0xDFFF), NO_NUL, NO_NUL,
       st.integers(0, 1))
def test_a_lone_surrogate_is_refused_in_one_line_by_every_text_metric(target, code, before,
                                                                       after, index):
    """Before any tokenizer, model or pyarrow: the one validator's one line, naming the
    argument, the item and the character position."""
    call, argument = target
    texts = list(TEXTS if argument not in ("sources",) else SOURCES)
    texts[index] = before + chr(code) + after
    message = refusal(call, **{argument: texts})
    first = re.search("[\ud800-\udfff]", texts[index]).start()
    assert message.startswith(f"{argument}[{index}] = "), message
    assert message.endswith(f"with valid Unicode (a lone surrogate "
                            f"U+{ord(texts[index][first]):04X} at character {first:,})"), message


# ----------------------------------------------------------------------------- seeds

SEEDED = [similarity, properties, judge, bootstrap, bootstrap_single]


@pytest.mark.parametrize("seed", [1.5, 2.000001, -1, 2**32, math.nan, math.inf, "3", True,
                                  10**400])
@pytest.mark.parametrize("call", SEEDED, ids=lambda call: call.__name__)
def test_a_seed_is_an_integer_in_every_module(call, seed):
    message = refusal(call, seed=seed)
    assert message.startswith("seed = ") and "expected an integer seed" in message, message


def test_an_integral_float_seed_is_that_integer_not_a_rounding():
    assert bootstrap(seed=7.0) == bootstrap(seed=7)
    assert properties(seed=3.0) == properties(seed=3)


# ----------------------------------------------------------------------------- work caps

#: (call, parameter, cap, card): every work parameter of every module and its cap; the cap
#: + 1 must be refused by the module, and the card must state the cap.
CAPS = [
    (bootstrap, "n_resamples", bm.MAX_RESAMPLES, "bootstrap_mae"),
    (bootstrap_single, "n_resamples", bm.MAX_RESAMPLES, "bootstrap_mae"),
    (similarity, "bootstrap_resamples", hs.MAX_BOOTSTRAP_RESAMPLES, "headnote_similarity"),
    (similarity, "bertscore_batch_size", hs.MAX_BERTSCORE_BATCH_SIZE, "headnote_similarity"),
    (similarity, "bertscore_num_layers", hs.MAX_BERTSCORE_LAYER, "headnote_similarity"),
    (properties, "formulaicness_subsets", sp.MAX_SUBSETS, "summarization_properties"),
    (properties, "formulaicness_subset_size", sp.MAX_SUBSET_SIZE, "summarization_properties"),
    *[(judge, name, high, "headnote_judge") for name, (_, high) in hj.LIMITS.items()],
]


@pytest.mark.parametrize(("call", "parameter", "cap", "card"), CAPS,
                         ids=[f"{c[3]}-{c[1]}" for c in CAPS])
def test_every_work_parameter_is_capped_in_the_module_and_its_card(call, parameter, cap, card):
    for value in (cap + 1, 10**9, 10**12, 2**63):
        tracemalloc.start()
        try:
            message = refusal(call, **{parameter: value})
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert message.startswith(f"{parameter} = {value}: expected"), message
        assert f"{cap:,}" in message, message
        assert peak < 4 * 2**20, f"{peak:,} bytes allocated before refusing {value}"
    text = (metric_dir(card) / "README.md").read_text(encoding="utf-8")
    mentions = [m.start() for m in re.finditer(re.escape(parameter), text)]
    assert any(f"{cap:,}" in text[start:start + 400] for start in mentions), (
        f"the card of {card} does not state the cap {cap:,} of {parameter}")


def test_bootstrap_mae_refuses_1e9_resamples_without_allocating():
    """The issue's case: 10**9 resamples allocated about 8 GB silently; 10**12 ended in a numpy
    MemoryError. Now both are refused before a single index is drawn."""
    for value in (10**9, 10**12):
        tracemalloc.start()
        try:
            message = refusal(bootstrap, n_resamples=value)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert message.startswith(f"n_resamples = {value}: expected a number of resamples")
        assert peak < 2**20


def test_combined_caps_bound_the_work_of_each_module():
    """Where two parameters multiply (cases × resamples, subsets × pairs per subset), their
    product has a cap of its own."""
    message = refusal(bootstrap_single, predictions=[1.0] * 3000, references=[0.0] * 3000,
                      n_resamples=bm.MAX_RESAMPLES)
    assert f"at most {bm.MAX_DRAWS:,} resampled cases" in message
    message = refusal(properties, formulaicness_subsets=sp.MAX_SUBSETS,
                      formulaicness_subset_size=sp.MAX_SUBSET_SIZE)
    assert f"at most {sp.MAX_FORMULAICNESS_PAIRS:,} headnote pairs" in message
    labels = [f"g{i}" for i in range(npd.MAX_GROUP_LABELS + 1)]
    message = refusal(npd.npd_regression, predictions=[1.0] * len(labels),
                      references=[1.0] * len(labels), groups=labels)
    assert message == "groups = '<more than 10,000 labels>': expected at most 10,000 distinct labels"
