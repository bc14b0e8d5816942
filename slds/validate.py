"""Validate raw rows into canonical SLDS rows, or raise an error that says where and what.

Checks, each raising :class:`courtbench.errors.SourceError` with the source file, the record
(``line``), the field (``column``), the value found and what was expected:

- ``decision_id``, ``decision`` and ``headnote`` are non-empty strings;
- ``headnote_language`` and ``decision_language`` are in {de, fr, it}; an empty decision
  language is detected (:mod:`slds.language`) and recorded in :attr:`ValidatedRows.detected`;
- ``year`` is an integer from 1875 on; ``volume`` is a BGE part that exists in that year's
  system; a parsed BGE reference's yearly volume equals year − 1874;
- ``law_area``, when given, is one of :data:`slds.law_areas.LAW_AREAS` (name, case and
  spaces aside, or label index);
  when empty it is derived from part and year;
- ``sample_id``, when given, is an int64 (or its decimal text) and kept unchanged; when
  empty it is :func:`slds.schema.derived_sample_id` of (decision_id, headnote_language);
- (``decision_id``, ``headnote_language``) and ``sample_id`` are unique (a derived id that
  collides with another row's id is refused), and the rows of one decision agree on year,
  part and decision language and carry the same decision text.

:class:`RowValidator` checks one row at a time (a streamed build keeps only per-decision
facts and a digest of each decision text, never the texts); :func:`validate_rows` validates
a whole list.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from courtbench.errors import SourceError, quoted
from slds.language import detect_language
from slds.law_areas import LAW_AREAS, law_area, parts_in_year, volume_number
from slds.readers.base import RawRow
from slds.schema import COLUMNS, LANGUAGES, derived_sample_id, parse_sample_id

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
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())  # a class index reads alike from CSV text and JSON numbers
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(LAW_AREAS):
        return LAW_AREAS[value], False
    if isinstance(value, str):
        name = "_".join(value.strip().lower().replace("-", " ").split())  # "Civil law" too
        if name in LAW_AREAS:
            return name, False
    raise _error(row, "law_area", f"law area {quoted(value)}; expected empty (derived from part and "
                                  f"year) or one of {', '.join(LAW_AREAS)}")


def _url(row: RawRow) -> str:
    """The row's address: text, ``""`` when missing."""
    url = row.fields.get("url")
    if url is None:
        return ""
    if not isinstance(url, str):
        raise _error(row, "url", f"value {quoted(url)} is a {type(url).__name__}; expected text")
    return url


def _difference(first: str, second: str) -> str:
    """Where two texts first differ, with a short excerpt of each (decisions are long)."""
    index = next((i for i, (a, b) in enumerate(zip(first, second, strict=False)) if a != b),
                 min(len(first), len(second)))
    return (f"character {index}: {first[index:index + 30]!r} vs {second[index:index + 30]!r}; "
            f"lengths {len(first)} and {len(second)}")


def _sample_id(row: RawRow, decision_id: str, headnote_language: str) -> tuple[int, bool]:
    """(sample id, derived?) of a row: the source's own id as int64, else the derived one."""
    value = row.fields.get("sample_id")
    if _is_empty(value):
        return derived_sample_id(decision_id, headnote_language), True
    try:
        return parse_sample_id(value), False
    except ValueError as error:
        raise _error(row, "sample_id", str(error)) from None


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


