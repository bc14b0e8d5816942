"""The ReAct agent as an Inspect solver: one bounded conversation per sample (case).

Each step asks the task's model (``get_model().generate``: Inspect's providers, retries,
cache and log) for one turn — the whitelisted actions offered as Inspect tools
(``ToolInfo`` from :data:`ecthr_npd.agent.actions.ACTIONS`) in ``tools`` mode, described in
the system prompt in ``json`` mode — and applies it with
:func:`ecthr_npd.agent.controller.advance` (validation, redaction, caps); the observation goes
back as an Inspect tool message (or user message). The Inspect log holds every model call of
the conversation (``inspect view`` shows it); the sample's store holds the outcome
(:data:`ecthr_npd.prompting.scorer.AGENT_KEY`: status, prediction, reason) and the trace
records (:data:`TRACE_KEY`) from which ``courtbench predict`` writes ``NAME.traces.jsonl``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageTool,
    ChatMessageUser,
    get_model,
)
from inspect_ai.solver import Generate, TaskState, solver
from inspect_ai.tool import ToolInfo, ToolParams

from courtbench.inspect_glue.outcomes import split_reasoning
from ecthr_npd import schema
from ecthr_npd.agent.actions import ACTIONS, CaseContext, readable
from ecthr_npd.agent.controller import RUNNING, Answer, Episode, advance, final_gate
from ecthr_npd.agent.leakage import LeakageScanner
from ecthr_npd.agent.protocol import first_messages
from ecthr_npd.prompting.scorer import AGENT_KEY

TRACE_KEY = "ecthr_npd_trace"


def tool_infos() -> list[ToolInfo]:
    """Every action as an Inspect ``ToolInfo`` (the same JSON schemas)."""
    return [ToolInfo(name=a.name, description=a.description,
                     parameters=ToolParams.model_validate(a.parameters)) for a in ACTIONS]


def _tool_calls(message: ChatMessageAssistant) -> tuple | None:
    """Inspect tool calls as the controller reads them (OpenAI's dict form; arguments that
    did not parse become text that does not decode either)."""
    if not message.tool_calls:
        return None
    calls = []
    for call in message.tool_calls:
        arguments = "\x00" if call.parse_error else json.dumps(call.arguments)
        calls.append({"id": call.id, "type": "function",
                      "function": {"name": call.function, "arguments": arguments}})
    return tuple(calls)


def _answer(output) -> Answer:
    """One turn: the answer text without ``<think>`` blocks (Inspect parses them out of a
    plain answer, not out of one with tool calls), the reasoning, calls, stop reason, usage."""
    message = output.message
    reasoning = [c.reasoning for c in message.content if getattr(c, "type", None) == "reasoning"] \
        if isinstance(message.content, list) else []
    text, think, _ = split_reasoning(output.completion)
    if think and think not in reasoning:
        reasoning.append(think)
    usage = output.usage
    return Answer(text=text, reasoning="\n\n".join(reasoning) or None,
                  tool_calls=_tool_calls(message), finish_reason=output.stop_reason,
                  usage={"prompt_tokens": int(usage.input_tokens) if usage else 0,
                         "completion_tokens": int(usage.output_tokens) if usage else 0,
                         "total_tokens": int(usage.total_tokens) if usage else 0})


def _inspect_messages(added: list[dict[str, Any]], output, text: str | None) -> list:
    """The controller's new messages as Inspect messages: the model's own turn without its
    reasoning (kept in the log and the trace, never sent back), the observations."""
    result = []
    for message in added:
        if message["role"] == "assistant":
            result.append(ChatMessageAssistant(content=text or "",
                                               tool_calls=output.message.tool_calls,
                                               model=output.message.model))
        elif message["role"] == "tool":
            result.append(ChatMessageTool(content=message["content"],
                                          tool_call_id=message["tool_call_id"]))
        else:
            result.append(ChatMessageUser(content=message["content"]))
    return result


class AgentSetup:
    """What every episode of a run shares; :meth:`episode` builds one case's."""

    def __init__(self, data, resources, *, mode: str, max_steps: int, audit: dict,
                 applicant_awards: dict) -> None:
        from ecthr_npd.agent.run import RECORD_COLUMNS

        self.resources, self.mode, self.max_steps = resources, mode, max_steps
        self.train_ids = frozenset(data.ids("train"))
        self.training_awards = frozenset(round(float(a), 2) for a in data.target("train"))
        self.audit, self.applicant_awards = audit, applicant_awards
        self.records, self.awards = {}, {}
        for split in ("validation", "test"):
            table = data.splits[split]
            days = table.column("judgment_date").cast("int32").to_pylist()
            for record, award, day in zip(table.select(list(RECORD_COLUMNS)).to_pylist(),
                                          data.target(split), days, strict=True):
                self.records[record[schema.ID_COLUMN]] = (record, day, split)
                self.awards[record[schema.ID_COLUMN]] = float(award)
        self.policy = [m for m in resources.knowledge.modules.values() if m.source == "policy"]

    def first_messages(self) -> list[dict[str, Any]]:
        return first_messages(self.mode, self.policy, self.max_steps)

    def episode(self, case_id: str) -> Episode:
        record, day, split = self.records[case_id]
        award = self.awards[case_id]
        audit = self.audit.get(case_id, {})
        applicants = self.applicant_awards.get(case_id, ())
        context = CaseContext(
            case_id, split, record, day, self.resources,
            LeakageScanner(award, audit, applicants, frozenset()),
            messages=self.first_messages(),
            lenient_scanner=LeakageScanner(award, audit, applicants, self.training_awards),
            target_features=readable(record, tuple(c for c in schema.INPUT_COLUMNS)))
        return Episode(context, self.max_steps, self.train_ids)


