"""Per-sample outcomes of an Inspect log, as courtbench's runners write them out.

An :class:`SampleOutcome` holds what a predictions file, a responses file and a manifest need
of one sample: its id and metadata, the final answer text and reasoning, the stop reason,
token usage, the error (a failed request after Inspect's retries, a solver error), the score
(value, answer, metadata: where a courtbench scorer puts the prediction), the model calls sent
and those answered from the cache, and the sample's store (where an agent keeps its trace).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from courtbench.inspect_glue.reasoning import split_reasoning  # noqa: F401 - re-exported

USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "total_tokens")


@dataclass(frozen=True)
class SampleOutcome:
    """One sample of a run (see the module docstring)."""

    id: str
    metadata: dict[str, Any]
    answer: str | None
    reasoning: str | None
    stop_reason: str | None
    usage: dict[str, int]
    error: str | None
    score: dict[str, Any] | None
    sent: int = 0
    cached: int = 0
    store: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RunCounts:
    """Counts of a run: samples, model calls sent and read from the cache, samples with an
    error, answers cut at the token limit, summed usage."""

    samples: int
    sent: int
    cached: int
    errored: int
    truncated: int
    usage: dict[str, int]


def message_reasoning(message) -> str | None:
    """The reasoning parts of an assistant message, joined by blank lines (None: none)."""
    content = getattr(message, "content", None)
    if not isinstance(content, list):
        return None
    parts = [part.reasoning for part in content if getattr(part, "type", None) == "reasoning"
             and getattr(part, "reasoning", None)]
    return "\n\n".join(parts) or None


def _usage(sample) -> dict[str, int]:
    """Token usage summed over the sample's model calls, those answered from the cache
    included (Inspect's ``model_usage`` leaves them out)."""
    totals = dict.fromkeys(USAGE_FIELDS, 0)
    calls = [e.output.usage for e in sample.events or ()
             if getattr(e, "event", None) == "model" and e.output is not None and e.output.usage]
    for usage in calls or (sample.model_usage or {}).values():
        totals["prompt_tokens"] += int(usage.input_tokens or 0)
        totals["completion_tokens"] += int(usage.output_tokens or 0)
        totals["total_tokens"] += int(usage.total_tokens or 0)
    return totals


def _calls(sample) -> tuple[int, int]:
    """(model calls sent, model calls answered from the cache) of a sample's events."""
    sent = cached = 0
    for event in sample.events or ():
        if getattr(event, "event", None) == "model":
            if event.cache == "read":
                cached += 1
            else:
                sent += 1
    return sent, cached


_RETRY = re.compile(r"^RetryError\(<Future at \S+ state=finished raised (\w+)>\)$")


def readable_error(message: str) -> str:
    """An Inspect sample error as one readable line (a tenacity RetryError names the
    exception retried)."""
    text = " ".join(str(message).split())
    match = _RETRY.match(text)
    if match:
        return f"{match.group(1)} (gave up after the retries)"
    return text[:2000]


def _score(sample) -> dict[str, Any] | None:
    if not sample.scores:
        return None
    score = next(iter(sample.scores.values()))
    return {"value": score.value, "answer": score.answer, "explanation": score.explanation,
            "metadata": dict(score.metadata or {})}


def sample_outcome(sample) -> SampleOutcome:
    """The :class:`SampleOutcome` of one Inspect ``EvalSample``."""
    output = sample.output
    message = output.choices[0].message if output and output.choices else None
    stop = output.choices[0].stop_reason if output and output.choices else None
    error = readable_error(sample.error.message) if sample.error else None
    sent, cached = _calls(sample)
    return SampleOutcome(
        id=str(sample.id), metadata=dict(sample.metadata or {}),
        answer=output.completion if output and output.choices else None,
        reasoning=message_reasoning(message), stop_reason=stop, usage=_usage(sample), error=error,
        score=_score(sample), sent=sent, cached=cached, store=dict(sample.store or {}))


def sample_outcomes(log) -> list[SampleOutcome]:
    """Every sample of an ``EvalLog`` in dataset order (epoch 1)."""
    order = {str(i): n for n, i in enumerate(log.eval.dataset.sample_ids or ())}
    samples = [s for s in log.samples or () if s.epoch == 1]
    samples.sort(key=lambda s: order.get(str(s.id), len(order)))
    return [sample_outcome(s) for s in samples]


def run_counts(outcomes: list[SampleOutcome]) -> RunCounts:
    """The :class:`RunCounts` of a run's outcomes."""
    usage: Counter = Counter()
    for outcome in outcomes:
        usage.update(outcome.usage)
    return RunCounts(samples=len(outcomes), sent=sum(o.sent for o in outcomes),
                     cached=sum(o.cached for o in outcomes),
                     errored=sum(o.error is not None for o in outcomes),
                     truncated=sum(o.stop_reason == "max_tokens" for o in outcomes),
                     usage={k: int(usage.get(k, 0)) for k in USAGE_FIELDS})
