"""Exception types shared by courtbench and the dataset packages.

Every error message names where the problem is (file, line, column or argument), the
offending value and what was expected, so that a user can fix the input without a debugger.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: Longest quoted value an error message repeats; longer ones are cut (with their length).
MAX_QUOTED_CHARS = 200
#: Longest message the CLI prints: a backstop for messages that list many values.
MAX_MESSAGE_CHARS = 4_000


def quoted(value: Any, limit: int = MAX_QUOTED_CHARS) -> str:
    """``repr(value)`` for an error message, cut to ``limit`` characters plus its length.

    A 50 MB field must not become a 50 MB line on stderr::

        >>> quoted("abc")
        "'abc'"
        >>> quoted("x" * 1000, limit=10)
        "'xxxxxxxxx… (1,000 characters)"
    """
    text = repr(value)
    if len(text) <= limit:
        return text
    size = len(value) if isinstance(value, (str, bytes, list, tuple, dict)) else len(text)
    unit = "bytes" if isinstance(value, bytes) else (
        "items" if isinstance(value, (list, tuple, dict)) else "characters")
    return f"{text[:limit]}… ({size:,} {unit})"


def shorten_message(message: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``message`` cut to ``limit`` characters with a note of its full length."""
    if len(message) <= limit:
        return message
    return f"{message[:limit]}… (message cut; {len(message):,} characters in all)"


class CourtbenchError(Exception):
    """Base class: the CLI prints these as a one-line error and exits with status 1."""


class SourceError(CourtbenchError, ValueError):
    """Invalid source data.

    Args:
        path: the source file (or a description such as ``"<synthetic>"``).
        problem: what is wrong, stating the value found and what was expected.
        line: 1-based line (CSV/JSONL) or record number, when known.
        column: the column or field name, when known.
    """

    def __init__(self, path: str | Path, problem: str, *, line: int | None = None,
                 column: str | None = None) -> None:
        self.path = str(path)
        self.line = line
        self.column = column
        self.problem = problem
        where = self.path
        if line is not None:
            where += f", line {line}"
        if column is not None:
            where += f", column {column!r}"
        super().__init__(f"{where}: {problem}")


class VerificationError(CourtbenchError):
    """A built Hub folder does not match its card or fails an audit."""
