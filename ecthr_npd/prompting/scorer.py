"""The ECtHR-NPD scorer and metrics on Inspect, computed by the benchmark's metric modules.

:func:`award_scorer` reads a sample's prediction — the agent's accepted ``final_predict``
(the solver leaves it in the store, :data:`AGENT_KEY`), else the award parsed from the answer
(:func:`ecthr_npd.prompting.parsing.parse_award`; an answer cut at the token limit before its
JSON object is no answer) — applies the fallback to a failed sample (the training median, or
none) and scores the absolute error in EUR. Its metadata holds ``prediction`` (what
``courtbench evaluate`` reads from an Inspect log), ``source``, ``status``, ``reason``,
``parse_method`` and ``reference`` (the gold award, for the metrics).

:func:`award_metrics` computes, over the samples with a prediction, MAE, Zero-F1 and the MAE's
bootstrap interval (1,000 resamples, seed 42) with the metric modules' own functions
(``npd_regression``, ``zero_f1``, ``bootstrap_mae``, loaded by path with
:func:`courtbench.metric_modules.load_metric_module`), overall and per test view
(``ID/mae`` …; views overlap, so each view is its own group).
"""

from __future__ import annotations

from typing import Any

from inspect_ai.scorer import SampleScore, Score, Target, metric, scorer
from inspect_ai.solver import TaskState

from courtbench.inspect_glue import PREDICTION_KEY
from ecthr_npd.prompting.parsing import parse_award

AGENT_KEY = "ecthr_npd_agent"
BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 42
VIEW_ORDER = ("ID", "OOD", "Challenging")


def _module(name: str):
    from courtbench.metric_modules import load_metric_module

    return getattr(load_metric_module(name), name)


def _module_file(name: str):
    from courtbench.metric_modules import load_metric_module

    return load_metric_module(name)


def figures(predictions: list[float], references: list[float]) -> dict[str, float]:
    """MAE, Zero-F1 and the MAE's bootstrap interval of one group (empty: nothing)."""
    if not predictions:
        return {}
    regression = _module("npd_regression")(predictions=predictions, references=references)
    zero = _module("zero_f1")(predictions=predictions, references=references)
    interval = _module_file("bootstrap_mae").bootstrap_mae_single(
        predictions=predictions, references=references, n_resamples=BOOTSTRAP_RESAMPLES,
        seed=BOOTSTRAP_SEED)
    return {"mae": regression["mae"], "zero_f1": zero["zero_f1"],
            "mae_ci_low": interval["ci_low"], "mae_ci_high": interval["ci_high"],
            "n": float(len(predictions))}


@metric
def award_metrics():
    """MAE, Zero-F1 and bootstrap interval, overall and per view (see the module docstring)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        groups: dict[str, tuple[list[float], list[float]]] = {"all": ([], [])}
        for item in scores:
            data = item.score.metadata or {}
            if data.get(PREDICTION_KEY) is None:
                continue
            names = ["all", *((item.sample_metadata or {}).get("views") or ())]
            for name in names:
                predictions, references = groups.setdefault(name, ([], []))
                predictions.append(float(data[PREDICTION_KEY]))
                references.append(float(data["reference"]))
        result: dict[str, float] = {}
        for name in ("all", *VIEW_ORDER):
            if name in groups:
                for key, value in figures(*groups[name]).items():
                    result[key if name == "all" else f"{name}/{key}"] = value
        return result

    return compute


def model_prediction(state: TaskState) -> dict[str, Any]:
    """``{"value", "status", "reason", "method"}`` of a sample's own answer (no fallback)."""
    agent = state.store.get(AGENT_KEY)
    if agent is not None:
        return {"value": agent.get("prediction"), "status": agent["status"],
                "reason": agent.get("reason"), "method": "final_predict"}
    parsed = parse_award(state.output.completion if state.output else None)
    stop = state.output.stop_reason if state.output else None
    if parsed.value is None:
        return {"value": None, "status": "answer_failed", "reason": parsed.error,
                "method": parsed.method}
    if parsed.method != "json" and stop == "max_tokens":
        return {"value": None, "status": "answer_failed", "method": parsed.method,
                "reason": f"answer cut at the token limit before the JSON object; the "
                          f"{parsed.method} rule would have read {parsed.value:g}"}
    return {"value": parsed.value, "status": "ok", "reason": None, "method": parsed.method}


def with_fallback(found: dict[str, Any], fallback: float | None) -> tuple[float | None, str | None]:
    """(the prediction written, its source) of a sample's answer and the fallback."""
    if found["status"] == "ok":
        return found["value"], "model"
    if fallback is not None:
        return fallback, "fallback_train_median"
    return None, None


@scorer(metrics=[award_metrics()])
def award_scorer(fallback: float | None = None):
    """Absolute error (EUR) of each sample's prediction; ``fallback`` (EUR) fills a failed
    answer (None: the sample has no prediction and no score value). The metric modules are
    imported here, before the run (importing ``evaluate`` takes seconds: inside the run it
    would hold every request in flight)."""
    for name in ("npd_regression", "zero_f1", "bootstrap_mae"):
        _module_file(name)

    async def score(state: TaskState, target: Target) -> Score:
        reference = float(target.text)
        found = model_prediction(state)
        prediction, source = with_fallback(found, fallback)
        return Score(value=abs(prediction - reference) if prediction is not None else float("nan"),
                     answer=None if prediction is None else repr(prediction),
                     explanation=found["reason"],
                     metadata={PREDICTION_KEY: prediction, "source": source,
                               "status": found["status"], "reason": found["reason"],
                               "parse_method": found["method"], "reference": reference})

    return score
