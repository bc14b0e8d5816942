"""The complexity gate of ``make lint`` and of ``tests/toolkit/test_structure.py``.

Every function and method of the shipped code (``courtbench``, ``ecthr_npd``, ``slds``,
``metrics``) and of ``benchmarks`` must stay readable:

* cyclomatic complexity at most ``MAX_COMPLEXITY`` as radon counts it (each ``if``, loop,
  ``except``, boolean operator and comprehension clause adds one; ruff's C901 counts fewer);
* at most ``MAX_BODY_LINES`` lines of body: from the first statement after the docstring to
  the last line, so a long signature or an argument list in the docstring costs nothing.

Tests are not gated: a test's asserts joined by ``and`` are read one by one, not traced.
Linked files (symlinks) are measured once, at their source.

Run as ``python tests/complexity_gate.py [ROOT ...]``: prints one line per offender
(``path:line name complexity=N body_lines=M``) and exits 1 if there is any.
"""
from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Class

MAX_COMPLEXITY = 15
MAX_BODY_LINES = 60
GATED_ROOTS = ("courtbench", "ecthr_npd", "slds", "metrics", "benchmarks")


@dataclass(frozen=True)
class Offender:
    path: str
    line: int
    name: str
    complexity: int
    body_lines: int

    def __str__(self) -> str:
        return (f"{self.path}:{self.line} {self.name} complexity={self.complexity} "
                f"body_lines={self.body_lines}")


def _body_lines(source_tree: ast.Module) -> dict[int, int]:
    """Line of each ``def`` -> its body's length in lines, docstring excluded."""
    lengths = {}
    for node in ast.walk(source_tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if (len(body) > 1 and isinstance(body[0], ast.Expr)
                    and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)):
                body = body[1:]
            lengths[node.lineno] = node.end_lineno - body[0].lineno + 1
    return lengths


def _blocks(blocks):
    for block in blocks:
        if isinstance(block, Class):
            yield from _blocks(block.methods)
        else:
            yield block


def file_offenders(path: Path, display: str) -> list[Offender]:
    """The functions of one Python file over either limit."""
    source = path.read_text(encoding="utf-8")
    lengths = _body_lines(ast.parse(source))
    found = {}
    for block in _blocks(cc_visit(source)):
        body = lengths.get(block.lineno, 0)
        if block.complexity > MAX_COMPLEXITY or body > MAX_BODY_LINES:
            found[block.lineno] = Offender(display, block.lineno, block.fullname,
                                           block.complexity, body)
    return [found[line] for line in sorted(found)]


def offenders(repository: Path, roots=GATED_ROOTS) -> list[Offender]:
    """Every gated function over a limit, in path order; ``roots`` are folders or files."""
    found = []
    for root in roots:
        root = repository / root
        for path in sorted(root.rglob("*.py")) if root.is_dir() else [root]:
            if path.is_symlink() or ".venv" in path.parts:
                continue
            found.extend(file_offenders(path, path.relative_to(repository).as_posix()))
    return found


def main(argv: list[str]) -> int:
    repository = Path(__file__).resolve().parent.parent
    found = offenders(repository, tuple(argv) or GATED_ROOTS)
    for offender in found:
        print(offender)
    if found:
        print(f"{len(found)} function(s) over complexity {MAX_COMPLEXITY} or "
              f"{MAX_BODY_LINES} body lines", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
