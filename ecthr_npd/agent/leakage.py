"""The leakage scan: does a text hold an audit value or the target's award?

Run by the ``leakage_check`` action and by the final gate over the texts
:mod:`ecthr_npd.agent.gate` takes from every observation sent (what it scans and why is
documented there). A hit fails the case; the hits are listed in the trace and the manifest,
never with the value itself.

What is scanned (:class:`LeakageScanner`):

- ``audit_column``: the name of any audit column or applicant-level award field
  (``y_binary``, ``target_status`` …) — no observation ever has such a key;
- ``audit_value``: the target's own audit-side values that are *distinctive* text — a string
  that holds ``_``, ``-`` or a digit, or is at least 12 characters long (e.g. a
  ``target_status`` such as ``corrected_amount``, or a test's sentinel). Closed-vocabulary
  words such as ``applicant`` or ``group`` cannot be told apart from ordinary prose and are
  not scanned; booleans and 0/1 values neither (their keys are what redaction removes);
- ``target_award`` / ``applicant_award``: the target's award and its applicant-level awards,
  written as ``12345``, ``12,345``, ``12 345``, ``12.345`` (``12345.5``, ``12,345.50`` …; a
  whole amount also with zero cents, ``12,345.00``), when
  positive and not among ``benign_numbers`` (the gate's strict scanner has none: every
  positive award is scanned; its lenient scanner, for a user's module text, exempts the
  training awards). A zero award is never scanned for.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ecthr_npd import schema

AUDIT_NAMES = tuple(sorted({*schema.AUDIT_COLUMNS, *schema.APPLICANT_AWARD_COLUMNS}))
MIN_PLAIN_LENGTH = 12


def distinctive_text(value: str) -> bool:
    """Whether an audit string can be scanned for without matching ordinary prose."""
    value = value.strip()
    if len(value) < 4:
        return False
    return len(value) >= MIN_PLAIN_LENGTH or bool(re.search(r"[_\-\d]", value))


def number_forms(value: float) -> list[str]:
    """The ways an amount may be written (see the module docstring), longest first."""
    whole = int(value)
    grouped = f"{whole:,}"
    forms = {str(whole), grouped, grouped.replace(",", " "), grouped.replace(",", ".")}
    if value != whole:
        cents = f"{value:.2f}".split(".")[1]
        short = repr(round(value, 2)).split(".")[1]
        forms = {f"{base}{mark}{decimals}" for base, mark in ((str(whole), "."),
                 (grouped, "."), (grouped.replace(",", "."), ","),
                 (grouped.replace(",", " "), ","))
                 for decimals in {cents, short}}
    return sorted(forms, key=lambda f: (-len(f), f))


def _pattern(forms: Iterable[str]) -> re.Pattern:
    alternatives = "|".join(re.escape(f) for f in forms)
    # a whole amount may be written with zero cents ("1,200.00", "1.200,00")
    return re.compile(rf"(?<![\d.,])(?:{alternatives})(?:[.,]00?)?(?![\d]|[.,]\d)")


@dataclass
class LeakageScanner:
    """Scans message texts for one target's withheld values (see the module docstring).

    Args:
        target_award: the target's ``y_amount_eur`` (EUR).
        audit_values: the target's audit-side values: column → value (str, number, list).
        applicant_awards: the target's applicant-level award amounts (EUR).
        benign_numbers: amounts that may appear legitimately (training awards, the target's
            own permitted numbers); an award equal to one of them is not scanned.
    """

    target_award: float
    audit_values: Mapping[str, Any] = field(default_factory=dict)
    applicant_awards: Sequence[float] = ()
    benign_numbers: frozenset = frozenset()

    def __post_init__(self) -> None:
        self._numbers = []
        for kind, values in (("target_award", [self.target_award]),
                             ("applicant_award", self.applicant_awards)):
            for amount in values:
                if amount is not None and amount > 0 and round(float(amount), 2) \
                        not in self.benign_numbers:
                    self._numbers.append((kind, _pattern(number_forms(float(amount)))))
        self._texts = []
        for column, value in sorted(self.audit_values.items()):
            members = value if isinstance(value, (list, tuple)) else [value]
            for member in members:
                if isinstance(member, str) and distinctive_text(member):
                    self._texts.append((column, member.strip().lower()))
        self._names = re.compile(r"\b(?:" + "|".join(map(re.escape, AUDIT_NAMES)) + r")\b",
                                 re.IGNORECASE)

    @property
    def scanned(self) -> dict[str, int]:
        """How many withheld values are scanned for, by kind (recorded in the trace)."""
        return {"award_values": len(self._numbers), "audit_values": len(self._texts),
                "audit_column_names": len(AUDIT_NAMES)}

    def scan_text(self, text: str) -> list[dict[str, str]]:
        """The hits in one text: ``{"kind", "column"}`` (never the value itself; the column
        is for the trace and manifest only: an observation shows the kind alone)."""
        hits = []
        for kind, pattern in self._numbers:
            if pattern.search(text):
                hits.append({"kind": kind, "column": schema.TARGET_COLUMN})
        lowered = text.lower()
        for column, value in self._texts:
            if value in lowered:
                hits.append({"kind": "audit_value", "column": column})
        for name in sorted({m.group(0).lower() for m in self._names.finditer(text)}):
            hits.append({"kind": "audit_column", "column": name})
        return hits
