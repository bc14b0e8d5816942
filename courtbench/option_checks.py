"""Option types of every command: option text checked by the one validator while parsing.

Every numeric option's argparse ``type=`` is built here on :mod:`courtbench.boundary`, so a
value outside its range is refused while the command line is parsed — before anything is
read, loaded or written — in one line naming the flag, the value and the range::

    courtbench evaluate NAME: error: argument --resamples: expected a number of resamples in
    [1, 100,000], got '1000000000000'; see courtbench evaluate NAME --help

The rules are the validator's: numbers are finite, seeds are integers in ``[0, 2**32 - 1]``,
and every work parameter has a cap (the ``MAX_*`` constants below), shown in ``--help``
beside the option. Only ASCII decimal literals are numbers (``١٢`` and ``1_000`` are not); an
integer option takes an integer literal only (``1.5``, ``2.0`` and ``1e3`` are refused, never
rounded: ``1.0000000000000000001`` would otherwise become 1 on its way through a float). A list option
(``--seeds 0,1,2``) refuses an empty list, an empty item and a value given twice.

``tests/toolkit/test_option_types.py`` walks the parser of every command and fails on a numeric option
without one of these types.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable, Iterable
from typing import Any

from courtbench.boundary import (
    SEED_MAX,
    BoundaryError,
    check_choice,
    check_integer,
    check_number,
    check_seed,
    range_text,
    shown,
)

#: Caps of work parameters (each the most a command accepts; time or memory grows with it).
#: Bootstrap resamples (memory and time grow linearly; 1,000 is the protocol's).
MAX_RESAMPLES = 100_000
#: Rows, cases or samples a command generates or takes (``--n``, ``--limit`` …).
MAX_ROWS = 10_000_000
#: Lengths in tokens, words or characters (``--max-tokens``, ``--max-length`` …).
MAX_LENGTH = 10_000_000
#: Threads, processes and requests in flight.
MAX_PARALLEL = 1_024
#: Retries of one request.
MAX_RETRIES = 100
#: Seconds one request attempt may take (a day).
MAX_SECONDS = 86_400.0
#: Neighbours, references or candidates retrieved per case (``--k``, ``--top-k`` …).
MAX_NEIGHBOURS = 100_000
#: Characters of one model answer a runner accepts (``--max-answer-chars``).
MAX_ANSWER_CHARS = 100_000_000
#: Items of a list option (``--seeds``, ``--k-grid`` …).
MAX_LIST_ITEMS = 1_000

_WHERE = "option"  # never shown: argparse names the flag itself
_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_SPECIAL = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE)
#: Integer literals longer than this are outside every range; never converted in full.
_MAX_DIGITS = 30


def parse_number(text: str, *, integer: bool = False) -> int | float | None:
    """The number an option's text states: an int for an integer literal, a float for a
    decimal literal or nan / inf (which the validator then refuses), None for anything else
    (with ``integer``: for anything but an integer literal). Only ASCII digits count;
    surrounding spaces and tabs are ignored."""
    text = text.strip(" \t")
    if _INTEGER.fullmatch(text):
        digits = text.lstrip("+-")
        if len(digits) > _MAX_DIGITS:
            return -(10 ** _MAX_DIGITS) if text.startswith("-") else 10 ** _MAX_DIGITS
        return int(text)
    if integer:
        return None
    if _DECIMAL.fullmatch(text) or _SPECIAL.fullmatch(text):
        return float(text)  # 1e400 → inf, refused as not finite
    return None


class OptionType:
    """An argparse ``type``: option text → a value :mod:`courtbench.boundary` accepts.

    Attributes:
        check: ``check(number) -> value``; raises :class:`BoundaryError`.
        range: the accepted range as ``--help`` shows it (``[1, 100,000]``, ``> 0 and <= 1``).
        integer: only integer literals are numbers (see :func:`parse_number`).
        __name__: what the value is (argparse names a type by it).
    """

    def __init__(self, check: Callable[[Any], Any], what: str, allowed: str, *,
                 integer: bool = False) -> None:
        self.check = check
        self.range = allowed
        self.integer = integer
        self.__name__ = what

    def __call__(self, text: str):
        number = parse_number(text, integer=self.integer)
        try:
            return self.check(math.nan if number is None else number)
        except BoundaryError as error:
            raise argparse.ArgumentTypeError(f"expected {error.expected}, got "
                                             f"{shown(text)}") from None

    def __repr__(self) -> str:
        return f"OptionType({self.__name__}: {self.range})"


def integer(low: int, high: int, *, what: str = "an integer") -> OptionType:
    """A whole number in ``[low, high]``, written as an integer literal."""
    return OptionType(lambda v: check_integer(v, _WHERE, low=low, high=high, what=what), what,
                      f"[{low:,}, {high:,}]", integer=True)


def number(low: float, high: float, *, low_open: bool = False, high_open: bool = False,
           what: str = "a number") -> OptionType:
    """A finite number between ``low`` and ``high`` (``*_open`` excludes the bound)."""
    return OptionType(lambda v: check_number(v, _WHERE, low=low, high=high, low_open=low_open,
                                             high_open=high_open, what=what), what,
                      range_text(low, high, low_open, high_open))


#: A random seed: an integer in ``[0, 2**32 - 1]``.
SEED = OptionType(lambda v: check_seed(v, _WHERE), "an integer seed", f"[0, {SEED_MAX:,}]",
                  integer=True)
#: A share of samples (``--max-failure-share``): ``[0, 1]``.
SHARE = number(0.0, 1.0, what="a share")


def count(high: int, *, low: int = 1, what: str = "a count") -> OptionType:
    """A work parameter: an integer in ``[low, high]`` (every work parameter has a cap)."""
    return integer(low, high, what=what)


class ChoiceItem:
    """A list item that must be one of ``choices`` (compared exactly)."""

    def __init__(self, choices: Iterable[str], what: str = "a name") -> None:
        self.choices = tuple(choices)
        self.__name__ = what
        self.range = "one of " + ", ".join(self.choices)

    def __call__(self, text: str) -> str:
        try:
            return check_choice(text, _WHERE, self.choices)
        except BoundaryError as error:
            raise argparse.ArgumentTypeError(f"expected {error.expected}, got "
                                             f"{shown(text)}") from None


class ListOption:
    """An argparse ``type`` for comma-separated values, each checked by ``item``.

    Refused: an empty list (unless ``none_word`` is given, which stands for the empty list),
    an empty item, an item ``item`` refuses, a value given twice (compared after parsing:
    ``1e-4`` and ``0.0001`` are the same rate), more than ``max_items`` items.

    Returns:
        tuple: the values in the order given (sorted with ``sort``).
    """

    def __init__(self, item: Callable[[str], Any], *, what: str,
                 max_items: int = MAX_LIST_ITEMS, none_word: str | None = None,
                 sort: bool = False) -> None:
        self.item, self.what, self.max_items = item, what, max_items
        self.none_word, self.sort = none_word, sort
        self.__name__ = what
        each = getattr(item, "range", None)
        self.range = (f"distinct {what}" + (f", each {each}" if each else "")
                      + f"; at most {max_items:,}" + (f"; or {none_word}" if none_word else ""))

    def _expected(self) -> str:
        return (f"{self.what} separated by commas"
                + (f", or {self.none_word}" if self.none_word else ""))

    def __call__(self, text: str) -> tuple:
        if self.none_word and text.strip().lower() == self.none_word:
            return ()
        parts = [part.strip() for part in text.split(",")]
        if not any(parts):
            raise argparse.ArgumentTypeError(f"expected {self._expected()}, got {shown(text)}")
        if len(parts) > self.max_items:
            raise argparse.ArgumentTypeError(f"expected at most {self.max_items:,} {self.what}, "
                                             f"got {len(parts):,}")
        values: list = []
        for position, part in enumerate(parts, start=1):
            if not part:
                raise argparse.ArgumentTypeError(f"expected {self._expected()}, got "
                                                 f"{shown(text)} (item {position} is empty)")
            try:
                value = self.item(part)
            except argparse.ArgumentTypeError as error:
                raise argparse.ArgumentTypeError(f"item {position} of {shown(text, 60)}: "
                                                 f"{error}") from None
            if value in values:
                first = parts[values.index(value)]
                same = (f"{shown(part)} twice" if first == part else
                        f"{shown(first)} and {shown(part)}, the same value,")
                raise argparse.ArgumentTypeError(f"expected distinct {self.what}, got {same} in "
                                                 f"{shown(text, 60)}")
            values.append(value)
        return tuple(sorted(values) if self.sort else values)


def allowed_range(action: argparse.Action) -> str | None:
    """The range an option's type accepts (for ``--help``), or None for other types."""
    return getattr(action.type, "range", None) if isinstance(
        action.type, (OptionType, ListOption)) else None


# The option types several commands share (one definition per quantity).
#: Sampling temperature: [0, 100] (servers differ in their own limit; none goes below 0).
TEMPERATURE = number(0.0, 100.0, what="a temperature")
#: Nucleus sampling mass: (0, 1].
TOP_P = number(0.0, 1.0, low_open=True, what="a top-p")
#: Bootstrap resamples: [1, MAX_RESAMPLES].
RESAMPLES = count(MAX_RESAMPLES, what="a number of resamples")
#: Tokens, words or characters of an input or an answer: [1, MAX_LENGTH].
LENGTH = count(MAX_LENGTH, what="a length")
#: Threads or processes: [1, MAX_PARALLEL].
PARALLEL = count(MAX_PARALLEL, what="a number of threads or processes")
#: Rows, cases or samples: [1, MAX_ROWS].
ROWS = count(MAX_ROWS, what="a number of rows")
