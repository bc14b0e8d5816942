"""The one redaction function every observation passes before the model sees it.

:func:`redact` walks an observation payload (JSON-like: dicts, lists, scalars) and drops

- every key that names an audit column, a name derived from one, or an applicant-level award
  field (:data:`ecthr_npd.schema.AUDIT_COLUMNS`, ``DERIVED_FROM_AUDIT``,
  ``APPLICANT_AWARD_COLUMNS``), at any depth;
- every key that names the target column (``y_amount_eur``) or an award field
  (:data:`AWARD_KEYS`) — except ``award_eur`` inside the records of an action listed in
  :data:`REFERENCE_AWARD_ACTIONS` (training references shown with their award, as the few-shot
  prompt shows them);
- every record (a dict with ``case_id``) whose case is neither the target nor a training case:
  it is replaced by ``{"case_id": ..., "withheld": ...}``.

Inputs are never modified; the result is a new payload plus the dotted paths that were dropped
(recorded in the trace).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from ecthr_npd import schema

AWARD_KEYS = frozenset({schema.TARGET_COLUMN, "award_eur", "award", "award_amount",
                        "prediction"})
AUDIT_KEYS = frozenset({*schema.AUDIT_COLUMNS, *schema.DERIVED_FROM_AUDIT,
                        *schema.APPLICANT_AWARD_COLUMNS, "applicant_awards"})
REFERENCE_AWARD_ACTIONS = frozenset({"retrieve_train_references"})
WITHHELD = "not a training case: nothing of it is shown"


@dataclass(frozen=True)
class RedactionContext:
    """What :func:`redact` needs to know: the action that produced the payload, the target's
    case id and the training case ids (the only other cases an observation may describe)."""

    action: str
    target_id: str
    train_ids: Collection[str]


def _forbidden(key: str, context: RedactionContext, in_record: bool) -> bool:
    if key in AUDIT_KEYS:
        return True
    if key == schema.TARGET_COLUMN:
        return True
    if key in AWARD_KEYS:
        return not (in_record and key == "award_eur"
                    and context.action in REFERENCE_AWARD_ACTIONS)
    return False


def _walk(value: Any, context: RedactionContext, path: str, dropped: list[str]) -> Any:
    if isinstance(value, dict):
        case_id = value.get(schema.ID_COLUMN)
        in_record = isinstance(case_id, str)
        if in_record and case_id != context.target_id and case_id not in context.train_ids:
            dropped.append(f"{path or '.'}[{case_id}]")
            return {schema.ID_COLUMN: case_id, "withheld": WITHHELD}
        if in_record and case_id == context.target_id:
            in_record = False  # the target's own record never carries an award
        result = {}
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if _forbidden(str(key), context, in_record):
                dropped.append(where)
                continue
            result[key] = _walk(item, context, where, dropped)
        return result
    if isinstance(value, (list, tuple)):
        return [_walk(item, context, f"{path}[{i}]", dropped) for i, item in enumerate(value)]
    return value


def redact(payload: Any, context: RedactionContext) -> tuple[Any, list[str]]:
    """The observation the model may see, and the dotted paths dropped from it.

    Args:
        payload: an action's raw observation (dicts, lists, str / int / float / bool / None).
        context: the action, target and training ids (:class:`RedactionContext`).

    Returns:
        ``(redacted payload, dropped paths)``; the input is left unchanged.
    """
    dropped: list[str] = []
    return _walk(payload, context, "", dropped), dropped
