"""A scripted ReAct model for the agent tests and benchmark: plays one episode per case
against ``tests/helpers/fake_chat_server.py`` in tool-call or JSON-text mode.

:func:`scripted_agent` returns a responder ``(body, attempt) -> Reply`` that reads the step
from the number of assistant turns in the request and answers with the next action of a
script (a list of ``(name, arguments)``, or a callable of the previous observation). The
final award is a function of the observations it saw (the first prior's median), so a
test can check that predictions come from the episode.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from fake_chat_server import Reply

USAGE = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}

HAPPY = ("inspect_case", "search_modules", "load_module", "resolve_empirical_priors",
         "retrieve_train_references", "query_reference_features",
         "assess_aggregation_pattern", "leakage_check", "final_predict")


def observations(body: dict) -> list[dict]:
    """Every observation JSON of a request, in order (tool or user messages)."""
    found = []
    for message in body["messages"][2:]:
        content = message.get("content") or ""
        if message["role"] == "tool":
            found.append(json.loads(content))
        elif message["role"] == "user" and content.startswith("Observation:\n"):
            found.append(json.loads(content.split("\n", 1)[1]))
    return found


def step_of(body: dict) -> int:
    """0-based step: the assistant turns already in the conversation."""
    return sum(m["role"] == "assistant" for m in body["messages"])


def default_arguments(name: str, seen: list[dict]) -> dict[str, Any]:
    """Arguments of the happy path's actions, from what the episode has seen."""
    if name == "load_module":
        return {"name": "policy/output_schema"}
    if name == "query_reference_features":
        for obs in reversed(seen):
            refs = (obs.get("observation") or {}).get("references")
            if refs:
                return {"case_id": refs[0]["case_id"]}
        return {"case_id": "001-0000"}
    if name == "final_predict":
        award = 1234.0
        for obs in seen:
            per_article = (obs.get("observation") or {}).get("per_article")
            if per_article:
                award = float(per_article[0]["median_eur"])
        return {"award_eur": award, "zero_decision": "zero" if award == 0 else "positive",
                "aggregation_scale": "single", "uncertainty": "medium",
                "rationale_summary": "Prior median of the first article."}
    return {}


def action_reply(name: str, arguments: Any, *, mode: str, step: int, think: bool = False,
                 raw_arguments: str | None = None) -> Reply:
    """One action as a tool call (``mode == "tools"``) or as JSON text."""
    text = raw_arguments if raw_arguments is not None else json.dumps(arguments)
    if mode == "tools":
        call = {"id": f"call-{step}", "type": "function",
                "function": {"name": name, "arguments": text}}
        return Reply("<think>choosing the next action</think>" if think else None,
                     tool_calls=[call], finish_reason="tool_calls", usage=USAGE)
    body = f'{{"action": "{name}", "arguments": {text}}}'
    prefix = "<think>choosing the next action</think>\n" if think else ""
    return Reply(prefix + body, usage=USAGE)


Script = Sequence[str] | Callable[[dict, int], Reply]


def scripted_agent(mode: str, script: Script = HAPPY, *, think: bool = False
                   ) -> Callable[[dict, int], Reply]:
    """A responder playing ``script`` (action names, arguments from :func:`default_arguments`;
    past its end it repeats the last action)."""
    def respond(body: dict, attempt: int) -> Reply:
        step = step_of(body)
        if callable(script):
            return script(body, step)
        name = script[min(step, len(script) - 1)]
        return action_reply(name, default_arguments(name, observations(body)), mode=mode,
                            step=step, think=think)
    return respond
