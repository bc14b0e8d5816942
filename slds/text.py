"""Light text utilities for Swiss decisions: considerations start, sentences, citations.

Rule-based on purpose: the baselines that use them must run anywhere without a model. The
patterns cover the three languages' conventions (German, French, Italian).
"""

from __future__ import annotations

import re

# Headings that open the legal reasoning ("considerations") of a BGE decision. Published
# SLDS rows collapse whitespace, so the heading is found by its colon ("Erwägungen:", "Aus
# den Erwägungen:", "Considérant en droit:", "Considerando in diritto:") anywhere in the text;
# a heading alone on its line (no colon) is the fallback for texts that keep line breaks.
_HEADING_WORDS = (r"(?:Aus den Erwägungen|Erwägungen|Erwägung|Extrait des considérants"
                  r"|Considérant en droit|Considérants|Dai considerandi|Considerando in diritto"
                  r"|Considerandi|Considerando)")
HEADING_WITH_COLON = re.compile(_HEADING_WORDS + r"\s*:", re.IGNORECASE)
CONSIDERATIONS_HEADINGS = re.compile(r"^\s*" + _HEADING_WORDS + r"\s*:?\s*$",
                                     re.MULTILINE | re.IGNORECASE)

# Abbreviations after which a period does not end a sentence.
ABBREVIATIONS = frozenset("""
art abs al cpv lit let ziff ch n nr no e consid erw bge atf dtf s p pag vgl cf cfr bzw usw etc
z.b d.h i.e u.a dr prof sr rs fr chf bst bzw. ff f i ii iii iv v vi vii viii ix x
""".split())

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"«(]?[A-ZÄÖÜÀÂÉÈÊÎÔÛÇ])")

# "Art. 8 Abs. 1 BV", "art. 8 al. 1 Cst.", "art. 8 cpv. 1 Cost.", "Art. 29a BV", "Art. 135 ff. MG"
ARTICLE_REFERENCE = re.compile(
    r"\b[Aa]rt(?:t)?\.\s*\d+[a-z]?(?:\s*(?:ff?\.))?"
    r"(?:\s+(?:Abs\.|al\.|cpv\.|Ziff\.|ch\.|n\.|lit\.|let\.|Bst\.)\s*\d+[a-z]?)*"
    r"(?:\s+(?:[A-Z][A-Za-zÄÖÜäöü]{1,8}\.?))?"
)
# "E. 2.1", "consid. 2.1", "Erw. 3"
CONSIDERATION_REFERENCE = re.compile(r"\b(?:E\.|Erw\.|consid\.)\s*\d+(?:\.\d+)*\b")


def considerations_text(decision: str) -> str:
    """The decision from its considerations heading on; the whole text when none is found."""
    match = HEADING_WITH_COLON.search(decision)
    if match:
        return decision[match.end():]
    match = CONSIDERATIONS_HEADINGS.search(decision)
    if not match:
        return decision
    rest = decision[match.end():]
    # Headings can come stacked on their own lines; skip them all.
    while (next_match := CONSIDERATIONS_HEADINGS.match(rest.lstrip("\n"))) is not None:
        rest = rest.lstrip("\n")[next_match.end():]
    return rest


def sentences(text: str) -> list[str]:
    """Split ``text`` into sentences, not breaking after abbreviations such as "Art." or "E."."""
    text = " ".join(text.split())
    pieces, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        before = text[start:match.start()].rsplit(" ", 1)[-1].rstrip(".!?").lower()
        if before in ABBREVIATIONS or before.isdigit() or re.fullmatch(r"[\d.]+", before):
            continue  # "Art. 8", "E. 2.1. Die" — numbers and abbreviations keep the sentence
        pieces.append(text[start:match.start()].strip())
        start = match.end()
    tail = text[start:].strip()
    if tail:
        pieces.append(tail)
    return [p for p in pieces if p]


def first_tokens(text: str, budget: int) -> str:
    """The first ``budget`` whitespace tokens of ``text``."""
    return " ".join(text.split()[:budget])


def unique_in_order(items: list[str]) -> list[str]:
    """Drop repeats (compared with whitespace normalised), keeping first occurrences."""
    seen, kept = set(), []
    for item in items:
        key = " ".join(item.split())
        if key not in seen:
            seen.add(key)
            kept.append(key)
    return kept
