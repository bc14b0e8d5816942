"""One case's episode: the model's turns applied, bounded and checked.

:func:`advance` applies one model turn (a :class:`Turn` answer: text, reasoning, tool calls,
stop reason, usage) to its episode: the answer's size is checked (:data:`MAX_ANSWER_BYTES`),
the action read (:mod:`ecthr_npd.agent.protocol`), every number in its arguments checked by
the boundary validator (NaN, Infinity, ``1e400`` or an integer beyond 64 bits fails the case
with the reason, it is data, never a crash), the action checked against the whitelist and
its schema, run (:mod:`ecthr_npd.agent.actions`), its observation redacted
(:func:`ecthr_npd.agent.redaction.redact`) and capped (:data:`MAX_OBSERVATION_BYTES`), and the
messages appended; the conversation is capped too (:data:`MAX_CONVERSATION_BYTES`: the
request body of the next turn). Every turn counts toward ``max_steps``, a malformed or unknown
one included.

Outcomes (``Episode.status``): ``final`` (``final_predict`` accepted), ``budget`` (steps
exhausted), ``invalid_answer`` (a non-finite or out-of-range number), ``too_large`` (an answer
or the conversation over its cap), ``leakage`` (the final gate found a withheld value; set by
:func:`final_gate`). A request that failed after Inspect's retries is the sample's error
(``request_failed`` in the runner).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from courtbench.boundary import BoundaryError, check_integer, check_number
from ecthr_npd.agent.actions import (
    ACTION_BY_NAME,
    FINAL,
    ActionError,
    CaseContext,
    check_arguments,
    check_final,
)
from ecthr_npd.agent.gate import scan_texts
from ecthr_npd.agent.protocol import (
    Turn,
    assistant_message,
    canonical_calls,
    check_name,
    observation_messages,
    read_turn,
)
from ecthr_npd.agent.redaction import RedactionContext, redact

RUNNING, FINAL_STATUS, BUDGET, LEAKAGE, INVALID, TOO_LARGE = (
    "running", "final", "budget", "leakage", "invalid_answer", "too_large")
#: Largest model turn (answer, reasoning and tool-call arguments, UTF-8 bytes).
MAX_ANSWER_BYTES = 65_536
#: Largest observation payload sent back (JSON, UTF-8 bytes); a larger one is an error.
MAX_OBSERVATION_BYTES = 65_536
#: Largest conversation (every message's text, UTF-8 bytes): the next request's size.
MAX_CONVERSATION_BYTES = 1_048_576


@dataclass(frozen=True)
class Answer:
    """One model turn as the controller reads it."""

    text: str | None
    reasoning: str | None
    tool_calls: tuple | None
    finish_reason: str | None
    usage: dict


@dataclass
class Episode:
    """One case's conversation and what came of it."""

    context: CaseContext
    max_steps: int
    train_ids: frozenset
    status: str = RUNNING
    steps: list[dict[str, Any]] = field(default_factory=list)
    final: dict[str, Any] | None = None
    failure: str | None = None
    usage: Counter = field(default_factory=Counter)
    gate: dict[str, Any] | None = None

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.context.messages


def check_numbers(value: Any, where: str) -> None:
    """BoundaryError for the first number in ``value`` (a parsed JSON document) that is not
    finite, overflows a float or is an integer beyond 64 bits."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, int):
        check_integer(value, where)
    elif isinstance(value, float):
        check_number(value, where)
    elif isinstance(value, dict):
        for key, item in value.items():
            check_numbers(item, f"{where}.{key}")
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            check_numbers(item, f"{where}[{index}]")


def answer_bytes(answer: Answer) -> int:
    """UTF-8 size of a turn: text, reasoning and tool calls' names and arguments."""
    parts = [answer.text or "", answer.reasoning or ""]
    for call in answer.tool_calls or ():
        function = call.get("function") or {}
        parts += [str(function.get("name") or ""), str(function.get("arguments") or "")]
    return sum(len(p.encode("utf-8", "surrogatepass")) for p in parts)


