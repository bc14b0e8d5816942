"""Text leakage screen: find in reviewed Facts what the review should have removed.

:func:`screen_texts` scans every ``facts_text`` for

- ``award_context``: an amount of money (digits, optionally with thousands separators and a
  currency) within :data:`WINDOW` characters of "non-pecuniary", "just satisfaction",
  "Article 41" or "Article 50";
- ``operative_clause``: "holds that the respondent State is to pay …" or "dismisses the
  remainder of the (applicant's) claim …" (the judgment's operative provisions);
- ``currency_award``: a currency amount (EUR, €, euros, USD, GBP, £, $, CHF) within
  :data:`WINDOW` characters of an award word (award, pay, compensation, damage, claim);
- ``own_amount``: the case's own ``y_amount_eur`` in a common written form — ``5,000``,
  ``5 000``, ``5.000``, ``5,000.00`` anywhere; ``5000`` (or an amount below 1,000) only next to
  a currency, where it cannot be a year or an application number.

Matching is case-insensitive on a lower-cased copy; a text without any trigger word is passed
after one substring test per trigger, so 14,575 long texts take seconds. Each finding carries
the case id, the line of its record, the kind and the passage around the match cut to
:data:`PASSAGE_CHARS` characters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

WINDOW = 150
PASSAGE_CHARS = 200
_NUMBER = r"\d{1,3}(?:[,.\u00a0 ]\d{3})+(?:\.\d{2})?|\d+(?:\.\d{2})?"
_CURRENCY = r"(?:eur|euros?|€|usd|us\$|\$|gbp|£|chf)"
_GROUPED = re.compile(r"\d{1,3}(?:[,.\u00a0 ]\d{3})+(?:\.\d{2})?")
CURRENCY_AMOUNT = re.compile(
    rf"{_CURRENCY}\s?(?:{_NUMBER})(?![\d/])|(?<![\d/])(?:{_NUMBER})\s?{_CURRENCY}\b")
AMOUNT = re.compile(rf"(?<![\w/])(?:{_CURRENCY}\s?)?(?:{_NUMBER})(?![\d/])")
CONTEXT = re.compile(r"non[- ]pecuniary|just satisfaction|article\s+(?:41|50)\b")
OPERATIVE = re.compile(r"holds?,? that the respondent state is to pay|dismiss(?:es|ed)? the "
                       r"remainder of the (?:applicants?['’]s?\s+|applicant['’]s\s+)?claims?")
AWARD_WORDS = re.compile(r"award|\bpay|compensation|damage|\bclaim")
#: Substrings one of which every finding contains: texts without any skip the regexes.
TRIGGERS = ("pecuniary", "just satisfaction", "article", "is to pay", "remainder of the",
            "eur", "€", "usd", "$", "gbp", "£", "chf")


@dataclass(frozen=True)
class Finding:
    """One passage the screen flags: case id, 1-based record line, kind, passage."""

    case_id: str
    line: int
    kind: str
    passage: str


def _passage(text: str, start: int, end: int) -> str:
    """The text around [start, end), at most PASSAGE_CHARS characters, one line."""
    room = max(0, PASSAGE_CHARS - (end - start)) // 2
    left = max(0, start - room)
    return " ".join(text[left:left + PASSAGE_CHARS].split())


def amount_forms(amount: float) -> tuple[list[str], list[str]]:
    """(forms flagged anywhere, forms flagged only next to a currency) of ``amount`` EUR."""
    if not amount or amount <= 0:
        return [], []
    whole = int(round(amount))
    cents = round(amount - int(amount), 2)
    grouped = f"{whole:,}"
    anywhere: list[str] = []
    if whole >= 1000:
        anywhere = [grouped, grouped.replace(",", " "), grouped.replace(",", "\u00a0"),
                    grouped.replace(",", ".")]
        if cents:
            anywhere = [f"{amount:,.2f}"]
        else:
            anywhere.append(f"{grouped}.00")
    bare = [f"{whole}"] if not cents else [f"{amount:.2f}"]
    return anywhere, bare


def _own_amount(low: str, anywhere: list[str], bare: list[str]):
    """Yield (start, end) of the own amount's written forms in ``low``."""
    for form in anywhere + bare:
        start = low.find(form)
        while start >= 0:
            end = start + len(form)
            before = low[start - 1] if start else " "
            after = low[end] if end < len(low) else " "
            separated = not (before.isdigit() or before in ",./") and not (
                after.isdigit() or after == "/" or (after in ",." and low[end + 1:end + 2]
                                                    .isdigit()))
            if separated and (form in anywhere or _next_to_currency(low, start, end)):
                yield start, end
            start = low.find(form, end)


