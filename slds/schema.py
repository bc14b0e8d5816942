"""The canonical SLDS table: one row per (decision, headnote language).

Every reader produces rows with exactly :data:`COLUMNS`; :data:`FEATURES` is the typed
schema the Hub folder stores (``datasets`` features, see :mod:`courtbench.hub.features`). It is the published SLDS schema, names and dtypes
alike: ``sample_id`` and ``year`` int64, every other field a string (``volume`` holds the BGE
*part*, "Ia" … "V"; ``law_area`` one of :data:`slds.law_areas.LAW_AREAS`).

Sample ids: a source's own ``sample_id`` (an integer, or its decimal text) is kept unchanged;
a row without one gets :func:`derived_sample_id` of its ``(decision_id, headnote_language)``.
"""

from __future__ import annotations

import hashlib

from courtbench.hub.features import TableFeatures, value

LANGUAGES: tuple[str, ...] = ("de", "fr", "it")
"""Decision and headnote languages, in config order."""

PAIRS: tuple[tuple[str, str], ...] = tuple((d, h) for d in LANGUAGES for h in LANGUAGES)
"""The nine (decision language, headnote language) pairs, ``de_de`` … ``it_it``."""

COLUMNS: tuple[str, ...] = (
    "sample_id", "decision_id", "decision", "decision_language", "headnote",
    "headnote_language", "law_area", "year", "volume", "url",
)

FEATURES = TableFeatures({
    "sample_id": value("int64"),
    "decision_id": value("string"),
    "decision": value("string"),
    "decision_language": value("string"),
    "headnote": value("string"),
    "headnote_language": value("string"),
    "law_area": value("string"),
    "year": value("int64"),
    "volume": value("string"),
    "url": value("string"),
})

FIELD_DESCRIPTIONS: dict[str, str] = {
    "sample_id": "integer id of the row (int64): the source's own when it carries one, else "
                 "the first 8 bytes of SHA-256(`<decision_id>/<headnote_language>`, UTF-8) read "
                 "big-endian, low 53 bits kept (exact in JSON readers)",
    "decision_id": "id of the decision (shared by its three rows)",
    "decision": "full decision text, starting at the facts (no header, no headnote)",
    "decision_language": "language of the decision: de, fr or it",
    "headnote": "the official headnote (Regeste / Regesto), label and markup stripped",
    "headnote_language": "language of the headnote: de, fr or it",
    "law_area": "law area (text), from the BGE part and year; one of the values listed under "
                "Law areas",
    "year": "publication year of the BGE volume (volume number = year − 1874)",
    "volume": "BGE part: Ia, Ib, II, III, IV, V (until 1994) or I … V (from 1995)",
    "url": "address of the decision text",
}


SAMPLE_ID_BITS = 53
"""Derived sample ids are below 2**53: exact as JSON numbers in every reader (doubles)."""


def row_key(decision_id: str, headnote_language: str) -> str:
    """``"<decision_id>/<headnote_language>"``: what a derived sample id is hashed from, and
    the order of rows within a (split, pair, year) block."""
    return f"{decision_id}/{headnote_language}"


def derived_sample_id(decision_id: str, headnote_language: str) -> int:
    """Stable int64 sample id of a row whose source carries none.

    The first 8 bytes of SHA-256 of ``"<decision_id>/<headnote_language>"`` (UTF-8), read as a
    big-endian unsigned integer, reduced to its low :data:`SAMPLE_ID_BITS` bits. It depends
    on the row only (not on row order or on the other rows); a collision with another row's
    id is refused by validation, never resolved silently.
    """
    digest = hashlib.sha256(row_key(decision_id, headnote_language).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") & ((1 << SAMPLE_ID_BITS) - 1)


def parse_sample_id(value: object) -> int:
    """A source's or a predictions file's sample id as an int64.

    Accepts an integer (not a bool) or its decimal text (CSV gives text; surrounding spaces
    are ignored). Raises ``ValueError`` naming the expected form otherwise — in particular
    for the old ``<decision_id>/<headnote_language>`` ids.
    """
    if isinstance(value, bool):
        raise ValueError(f"sample id {value!r} is a boolean; expected an int64 sample_id")
    if isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and value.strip().lstrip("-").isdigit() and \
            value.strip().isascii():
        number = int(value.strip())
    else:
        hint = (" (the old '<decision_id>/<headnote_language>' form is no longer used)"
                if isinstance(value, str) and "/" in value else "")
        raise ValueError(f"sample id {value!r} is not an integer{hint}; expected the integer "
                         f"sample_id of the dataset row (int64, e.g. 4711)")
    if not -(1 << 63) <= number < (1 << 63):
        raise ValueError(f"sample id {value!r} is outside int64; expected an int64 sample_id")
    return number


def pair_name(decision_language: str, headnote_language: str) -> str:
    """Config name of a language pair, e.g. ``("de", "fr") -> "de_fr"``."""
    return f"{decision_language}_{headnote_language}"
