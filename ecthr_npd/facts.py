"""Reviewed Facts text: strict reading of the researcher's JSON Lines file.

The release ships no judgment text. The authors' workflow: the researcher rebuilds each
case's Facts section from HUDOC, reviews it (removing claims, Article 41/50 reasoning,
operative payment clauses, award appendices and names) and supplies one JSON object per line::

    {"case_id": "001-100018", "facts_text": "…", "review_status": "accepted_prediction_input",
     "source_document_sha256": "<64 hex>", "source_anchor": "FACTS paragraphs 1-20"}

:func:`read_facts` checks every rule (:data:`RULES`) against the cohort's case ids and raises
one :class:`~courtbench.errors.SourceError` listing every violation (file, line, field,
value, expectation) — nothing is written by the builder then. :class:`FactsInput` is what the
builder receives: records keyed by case id, in file order, plus their provenance.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from courtbench.boundary import BoundaryError, check_text
from courtbench.errors import SourceError, quoted
from courtbench.textio import decode_utf8, read_input_bytes

ACCEPTED = "accepted_prediction_input"
FIELDS = ("case_id", "facts_text", "review_status", "source_document_sha256", "source_anchor")
#: Columns of the ``facts`` config (review_status is a build-time check, always ACCEPTED).
CONFIG_COLUMNS = ("case_id", "facts_text", "source_document_sha256", "source_anchor")
SHA256_PATTERN = re.compile(r"[0-9a-f]{64}")
#: Longest facts_text (characters): ~20 times the longest Facts section a judgment of the
#: Court is likely to have; a longer one is a broken file, not a review.
MAX_TEXT_CHARS = 2_000_000
#: Longest case_id and source_anchor.
MAX_SHORT_CHARS = 1_000
RULES = (
    "every line is one JSON object with the five fields " + ", ".join(FIELDS),
    "case_id, facts_text and source_anchor are non-empty strings of valid Unicode: no lone "
    "surrogate, no NUL, not only whitespace or invisible characters (any Unicode space, "
    f"zero-width ones included); facts_text at most {MAX_TEXT_CHARS:,} characters, the others "
    f"{MAX_SHORT_CHARS:,}",
    f"review_status is {ACCEPTED!r}",
    "source_document_sha256 is 64 lower-case hex digits",
    "every case_id is unique and belongs to the cohort; every cohort case has a record",
)
#: Most violations one error message lists (their total is always stated).
MAX_LISTED = 20


@dataclass
class FactsInput:
    """Reviewed facts for the builder.

    Attributes:
        records: case_id → {"facts_text", "source_document_sha256", "source_anchor"}.
        lines: case_id → 1-based line of the record in ``source`` (the generator's row number
            for synthetic facts).
        source: the file name (or ``<synthetic>``).
        status_counts: review_status → number of records.
        synthetic: generator provenance when the text is SYNTHETIC.
    """

    records: dict[str, dict[str, str]]
    lines: dict[str, int]
    source: str
    status_counts: dict[str, int] = field(default_factory=dict)
    synthetic: dict | None = None


def _problem(line: int, name: str, value, expected: str) -> str:
    return f"line {line}, field {name!r}, value {quoted(value, 60)}: expected {expected}"


def _record_problems(line: int, record) -> list[str]:
    """Violations of one parsed JSON line (empty when it is valid)."""
    if not isinstance(record, dict):
        return [_problem(line, "<line>", record, "a JSON object")]
    problems = [_problem(line, name, None, "the field to be present")
                for name in FIELDS if name not in record]
    problems += [_problem(line, name, record[name], "no such field; expected only "
                          + ", ".join(FIELDS)) for name in record if name not in FIELDS]
    for name in ("case_id", "facts_text", "source_anchor"):
        if name in record:
            problems += _text_problems(line, name, record[name])
    if "review_status" in record and record["review_status"] != ACCEPTED:
        problems.append(_problem(line, "review_status", record["review_status"], repr(ACCEPTED)))
    digest = record.get("source_document_sha256")
    if "source_document_sha256" in record and not (
            isinstance(digest, str) and SHA256_PATTERN.fullmatch(digest)):
        problems.append(_problem(line, "source_document_sha256", digest,
                                 "64 lower-case hex digits (sha256 of the source document)"))
    return problems


def _text_problems(line: int, name: str, value) -> list[str]:
    """The shared validator's verdict on one text field (courtbench.boundary.check_text)."""
    limit = MAX_TEXT_CHARS if name == "facts_text" else MAX_SHORT_CHARS
    try:
        check_text(value, f"line {line}, field {name!r}", max_chars=limit,
                   what="a non-empty string")
    except BoundaryError as error:
        return [str(error)]
    return []


def _parse_lines(path: Path, text: str) -> tuple[list[tuple[int, dict]], list[str]]:
    """(line, record) of every non-blank line and the problems found line by line."""
    parsed, problems = [], []
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except json.JSONDecodeError as error:
            problems.append(_problem(number, "<line>", raw, f"one JSON object ({error.msg})"))
            continue
        found = _record_problems(number, record)
        problems.extend(found)
        if not found:
            parsed.append((number, record))
    return parsed, problems


def _coverage_problems(parsed: list[tuple[int, dict]], cohort: list[str]) -> list[str]:
    """Duplicate ids, ids outside the cohort and cohort cases without a record."""
    known = set(cohort)
    first_line: dict[str, int] = {}
    problems = []
    for number, record in parsed:
        case_id = record["case_id"]
        if case_id in first_line:
            problems.append(_problem(number, "case_id", case_id,
                                     f"a unique id (already on line {first_line[case_id]})"))
            continue
        first_line[case_id] = number
        if case_id not in known:
            problems.append(_problem(number, "case_id", case_id, "a case of the cohort"))
    missing = [case_id for case_id in cohort if case_id not in first_line]
    if missing:
        problems.append(f"{len(missing):,} cohort case(s) have no record, e.g. "
                        f"{', '.join(missing[:5])}: expected exactly one record per case")
    return problems


def read_facts(path: str | Path, cohort: list[str]) -> FactsInput:
    """Read and validate the reviewed-facts JSON Lines file ``path`` against ``cohort``.

    Args:
        path: the JSON Lines file (UTF-8).
        cohort: every case id of the built table; each must have exactly one record.

    Returns:
        The records (see :class:`FactsInput`).

    Raises:
        SourceError: one message listing every violation of :data:`RULES` (the first
            :data:`MAX_LISTED`, and their total).
    """
    path = Path(path)
    text = decode_utf8(path, read_input_bytes(path, expected="JSON Lines file"),
                       expected="JSON Lines file (UTF-8)")
    parsed, problems = _parse_lines(path, text)
    problems += _coverage_problems(parsed, cohort)
    if not parsed and not problems:
        problems.append("the file holds no record: expected one JSON object per cohort case")
    if problems:
        listed = "; ".join(problems[:MAX_LISTED])
        more = f" (and {len(problems) - MAX_LISTED:,} more)" if len(problems) > MAX_LISTED else ""
        raise SourceError(path, f"{len(problems):,} violation(s) of the reviewed-facts rules: "
                                f"{listed}{more}")
    records = {r["case_id"]: {name: r[name] for name in CONFIG_COLUMNS[1:]} for _, r in parsed}
    lines = {r["case_id"]: number for number, r in parsed}
    statuses = Counter(r["review_status"] for _, r in parsed)
    return FactsInput(records, lines, path.name, dict(statuses))


def word_count(text: str) -> int:
    """Whitespace-separated words of ``text`` (the unit of the paper's input lengths)."""
    return len(text.split())
