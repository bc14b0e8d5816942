"""The raw-text input of ``courtbench predict ecthr_npd --input facts``.

The case block of the prompt is then: a few metadata lines (judgment date, respondent state,
court formation, case importance, number of applicants), the violated articles, the two
macro covariates (GDP per capita and GDP of the respondent state in the judgment year), then
the reviewed Facts text. Fields are read through :mod:`ecthr_npd.prompting.serialise` (its
whitelist and formats), so no audit, bookkeeping or target value can reach the prompt; the
Facts text comes from the built folder's ``facts`` config, which the leakage screen checked.

:func:`cut_facts` keeps whole paragraphs (blank-line separated) while they fit in
``max_words`` words; when the first paragraph alone is longer it is cut at a word. A cut
text ends with a line saying that the rest is left out.
"""

from __future__ import annotations

from typing import Any

from ecthr_npd.facts import word_count
from ecthr_npd.prompting.serialise import FIELDS, UNKNOWN_TEXT

INPUT_KINDS = ("serialised", "facts")
METADATA_COLUMNS = ("judgment_date", "respondent_state", "court_formation", "case_importance",
                    "num_applicants", "violated_articles", "gdp_per_capita_current_usd",
                    "gdp_constant_2015_usd")
FACTS_HEADING = "Facts of the case (reviewed text of the judgment's Facts section):"
CUT_NOTE = "[The remaining paragraphs of the Facts are left out here for length.]"
_FIELD_BY_COLUMN = {f.column: f for f in FIELDS}


def cut_facts(text: str, max_words: int | None) -> tuple[str, bool]:
    """(text cut at a paragraph boundary to at most ``max_words`` words, whether it was cut)."""
    if max_words is None or word_count(text) <= max_words:
        return text, False
    kept, used = [], 0
    for paragraph in text.split("\n\n"):
        words = word_count(paragraph)
        if used + words > max_words:
            break
        kept.append(paragraph)
        used += words
    if not kept:  # the first paragraph alone is too long: cut it at a word
        kept = [" ".join(text.split()[:max_words])]
    return "\n\n".join(kept) + "\n\n" + CUT_NOTE, True


def metadata_lines(record: dict[str, Any]) -> list[str]:
    """``Readable name: value`` of the metadata, articles and macro covariates."""
    lines = []
    for column in METADATA_COLUMNS:
        field = _FIELD_BY_COLUMN[column]
        value = record[column]
        lines.append(f"{field.label}: {UNKNOWN_TEXT if value is None else field.format(value)}")
    return lines


def facts_case_text(record: dict[str, Any], facts_text: str,
                    max_words: int | None = None) -> tuple[str, bool]:
    """(the case block of a facts-input prompt, whether the Facts were cut)."""
    facts, cut = cut_facts(facts_text.strip(), max_words)
    return "\n".join(metadata_lines(record)) + "\n\n" + FACTS_HEADING + "\n" + facts, cut
