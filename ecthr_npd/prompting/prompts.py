"""The prompts of ``courtbench predict ecthr_npd``: template files and the chat messages.

Three prompt kinds, as in the benchmark paper's prompted-LM settings; each is a system message
(``system.txt``) and one user message rendered from a Jinja template in this package:

- ``zero_shot`` (``zero_shot.jinja``): the serialised case, then "answer with a JSON object
  only: ``{"award_eur": <number>}``";
- ``cot`` (``cot.jinja``): the serialised case and five reasoning steps (case factors; could
  the award be zero; damage assessment; applicant aggregation — never sum across articles or
  multiply by applicants; calibration), then a brief rationale and the JSON object;
- ``few_shot`` (``cot.jinja`` with references): the ``cot`` prompt with retrieved training
  references (:mod:`ecthr_npd.prompting.few_shot_retrieval`), each serialised like the case and
  followed by its award, placed before the case.

The sha256 of every template file a kind uses goes into the run's manifest.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import jinja2

from courtbench.resources import package_path
from ecthr_npd.prompting.serialise import serialise_case

PROMPT_KINDS = ("zero_shot", "cot", "few_shot")
SYSTEM_TEMPLATE = "system.txt"
USER_TEMPLATES = {"zero_shot": "zero_shot.jinja", "cot": "cot.jinja", "few_shot": "cot.jinja"}
TEMPLATE_PACKAGE = "ecthr_npd.prompting"


@dataclass(frozen=True)
class ReferenceCase:
    """A few-shot reference as the prompt shows it: its permitted inputs (a record of
    :func:`ecthr_npd.prompting.serialise.case_records`) and its award in EUR."""

    record: dict[str, Any]
    award_eur: float


def format_eur(value: float) -> str:
    """``EUR 5,000`` for whole euros, ``EUR 1,234.56`` otherwise."""
    value = float(value)
    return f"EUR {value:,.0f}" if value.is_integer() else f"EUR {value:,.2f}"


def _template_path(name: str):
    return package_path(TEMPLATE_PACKAGE, name)


@cache
def _system_text() -> str:
    return _template_path(SYSTEM_TEMPLATE).read_text(encoding="utf-8").strip()


@cache
def _environment() -> jinja2.Environment:
    folder = package_path(TEMPLATE_PACKAGE)
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(folder)),
                              undefined=jinja2.StrictUndefined, autoescape=False,
                              trim_blocks=True, lstrip_blocks=True,
                              keep_trailing_newline=False)


def template_files(kind: str) -> tuple[str, ...]:
    """The template file names ``kind`` uses (system first)."""
    _check_kind(kind)
    return SYSTEM_TEMPLATE, USER_TEMPLATES[kind]


def template_hashes(kind: str) -> dict[str, str]:
    """``file name → sha256`` (hex) of every template file ``kind`` uses."""
    return {name: hashlib.sha256(_template_path(name).read_bytes()).hexdigest()
            for name in template_files(kind)}


def _check_kind(kind: str) -> None:
    if kind not in PROMPT_KINDS:
        raise ValueError(f"prompt kind {kind!r}; expected one of {', '.join(PROMPT_KINDS)}")


def render_messages(kind: str, record: dict[str, Any],
                    references: Sequence[ReferenceCase] = (), *,
                    case_text: str | None = None) -> tuple[dict[str, str], ...]:
    """The chat messages (system, user) of one case.

    Args:
        kind: ``zero_shot``, ``cot`` or ``few_shot``.
        record: the case's permitted inputs (one record of ``case_records``).
        references: the few-shot references, nearest first (``few_shot`` only; may be empty
            when no training case is eligible); always shown serialised.
        case_text: the case block to show instead of the serialised record (``--input
            facts``: :func:`ecthr_npd.prompting.facts_input.facts_case_text`).

    Raises:
        ValueError: unknown kind, or references given for a kind without references.
    """
    _check_kind(kind)
    if references and kind != "few_shot":
        raise ValueError(f"prompt kind {kind!r} takes no references; got {len(references)}")
    system = _system_text()
    user = _environment().get_template(USER_TEMPLATES[kind]).render(
        case=serialise_case(record) if case_text is None else case_text,
        references=[{"case": serialise_case(r.record), "award": format_eur(r.award_eur)}
                    for r in references])
    return ({"role": "system", "content": system}, {"role": "user", "content": user.strip()})
