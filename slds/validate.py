"""Validate raw rows into canonical SLDS rows, or raise an error that says where and what.

Checks, each raising :class:`courtbench.errors.SourceError` with the source file, the record
(``line``), the field (``column``), the value found and what was expected:

- ``decision_id``, ``decision`` and ``headnote`` are non-empty strings;
- ``headnote_language`` and ``decision_language`` are in {de, fr, it}; an empty decision
  language is detected (:mod:`slds.language`) and recorded in :attr:`ValidatedRows.detected`;
- ``year`` is an integer from 1875 on; ``volume`` is a BGE part that exists in that year's
  system; a parsed BGE reference's yearly volume equals year − 1874;
- ``law_area``, when given, is one of :data:`slds.law_areas.LAW_AREAS` (name, case and
  spaces aside, or label index — a number or its digits, in every source format);
  when empty it is derived from part and year;
- (``decision_id``, ``headnote_language``) and ``sample_id`` are unique, and the rows of one
  decision agree on year, part and decision language and carry the same decision text
  (:mod:`slds.assemble` stores one text per decision).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from courtbench.errors import SourceError, quoted
from slds.language import detect_language
from slds.law_areas import LAW_AREAS, law_area, parts_in_year, volume_number
from slds.readers.base import RawRow
from slds.schema import COLUMNS, LANGUAGES, sample_id_for

FIRST_YEAR = 1875
"""Year of BGE volume 1."""


@dataclass(frozen=True)
class DetectedLanguage:
    """A decision language that the source left empty and the detector filled in."""

    decision_id: str
    language: str
    probability: float


@dataclass
class ValidatedRows:
    """Canonical rows (dicts with exactly :data:`slds.schema.COLUMNS`, in source order) and
    what validation filled in: detected decision languages and the number of rows whose law
    area was derived from part and year."""

    rows: list[dict[str, Any]]
    detected: list[DetectedLanguage] = field(default_factory=list)
    law_areas_derived: int = 0


def _error(row: RawRow, name: str, problem: str) -> SourceError:
    return SourceError(row.source, problem, line=row.line, column=row.column(name))


def _is_empty(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _text(row: RawRow, name: str) -> str:
    value = row.fields.get(name)
    if _is_empty(value):
        raise _error(row, name, f"empty or missing value {quoted(value)}; expected non-empty text")
    if not isinstance(value, str):
        raise _error(row, name, f"value {quoted(value)} is a {type(value).__name__}; expected text")
    return value


def _identifier(row: RawRow, name: str) -> str:
    value = row.fields.get(name)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return _text(row, name).strip()


def _language(row: RawRow, name: str, value: Any) -> str:
    if value not in LANGUAGES:
        raise _error(row, name, f"language {quoted(value)}; expected one of {', '.join(LANGUAGES)}")
    return value


def _year(row: RawRow) -> int:
    value = row.fields.get("year")
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or value < FIRST_YEAR:
        raise _error(row, "year", f"year {quoted(value)}; expected an integer year ≥ {FIRST_YEAR}")
    return value


def _part(row: RawRow, year: int) -> str:
    value = row.fields.get("volume")
    parts = parts_in_year(year)
    if not isinstance(value, str) or value.strip() not in parts:
        raise _error(row, "volume", f"BGE part {quoted(value)} does not exist in {year}; expected "
                                    f"one of {', '.join(parts)}")
    if row.bge_volume is not None and row.bge_volume != volume_number(year):
        raise _error(row, "volume", f"BGE yearly volume {row.bge_volume} does not match year "
                                    f"{year}; expected volume {volume_number(year)} "
                                    f"(= year − 1874)")
    return value.strip()


def _law_area(row: RawRow, part: str, year: int) -> tuple[str, bool]:
    value = row.fields.get("law_area")
    if _is_empty(value):
        return law_area(part, year), True
    # one rule for every reader: a class index may come as a JSON/parquet number or as the
    # digits of a CSV field
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(LAW_AREAS):
        return LAW_AREAS[value], False
    if isinstance(value, str):
        name = "_".join(value.strip().lower().replace("-", " ").split())  # "Civil law" too
        if name in LAW_AREAS:
            return name, False
    raise _error(row, "law_area", f"law area {quoted(value)}; expected empty (derived from part and "
                                  f"year) or one of {', '.join(LAW_AREAS)}")


def _difference(first: str, second: str) -> str:
    """Where two texts first differ, with a short excerpt of each (decisions are long)."""
    index = next((i for i, (a, b) in enumerate(zip(first, second, strict=False)) if a != b),
                 min(len(first), len(second)))
    return (f"character {index}: {first[index:index + 30]!r} vs {second[index:index + 30]!r}; "
            f"lengths {len(first)} and {len(second)}")


def validate_rows(raw_rows: Sequence[RawRow], *,
                  detector: Callable[[str], tuple[str, float]] = detect_language
                  ) -> ValidatedRows:
    """Validate ``raw_rows`` (see the module docstring) and return canonical rows.

    Args:
        raw_rows: rows from a reader in :mod:`slds.readers`.
        detector: text -> (language, probability); called once per decision whose
            language is empty.

    Raises:
        SourceError: the first invalid value, naming source file, record, field and value.
    """
    result = ValidatedRows(rows=[])
    detected: dict[str, DetectedLanguage] = {}
    seen_pairs: dict[tuple[str, str], int] = {}
    seen_samples: dict[str, int] = {}
    decision_facts: dict[str, tuple[int, str, str, int]] = {}
    decision_texts: dict[str, tuple[str, int]] = {}
    for row in raw_rows:
        decision_id = _identifier(row, "decision_id")
        decision = _text(row, "decision")
        headnote = _text(row, "headnote")
        headnote_language = _language(row, "headnote_language",
                                      row.fields.get("headnote_language"))
        raw_language = row.fields.get("decision_language")
        if _is_empty(raw_language):
            if decision_id not in detected:
                language, probability = detector(decision)
                detected[decision_id] = DetectedLanguage(decision_id, language, probability)
            decision_language = _language(row, "decision_language",
                                          detected[decision_id].language)
        else:
            decision_language = _language(row, "decision_language", raw_language)
        year = _year(row)
        part = _part(row, year)
        area, derived = _law_area(row, part, year)
        result.law_areas_derived += derived
        url = row.fields.get("url")
        if url is None:
            url = ""
        if not isinstance(url, str):
            raise _error(row, "url", f"value {quoted(url)} is a {type(url).__name__}; expected text")
        raw_sample_id = row.fields.get("sample_id")
        sample_id = (sample_id_for(decision_id, headnote_language) if _is_empty(raw_sample_id)
                     else _identifier(row, "sample_id"))

        key = (decision_id, headnote_language)
        if key in seen_pairs:
            raise _error(row, "headnote_language",
                         f"second {headnote_language!r} headnote for decision {quoted(decision_id)} "
                         f"(first at record {seen_pairs[key]}); expected one per language")
        seen_pairs[key] = row.line
        if sample_id in seen_samples:
            raise _error(row, "sample_id", f"duplicate sample id {quoted(sample_id)} (first at "
                                           f"record {seen_samples[sample_id]}); expected unique")
        seen_samples[sample_id] = row.line
        facts = (year, part, decision_language)
        first = decision_facts.setdefault(decision_id, (*facts, row.line))
        if first[:3] != facts:
            raise _error(row, "decision_id",
                         f"decision {quoted(decision_id)} has (year, part, decision language) "
                         f"{facts}, but {first[:3]} at record {first[3]}; expected one "
                         f"decision to agree across its rows")
        first_text, first_line = decision_texts.setdefault(decision_id, (decision, row.line))
        if decision != first_text:
            raise _error(row, "decision",
                         f"records {first_line} and {row.line} give decision {quoted(decision_id)} "
                         f"different texts (first difference at "
                         f"{_difference(first_text, decision)}); expected the rows of one "
                         f"decision_id to share one decision text")

        values = {"sample_id": sample_id, "decision_id": decision_id, "decision": decision,
                  "decision_language": decision_language, "headnote": headnote,
                  "headnote_language": headnote_language, "law_area": area, "year": year,
                  "volume": part, "url": url}
        result.rows.append({name: values[name] for name in COLUMNS})
    result.detected = sorted(detected.values(), key=lambda d: d.decision_id)
    return result
