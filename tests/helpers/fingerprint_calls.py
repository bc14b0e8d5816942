"""Count the computations of a data folder's fingerprint during one call.

:func:`courtbench.hub.files.fingerprint` hashes every file of a folder; a command should
compute it once and pass it along. :func:`count_fingerprints` replaces the function in every
loaded module that holds it under that name (where callers look it up), so that a new caller
is counted too.
"""

from __future__ import annotations

import sys

from courtbench.hub import files


def count_fingerprints(monkeypatch) -> list[int]:
    """Patch every loaded module's ``fingerprint`` (the one of courtbench.hub.files) with a
    counting wrapper; returns the list that gets one entry (the number of files hashed) per
    call."""
    original = files.fingerprint
    calls: list[int] = []

    def counting(entries):
        calls.append(len(entries))
        return original(entries)

    for module in list(sys.modules.values()):
        if getattr(module, "__dict__", {}).get("fingerprint") is original:
            monkeypatch.setattr(module, "fingerprint", counting)
    return calls
