"""The imports a Python file runs when it is imported, read with ``ast`` (nothing executed).

Used to decide which sibling files a metric Space's ``app.py`` needs uploaded
(:mod:`courtbench.publish.kinds`) and whether the Space provides every package it imports
(:mod:`courtbench.publish.checks`).
"""

from __future__ import annotations

import ast


def module_level_imports(source: str, filename: str) -> list[tuple[int, str]]:
    """``(line, top-level module)`` of every absolute import executed when the file is
    imported: module level, including inside ``if``/``try`` blocks, not inside functions or
    classes (those are optional, imported only when called). Raises ``SyntaxError``."""
    found = []
    pending = list(ast.parse(source, filename=filename).body)
    while pending:
        node = pending.pop(0)
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name.split(".")[0]) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module.split(".")[0]))
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            pending.extend(child for child in ast.iter_child_nodes(node)
                           if isinstance(child, ast.stmt))
    return sorted(found)
