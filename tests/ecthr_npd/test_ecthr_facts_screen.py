"""The Facts leakage screen: normalisation, amounts in every form (against babel's and
num2words' independent writing), award cues, domestic money, kinds, masking, and the
labelled corpus planted into neutral texts."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.facts_corpus import (
    AMOUNT_LABELS,
    BENIGN_LABELS,
    FORMATS,
    load_corpus,
    plant,
    render_amount,
    score,
)
from ecthr_npd.facts_amounts import amounts, award_pattern, cents, currency_terms, word_amounts
from ecthr_npd.facts_cues import award_cue, is_speaker
from ecthr_npd.facts_screen import KINDS, MARKER, mask_text, screen_text, screen_texts
from ecthr_npd.facts_text import normalise, sentence_bounds

NEUTRAL = ("The applicant was born in 1961 and lives in Vilnius. On 3 May 2005 he was "
           "arrested and detained at the police station for 48 hours; application no. "
           "5000/06 was lodged on 12 January 2006. Under Article 5 § 3 the detention was "
           "reviewed by the District Court, which heard 12 witnesses.")


def _kinds(text: str, award: float | None = None) -> list[str]:
    return [hit.kind for hit in screen_text(text, award)]


# --- normalisation -------------------------------------------------------------------------

SPECIALS = "\u00a0\u202f\u2009\u3000\u2019\u2013\u2014\u200b\u00ad\u2026\ufb01\u00bd\u00b4€é§İ"


@given(st.text(alphabet=st.sampled_from(list("aZ5 .,'\n") + list(SPECIALS)), max_size=60))
def test_normalised_offsets_lead_back_to_the_same_character(text):
    norm = normalise(text)
    assert len(norm.cased) == len(norm.lower)
    for position, char in enumerate(norm.cased):
        back = norm.to_original(position)
        assert 0 <= back < len(text)
        # a character NFKC expanded ("½" → "1⁄2", "ﬁ" → "fi") maps to its source
        assert text[back] == char or not text[back].isascii()
        assert back <= norm.to_original(position, end=True) <= len(text)
    assert norm.to_original(len(norm.cased), end=True) == len(text)


def test_every_unicode_space_apostrophe_and_dash_is_normalised():
    norm = normalise("5\u202f000\u00a0€ 2\u2019500 l\u2019État 1\u20132 a\u200bb")
    assert norm.cased == "5 000 € 2'500 l'État 1-2 ab"
    assert norm.lower == "5 000 € 2'500 l'état 1-2 ab"


def test_sentence_bounds_skip_abbreviations_and_end_at_a_capital():
    text = "See Art. 41 and no. 5. The Court awards EUR 5,000. Next one."
    start, end = sentence_bounds(text, text.index("awards"))
    assert text[start:end] == "The Court awards EUR 5,000."
    start, end = sentence_bounds(text, 2)
    assert text[start:end] == "See Art. 41 and no. 5."


# --- amounts -------------------------------------------------------------------------------

@pytest.mark.parametrize(("written", "value"), [
    ("EUR 5,000", 5000), ("5\u202f000\u00a0€", 5000), ("€ 26.000,00", 26000),
    ("EUR 2\u2019500", 2500), ("15 244.90 euros", 15244.9), ("16k EUR", 16000),
    ("5 thousand euros", 5000), ("1.2 million euros", 1_200_000), ("2,5 Mio. Euro", 2_500_000),
    ("5 mille euros", 5000), ("5'000.– CHF", 5000), ("5 mila euro", 5000),
    ("5 Tausend Euro", 5000), ("2 millions d'euros", 2_000_000), ("EUR 1.2m", 1_200_000),
])
def test_amounts_in_every_written_form(written, value):
    found = amounts(normalise(written).lower)
    assert [(a.value, a.currency) for a in found] == [(pytest.approx(value), True)]


@pytest.mark.parametrize("text", ["on 12.05.2006", "no. 5000/06", "8.5 m of", "1961-1965",
                                  "A1234", "3.75 hectares"])
def test_dates_references_and_measures_are_no_money(text):
    assert not any(a.currency or a.multiplier for a in amounts(normalise(text).lower))


LOCALES = ("en", "fr", "fr_CH", "de", "de_CH", "de_AT", "it", "it_CH")


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=1, max_value=99_999_999), st.sampled_from(LOCALES),
       st.booleans())
def test_any_amount_babel_writes_in_a_locale_reads_back(hundredths, locale, with_cents):
    from babel.numbers import format_currency

    value = hundredths / 100 if with_cents else float(hundredths)
    written = format_currency(value, "EUR", locale=locale)
    read = [a.value for a in amounts(normalise(written).lower) if a.currency]
    assert read == [pytest.approx(value)], written


@settings(max_examples=120, deadline=None)
@given(st.integers(min_value=4, max_value=10_000_000), st.sampled_from(("en", "fr", "de", "it")))
def test_any_whole_amount_num2words_writes_reads_back(value, language):
    """From 4 up: text2num leaves a lone "one", "two", "three" as words (they are too often
    no number: "one of the applicants")."""
    from num2words import num2words

    currency = {"en": "euros", "fr": "euros", "de": "Euro", "it": "euro"}[language]
    # num2words writes "einstausend" and "dicotto" where German and Italian write
    # "eintausend" and "diciotto"
    words = num2words(value, lang=language).replace(",", "").replace("einstausend", "eintausend")
    written = words.replace("dicotto", "diciotto") + " " + currency
    read = [a.value for a in word_amounts(normalise(written).lower) if a.currency]
    assert read == [value], written


@given(st.integers(min_value=1, max_value=10**11))
def test_the_award_prefilter_matches_every_digit_form_of_the_award(hundredths):
    pattern = award_pattern(hundredths)
    value = hundredths / 100
    for turn in range(len(FORMATS["en"])):
        written, name = render_amount(value, "en", turn)
        if "words" not in name:
            low = normalise(written).lower
            assert pattern.search(low), (written, pattern.pattern)
            assert any(cents(a.value) == hundredths for a in amounts(low)), written


def test_currency_terms_come_from_babel_in_four_languages():
    terms = set(currency_terms())
    assert {"eur", "€", "euros", "euro", "chf", "francs suisses", "franken", "rubles",
            "roubles", "£"} <= terms
    assert not {"mark", "lei", "lire", "try", "all"} & terms  # ordinary words


# --- kinds ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("sentence", "award", "kind"), [
    ("The Court awards the applicant EUR 5,000 in respect of non-pecuniary damage.", 5000,
     "own_award"),
    ("The applicant claimed EUR 9,000 in respect of non-pecuniary damage.", 5000, "award_amount"),
    ("Le requérant réclame 9\u202f000\u00a0€ pour dommage moral.", 5000, "award_amount"),
    ("The finding of a violation constitutes in itself sufficient just satisfaction.", 0,
     "award_passage"),
    ("The applicant did not submit a claim for just satisfaction.", 5000, "award_passage"),
    ("The Court therefore allowed the claim in part.", 5000, "award_passage"),
    ("Dismisses the remainder of the applicant's claim for just satisfaction.", 0,
     "award_passage"),
    ("Holds that the respondent State is to pay the applicant the sums claimed.", 0,
     "award_passage"),
    ("La Cour estime que le constat de violation constitue en soi une satisfaction équitable "
     "suffisante.", 0, "award_passage"),
    ("Der Gerichtshof spricht dem Beschwerdeführer fünftausend Euro zu.", 5000, "own_award"),
    ("La Corte accorda al ricorrente cinquemila euro per danno morale.", 3000, "award_amount"),
    ("The applicant's monthly pension was EUR 2'500.", 2500, "own_award"),
    ("She received 16k EUR from the insurer.", 16000, "own_award"),
    ("The Government considered the claim excessive.", 0, "award_passage"),
    ("Under Article 41 of the Convention the applicant sought compensation.", 0,
     "award_passage"),
])
def test_each_kind_of_finding(sentence, award, kind):
    assert _kinds(f"{NEUTRAL}\n\n{sentence}\n\n{NEUTRAL}", award) == [kind]


@pytest.mark.parametrize("sentence", [
    "The District Court fined the applicant EUR 500 for breach of the peace.",
    "Bail was set at EUR 10,000.",
    "Under the Pinto Act the Court of Appeal awarded the applicant EUR 3,000 for the "
    "excessive length of the proceedings.",
    "In the civil proceedings the applicant claimed EUR 20,000 in damages from the hospital.",
    "Article 41 of the Criminal Code provides for a fine of up to EUR 3,000.",
    "The court ordered the applicant to pay the victim EUR 900 in non-pecuniary damages.",
    "The applicant complained under Article 6 § 1 of the Convention about the length of the "
    "proceedings.",
    "The Court found a violation of Article 3 of the Convention.",
    "The Court declared the remainder of the application inadmissible.",
    "La cour d'appel alloua au requérant 3\u202f000 € au titre de la loi Pinto.",
    "Das Amtsgericht verurteilte den Beschwerdeführer zu einer Geldstrafe von 900 Euro.",
    "About 2,500 people took part in the demonstration on 1 May 2008.",
    "Die Pflicht folgt aus Art. 41 Abs. 1 OR.",  # a national code's abbreviation
    "Im Übrigen wies das Bundesverwaltungsgericht die Beschwerde ab.",
    "Le tribunal rejette le recours pour le surplus.",
])
def test_domestic_money_articles_and_numbers_are_no_finding(sentence):
    assert _kinds(f"{NEUTRAL} {sentence} {NEUTRAL}", 7000.0) == []


def test_domestic_money_equal_to_the_award_is_a_finding():
    text = f"{NEUTRAL} Bail was set at EUR 10,000. {NEUTRAL}"
    assert _kinds(text, 10000.0) == ["own_award"]


@pytest.mark.parametrize(("text", "award"), [
    ("In 2000 the applicant was arrested.", 2000.0),  # a year
    ("Application no. 5000/06 was lodged.", 5000.0),  # a reference
    ("He was detained for 1500 days.", 1500.0),  # a count, no money in the sentence
    ("Under Article 50 the applicant complained.", 50.0),
])
def test_a_bare_number_equal_to_the_award_is_not_the_award(text, award):
    assert "own_award" not in _kinds(text, award)


def test_the_court_counts_with_a_capital_only():
    assert is_speaker("He asked the Court to award", "the court", 9)
    assert not is_speaker("He asked the court to award", "the court", 9)
    assert not is_speaker("He asked the Court of Appeal to", "the court", 9)
    assert award_cue("The Court awards the applicant a sum.",
                     "the court awards the applicant a sum.") == "claim"
    assert award_cue("The court awards the applicant a sum.",
                     "the court awards the applicant a sum.") is None


def test_findings_name_sentences_in_the_original_text_and_mask_replaces_them():
    text = ("Le requérant\u202fest né en 1961\u2026 La Cour alloue au requérant "
            "5\u202f000\u00a0€ pour dommage moral. Il vit à Lyon.")
    hits = screen_text(text, 5000.0)
    assert [h.kind for h in hits] == ["own_award"]
    passage = text[hits[0].start:hits[0].end]
    assert passage.startswith("La Cour alloue") and passage.endswith("dommage moral.")
    masked, at = mask_text(text, [(hits[0].start, hits[0].end)])
    assert masked[at[0]:].startswith(MARKER) and "5\u202f000" not in masked
    assert screen_text(masked, 5000.0) == []


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from([
    "The Court awards the applicant EUR 5,000 in respect of non-pecuniary damage",
    "just satisfaction", " ", ". ", "x" * 700, "Bail was EUR 5,000", "\n", "no. 5"]),
    max_size=12))
def test_findings_never_overlap_so_every_one_can_be_masked(parts):
    text = "".join(parts) or "x"
    hits = screen_text(text, 5000.0)
    spans = [(h.start, h.end) for h in hits]
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False))
    assert all(0 <= start <= end <= len(text) for start, end in spans)
    masked, at = mask_text(text, spans)
    assert all(masked.startswith(MARKER, position) for position in at)


def test_screen_texts_carry_case_line_kind_offsets_and_passage():
    text = "x " * 500 + "The Court awards the applicant EUR 5,000 in respect of damage." + " y" * 5
    findings, count = screen_texts([("001-7", 4, text, 5000.0), ("001-8", 5, NEUTRAL, 1.0)])
    assert count == 2 and [f.case_id for f in findings] == ["001-7"]
    finding = findings[0]
    assert finding.line == 4 and finding.kind in KINDS
    assert text[finding.start:finding.end] == finding.passage
    assert finding.as_record()["passage"] == finding.passage


# --- the labelled corpus -------------------------------------------------------------------

def test_the_corpus_has_every_label_in_both_parts_and_no_duplicate():
    entries = load_corpus()
    assert len(entries) >= 500
    assert len({e["id"] for e in entries}) == len({e["text"] for e in entries}) == len(entries)
    for label in (*AMOUNT_LABELS, "award_passage", *BENIGN_LABELS):
        for part in ("tune", "heldout"):
            assert any(e["label"] == label and e["part"] == part for e in entries), (label, part)
    assert {e["lang"] for e in entries} == {"en", "fr", "de", "it"}


@pytest.fixture(scope="module")
def planted_corpus():
    """Every corpus entry planted twice into short neutral texts with varied awards."""
    rng = random.Random(5)
    awards = [0.0, 1000.0, 3000.0, 5000.0, 7500.0, 15244.9, 26000.0, 1_200_000.0, 2500.0, 850.0]
    paragraphs = [NEUTRAL, "The Government of the respondent State were represented by their "
                  "Agent.", "The facts of the case may be summarised as follows."]
    cases = [(f"001-{i}", "\n\n".join(rng.sample(paragraphs * 2, 5)), rng.choice(awards))
             for i in range(1200)]
    return plant(cases, load_corpus(), seed=3)


def test_the_screen_meets_its_targets_on_the_planted_corpus(planted_corpus):
    """A regression floor, looser than the benchmark's (a small sample): the full measure is
    benchmarks/bench_ecthr_facts_screen.py."""
    rows = [(c.case_id, i, c.text, c.award) for i, c in enumerate(planted_corpus)]
    findings, _ = screen_texts(rows)
    by_case: dict[str, list] = {}
    for finding in findings:
        by_case.setdefault(finding.case_id, []).append(finding)
    result = score(planted_corpus, by_case)
    rates = result["rates"]
    assert rates["amount-bearing [all]"]["rate"] >= 0.93
    assert rates["award_passage [all]"]["rate"] >= 0.85
    for label in BENIGN_LABELS:
        assert rates[f"{label} [all]"]["rate"] <= 0.05
    assert result["neutral_texts_flagged"] == 0
    assert result["findings_outside_planted_passages"] == 0