class RowValidator:
    """Validates rows one by one (see the module docstring), keeping only what the checks
    across rows need: per decision its facts, text digest and first record; per row its
    (decision, headnote language) and sample id.

    Attributes:
        detected: decision id -> the language the detector filled in.
        law_areas_derived: rows whose law area was derived from part and year.
    """

    def __init__(self, detector: Callable[[str], tuple[str, float]] = detect_language) -> None:
        self.detector = detector
        self.detected: dict[str, DetectedLanguage] = {}
        self.law_areas_derived = 0
        self._pairs: dict[tuple[str, str], int] = {}
        self._samples: dict[int, tuple[int, bool]] = {}
        self._facts: dict[str, tuple[int, str, str, int]] = {}
        self._texts: dict[str, tuple[bytes, int]] = {}
        self._last_text: tuple[str, str] = ("", "")  # (decision id, text): the excerpt

    def detected_languages(self) -> list[DetectedLanguage]:
        """Detected decision languages, sorted by decision id."""
        return sorted(self.detected.values(), key=lambda d: d.decision_id)

    def _decision_language(self, row: RawRow, decision_id: str, decision: str) -> str:
        """The row's decision language; an empty one is detected once per decision."""
        raw_language = row.fields.get("decision_language")
        if not _is_empty(raw_language):
            return _language(row, "decision_language", raw_language)
        if decision_id not in self.detected:
            language, probability = self.detector(decision)
            self.detected[decision_id] = DetectedLanguage(decision_id, language, probability)
        return _language(row, "decision_language", self.detected[decision_id].language)

    def _check_unique(self, row: RawRow, key: tuple[str, str], sample_id: int,
                      id_derived: bool) -> None:
        """SourceError for a second headnote of one language of a decision or a repeated
        sample id."""
        decision_id, headnote_language = key
        if key in self._pairs:
            raise _error(row, "headnote_language",
                         f"second {headnote_language!r} headnote for decision {quoted(decision_id)} "
                         f"(first at record {self._pairs[key]}); expected one per language")
        if sample_id in self._samples:
            first_line, first_derived = self._samples[sample_id]
            how = ("derived from (decision_id, headnote_language) and " if id_derived else "")
            raise _error(row, "sample_id",
                         f"duplicate sample id {sample_id} ({how}first at record {first_line}"
                         f"{', derived there' if first_derived else ''}); expected unique "
                         f"sample ids (give the rows their own sample_id to resolve a "
                         f"collision of derived ids)")

    def _check_decision_agrees(self, row: RawRow, decision_id: str, facts: tuple,
                               decision: str) -> None:
        """SourceError when the row's (year, part, decision language) or decision text
        differ from the decision's first row."""
        first = self._facts.setdefault(decision_id, (*facts, row.line))
        if first[:3] != facts:
            raise _error(row, "decision_id",
                         f"decision {quoted(decision_id)} has (year, part, decision language) "
                         f"{facts}, but {first[:3]} at record {first[3]}; expected one "
                         f"decision to agree across its rows")
        digest, first_line = self._texts.setdefault(decision_id, (_digest(decision), row.line))
        if digest != _digest(decision):
            last_id, last_text = self._last_text
            where = (f"first difference at {_difference(last_text, decision)}"
                     if last_id == decision_id else f"lengths differ or texts differ "
                     f"(this record's text has {len(decision)} characters)")
            raise _error(row, "decision",
                         f"records {first_line} and {row.line} give decision {quoted(decision_id)} "
                         f"different texts ({where}); expected the rows of one "
                         f"decision_id to share one decision text")

    def validate(self, row: RawRow) -> dict[str, Any]:
        """One canonical row (exactly :data:`slds.schema.COLUMNS`) from a raw row.

        Raises:
            SourceError: the first invalid value, naming source file, record, field, value.
        """
        decision_id = _identifier(row, "decision_id")
        decision = _text(row, "decision")
        headnote = _text(row, "headnote")
        headnote_language = _language(row, "headnote_language",
                                      row.fields.get("headnote_language"))
        decision_language = self._decision_language(row, decision_id, decision)
        year = _year(row)
        part = _part(row, year)
        area, derived = _law_area(row, part, year)
        url = _url(row)
        sample_id, id_derived = _sample_id(row, decision_id, headnote_language)

        key = (decision_id, headnote_language)
        self._check_unique(row, key, sample_id, id_derived)
        self._check_decision_agrees(row, decision_id, (year, part, decision_language), decision)
        self._pairs[key] = row.line
        self._samples[sample_id] = (row.line, id_derived)
        self._last_text = (decision_id, decision)
        self.law_areas_derived += derived
        values = {"sample_id": sample_id, "decision_id": decision_id, "decision": decision,
                  "decision_language": decision_language, "headnote": headnote,
                  "headnote_language": headnote_language, "law_area": area, "year": year,
                  "volume": part, "url": url}
        return {name: values[name] for name in COLUMNS}


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
    validator = RowValidator(detector)
    rows = [validator.validate(row) for row in raw_rows]
    return ValidatedRows(rows=rows, detected=validator.detected_languages(),
                         law_areas_derived=validator.law_areas_derived)