def conversation_bytes(messages: list[dict[str, Any]]) -> int:
    """UTF-8 size of every message's content and tool calls."""
    total = 0
    for message in messages:
        total += len(str(message.get("content") or "").encode("utf-8", "surrogatepass"))
        for call in message.get("tool_calls") or ():
            total += len(json.dumps(call, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    return total


def _run_action(episode: Episode, turn: Turn) -> tuple[dict | None, dict[str, Any]]:
    """(validated final arguments or None, the trace's outcome fields) of a readable turn."""
    action = ACTION_BY_NAME[turn.name]
    arguments = check_arguments(action, turn.arguments)
    if action.name == FINAL:
        return check_final(arguments), {}
    before = set(episode.context.retrieved)
    payload = action.handler(episode.context, arguments)
    redacted, dropped = redact(payload, RedactionContext(action.name, episode.context.case_id,
                                                         episode.train_ids))
    episode.context.observed.append((action.name, redacted))
    size = len(json.dumps(redacted, ensure_ascii=False).encode("utf-8"))
    if size > MAX_OBSERVATION_BYTES:
        raise ActionError(f"the observation is {size:,} bytes, over the {MAX_OBSERVATION_BYTES:,}"
                          "-byte cap; ask for less")
    outcome = {"observation": redacted, "redacted": dropped}
    if set(episode.context.retrieved) - before:
        outcome["reference_ids"] = [r["case_id"] for r in redacted.get("references", ())]
    if action.name == "resolve_empirical_priors":
        outcome["priors"] = episode.context.priors_used[-1]
    if action.name == "leakage_check":
        outcome["leakage_check"] = redacted
    return None, outcome


def _fail(episode: Episode, record: dict[str, Any], status: str, reason: str) -> None:
    episode.status, episode.failure = status, reason
    record["error"] = reason


def _read(episode: Episode, answer: Answer, record: dict[str, Any]) -> Turn | None:
    """The turn's action, or None when the answer fails the case (size, numbers)."""
    size = answer_bytes(answer)
    if size > MAX_ANSWER_BYTES:
        _fail(episode, record, TOO_LARGE, f"answer of {size:,} bytes over the "
              f"{MAX_ANSWER_BYTES:,}-byte cap")
        return None
    turn = read_turn(answer.text, answer.tool_calls)
    check_name(turn)
    try:
        check_numbers(turn.arguments, f"step {record['step']} {turn.name or 'action'} arguments")
    except BoundaryError as error:
        _fail(episode, record, INVALID, str(error))
        return None
    return turn


def advance(episode: Episode, answer: Answer, step: int) -> list[dict[str, Any]]:
    """Apply the model's turn ``answer`` of step ``step`` (0-based) to ``episode``; append the
    trace record. Returns the messages appended (assistant turn, observations)."""
    calls = canonical_calls(answer.tool_calls)
    record: dict[str, Any] = {"case_id": episode.context.case_id, "step": step + 1,
                              "answer": answer.text, "reasoning": answer.reasoning,
                              "tool_calls": list(calls or ()),
                              "finish_reason": answer.finish_reason, "usage": answer.usage}
    episode.steps.append(record)
    episode.usage.update(answer.usage)
    turn = _read(episode, answer, record)
    if turn is None:
        return []
    record.update(action=turn.name if turn.name in ACTION_BY_NAME else None,
                  arguments=turn.arguments if turn.error is None else None, via=turn.via)
    added = [assistant_message(answer.text, calls)]
    steps_left = episode.max_steps - step - 1
    body: dict[str, Any] = {"step": step + 1, "action": record["action"], "steps_left": steps_left}
    final = None
    if turn.error is None:
        try:
            final, outcome = _run_action(episode, turn)
            record.update(outcome)
            if "observation" in outcome:
                body["observation"] = outcome["observation"]
        except ActionError as error:
            turn.error = str(error)
    record["error"] = turn.error
    if final is not None:
        episode.messages.extend(added)
        episode.status, episode.final = FINAL_STATUS, final
        record["final"] = final
        return added
    if turn.error is not None:
        body["error"] = turn.error
    added += observation_messages(turn, body)
    episode.messages.extend(added)
    size = conversation_bytes(episode.messages)
    if size > MAX_CONVERSATION_BYTES:
        _fail(episode, record, TOO_LARGE, f"conversation of {size:,} bytes over the "
              f"{MAX_CONVERSATION_BYTES:,}-byte cap")
    elif steps_left == 0:
        episode.status = BUDGET
        episode.failure = f"{episode.max_steps} steps without an accepted final_predict"
    return added


def gate_hits(episode: Episode) -> list[dict[str, Any]]:
    """The gate's hits over every observation payload of ``episode`` so far (see
    :mod:`ecthr_npd.agent.gate`), each with its step."""
    context = episode.context
    hits = []
    for record in episode.steps:
        if "observation" not in record:
            continue
        strict, lenient = scan_texts(record["action"], record["observation"], context)
        found = context.scanner.scan_text(strict)
        if context.lenient_scanner is not None:
            found += context.lenient_scanner.scan_text(lenient)
        hits += [{"step": record["step"], **hit} for hit in found]
    return hits


def final_gate(episode: Episode) -> None:
    """Scan every observation sent for the case; a hit makes the episode a ``leakage``
    failure (unless it failed already). Sets ``episode.gate``."""
    hits = gate_hits(episode)
    episode.gate = {"passed": not hits, "hits": hits, "scanned": episode.context.scanner.scanned}
    if hits and episode.status in (FINAL_STATUS, RUNNING, BUDGET):
        episode.status = LEAKAGE
        episode.failure = (f"leakage gate: {len(hits)} withheld value(s) in the observations "
                           f"({', '.join(sorted({h['kind'] for h in hits}))})")