def _next_to_currency(low: str, start: int, end: int) -> bool:
    around = low[max(0, start - 8):start] + " " + low[end:end + 9]
    return re.search(_CURRENCY + r"(?!\w)", around) is not None


def _near(pattern: re.Pattern, low: str, start: int, end: int) -> bool:
    return pattern.search(low, max(0, start - WINDOW), min(len(low), end + WINDOW)) is not None


def screen_text(text: str, amount: float | None = None):
    """Yield (kind, start, end) of every flagged match in one text (see the module doc)."""
    low = text.lower()
    if amount:
        anywhere, bare = amount_forms(amount)
        for start, end in _own_amount(low, anywhere, bare):
            yield "own_amount", start, end
    if not any(trigger in low for trigger in TRIGGERS):
        return
    for match in OPERATIVE.finditer(low):
        yield "operative_clause", match.start(), match.end()
    for match in CONTEXT.finditer(low):
        for number in AMOUNT.finditer(low, max(0, match.start() - WINDOW),
                                      min(len(low), match.end() + WINDOW)):
            if _is_money(number.group()):
                yield "award_context", number.start(), number.end()
                break
    for match in CURRENCY_AMOUNT.finditer(low):
        if _near(AWARD_WORDS, low, match.start(), match.end()):
            yield "currency_award", match.start(), match.end()


def _is_money(token: str) -> bool:
    """An amount near an award keyword: a currency, a thousands separator, or ≥ 100 units
    that is neither an article or paragraph number (below 100) nor a year (1800–2100)."""
    if re.search(_CURRENCY, token):
        return True
    if re.fullmatch(r"\d{4}", token) and 1800 <= int(token) <= 2100:
        return False  # a year
    if _GROUPED.fullmatch(token):
        return True  # thousands groups: 5,000 / 5.000 / 5 000
    return len(token.split(".")[0]) >= 3


def screen_texts(rows: Iterable[tuple[str, int, str, float | None]],
                 progress: bool = False) -> tuple[list[Finding], int]:
    """Screen many texts.

    Args:
        rows: (case_id, record line, facts_text, y_amount_eur or None) per case.
        progress: show a tqdm bar.

    Returns:
        (findings in row order, number of texts screened).
    """
    from tqdm.auto import tqdm

    findings: list[Finding] = []
    count = 0
    for case_id, line, text, amount in tqdm(rows, desc="facts leakage screen", unit="text",
                                            disable=not progress):
        count += 1
        seen = set()
        for kind, start, end in screen_text(text, amount):
            if (kind, start) not in seen:
                seen.add((kind, start))
                findings.append(Finding(case_id, line, kind, _passage(text, start, end)))
    return findings, count


def describe(findings: list[Finding], limit: int = 10) -> str:
    """One line: the count, the cases, and the first ``limit`` findings with their passage."""
    cases = len({f.case_id for f in findings})
    listed = "; ".join(f"case {f.case_id} (line {f.line}, {f.kind}): {f.passage!r}"
                       for f in findings[:limit])
    more = f" (and {len(findings) - limit:,} more)" if len(findings) > limit else ""
    return f"{len(findings):,} finding(s) in {cases:,} case(s): {listed}{more}"
