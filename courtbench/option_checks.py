"""Numeric options every command shares, checked before any work (one line each).

:data:`OPTION_RANGES` names the argparse destinations and the range each must lie in; a
value outside is refused naming the flag, the value and the range — instead of a traceback
deep inside numpy (``--seed -1``), a MemoryError (``--resamples 10**12``) or a silently empty
result (``--budget 0``, ``--top-p 5``).
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from courtbench.errors import CourtbenchError

#: Most bootstrap resamples a command accepts (memory and time grow linearly with it).
MAX_RESAMPLES = 100_000
#: dest → (lowest allowed, highest allowed, whether the lowest itself is allowed).
OPTION_RANGES: dict[str, tuple[float, float, bool]] = {
    "seed": (0, 2**32 - 1, True),
    "bootstrap_seed": (0, 2**32 - 1, True),
    "seeds": (0, 2**32 - 1, True),
    "resamples": (1, MAX_RESAMPLES, True),
    "top_p": (0, 1, False),
    "temperature": (0, 100, True),
    "budget": (1, math.inf, True),
    "n": (1, math.inf, True),
}


def _range_text(low: float, high: float, inclusive: bool) -> str:
    left = ">=" if inclusive else ">"
    return f"a number {left} {low}" + ("" if high == math.inf else f" and <= {high:,}")


def _out_of_range(value: Any, low: float, high: float, inclusive: bool) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False  # not a number: argparse's type already decided
    if not math.isfinite(value):
        return True
    return value > high or value < low or (value == low and not inclusive)


def check_option_ranges(args: argparse.Namespace) -> None:
    """Refuse (CourtbenchError) any option of :data:`OPTION_RANGES` outside its range."""
    for dest, (low, high, inclusive) in OPTION_RANGES.items():
        value = getattr(args, dest, None)
        for item in value if isinstance(value, list | tuple) else [value]:
            if _out_of_range(item, low, high, inclusive):
                flag = "--" + dest.replace("_", "-")
                raise CourtbenchError(f"{flag} {item!r}: expected "
                                      f"{_range_text(low, high, inclusive)}; nothing was run")
