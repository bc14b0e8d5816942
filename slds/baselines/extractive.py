"""Model-free SLDS baselines: floors that any headnote generator should beat.

- ``lead``: the first sentences of the decision's considerations, up to a token budget.
- ``citation_lead``: the article references ("Art. 8 Abs. 1 BV") and consideration
  references ("E. 2.1") found in the decision, then the first sentence of the considerations,
  within the same budget.

Both write in the *decision's* language, so on cross-lingual pairs they mostly measure how
much citations and names carry across languages; that is the floor the paper's tables imply.
Tokens are whitespace tokens; the default budget (120) is close to the median headnote length
implied by the published compression ratio (≈ 2,971 / 26 ≈ 114).
"""

from __future__ import annotations

from collections.abc import Callable

from slds.text import (
    ARTICLE_REFERENCE,
    CONSIDERATION_REFERENCE,
    considerations_text,
    first_tokens,
    sentences,
    unique_in_order,
)

DEFAULT_BUDGET = 120
MAX_ARTICLES = 6
MAX_CONSIDERATIONS = 4


def lead(decision: str, *, budget: int = DEFAULT_BUDGET) -> str:
    """First whole sentences of the considerations while they fit in ``budget`` tokens.

    A first sentence longer than the budget is cut to the budget, so the output is never
    empty for a non-empty decision.
    """
    chosen: list[str] = []
    used = 0
    for sentence in sentences(considerations_text(decision)):
        length = len(sentence.split())
        if used + length > budget:
            break
        chosen.append(sentence)
        used += length
    if not chosen:
        return first_tokens(considerations_text(decision), budget)
    return " ".join(chosen)


def citation_lead(decision: str, *, budget: int = DEFAULT_BUDGET) -> str:
    """Cited articles and considerations, then the considerations' first sentence, ≤ budget."""
    articles = unique_in_order(ARTICLE_REFERENCE.findall(decision))[:MAX_ARTICLES]
    considerations = unique_in_order(CONSIDERATION_REFERENCE.findall(decision))[:MAX_CONSIDERATIONS]
    citations = "; ".join(articles + considerations)
    first = sentences(considerations_text(decision))[:1]
    text = f"{citations}. {first[0]}" if citations and first else citations or " ".join(first)
    return first_tokens(text, budget)


BASELINES: dict[str, Callable[..., str]] = {"lead": lead, "citation_lead": citation_lead}
