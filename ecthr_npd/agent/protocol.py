"""The conversation protocol: system prompt, the action in a model turn, the answering messages.

Two modes (``--actions``):

- ``tools``: the actions are offered as OpenAI tools; the model calls one per turn. Its first
  tool call is run, any further call of the same turn is answered with an error; a turn
  without a tool call is read as a JSON action in text (below), else answered with an error.
- ``json``: the system prompt lists the actions and their argument schemas; the model
  answers with one JSON object ``{"action": NAME, "arguments": {...}}`` (the last such object
  in its answer, after any ``<think>`` block, which ``courtbench.inspect_glue.reasoning`` keeps apart).

Every observation is one JSON object ``{"step", "action", "steps_left", "observation" | "error"}``:
a tool message answering the call in ``tools`` mode, else a user message
``Observation:\\n{json}``. The system prompt is courtbench's own wording plus the shipped
policy modules (:mod:`ecthr_npd.agent.knowledge`); it holds nothing of any case.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ecthr_npd.agent.actions import ACTION_BY_NAME, ACTIONS, FINAL
from ecthr_npd.agent.knowledge import Module

MODES = ("tools", "json")
INTRO = ("You predict the non-pecuniary damage award, in nominal euros, that the European "
         "Court of Human Rights made in one judgment finding at least one violation. You "
         "cannot see the case directly: you act through the actions below, one per turn, and "
         "read the controller's observations. Finish with {final}.")
TOOLS_RULE = "Call exactly one of the provided tools per turn."
JSON_RULE = ('Answer every turn with exactly one JSON object and nothing after it: '
             '{"action": "<name>", "arguments": {...}}. The actions and their arguments '
             '(JSON Schema):')
FIRST_USER = ("A new target case is ready. Work through it with the actions and finish with "
              "{final}. You have {steps} steps.")


def system_prompt(mode: str, policy: list[Module]) -> str:
    """The system message of every conversation in ``mode`` (deterministic)."""
    parts = [INTRO.format(final=FINAL)]
    for module in policy:
        parts.append(f"## {module.title}\n\n{module.text}")
    if mode == "tools":
        parts.append(f"## Actions\n\n{TOOLS_RULE}")
    else:
        lines = [f"- {a.name}: {a.description} Arguments: "
                 f"{json.dumps(a.parameters, sort_keys=True)}" for a in ACTIONS]
        parts.append("## Actions\n\n" + JSON_RULE + "\n" + "\n".join(lines))
    return "\n\n".join(parts)


def first_messages(mode: str, policy: list[Module], max_steps: int) -> list[dict[str, Any]]:
    """The system and first user message of a conversation."""
    return [{"role": "system", "content": system_prompt(mode, policy)},
            {"role": "user", "content": FIRST_USER.format(final=FINAL, steps=max_steps)}]


@dataclass
class Turn:
    """The action read from one model turn.

    ``name`` / ``arguments``: the action (``None`` when none could be read); ``error``: why
    not; ``call_id``: the tool call answered (``tools`` mode); ``via``: ``tool`` or ``text``;
    ``extra_call_ids``: further tool calls of the turn (answered with an error).
    """

    name: str | None = None
    arguments: Any = None
    error: str | None = None
    call_id: str | None = None
    via: str | None = None
    extra_call_ids: list[str] = field(default_factory=list)


def _json_action(text: str) -> Turn:
    decoder = json.JSONDecoder()
    found, position, broken = None, text.find("{"), False
    while position != -1:
        try:
            value, end = decoder.raw_decode(text, position)
        except (json.JSONDecodeError, RecursionError):
            broken = broken or '"action"' in text[position:]
            position = text.find("{", position + 1)
            continue
        if isinstance(value, dict) and "action" in value:
            found = value
        position = text.find("{", end)
    if found is None:
        return Turn(error="malformed JSON action: the object does not decode" if broken else
                    'no action: answer with one JSON object {"action": ..., "arguments": ...}')
    if not isinstance(found["action"], str):
        return Turn(error="malformed JSON action: \"action\" must be a string", via="text")
    return Turn(found["action"], found.get("arguments", {}), via="text")


def canonical_calls(tool_calls: tuple | None) -> tuple | None:
    """Tool calls with their keys in one order (``id``, ``type``, ``function``: ``name``,
    ``arguments``), whether they came from the endpoint or the cache: identical traces."""
    if not tool_calls:
        return None
    return tuple({"id": c.get("id"), "type": c.get("type") or "function",
                  "function": {"name": (c.get("function") or {}).get("name"),
                               "arguments": (c.get("function") or {}).get("arguments")}}
                 for c in tool_calls)


def read_turn(answer: str | None, tool_calls: tuple | None) -> Turn:
    """The action of a model turn: its first tool call, else a JSON action in its text."""
    if tool_calls:
        first, *rest = tool_calls
        function = first.get("function") or {}
        turn = Turn(call_id=first.get("id"), via="tool",
                    extra_call_ids=[c.get("id") for c in rest])
        turn.name = function.get("name") if isinstance(function.get("name"), str) else None
        try:
            turn.arguments = json.loads(function.get("arguments") or "{}")
        except (json.JSONDecodeError, TypeError):
            turn.error = "malformed tool call: its arguments are not valid JSON"
        if turn.name is None:
            turn.error = "malformed tool call: no function name"
        return turn
    return _json_action(answer or "")


def check_name(turn: Turn) -> None:
    """Sets ``turn.error`` when its action is not whitelisted."""
    if turn.error is None and turn.name not in ACTION_BY_NAME:
        turn.error = ("unknown action; the allowed actions are "
                      + ", ".join(a.name for a in ACTIONS))


def assistant_message(answer: str | None, tool_calls: tuple | None) -> dict[str, Any]:
    """The model's turn as it is sent back in the next request."""
    message: dict[str, Any] = {"role": "assistant", "content": answer or ""}
    if tool_calls:
        message["tool_calls"] = [dict(call) for call in tool_calls]
    return message


def observation_messages(turn: Turn, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages answering ``turn`` with the observation ``body``."""
    text = json.dumps(body, ensure_ascii=False, allow_nan=False)
    if turn.via != "tool":
        return [{"role": "user", "content": "Observation:\n" + text}]
    messages = [{"role": "tool", "tool_call_id": turn.call_id, "content": text}]
    skipped = json.dumps({"step": body["step"], "error": "one action per step: this call was "
                          "not run"})
    messages += [{"role": "tool", "tool_call_id": call_id, "content": skipped}
                 for call_id in turn.extra_call_ids]
    return messages
