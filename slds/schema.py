"""The canonical SLDS table: one row per (decision, headnote language).

Every reader produces rows with exactly :data:`COLUMNS`; :data:`FEATURES` is the typed
``datasets`` schema the Hub folder stores. The layout follows the published SLDS release
(``volume`` holds the BGE *part*, "Ia" … "V", as a string); ``law_area`` is a ClassLabel
whose names are listed in :data:`slds.law_areas.LAW_AREAS`.
"""

from __future__ import annotations

import datasets

from slds.law_areas import LAW_AREAS

LANGUAGES: tuple[str, ...] = ("de", "fr", "it")
"""Decision and headnote languages, in config order."""

PAIRS: tuple[tuple[str, str], ...] = tuple((d, h) for d in LANGUAGES for h in LANGUAGES)
"""The nine (decision language, headnote language) pairs, ``de_de`` … ``it_it``."""

COLUMNS: tuple[str, ...] = (
    "sample_id", "decision_id", "decision", "decision_language", "headnote",
    "headnote_language", "law_area", "year", "volume", "url",
)

FEATURES = datasets.Features({
    "sample_id": datasets.Value("string"),
    "decision_id": datasets.Value("string"),
    "decision": datasets.Value("string"),
    "decision_language": datasets.Value("string"),
    "headnote": datasets.Value("string"),
    "headnote_language": datasets.Value("string"),
    "law_area": datasets.ClassLabel(names=list(LAW_AREAS)),
    "year": datasets.Value("int64"),
    "volume": datasets.Value("string"),
    "url": datasets.Value("string"),
})

FIELD_DESCRIPTIONS: dict[str, str] = {
    "sample_id": "stable id of the row: `<decision_id>/<headnote_language>` unless the source "
                 "carries its own",
    "decision_id": "id of the decision (shared by its three rows)",
    "decision": "full decision text, starting at the facts (no header, no headnote)",
    "decision_language": "language of the decision: de, fr or it",
    "headnote": "the official headnote (Regeste / Regesto), label and markup stripped",
    "headnote_language": "language of the headnote: de, fr or it",
    "law_area": "law area, from the BGE part and year (ClassLabel)",
    "year": "publication year of the BGE volume (volume number = year − 1874)",
    "volume": "BGE part: Ia, Ib, II, III, IV, V (until 1994) or I … V (from 1995)",
    "url": "address of the decision text",
}


def sample_id_for(decision_id: str, headnote_language: str) -> str:
    """Return the stable sample id of one row: ``"<decision_id>/<headnote_language>"``.

    The same source always gives the same ids, whatever order the rows arrive in.
    """
    return f"{decision_id}/{headnote_language}"


def pair_name(decision_language: str, headnote_language: str) -> str:
    """Config name of a language pair, e.g. ``("de", "fr") -> "de_fr"``."""
    return f"{decision_language}_{headnote_language}"
