"""What makes a record comparable: the report's ``rerun`` block well-formed, the data one
the results dataset accepts, the scoring options the benchmark's protocol.

- :func:`check_rerun_shape` refuses a malformed ``rerun`` block in one line (a list, a
  missing key, a wrong type) before anything is read or hashed;
- :func:`check_option_types` does the same for a plugin's option names and types
  (``splits: "test"`` is not a list of splits);
- the results dataset's card declares the accepted data per benchmark
  (:data:`ACCEPTED_KEY`: ``{benchmark: {fingerprint: data_kind}}``, written by
  ``courtbench leaderboard init`` from the reference reports and changed only by the
  repository's owner); :func:`accepted_data` reads it and :func:`data_problem` says why data
  is not accepted (such a record is refused: no gold values exist to recompute it);
- :func:`table_for` says which table a record belongs in (``unofficial`` only with
  ``--unofficial``: other options, an incomplete or fallback-filled run).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from courtbench.errors import CourtbenchError
from courtbench.leaderboard.results_schema import ACCEPTED_KEY  # the Space reads it too

#: ``leaderboard_table`` values: records scored on accepted data with the protocol's
#: options, and everything submitted with ``--unofficial``.
MAIN_TABLE, UNOFFICIAL_TABLE = "main", "unofficial"
_SHA256 = re.compile(r"^[0-9a-f]{64}$")

_RERUN_KEYS: dict[str, type] = {"dataset": str, "data": str, "data_fingerprint": str,
                                "predictions": dict, "options": dict, "modules": list,
                                "metric_signature": str}


def check_rerun_shape(rerun: Any, where: str) -> None:
    """Refuse (CourtbenchError naming ``where``) a ``rerun`` block of the wrong shape."""
    if not isinstance(rerun, dict):
        raise CourtbenchError(f"{where}: provenance.rerun is a {type(rerun).__name__}; "
                              "expected an object written by `courtbench evaluate`")
    for key, kind in _RERUN_KEYS.items():
        if key not in rerun:
            raise CourtbenchError(f"{where}: provenance.rerun has no {key!r}; re-run "
                                  "`courtbench evaluate` to write a complete block")
        if not isinstance(rerun[key], kind):
            raise CourtbenchError(f"{where}: provenance.rerun.{key} is a "
                                  f"{type(rerun[key]).__name__}; expected {kind.__name__}")
    if not _SHA256.match(rerun["data_fingerprint"]):
        raise CourtbenchError(f"{where}: provenance.rerun.data_fingerprint "
                              f"{rerun['data_fingerprint'][:80]!r}: expected 64 hex digits")
    for system, entry in rerun["predictions"].items():
        if (not isinstance(entry, dict) or not isinstance(entry.get("path"), str)
                or not isinstance(entry.get("sha256"), str)):
            raise CourtbenchError(f"{where}: provenance.rerun.predictions[{system!r}]: "
                                  "expected an object with text 'path' and 'sha256'")
    if not all(isinstance(m, str) for m in rerun["modules"]):
        raise CourtbenchError(f"{where}: provenance.rerun.modules: expected a list of names")


def _type_ok(value: Any, kind: Any) -> bool:
    if kind is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "str-list":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    return isinstance(value, kind)


def check_option_types(options: Mapping[str, Any], expected: Mapping[str, Any],
                       where: str) -> None:
    """Refuse (CourtbenchError) missing options or options of another type.

    ``expected`` maps an option name to ``int``, ``float``, ``str``, ``bool`` or
    ``"str-list"`` (a list of texts).
    """
    for name, kind in expected.items():
        if name not in options:
            raise CourtbenchError(f"{where}: provenance.rerun.options has no {name!r}; "
                                  "re-run `courtbench evaluate` to write a complete block")
        if not _type_ok(options[name], kind):
            shown = "a list of texts" if kind == "str-list" else kind.__name__
            raise CourtbenchError(f"{where}: provenance.rerun.options.{name} = "
                                  f"{str(options[name])[:80]!r}; expected {shown}")


def accepted_data(card_metadata: Mapping[str, Any], where: str) -> dict[str, dict[str, str]]:
    """``{benchmark: {fingerprint: data_kind}}`` declared by a results dataset's card.

    Raises:
        CourtbenchError: the card declares none, or not in that shape.
    """
    declared = card_metadata.get(ACCEPTED_KEY)
    if not isinstance(declared, dict) or not all(
            isinstance(v, dict) and all(isinstance(f, str) and isinstance(k, str)
                                        for f, k in v.items()) for v in declared.values()):
        raise CourtbenchError(f"{where}: the results dataset's card declares no accepted data "
                              f"({ACCEPTED_KEY}: {{benchmark: {{fingerprint: data_kind}}}}); "
                              "create it with `courtbench leaderboard init`")
    return declared


def data_problem(benchmark: str, fingerprint: str, data_kind: str,
                 accepted: Mapping[str, Mapping[str, str]]) -> str | None:
    """Why data of ``fingerprint`` is not the benchmark's accepted data (None: it is)."""
    pinned = accepted.get(benchmark) or {}
    if fingerprint not in pinned:
        listed = ", ".join(f[:16] + "…" for f in sorted(pinned)) or "none"
        return (f"data fingerprint {fingerprint[:16]}… is not among the accepted {benchmark} "
                f"data of the results dataset (accepted: {listed})")
    if pinned[fingerprint] != data_kind:
        return (f"the data's card says {data_kind!r} but the results dataset accepts "
                f"fingerprint {fingerprint[:16]}… as {pinned[fingerprint]!r} data")
    return None


def table_for(problems: list[str], unofficial: bool) -> tuple[str, str | None]:
    """``(leaderboard_table, unofficial_reason)`` for a record, or CourtbenchError.

    Args:
        problems: every reason the record is not comparable (data, options).
        unofficial: ``--unofficial``: put such a record into the labelled table instead.
    """
    if not problems:
        return MAIN_TABLE, None
    if not unofficial:
        raise CourtbenchError("not comparable with the leaderboard: " + "; ".join(problems)
                              + " (pass --unofficial to submit it to the labelled "
                              "'unofficial' table instead)")
    return UNOFFICIAL_TABLE, "; ".join(problems)
