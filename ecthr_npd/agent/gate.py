"""What the leakage gate scans: the data courtbench sends the model, with provenance checked.

The gate exists for what courtbench sends, so it reads the observation *payloads* of every
step (the redacted data an action returned), and nothing else:

- not the model's own messages: a guess of the award in an assistant message is the model's,
  not a leak (and a correct guess must not fail the case);
- not error texts: they are fixed wording plus the model's own arguments and run options
  (``k must be between 1 and 5``, an unknown module name it asked for), never case data;
- not the system prompt and first user message: fixed texts, the same for every case,
  built without any case data.

In a payload, a value whose origin is checked is left out of the scan; every other value is
scanned for the target's award in any of its written forms, for *every* positive award (no
value is exempt because it is common): a coincidence at an unchecked position fails the case,
which is the safe side.

Checked origins (:func:`scan_texts`):

- a reference's ``award_eur`` that equals the training award of the case its ``case_id``
  names (the pool is consulted, not the payload);
- a feature value equal to the target's own permitted input of that column, or to a training
  case's (for the references the payload names);
- a statistic of the train-only priors (``count``, ``zero_share``, ``*_eur`` keys whose value
  the priors hold) and the text of a computed empirical module identical to the knowledge
  base's.

The text of a user's own knowledge-base module is free text courtbench did not write: it is
scanned with the training awards exempt (a module quoting a typical award must not fail every
case awarded that amount). The audit-side values (distinctive texts, audit column names) are
scanned everywhere.
"""

from __future__ import annotations

import json
from typing import Any

from ecthr_npd import schema
from ecthr_npd.prompting.serialise import readable

STAT_KEYS = frozenset({"count", "zero_share"})


def _features(record: dict[str, Any]) -> dict[str, str]:
    return readable(record, tuple(c for c in schema.INPUT_COLUMNS if c in record))


def _walk(value: Any, key: str | None, context, known: dict[str, str], out: list[str]) -> None:
    """Append to ``out`` the text of every leaf of ``value`` whose origin is not checked."""
    if isinstance(value, dict):
        known = _known_for(value, context, known)
        for name, item in value.items():
            if _checked_leaf(str(name), item, value, context, known):
                continue
            out.append(str(name))
            _walk(item, str(name), context, known, out)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _walk(item, key, context, known, out)
    elif value is not None and not isinstance(value, bool):
        out.append(str(value))


def _known_for(record: dict[str, Any], context, known: dict[str, str]) -> dict[str, str]:
    """The feature values of the training case a dict names by ``case_id`` (else ``known``)."""
    row = context.resources.pool.row_of.get(record.get(schema.ID_COLUMN))
    if row is None:
        return known
    return _features(context.resources.train_records[row])


def _checked_leaf(key: str, value: Any, parent: dict, context, known: dict[str, str]) -> bool:
    pool, priors = context.resources.pool, context.resources.priors
    if key == "award_eur" and isinstance(value, (int, float)):
        row = pool.row_of.get(parent.get(schema.ID_COLUMN))
        return row is not None and float(pool.awards[row]) == float(value)
    if key in STAT_KEYS and isinstance(value, (int, float)):
        return True
    if key.endswith("_eur") and isinstance(value, (int, float)):
        return round(float(value), 2) in priors.benign_amounts()
    if isinstance(value, str) and key in known and known[key] == value:
        return True
    return isinstance(value, str) and key in context.target_features \
        and context.target_features[key] == value


def scan_texts(action: str, payload: Any, context) -> tuple[str, str]:
    """``(strict, lenient)`` texts of one observation payload: ``strict`` is scanned for
    every positive award, ``lenient`` (a user module's text) with training awards exempt."""
    if action == "load_module" and isinstance(payload, dict):
        module = context.resources.knowledge.modules.get(payload.get("name"))
        rest = {k: v for k, v in payload.items() if k != "text"}
        strict = " ".join(_leaves(rest, context))
        text = str(payload.get("text", ""))
        if module is not None and module.source == "computed" and text == module.text:
            return strict, ""  # train-only statistics, identical to what courtbench computed
        if module is not None and module.source == "user":
            return strict, text
        return strict + "\n" + text, ""
    return " ".join(_leaves(payload, context)), ""


def _leaves(payload: Any, context) -> list[str]:
    out: list[str] = []
    _walk(payload, None, context, {}, out)
    return out


def dumps(payload: Any) -> str:
    """A payload as strict JSON text (for the traces)."""
    return json.dumps(payload, ensure_ascii=False, allow_nan=False, sort_keys=True)
