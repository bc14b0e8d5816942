"""The text leakage screen over the facts of the full-size synthetic stand-in (14,575 texts).

Timed: :func:`ecthr_npd.facts_screen.screen_texts` over every text with its case's own award
(budget 30 s), once as generated (no finding expected) and once with an award sentence
planted in every 20th text (each must be found). Reference run in the same process: one
``str.lower()`` of every text plus a search for one word (the least any screen must do);
``screen_over_lowercase`` is the ratio.
"""

from __future__ import annotations

import time

from benchmarks.text_sources import synthetic_with_facts
from ecthr_npd.facts_screen import screen_texts

BUDGET_SECONDS = 30.0
PLANTED = "The Court awards the applicant EUR 4,500 in respect of non-pecuniary damage."


def main() -> dict:
    """Figures: screen seconds (clean and planted), findings, the reference, the ratio."""
    table, _, facts = synthetic_with_facts()
    awards = dict(zip(table.column("case_id").to_pylist(),
                      table.column("y_amount_eur").to_pylist(), strict=True))
    rows = [(c, facts.lines[c], r["facts_text"], awards[c]) for c, r in facts.records.items()]
    planted = [(c, line, f"{text}\n\n{PLANTED}" if i % 20 == 0 else text, y)
               for i, (c, line, text, y) in enumerate(rows)]

    start = time.perf_counter()
    hits = sum("pecuniary" in text.lower() for _, _, text, _ in rows)
    reference = time.perf_counter() - start

    start = time.perf_counter()
    clean, count = screen_texts(rows)
    clean_seconds = time.perf_counter() - start
    start = time.perf_counter()
    found, _ = screen_texts(planted)
    planted_seconds = time.perf_counter() - start
    flagged = {f.case_id for f in found}
    expected = {c for i, (c, _, _, _) in enumerate(rows) if i % 20 == 0}
    assert expected <= flagged and hits == 0
    return {
        "texts": count, "characters": sum(len(t) for _, _, t, _ in rows),
        "screen_seconds": round(clean_seconds, 2),
        "screen_planted_seconds": round(planted_seconds, 2),
        "findings_clean": len(clean), "planted_cases": len(expected),
        "planted_cases_found": len(expected & flagged), "budget_seconds": BUDGET_SECONDS,
        "within_budget": max(clean_seconds, planted_seconds) < BUDGET_SECONDS,
        "lowercase_reference_seconds": round(reference, 2),
        "screen_over_lowercase": round(clean_seconds / reference, 2),
    }
