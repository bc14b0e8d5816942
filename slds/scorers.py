"""The SLDS scorers on Inspect, computed by the benchmark's metric modules.

:func:`headnote_scorer` takes the sample's answer (reasoning split off:
:func:`courtbench.inspect_glue.reasoning.split_reasoning`) as its prediction
(``Score.metadata["prediction"]``, what ``courtbench evaluate`` reads from an Inspect log) with
the gold headnote as ``reference``; with ``similarity`` options its metric is ROUGE-1/2/L, BLEU
and (``bertscore``) BERTScore per language pair (``de_fr/rougeL`` …) and macro-averaged
(``rougeL`` …) by the ``headnote_similarity`` module's own function.

:func:`judge_scorer` asks the grader model (``--model-role grader=...``; ``courtbench judge``
runs the judge as the task's model) to rate the prediction against the gold headnote with the
``headnote_judge`` module's templates and parses the answer with the module's own parse
functions, in its ``strict`` or ``published`` mode (:func:`judge_record`). Its metric is the
module's aggregate: ``judge`` (mean 0–100), ``judge_macro`` and ``<pair>/judge``.

Metric modules are loaded when a scorer is created (importing ``evaluate`` inside a run would
hold every request in flight for seconds).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from inspect_ai.model import (
    CachePolicy,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    get_model,
)
from inspect_ai.scorer import SampleScore, Score, Target, metric, scorer
from inspect_ai.solver import TaskState

from courtbench.inspect_glue import PREDICTION_KEY
from courtbench.inspect_glue.outcomes import message_reasoning, readable_error
from courtbench.inspect_glue.reasoning import split_reasoning
from courtbench.metric_modules import load_metric_module

SIMILARITY = ("rouge1", "rouge2", "rougeL", "bleu")
BERTSCORE = ("bertscore_precision", "bertscore_recall", "bertscore_f1")


def answer_of(state: TaskState) -> tuple[str | None, str | None]:
    """(answer, reasoning) of a sample's output: ``None`` answer without an output."""
    if state.output is None or not state.output.choices:
        return None, None
    answer, reasoning, _ = split_reasoning(state.output.completion)
    parts = (message_reasoning(state.output.choices[0].message), reasoning)
    return answer, "\n\n".join(p for p in parts if p) or None


@metric
def headnote_metrics(rouge_tokenizer: str = "unicode", bleu_tokenize: str = "13a",
                     bertscore: bool = False, bertscore_model_path: str | None = None,
                     resamples: int = 1000, seed: int = 0):
    """ROUGE / BLEU (/ BERTScore) macro and per pair of the samples with a prediction."""
    similarity = load_metric_module("headnote_similarity").headnote_similarity
    names = SIMILARITY + (BERTSCORE if bertscore else ())

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        rows = [(item.score.metadata[PREDICTION_KEY], item.score.metadata["reference"],
                 item.sample_metadata["headnote_language"],
                 item.sample_metadata["decision_language"])
                for item in scores if (item.score.metadata or {}).get(PREDICTION_KEY) is not None]
        if not rows:
            return {}
        result = similarity(*map(list, zip(*rows, strict=True)), rouge_tokenizer=rouge_tokenizer,
                            bleu_tokenize=bleu_tokenize, bertscore=bertscore,
                            bertscore_model_path=bertscore_model_path,
                            bootstrap_resamples=resamples, seed=seed)
        values = {name: float(result[name]) for name in names}
        for pair, group in sorted(result["groups"].items()):
            values.update({f"{pair}/{name}": float(group[name]) for name in names})
        return values

    return compute


def headnote_scorer(similarity: dict[str, Any] | None = None):
    """The prediction of each sample (see the module docstring); ``similarity``: the options
    of :func:`headnote_metrics` (None: no corpus metric, the prediction only)."""

    @scorer(metrics=[headnote_metrics(**similarity)] if similarity is not None else [],
            name="headnote")
    def headnote():
        async def score(state: TaskState, target: Target) -> Score:
            answer, reasoning = answer_of(state)
            return Score(value=float(bool(answer and answer.strip())), answer=answer,
                         metadata={PREDICTION_KEY: answer, "reference": target.text,
                                   "reasoning": reasoning})

        return score

    return headnote()


@metric
def judge_metrics(failed_as_zero: bool = False):
    """The judge module's aggregate of the samples' judge records."""
    aggregate = load_metric_module("headnote_judge").aggregate

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        records = [item.score.metadata for item in scores if item.score.metadata]
        if not records:
            return {}
        result = aggregate(records, failed_as_zero=failed_as_zero)
        values = {"judge": result["score"], "judge_macro": result["macro_score"]}
        values.update({f"{pair}/judge": group["score"]
                       for pair, group in sorted(result["by_language_pair"].items())})
        return {name: float(value) for name, value in values.items() if value is not None}

    return compute


