"""The award (EUR) in a model's answer.

Rules, tried in this order; the first that finds something decides:

1. ``json``: the last JSON object in the answer that has the key ``award_eur`` (anywhere in
   the text, code fences included; an inner object holding the key counts too). Its value must be a number, or a string holding an
   amount (read as in rule 3, currency marker optional); ``null``, booleans and other types
   fail.
2. ``key``: ``award_eur`` followed by ``:`` or ``=`` and an amount, when the object around it
   is not valid JSON (a truncated answer, single quotes, a trailing comma).
3. ``currency``: the last amount written with a euro marker before or after it: ``EUR``,
   ``€``, ``euro``/``euros`` (any case), e.g. ``EUR 12,000``, ``12 000 €``, ``€12k``,
   ``EUR 1.5 million``.
4. ``bare``: the whole answer (trimmed, optional trailing period) is one amount: ``12000``.

Amounts: digits with an optional thousands separator used consistently between groups of
three (``,``, ``.``, ``'``, space, no-break or narrow no-break space) and an optional decimal
part after the other separator (``1.234,5`` and ``1,234.5`` are both 1234.5; ``12,5`` is
12.5; ``12,000`` and ``12.000`` are 12000); a multiplier ``k``/``thousand`` (× 1,000) or
``m``/``mn``/``million`` (× 1,000,000) may follow, and before one a single ``.`` group is a
decimal point (``EUR 1.125 million`` is 1,125,000). Hexadecimal (``0x1388``) is no amount. A minus sign (``-``, ``−``) directly
before the amount (or before its currency marker) makes it negative.

A negative, non-finite or missing amount is a failure: :func:`parse_award` then returns a
:class:`ParsedAward` with ``value=None`` and the reason in ``error``.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

METHODS = ("json", "key", "currency", "bare")

# An amount: a minus sign directly before it (not after a word character, digit or separator,
# so "5,000-10,000" is a range, not a negative), digits that do not continue a number
# (first group of a grouped number without a leading zero), optional decimals after the
# *other* separator, optional scale.
_NUMBER = (r"(?P<minus>(?<![\w.,'])[-\u2212])?"
           r"(?<!\d)(?<!\d[,.' \u00a0\u202f])(?<!0[xX])"
           r"(?P<number>[1-9]\d{0,2}(?P<sep>[,.' \u00a0\u202f])\d{3}(?:(?P=sep)\d{3})*"
           r"(?:(?!(?P=sep))[.,]\d+)?|\d+(?:[.,]\d+)?)"
           r"(?![xX][0-9a-fA-F])"  # 0x1388 is hexadecimal, not an amount
           r"(?:\s?(?P<scale>thousand|million|mn|k|m)\b)?")
_AMOUNT = re.compile(_NUMBER, re.IGNORECASE)
_GROUPED = re.compile(r"[1-9]\d{0,2}([,.' \u00a0\u202f])\d{3}(?:\1\d{3})*(?:([.,])(\d+))?")
_MARKER_BEFORE = re.compile(r"(?P<minus>(?<![\w.,'])[-\u2212])?(?<![A-Za-z])(?:EUR|€|euros?)\s?$",
                            re.IGNORECASE)
_MARKER_AFTER = re.compile(r"\s?(?:EUR(?![A-Za-z])|€|euros?(?![A-Za-z]))", re.IGNORECASE)
_MARKER_REACH = 12  # characters before an amount searched for a marker
_KEY = re.compile(r"""["']?award_eur["']?\s*[:=]\s*["']?""", re.IGNORECASE)
_SCALES = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mn": 1e6, "million": 1e6}


@dataclass(frozen=True)
class ParsedAward:
    """What :func:`parse_award` found.

    Attributes:
        value: the award in EUR (finite, >= 0), or ``None`` when parsing failed.
        method: the rule that decided (``json``, ``key``, ``currency``, ``bare``), or
            ``None`` when no rule found an amount.
        error: why parsing failed (``None`` on success).
        rationale: the answer without the decisive JSON object, trimmed (the model's
            reasoning text; empty when the answer was only the object).
    """

    value: float | None
    method: str | None
    error: str | None
    rationale: str


def amount_value(number: str, scale: str | None = None, minus: bool = False) -> float:
    """An amount's text (see the module docstring) → float EUR (may be negative or inf).

    ``number`` is the digits part (``"12,000"``, ``"1.234,5"``, ``"12,5"``), ``scale`` a
    multiplier word (``k``, ``million`` …) and ``minus`` whether a minus sign preceded it.
    """
    grouped = _GROUPED.fullmatch(number)
    if grouped and grouped.group(2) != grouped.group(1):
        separator = grouped.group(1)
        whole = number[:grouped.start(2)] if grouped.group(2) else number
        if scale and separator == "." and whole.count(".") == 1 and not grouped.group(2):
            digits, decimals = whole.split(".")  # "1.125 million": a decimal point
        else:
            digits, decimals = whole.replace(separator, ""), grouped.group(3) or ""
    else:
        digits, _, decimals = number.replace(",", ".").partition(".")
    value = float(f"{digits}.{decimals}" if decimals else digits)
    if scale:
        value *= _SCALES[scale.lower()]
    return -value if minus else value


def _value_of(match: re.Match) -> float:
    return amount_value(match.group("number"), match.group("scale"), bool(match.group("minus")))


def _checked(value: float, method: str, rationale: str) -> ParsedAward:
    if not math.isfinite(value):
        return ParsedAward(None, method, f"award {value!r} is not finite", rationale)
    if value < 0:
        return ParsedAward(None, method, f"award {value!r} is negative", rationale)
    return ParsedAward(float(value) + 0.0, method, None, rationale)


_JSON_KEY = re.compile(r'"award_eur"\s*:')
MAX_KEYS_TRIED = 8
MAX_OBJECT_STARTS = 16


def _last_object_with_key(text: str) -> tuple | None:
    """``(start, end, object)`` of the last JSON object holding the key ``award_eur``.

    Only the last :data:`MAX_KEYS_TRIED` ``"award_eur":`` occurrences and, for each, the
    :data:`MAX_OBJECT_STARTS` nearest ``{`` before it are tried, so the time stays linear in
    the answer's length (decoding at every ``{`` of a 500 KB answer was quadratic); numbers
    too long for Python (5,000 digits) or nesting too deep are no object.
    """
    decoder = json.JSONDecoder()
    keys = [m.start() for m in _JSON_KEY.finditer(text)][-MAX_KEYS_TRIED:]
    for key in reversed(keys):
        position = key
        for _ in range(MAX_OBJECT_STARTS):
            position = text.rfind("{", 0, position)
            if position == -1:
                break
            try:
                value, end = decoder.raw_decode(text, position)
            except (ValueError, RecursionError):
                continue
            if isinstance(value, dict) and end > key and "award_eur" in value:
                return position, end, value
    return None


def _marked_amount(text: str, match: re.Match) -> float | None:
    """The amount of ``match`` when a euro marker stands right before or after it."""
    before = _MARKER_BEFORE.search(text[max(0, match.start() - _MARKER_REACH):match.start()])
    if before is None and _MARKER_AFTER.match(text, match.end()) is None:
        return None
    value = _value_of(match)
    if before is not None and before.group("minus"):
        value = -abs(value)
    return value


def _single_amount(text: str) -> float | None:
    """``text`` read as exactly one amount with an optional euro marker before or after it
    and an optional final period (a JSON string value such as ``"EUR 3,000"``); None when it
    is anything else."""
    stripped = text.strip().removesuffix(".").strip()
    match = _AMOUNT.search(stripped)
    if match is None:
        return None
    before, after = stripped[:match.start()], stripped[match.end():]
    marker = r"\s*(?:EUR|€|euros?)?\s*"
    if not (re.fullmatch(r"[-\u2212]?" + marker, before, re.IGNORECASE)
            and re.fullmatch(marker, after, re.IGNORECASE)):
        return None
    value = _value_of(match)
    return -abs(value) if before.strip()[:1] in ("-", "\u2212") else value


def _json_rule(text: str) -> ParsedAward | None:
    found = _last_object_with_key(text)
    if found is None:
        return None
    start, end, value = found
    award = value["award_eur"]
    rationale = (text[:start] + text[end:]).strip()
    # a fenced object leaves its fence behind: drop an empty ``` / ```json pair
    rationale = re.sub(r"```(?:json)?\s*```", "", rationale).strip()
    if isinstance(award, bool) or award is None:
        return ParsedAward(None, "json", f"award_eur is {json.dumps(award)}; expected a number",
                           rationale)
    if isinstance(award, int):
        too_large = math.inf if award > 0 else -math.inf
        return _checked(float(award) if abs(award) < 2**1023 else too_large, "json", rationale)
    if isinstance(award, float):
        return _checked(award, "json", rationale)
    if isinstance(award, str):
        amount = _single_amount(award)
        if amount is None:
            return ParsedAward(None, "json", f"award_eur is the string {award!r}; expected a "
                               "number", rationale)
        return _checked(amount, "json", rationale)
    return ParsedAward(None, "json", f"award_eur is a {type(award).__name__}; expected a number",
                       rationale)


def _key_rule(text: str) -> ParsedAward | None:
    for key in reversed(list(_KEY.finditer(text))):
        match = _AMOUNT.match(text, key.end())
        if match:
            return _checked(_value_of(match), "key", text.strip())
    return None


def _currency_rule(text: str) -> ParsedAward | None:
    for match in reversed(list(_AMOUNT.finditer(text))):
        value = _marked_amount(text, match)
        if value is not None:
            return _checked(value, "currency", text.strip())
    return None


def _bare_rule(text: str) -> ParsedAward | None:
    stripped = text.strip().removesuffix(".").strip()
    match = _AMOUNT.fullmatch(stripped)
    return _checked(_value_of(match), "bare", "") if match else None


def parse_award(answer: str | None) -> ParsedAward:
    """The award in ``answer`` by the rules of the module docstring (never raises)."""
    if answer is None or not answer.strip():
        return ParsedAward(None, None, "empty answer", "")
    for method, rule in zip(METHODS, (_json_rule, _key_rule, _currency_rule, _bare_rule),
                            strict=True):
        try:
            parsed = rule(answer)
        except (ValueError, OverflowError) as error:  # an amount no float can hold
            return ParsedAward(None, method, f"unreadable amount ({error})", answer.strip())
        if parsed is not None:
            return parsed
    return ParsedAward(None, None, "no award_eur JSON object and no euro amount in the answer",
                       answer.strip())