def outcome(episode: Episode) -> dict[str, Any]:
    """The store's outcome record of a finished episode (status ``ok`` when accepted)."""
    accepted = episode.status == "final"
    return {"status": "ok" if accepted else episode.status,
            "prediction": episode.final["award_eur"] if accepted else None,
            "reason": episode.failure, "steps": len(episode.steps), "final": episode.final,
            "references": list(dict.fromkeys(episode.context.retrieved)),
            "priors_used": episode.context.priors_used,
            "modules_loaded": episode.context.modules_loaded, "leakage_gate": episode.gate,
            "usage": {k: int(episode.usage.get(k, 0)) for k in
                      ("prompt_tokens", "completion_tokens", "total_tokens")}}


def _safe(value: Any) -> Any:
    """``value`` with every non-finite float or huge integer as text (strict JSON)."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2**63:
        return f"<integer of {len(str(abs(value)))} digits>"
    if isinstance(value, dict):
        return {str(k): _safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_safe(v) for v in value]
    return value


@solver
def react_agent(setup: AgentSetup):
    """The agent's loop (see the module docstring)."""
    tools = tool_infos() if setup.mode == "tools" else []

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        episode = setup.episode(str(state.sample_id))
        for step in range(setup.max_steps):
            output = await (model.generate(state.messages, tools=tools, tool_choice="auto")
                            if tools else model.generate(state.messages))
            state.output = output
            answer = _answer(output)
            added = advance(episode, answer, step)
            state.messages.extend(_inspect_messages(added, output, answer.text))
            if episode.status != RUNNING:
                break
        final_gate(episode)
        state.store.set(AGENT_KEY, _safe(outcome(episode)))
        state.store.set(TRACE_KEY, _safe(episode.steps))
        return state

    return solve


def agent_task_parts(data, splits: tuple[str, ...], folder: Path | None, *, actions: str,
                     max_steps: int, top_k: int, knowledge_base: str | None,
                     min_prior_count: int, limit: int | None = None
                     ) -> tuple[list, Any, dict[str, Any]]:
    """``(cases, solver, info)`` of the agent task: one case per test/validation case of
    ``splits`` (its first messages, target, metadata), the :func:`react_agent` solver and what
    the manifest records of it (priors binding, knowledge-base modules)."""
    from ecthr_npd.agent.protocol import MODES
    from ecthr_npd.agent.run import build_resources, read_audit_side
    from ecthr_npd.prompting.samples import views_by_case

    if actions not in MODES:
        raise ValueError(f"actions={actions!r}: expected one of {', '.join(MODES)}")
    for name, value in (("max_steps", max_steps), ("top_k", top_k),
                        ("min_prior_count", min_prior_count)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name}={value!r}: expected an integer >= 1")
    resources = build_resources(data, top_k=top_k, min_count=min_prior_count,
                                knowledge_base=Path(knowledge_base) if knowledge_base else None)
    audit, applicant_awards = read_audit_side(folder) if folder is not None else ({}, {})
    setup = AgentSetup(data, resources, mode=actions, max_steps=max_steps, audit=audit,
                       applicant_awards=applicant_awards)
    views = views_by_case(data)
    cases = []
    for split in splits:
        for case_id, award in zip(data.ids(split), data.target(split), strict=True):
            cases.append({"id": case_id, "target": float(award),
                          "messages": setup.first_messages(),
                          "metadata": {"split": split, "views": views.get(case_id, [])}})
    info = {"priors": resources.priors.binding(), "knowledge_base": resources.knowledge.manifest()}
    return cases[:limit] if limit is not None else cases, react_agent(setup), info
