"""The card's summarization-properties table: per-split aggregates of batches computed in
this process or in forked workers equal the metric module's own aggregates over the split,
and do not depend on the number of processes or on the order batches arrive in."""

from __future__ import annotations

import pytest

from courtbench.metric_modules import load_metric_module
from slds.card_properties import PropertiesRunner, aggregate

NAMES = ("compression_ratio", "coverage", "density", "novelty_1", "novelty_4")
TEXTS = {
    "d1": ("Das Gericht weist die Beschwerde ab, soweit es darauf eintritt. Die Kosten "
           "trägt der Beschwerdeführer.", "de"),
    "d2": ("Le Tribunal fédéral rejette le recours dans la mesure où il est recevable. "
           "Les frais sont mis à la charge du recourant.", "fr"),
    "d3": ("Il Tribunale federale respinge il ricorso nella misura in cui è ammissibile.",
           "it"),
}
HEADNOTES = {"de": "Das Gericht weist die Beschwerde ab.", "fr": "Le recours est rejeté.",
             "it": "Il ricorso è respinto."}


def test_aggregate_definition():
    assert aggregate([None, 1.0, 3.0, 2.0]) == {"mean": 2.0, "std": 1.0, "min": 1.0,
                                                 "median": 2.0, "max": 3.0, "n": 3}
    assert aggregate([5.0])["std"] is None
    assert aggregate([None]) == {"mean": None, "std": None, "min": None, "median": None,
                                 "max": None, "n": 0}


def _rows():
    """Nine rows (three decisions × three headnote languages) with their output order key."""
    rows = []
    for rank, (text, language) in enumerate(TEXTS.values()):
        for headnote_language, headnote in HEADNOTES.items():
            rows.append({"key": (rank, headnote_language), "decision": text,
                         "decision_language": language, "headnote": headnote,
                         "headnote_language": headnote_language})
    return rows


def _run(module, num_proc: int, batches: list[list[dict]]):
    runner = PropertiesRunner(module, NAMES, num_proc=num_proc)
    for batch in batches:
        runner.submit(["train"] * len(batch), [row["key"] for row in batch], tuple(
            [row[name] for row in batch]
            for name in ("decision", "headnote", "decision_language", "headnote_language")))
    return runner.finish()


@pytest.mark.slow
def test_batches_equal_module_aggregates_for_any_num_proc():
    module = load_metric_module("summarization_properties")  # in the repository: must load
    rows = _rows()
    one = _run(module, 1, [rows[:4], rows[4:]])
    # other batches, arriving in another order, over two forked workers
    two = _run(module, 2, [rows[6:], rows[:2], rows[2:6]])
    assert one == two
    whole = module.summarization_properties(
        [r["decision"] for r in rows], [r["headnote"] for r in rows],
        [r["decision_language"] for r in rows], [r["headnote_language"] for r in rows]
    )["aggregates"]
    for name in NAMES:
        assert one["train"][name] == pytest.approx(whole[name], nan_ok=True), name
    assert one["train"]["coverage"]["n"] == 3  # same-language pairs only


def test_num_proc_must_be_positive():
    with pytest.raises(ValueError, match="num_proc = 0; expected a positive number"):
        PropertiesRunner(object(), NAMES, num_proc=0)
