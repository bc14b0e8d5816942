"""The Facts leakage screen measured: recall per kind and false-alarm rate on the real cohort.

Every case of the ECtHR-NPD release (14,575; the full-size synthetic stand-in when the release
is absent) gets a neutral SYNTHETIC Facts text (:mod:`ecthr_npd.synthetic_facts`, which
never mentions money or an award) and — except every 7th case, which stays neutral — one
passage of the labelled corpus (:mod:`benchmarks.facts_corpus`), written with the case's own
award ``{own}`` or another amount ``{other}`` in one of the formats of the passage's
language. The screen (:func:`ecthr_npd.facts_screen.screen_texts`) then reads every text with
its case's award. A planted leak counts as found when a finding overlaps it; a planted benign
passage is a false alarm when a finding overlaps it; a neutral text (or the neutral part of
a planted one) must give no finding.

Rates are reported per label for the ``tune`` part of the corpus (the screen was tuned on
it), the ``heldout`` part (written before tuning, never used to tune) and both, per language
and, for amount-bearing leaks, per amount format.

Targets (issue #33): recall >= 95 % on amount-bearing leaks, >= 80 % on amountless award
passages; <= 5 % false alarms on benign money and number passages, none on neutral texts;
screening every text <= 30 s. Time is also given as a ratio to a reference measured in the
same run: one ``str.lower()`` of every text and a search for one word (the least any screen
must do).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from benchmarks.facts_corpus import AMOUNT_LABELS, load_corpus, plant, score
from benchmarks.sources import ecthr_release_or_synthetic
from ecthr_npd.facts_screen import screen_text, screen_texts
from ecthr_npd.reader import read_case_level
from ecthr_npd.synthetic_facts import synthetic_facts

BUDGET_SECONDS = 30.0
TARGETS = {"amount-bearing": 0.95, "award_passage": 0.80}
FALSE_ALARM_CEILING = {"benign_money": 0.05, "benign_number": 0.05, "benign_legal": 0.05}


def _cohort():
    """(case_id, neutral text, award) per case, and the source's kind."""
    with tempfile.TemporaryDirectory(prefix="bench-facts-screen-") as tmp:
        source, kind = ecthr_release_or_synthetic(Path(tmp))
        table = read_case_level(source)
    facts = synthetic_facts(table, seed=0, progress=True)
    awards = table.column("y_amount_eur").to_pylist()
    return [(case_id, record["facts_text"], award)
            for (case_id, record), award in zip(facts.records.items(), awards, strict=True)], kind


def _targets(rates: dict) -> dict:
    """Each target and whether the held-out part and both parts meet it."""
    met = {}
    for group, floor in TARGETS.items():
        for part in ("heldout", "all"):
            rate = rates[f"{group} [{part}]"]["rate"]
            met[f"recall {group} [{part}] >= {floor}"] = rate is not None and rate >= floor
    for label, ceiling in FALSE_ALARM_CEILING.items():
        for part in ("heldout", "all"):
            rate = rates[f"{label} [{part}]"]["rate"]
            met[f"false alarms {label} [{part}] <= {ceiling}"] = rate is not None and rate <= ceiling
    return met


def main() -> dict:
    """Figures: rates per label and part, targets met, screening seconds and ratio."""
    cases, kind = _cohort()
    entries = load_corpus()
    planted = plant(cases, entries, seed=0)
    rows = [(case.case_id, line, case.text, case.award)
            for line, case in enumerate(planted, start=1)]
    screen_text("EUR 5,000 warm-up: the Court awards", 5000.0)  # compile once, outside the timing

    start = time.perf_counter()
    hits = sum("pecuniary" in text.lower() for _, _, text, _ in rows)
    reference = time.perf_counter() - start
    start = time.perf_counter()
    findings, count = screen_texts(rows)
    seconds = time.perf_counter() - start

    by_case: dict[str, list] = {}
    for finding in findings:
        by_case.setdefault(finding.case_id, []).append(finding)
    scored = score(planted, by_case)
    met = _targets(scored["rates"])
    return {
        "source": kind, "texts": count, "characters": sum(len(t) for _, _, t, _ in rows),
        "corpus_entries": {part: sum(e["part"] == part for e in entries)
                           for part in ("tune", "heldout")},
        "planted_passages": sum(c.entry is not None for c in planted),
        "amount_labels": list(AMOUNT_LABELS),
        **scored,
        "targets_met": met, "all_targets_met": all(met.values())
        and scored["neutral_texts_flagged"] == 0
        and scored["findings_outside_planted_passages"] == 0,
        "screen_seconds": round(seconds, 2), "budget_seconds": BUDGET_SECONDS,
        "within_budget": seconds <= BUDGET_SECONDS,
        "lowercase_reference_seconds": round(reference, 2), "reference_hits": hits,
        "screen_over_lowercase": round(seconds / reference, 2),
    }
