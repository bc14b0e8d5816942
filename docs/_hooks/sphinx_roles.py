"""A griffe extension for the API pages: the docstrings' Sphinx cross-references
(``:func:`a.b```, ``:data:`~a.b```) become code spans, which is how they read in Markdown
(mkdocstrings would otherwise print the role names)."""

from __future__ import annotations

import re

import griffe

_ROLE = re.compile(r":(?:[a-z]+:)?[a-z]+:`~?([^`<]*?)(?:\s*<([^`>]+)>)?`")


def markdown_references(text: str) -> str:
    """``text`` with every Sphinx role written as a code span of its target."""
    return _ROLE.sub(lambda m: f"`{(m.group(2) or m.group(1)).strip()}`", text)


class SphinxRoles(griffe.Extension):
    """Rewrites each object's docstring as it is loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown_references(obj.docstring.value)