def judge_messages(module, templates, gold: str, prediction: str, language: str) -> list:
    """The judge's chat for one sample (the module's templates; headnotes as JSON strings)."""
    roles = {"system": ChatMessageSystem, "user": ChatMessageUser}
    return [roles[m["role"]](content=m["content"])
            for m in module.render_messages(templates, gold, prediction, language)]


@dataclass(frozen=True)
class JudgeAnswer:
    """One judge answer as the module's ``sample_record`` reads it."""

    answer: str | None
    reasoning: str | None
    error: str | None
    finish_reason: str | None
    cached: bool = False


def judge_record(module, sample_id, pair: str, output, error: str | None, *, parse: str,
                 max_tokens: int, max_answer_chars: int | None = None) -> dict[str, Any]:
    """The module's per-sample record (status ``scored`` / ``unparsed`` / ``request_failed``,
    score 0–100, category scores, reason, raw answer) of one judge answer or error; an answer
    longer than ``max_answer_chars`` (with its reasoning) is a failed request."""
    answer = reasoning = stop = None
    if error is None and output is not None:
        answer, reasoning, _ = split_reasoning(output.completion)
        stop = "length" if output.stop_reason == "max_tokens" else output.stop_reason
        size = len(answer or "") + len(reasoning or "")
        if max_answer_chars is not None and size > max_answer_chars:
            error = f"answer of {size:,} characters over --max-answer-chars {max_answer_chars:,}"
            answer = reasoning = None
    result = JudgeAnswer(answer, reasoning, error, stop)
    return module.sample_record(sample_id, pair, result, max_tokens, parse)


def judge_scorer(*, parse: str = "strict", failed_as_zero: bool = False,
                 system_template=None, user_template=None, demonstrations=None,
                 max_tokens: int = 2048, seed: int | None = 0, temperature: float = 0.0,
                 max_answer_chars: int | None = None, grader_required: bool = True,
                 cache: bool = True):
    """The grader's judgement of each sample's prediction (see the module docstring).

    ``grader_required``: the grader role must be bound (``inspect eval``); otherwise the
    task's own model judges (``courtbench judge``). Templates and demonstrations as the
    module's ``load_templates`` takes them (text or files). A judge request that fails after
    Inspect's retries is the sample's ``request_failed`` record, never the run's end.
    """
    module = load_metric_module("headnote_judge")
    templates = module.load_templates(system_template, user_template, demonstrations)
    config = GenerateConfig(**module.judge_params(max_tokens, seed, temperature))
    policy = CachePolicy(expiry=None) if cache else False

    @scorer(metrics=[judge_metrics(failed_as_zero=failed_as_zero)], name="judge")
    def judge():
        async def score(state: TaskState, target: Target) -> Score:
            grader = get_model(role="grader", required=grader_required)
            answer, _ = answer_of(state)
            metadata = state.metadata or {}
            messages = judge_messages(module, templates, target.text, answer or "",
                                      metadata["headnote_language"])
            output, error = None, None
            try:
                output = await grader.generate(messages, config=config, cache=policy)
            except Exception as problem:  # noqa: BLE001 - a failed request is the sample's record
                error = readable_error(f"{type(problem).__name__}: {problem}")
            record = judge_record(module, state.sample_id, metadata["config"], output, error,
                                  parse=parse, max_tokens=max_tokens,
                                  max_answer_chars=max_answer_chars)
            return _judged(record)

        return score

    return judge()


def _judged(record: dict) -> Score:
    """The Inspect score of one judge record (NaN when the sample was not scored)."""
    value = record["score"]
    return Score(value=math.nan if value is None else value, explanation=record["reason"],
                 metadata=record)


def judged_scorer(*, parse: str = "strict", failed_as_zero: bool = False,
                  max_tokens: int = 2048, max_answer_chars: int | None = None):
    """``courtbench judge``: the task's model was the judge; its answer parsed into the
    module's per-sample record (as :func:`judge_scorer` does with the grader's)."""
    module = load_metric_module("headnote_judge")

    @scorer(metrics=[judge_metrics(failed_as_zero=failed_as_zero)], name="judge")
    def judge():
        async def score(state: TaskState, target: Target) -> Score:
            record = judge_record(module, state.sample_id, state.metadata["config"],
                                  state.output, None, parse=parse, max_tokens=max_tokens,
                                  max_answer_chars=max_answer_chars)
            return _judged(record)

        return score

    return judge()
