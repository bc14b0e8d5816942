"""Exception types shared by courtbench and the dataset packages.

Every error message names where the problem is (file, line, column or argument), the
offending value and what was expected, so that a user can fix the input without a debugger.
"""

from __future__ import annotations

from pathlib import Path


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
