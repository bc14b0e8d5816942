"""A case's permitted inputs as text: one field per line, ``Readable name: value``.

Only the columns in :data:`FIELDS` are ever read from a table (a whitelist of permitted
inputs, :data:`ecthr_npd.schema.INPUT_COLUMNS`), so neither the target, nor a bookkeeping tag
(``case_id``, split, views), nor an audit column (``y_binary``, ``target_status``,
``beneficiary_type`` …) can reach a prompt, whatever else the table holds. Four permitted
inputs are left out because another field already states them (:data:`OMITTED`).

Value conventions: a null (the release's ``unknown``) is written ``unknown``; booleans
``yes``/``no``; dates ISO ``yyyy-mm-dd``; counts as integers; money with thousands
separators; violated articles in Convention order as ``Article 6``, ``Article 1 of Protocol
No. 1``; birth years listed (more than :data:`MAX_BIRTH_YEARS` known: range and count).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from ecthr_npd import schema

UNKNOWN_TEXT = "unknown"
MAX_BIRTH_YEARS = 10
_PROTOCOL_ARTICLE = re.compile(r"P(\d{1,2})-(\d{1,2})", re.ASCII)


def _label(column: str) -> Callable[[Any], str]:
    """A ClassLabel column's index (as tables hold it) or name → readable text."""
    names = schema.COLUMN_BY_NAME[column].values

    def text(value: Any) -> str:
        name = names[value] if isinstance(value, int) else str(value)
        return name.replace("_", " ")

    return text


def _boolean(value: Any) -> str:
    return "yes" if value else "no"


def _integer(value: Any) -> str:
    return f"{int(value):,}"


def _date(value: Any) -> str:
    return value.isoformat() if isinstance(value, dt.date) else str(value)


def _months(value: Any) -> str:
    number = float(value)
    return f"{number:,.0f} months" if number.is_integer() else f"{number:,.1f} months"


def _usd(value: Any) -> str:
    return f"USD {float(value):,.0f}"


def _usd_billions(value: Any) -> str:
    return f"USD {float(value) / 1e9:,.1f} billion"


def article_key(code: str) -> tuple[int, int, int]:
    """Convention order: articles of the Convention by number, then Protocol articles by
    protocol and article number (``"6"`` → (0, 6, 0), ``"P1-1"`` → (1, 1, 1))."""
    match = _PROTOCOL_ARTICLE.fullmatch(code)
    if match:
        return 1, int(match.group(1)), int(match.group(2))
    return (0, int(code), 0) if code.isdigit() else (2, 0, 0)


def article_name(code: str) -> str:
    """``"6"`` → ``Article 6``; ``"P1-1"`` → ``Article 1 of Protocol No. 1``."""
    match = _PROTOCOL_ARTICLE.fullmatch(code)
    if match:
        return f"Article {match.group(2)} of Protocol No. {match.group(1)}"
    return f"Article {code}"


def _articles(values: list) -> str:
    known = sorted({v for v in values if v is not None}, key=lambda c: (article_key(c), c))
    return "; ".join(article_name(code) for code in known) if known else UNKNOWN_TEXT


def _members(values: list) -> str:
    known = sorted({str(v).replace("_", " ") for v in values if v is not None})
    return ", ".join(known) if known else UNKNOWN_TEXT


def _birth_years(values: list) -> str:
    known = sorted(int(v) for v in values if v is not None)
    if not known:
        return UNKNOWN_TEXT
    if len(known) > MAX_BIRTH_YEARS:
        return f"{known[0]}–{known[-1]} ({len(known)} known)"
    return ", ".join(str(year) for year in known)


@dataclass(frozen=True)
class Field:
    """One line of a serialised case: ``label: format(value)`` (``unknown`` for null)."""

    column: str
    label: str
    format: Callable[[Any], str]


FIELDS: tuple[Field, ...] = (
    Field("judgment_date", "Judgment date", _date),
    Field("respondent_state", "Respondent state", str),
    Field("court_formation", "Court formation", _label("court_formation")),
    Field("case_importance", "Case importance (HUDOC)", _label("case_importance")),
    Field("violated_articles", "Violated articles", _articles),
    Field("violated_articles_count", "Number of distinct violated articles", _integer),
    Field("num_violations_found", "Number of violations found", _integer),
    Field("violation_type", "Violation type", _label("violation_type")),
    Field("violation_duration_months", "Duration of the violation", _months),
    Field("has_mixed_outcome", "Some complaints found not violated", _boolean),
    Field("has_separate_opinion", "Separate opinion", _boolean),
    Field("represented", "Applicant(s) legally represented", _boolean),
    Field("num_applicants", "Number of applicants", _integer),
    Field("hudoc_application_count", "Number of applications", _integer),
    Field("applicant_sex", "Applicant sex", _members),
    Field("applicant_age_group", "Applicant age group", _members),
    Field("applicant_birth_years", "Applicant birth years", _birth_years),
    Field("applicant_nationality_scope", "Applicant nationalities",
          _label("applicant_nationality_scope")),
    Field("gdp_per_capita_current_usd",
          "Respondent state's GDP per capita in the judgment year (current USD)", _usd),
    Field("gdp_constant_2015_usd",
          "Respondent state's GDP in the judgment year (constant 2015 USD)", _usd_billions),
)

# Permitted inputs left out of the text, with the field that already states them.
OMITTED: dict[str, str] = {
    "judgment_year": "judgment_date",
    "country_alpha2": "respondent_state",
    "hudoc_decision_body": "court_formation",
    "is_grand_chamber": "court_formation",
}

SERIALISED_COLUMNS = tuple(f.column for f in FIELDS)


def case_records(table: pa.Table) -> list[dict[str, Any]]:
    """The serialised columns of every row of ``table`` as dicts (table order); no other
    column is read.

    Raises:
        ValueError: a serialised column is missing from ``table``.
    """
    missing = [c for c in SERIALISED_COLUMNS if c not in table.column_names]
    if missing:
        raise ValueError(f"table lacks the permitted input column(s) {missing}")
    return table.select(list(SERIALISED_COLUMNS)).to_pylist()


def case_lines(record: dict[str, Any]) -> list[str]:
    """``Readable name: value`` per field of :data:`FIELDS`, in that order."""
    lines = []
    for field in FIELDS:
        value = record[field.column]
        text = UNKNOWN_TEXT if value is None else field.format(value)
        lines.append(f"{field.label}: {text}")
    return lines


def serialise_case(record: dict[str, Any]) -> str:
    """The case as text: :func:`case_lines` joined by newlines (no trailing newline)."""
    return "\n".join(case_lines(record))


FORMATTERS = {f.column: f.format for f in FIELDS}


def _plain(column: str, value: Any) -> str:
    """A permitted column serialise leaves out (stated by another field): label names,
    ``yes``/``no``, else the value as text."""
    spec = schema.COLUMN_BY_NAME[column]
    if spec.kind == "label" and isinstance(value, int):
        return spec.values[value].replace("_", " ")
    if spec.kind == "bool":
        return "yes" if value else "no"
    return str(value)


def readable(record: dict[str, Any], columns: tuple[str, ...]) -> dict[str, str]:
    """``column → text`` of the permitted ``columns`` of a record (serialise's formats)."""
    values = {}
    for column in columns:
        value = record.get(column)
        if value is None:
            values[column] = UNKNOWN_TEXT
        elif column in FORMATTERS:
            values[column] = FORMATTERS[column](value)
        else:
            values[column] = _plain(column, value)
    return values
