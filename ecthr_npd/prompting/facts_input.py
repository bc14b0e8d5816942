"""The raw-text input of ``courtbench predict ecthr_npd --input facts``.

The case block of the prompt is then: a few metadata lines (judgment date, respondent state,
court formation, case importance, number of applicants), the violated articles, the two
macro covariates (GDP per capita and GDP of the respondent state in the judgment year), then
the reviewed Facts text. Fields are read through :mod:`ecthr_npd.prompting.serialise` (its
whitelist and formats), so no audit, bookkeeping or target value can reach the prompt; the
Facts text comes from the built folder's ``facts`` config, which the leakage screen checked.

:func:`cut_facts` keeps whole paragraphs (blank-line separated) while they fit in
``max_words`` words; when the first paragraph alone is longer it is cut at a word. With a
:class:`TokenBudget` (``--tokenizer PATH --max-input-tokens N``) the Facts text is then cut
after its first ``N`` tokens of that tokenizer, at a token boundary of the original text
(:meth:`courtbench.inspect_glue.tokens.LocalTokenizer.cut`). A cut text ends with a line saying that
the rest is left out (not counted in either budget).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from courtbench.inspect_glue.tokens import LocalTokenizer
from ecthr_npd.facts import word_count
from ecthr_npd.prompting.serialise import FIELDS, UNKNOWN_TEXT

INPUT_KINDS = ("serialised", "facts")
METADATA_COLUMNS = ("judgment_date", "respondent_state", "court_formation", "case_importance",
                    "num_applicants", "violated_articles", "gdp_per_capita_current_usd",
                    "gdp_constant_2015_usd")
FACTS_HEADING = "Facts of the case (reviewed text of the judgment's Facts section):"
CUT_NOTE = "[The remaining paragraphs of the Facts are left out here for length.]"
_FIELD_BY_COLUMN = {f.column: f for f in FIELDS}


@dataclass(frozen=True)
class TokenBudget:
    """At most ``max_tokens`` tokens of ``tokenizer`` of the Facts text (``--tokenizer``,
    ``--max-input-tokens``)."""

    tokenizer: LocalTokenizer
    max_tokens: int


@dataclass(frozen=True)
class FactsCut:
    """The Facts text as the prompt shows it and which budget cut it."""

    text: str
    by_words: bool = False
    by_tokens: bool = False

    @property
    def cut(self) -> bool:
        """Whether any budget cut the text."""
        return self.by_words or self.by_tokens


def _within_words(text: str, max_words: int) -> str:
    """The whole paragraphs of ``text`` that fit in ``max_words`` words (the first words of
    the first paragraph when it alone is longer)."""
    kept, used = [], 0
    for paragraph in text.split("\n\n"):
        words = word_count(paragraph)
        if used + words > max_words:
            break
        kept.append(paragraph)
        used += words
    if not kept:  # the first paragraph alone is too long: cut it at a word
        kept = [" ".join(text.split()[:max_words])]
    return "\n\n".join(kept)


def cut_facts_within(text: str, max_words: int | None,
                     budget: TokenBudget | None = None) -> FactsCut:
    """``text`` cut at a paragraph boundary to at most ``max_words`` words, then to at most
    ``budget.max_tokens`` tokens at a token boundary; :data:`CUT_NOTE` appended when cut."""
    by_words = max_words is not None and word_count(text) > max_words
    if by_words:
        text = _within_words(text, max_words)
    by_tokens = False
    if budget is not None:
        text, by_tokens = budget.tokenizer.cut(text, budget.max_tokens)
    if by_words or by_tokens:
        text += "\n\n" + CUT_NOTE
    return FactsCut(text, by_words, by_tokens)


def cut_facts(text: str, max_words: int | None) -> tuple[str, bool]:
    """(text cut at a paragraph boundary to at most ``max_words`` words, whether it was cut)."""
    cut = cut_facts_within(text, max_words)
    return cut.text, cut.cut


def metadata_lines(record: dict[str, Any]) -> list[str]:
    """``Readable name: value`` of the metadata, articles and macro covariates."""
    lines = []
    for column in METADATA_COLUMNS:
        field = _FIELD_BY_COLUMN[column]
        value = record[column]
        lines.append(f"{field.label}: {UNKNOWN_TEXT if value is None else field.format(value)}")
    return lines


def facts_block(record: dict[str, Any], facts_text: str, max_words: int | None = None,
                budget: TokenBudget | None = None) -> FactsCut:
    """The case block of a facts-input prompt (metadata lines, heading, the Facts text cut by
    :func:`cut_facts_within`) and which budget cut it."""
    facts = cut_facts_within(facts_text.strip(), max_words, budget)
    return FactsCut("\n".join(metadata_lines(record)) + "\n\n" + FACTS_HEADING + "\n"
                    + facts.text, facts.by_words, facts.by_tokens)


def facts_case_text(record: dict[str, Any], facts_text: str,
                    max_words: int | None = None) -> tuple[str, bool]:
    """(the case block of a facts-input prompt, whether the Facts were cut)."""
    block = facts_block(record, facts_text, max_words)
    return block.text, block.cut
