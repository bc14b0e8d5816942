"""Strict JSON out: every JSON file courtbench writes is valid JSON (RFC 8259).

Python's ``json.dumps`` writes ``NaN``, ``Infinity`` and ``-Infinity`` for non-finite floats
unless told otherwise; no other JSON parser accepts them. :func:`dumps_strict` refuses them
before anything is written, naming where in the document the value sits.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from typing import Any

from courtbench.errors import CourtbenchError

MAX_LISTED = 5


def non_finite_paths(document: Any, path: str = "$") -> Iterator[tuple[str, float]]:
    """``(JSONPath-like location, value)`` of every NaN or infinite float in ``document``
    (dicts, lists, tuples; numpy scalars through their ``item()``)."""
    if hasattr(document, "item") and callable(document.item) and not isinstance(
            document, (Mapping, list, tuple, str, bytes)):
        try:
            document = document.item()
        except (TypeError, ValueError):
            return
    if isinstance(document, float):
        if not math.isfinite(document):
            yield path, document
    elif isinstance(document, Mapping):
        for key, value in document.items():
            yield from non_finite_paths(value, f"{path}.{key}")
    elif isinstance(document, (list, tuple)):
        for index, value in enumerate(document):
            yield from non_finite_paths(value, f"{path}[{index}]")


def dumps_strict(document: Any, *, what: str, **kwargs: Any) -> str:
    """``json.dumps(document, allow_nan=False, **kwargs)``, or a clear refusal.

    Args:
        document: the JSON document.
        what: the file or document, for the message (``"report.json"``).
        kwargs: passed to :func:`json.dumps` (``indent``, ``sort_keys``, ``default`` …).

    Raises:
        CourtbenchError: the document holds NaN or an infinite number; the message lists
            where (``$.tables.main.rows[0][3]``) and says nothing was written.
    """
    found = list(non_finite_paths(document))
    if found:
        listed = ", ".join(f"{where} = {value}" for where, value in found[:MAX_LISTED])
        more = f" and {len(found) - MAX_LISTED} more" if len(found) > MAX_LISTED else ""
        raise CourtbenchError(f"{what}: refusing to write non-finite number(s), which JSON "
                              f"cannot hold: {listed}{more}; nothing was written")
    try:
        return json.dumps(document, allow_nan=False, **kwargs)
    except ValueError as error:  # a non-finite value produced by ``default``
        raise CourtbenchError(f"{what}: refusing to write invalid JSON ({error}); nothing was "
                              "written") from None
