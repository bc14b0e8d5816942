"""Plain-text tables and number formatting shared by cards and reports.

Numbers are formatted for people (thousands separators, fixed decimals); ``None`` and NaN
render as an em dash so that an undefined value is never mistaken for zero.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

MISSING = "—"


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def thousands(value: Any) -> str:
    """``14575`` → ``"14,575"``; floats are rounded to the nearest integer first."""
    if _is_missing(value):
        return MISSING
    return f"{round(value):,}"


def fixed(value: Any, digits: int = 2) -> str:
    """Fixed-point with thousands separators: ``fixed(1234.5678)`` → ``"1,234.57"``."""
    if _is_missing(value):
        return MISSING
    return f"{value:,.{digits}f}"


def percent(value: Any, digits: int = 1) -> str:
    """A share in [0, 1] as a percentage: ``percent(0.2195)`` → ``"22.0%"``."""
    if _is_missing(value):
        return MISSING
    return f"{100 * value:.{digits}f}%"


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[Any]],
                   align: Sequence[str] | None = None) -> str:
    """Render a GitHub-flavoured Markdown table.

    Args:
        headers: column titles.
        rows: cell values; non-strings are converted with ``str`` and ``None`` becomes "—".
        align: per column ``"l"``, ``"r"`` or ``"c"``; default: left for the first column,
            right for the others (numbers).

    Returns:
        The table as text, ending without a newline. ``|`` inside cells is escaped.
    """
    if align is None:
        align = ["l"] + ["r"] * (len(headers) - 1)
    if len(align) != len(headers):
        raise ValueError(f"align has {len(align)} entries, expected {len(headers)} (one per header)")
    marks = {"l": ":---", "r": "---:", "c": ":---:"}

    def cell(value: Any) -> str:
        text = MISSING if _is_missing(value) else str(value)
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(h) for h in headers) + " |",
             "| " + " | ".join(marks[a] for a in align) + " |"]
    for row_index, row in enumerate(rows):
        if len(row) != len(headers):
            raise ValueError(f"rows[{row_index}] has {len(row)} cells, expected {len(headers)}")
        lines.append("| " + " | ".join(cell(v) for v in row) + " |")
    return "\n".join(lines)
