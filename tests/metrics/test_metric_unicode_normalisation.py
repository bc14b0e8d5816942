"""Text metrics read composed (NFC) and decomposed (NFD) text as the same text."""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from courtbench.metric_modules import load_metric_module

SIMILARITY = load_metric_module("headnote_similarity")
PROPERTIES = load_metric_module("summarization_properties")

GOLD = "Änderung der Gebühren für Bürgerinnen; Prüfung nach Art. 8 BV (Gleichbehandlung)."
SOURCE = ("Die Beschwerdeführerin rügt die Änderung der Gebühren für Bürgerinnen. Das Gericht "
          "prüft Art. 8 BV und die Gleichbehandlung. Die Prüfung ergibt eine Verletzung.")


def _nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def _similarity(prediction: str, reference: str) -> dict:
    result = SIMILARITY.headnote_similarity([prediction], [reference], ["de"],
                                            bootstrap_resamples=2)
    return {key: result[key] for key in ("rouge1", "rouge2", "rougeL", "bleu")}


def test_identical_text_in_nfd_scores_100_against_its_nfc_reference():
    scores = _similarity(_nfd(GOLD), GOLD)
    assert scores == _similarity(GOLD, GOLD)
    assert scores["rouge1"] == 100.0 and scores["rougeL"] == 100.0


def test_nfd_and_nfc_sources_and_summaries_give_the_same_properties():
    nfc = PROPERTIES.summarization_properties([SOURCE, SOURCE], [GOLD, GOLD], ["de", "de"],
                                              ["de", "de"], return_per_pair=True)
    nfd = PROPERTIES.summarization_properties([_nfd(SOURCE), SOURCE], [GOLD, _nfd(GOLD)],
                                              ["de", "de"], ["de", "de"], return_per_pair=True)
    assert nfd["per_pair"] == nfc["per_pair"]
    assert nfd["formulaicness"] == nfc["formulaicness"]


@settings(max_examples=30, deadline=None)
@given(st.text(alphabet="aeiouAOUäöüÄÖÜéèêàçñ ", min_size=1, max_size=40)
       .filter(lambda t: t.strip()))
def test_every_normal_form_of_a_text_scores_the_same(text):
    reference = GOLD
    assert _similarity(_nfd(text), reference) == _similarity(
        unicodedata.normalize("NFC", text), reference)
