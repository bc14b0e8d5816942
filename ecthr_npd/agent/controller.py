"""Episodes: one bounded conversation per case, stepped across all cases at once.

:func:`run_episodes` sends, at step ``s``, the next request of every case still running as
one batch through ``send`` (:func:`courtbench.llm.run_chat`: cache, retries, ``concurrency``
requests in flight), so cases run in parallel and each case's steps in order. A cached step
is answered from the cache, so a killed run resumes by replaying each case's cached steps and
sending only what was never answered.

:func:`advance` applies one model turn to its episode: read the action
(:mod:`ecthr_npd.agent.protocol`), check it against the whitelist and its schema, run it
(:mod:`ecthr_npd.agent.actions`), redact the observation (:func:`ecthr_npd.agent.redaction.redact`)
and append the messages. Every turn counts toward ``max_steps``, a malformed or unknown one
included. Outcomes (``Episode.status``): ``final`` (``final_predict`` accepted), ``budget``
(steps exhausted), ``request_failed`` (the endpoint gave no answer), ``leakage`` (the final
gate found a withheld value; set by :func:`final_gate`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from courtbench.llm import ChatRequest
from ecthr_npd.agent.actions import (
    ACTION_BY_NAME,
    FINAL,
    ActionError,
    CaseContext,
    check_arguments,
    check_final,
)
from ecthr_npd.agent.protocol import (
    Turn,
    assistant_message,
    canonical_calls,
    check_name,
    observation_messages,
    read_turn,
)
from ecthr_npd.agent.redaction import RedactionContext, redact

RUNNING, FINAL_STATUS, BUDGET, REQUEST_FAILED, LEAKAGE = (
    "running", "final", "budget", "request_failed", "leakage")


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
    outcome = {"observation": redacted, "redacted": dropped}
    if set(episode.context.retrieved) - before:
        outcome["reference_ids"] = [r["case_id"] for r in redacted.get("references", ())]
    if action.name == "resolve_empirical_priors":
        outcome["priors"] = episode.context.priors_used[-1]
    if action.name == "leakage_check":
        outcome["leakage_check"] = redacted
    return None, outcome


def advance(episode: Episode, result, step: int) -> None:
    """Apply the model's answer ``result`` (a :class:`courtbench.llm.ChatResult`) of step
    ``step`` (0-based) to ``episode``; append the trace record."""
    calls = canonical_calls(result.tool_calls)
    record: dict[str, Any] = {"case_id": episode.context.case_id, "step": step + 1,
                              "answer": result.answer, "reasoning": result.reasoning,
                              "tool_calls": list(calls or ()),
                              "finish_reason": result.finish_reason, "usage": result.usage}
    episode.steps.append(record)
    if result.error is not None:
        episode.status, episode.failure = REQUEST_FAILED, result.error
        record["error"] = result.error
        return
    episode.usage.update(result.usage)
    turn = read_turn(result.answer, calls)
    check_name(turn)
    record.update(action=turn.name if turn.name in ACTION_BY_NAME else None,
                  arguments=turn.arguments if turn.error is None else None, via=turn.via)
    episode.messages.append(assistant_message(result.answer, calls))
    steps_left = episode.max_steps - step - 1
    body: dict[str, Any] = {"step": step + 1, "action": record["action"],
                            "steps_left": steps_left}
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
        episode.status, episode.final = FINAL_STATUS, final
        record["final"] = final
        return
    if turn.error is not None:
        body["error"] = turn.error
    episode.messages.extend(observation_messages(turn, body))
    if steps_left == 0:
        episode.status = BUDGET
        episode.failure = f"{episode.max_steps} steps without an accepted final_predict"


def final_gate(episode: Episode) -> None:
    """Scan every message sent for the case (the model's final turn excluded: it is not
    sent); a hit makes a ``final`` episode a ``leakage`` failure. Sets ``episode.gate``."""
    sent = episode.messages[:-1] if episode.status == FINAL_STATUS else episode.messages
    hits = episode.context.scanner.scan_messages(sent)
    episode.gate = {"passed": not hits, "hits": hits, "scanned": episode.context.scanner.scanned}
    if hits and episode.status in (FINAL_STATUS, RUNNING, BUDGET):
        episode.status = LEAKAGE
        episode.failure = (f"leakage gate: {len(hits)} withheld value(s) in the conversation "
                           f"({', '.join(sorted({h['kind'] for h in hits}))})")


def step_requests(episodes: Sequence[Episode], step: int, params: dict) -> list[ChatRequest]:
    """The requests of step ``step`` (0-based) of the running episodes, in case order."""
    return [ChatRequest(id=f"{e.context.case_id}/step-{step + 1}", messages=tuple(
        dict(m) for m in e.messages), params=dict(params)) for e in episodes
        if e.status == RUNNING]


def run_episodes(episodes: Sequence[Episode], params: dict,
                 send: Callable[[list[ChatRequest], int], Any]) -> Counter:
    """Run every episode to its end (see the module docstring); then the final gate.

    Args:
        episodes: the cases' episodes (their first messages in place).
        params: request parameters (temperature, seed, max_tokens, tools ...).
        send: ``send(requests, step)`` → a :class:`courtbench.llm.RunSummary`.

    Returns:
        Counts summed over the steps: ``requests``, ``sent``, ``cached``, ``failed``,
        ``attempts``, ``cache_corrupt``.
    """
    counts: Counter = Counter()
    max_steps = max((e.max_steps for e in episodes), default=0)
    for step in range(max_steps):
        running = [e for e in episodes if e.status == RUNNING]
        if not running:
            break
        summary = send(step_requests(running, step, params), step)
        counts.update(requests=len(running), sent=summary.sent, cached=summary.cached,
                      failed=summary.failed, attempts=summary.attempts,
                      cache_corrupt=summary.cache_corrupt)
        for episode, result in zip(running, summary.results, strict=True):
            advance(episode, result, step)
    for episode in episodes:
        final_gate(episode)
    return counts
