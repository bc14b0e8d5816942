"""The card's summarization-properties table: per-split aggregates computed in forked chunks
equal the metric module's own aggregates over the whole split."""

from __future__ import annotations

import pytest

from courtbench.metric_modules import load_metric_module
from slds import properties
from slds.properties import aggregate, split_properties

NAMES = ("compression_ratio", "coverage", "density", "novelty_1", "novelty_4")


def test_aggregate_definition():
    assert aggregate([None, 1.0, 3.0, 2.0]) == {"mean": 2.0, "std": 1.0, "min": 1.0,
                                                 "median": 2.0, "max": 3.0, "n": 3}
    assert aggregate([5.0])["std"] is None
    assert aggregate([None]) == {"mean": None, "std": None, "min": None, "median": None,
                                 "max": None, "n": 0}


def test_chunked_equals_module_aggregates(monkeypatch):
    module = load_metric_module("summarization_properties")  # in the repository: must load
    texts = {
        "d1": ("Das Gericht weist die Beschwerde ab, soweit es darauf eintritt. Die Kosten "
               "trägt der Beschwerdeführer.", "de"),
        "d2": ("Le Tribunal fédéral rejette le recours dans la mesure où il est recevable. "
               "Les frais sont mis à la charge du recourant.", "fr"),
        "d3": ("Il Tribunale federale respinge il ricorso nella misura in cui è ammissibile.",
               "it"),
    }
    headnotes = {"de": "Das Gericht weist die Beschwerde ab.", "fr": "Le recours est rejeté.",
                 "it": "Il ricorso è respinto."}
    columns = {"decision_id": [], "decision": [], "headnote": [], "decision_language": [],
               "headnote_language": []}
    for decision_id, (text, language) in texts.items():
        for headnote_language, headnote in headnotes.items():
            columns["decision_id"].append(decision_id)
            columns["decision"].append(text)
            columns["decision_language"].append(language)
            columns["headnote"].append(headnote)
            columns["headnote_language"].append(headnote_language)
    monkeypatch.setattr(properties, "MIN_ROWS_TO_FORK", 1)  # take the forked, chunked path
    chunked = split_properties(module, columns, {"train": (0, 9)}, NAMES, processes=2)
    whole = module.summarization_properties(columns["decision"], columns["headnote"],
                                            columns["decision_language"],
                                            columns["headnote_language"])["aggregates"]
    for name in NAMES:
        assert chunked["train"][name] == pytest.approx(whole[name], nan_ok=True), name
    assert chunked["train"]["coverage"]["n"] == 3  # same-language pairs only
