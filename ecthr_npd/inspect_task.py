"""ECtHR-NPD as an Inspect AI task: ``inspect eval courtbench/ecthr_npd``.

::

    inspect eval courtbench/ecthr_npd --model <provider/model> -T data=<built folder or Hub id>
        -T prompt=zero_shot|cot|few_shot|react -T input=serialised|facts [-T split=test]

Dataset: one sample per case of ``split`` (``test``, ``validation`` or ``validation,test``;
:mod:`ecthr_npd.prompting.samples`). Solver: ``generate()`` on the prompt kind's chat
(:mod:`ecthr_npd.prompting.prompts`, few-shot references by the paper's Appendix C.6), or
the ReAct agent (:mod:`ecthr_npd.agent.solver`). Scorer: absolute error of the parsed award,
MAE / Zero-F1 / bootstrap interval per view by the metric modules
(:mod:`ecthr_npd.prompting.scorer`). The paper's prompted-LM settings are the task's
generation defaults: temperature 0, seed 42, 4,096 output tokens. ``courtbench predict
ecthr_npd`` runs this same task.
"""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.model import GenerateConfig
from inspect_ai.solver import generate

PROMPTS = ("zero_shot", "cot", "few_shot", "react")
INPUTS = ("serialised", "facts")
FALLBACKS = ("train_median", "none")
SETTINGS = {"temperature": 0.0, "seed": 42, "max_tokens": 4096}


def load_data(data: str | Path, *, facts: bool = False):
    """A built folder, or a Hub dataset id fetched with huggingface_hub, as BenchmarkData."""
    from courtbench.errors import CourtbenchError
    from ecthr_npd.data import load_benchmark

    folder = Path(data)
    if not folder.exists() and "/" in str(data) and not str(data).startswith((".", "/")):
        from huggingface_hub import snapshot_download

        try:
            folder = Path(snapshot_download(str(data), repo_type="dataset"))
        except Exception as error:  # noqa: BLE001 - any Hub failure is one line
            raise CourtbenchError(f"data {data}: not a folder, and the Hub dataset could not "
                                  f"be fetched ({type(error).__name__})") from None
    return load_benchmark(folder, facts=facts)


def _choice(name: str, value: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ValueError(f"{name}={value!r}: expected one of {', '.join(choices)}")
    return value


@task
def ecthr_npd(data: str, prompt: str = "zero_shot", input: str = "serialised",
              split: str = "test", k: int = 5, max_input_words: int | None = None,
              fallback: str = "train_median", actions: str = "tools", max_steps: int = 12,
              top_k: int = 5, knowledge_base: str | None = None,
              min_prior_count: int = 5) -> Task:
    """The ECtHR-NPD award task (see the module docstring).

    Args:
        data: a folder built by ``courtbench build ecthr_npd``, or a Hub dataset id.
        prompt: ``zero_shot``, ``cot``, ``few_shot`` or ``react`` (the agent).
        input: ``serialised`` (the case's features as text) or ``facts`` (metadata and the
            reviewed Facts of the folder's ``facts`` config).
        split: ``test``, ``validation`` or ``validation,test``.
        k: few_shot references. max_input_words: cut longer Facts at a paragraph.
        fallback: ``train_median`` (a failed answer predicts the training median) or ``none``.
        actions, max_steps, top_k, knowledge_base, min_prior_count: the agent's options.
    """
    from ecthr_npd.prompting.samples import parse_splits

    _choice("prompt", prompt, PROMPTS)
    _choice("input", input, INPUTS)
    _choice("fallback", fallback, FALLBACKS)
    splits = parse_splits(split)
    return build_task(load_data(data, facts=input == "facts"), splits, prompt=prompt,
                      input_kind=input, k=k, max_input_words=max_input_words,
                      fallback=fallback, folder=Path(str(data)), actions=actions,
                      max_steps=max_steps, top_k=top_k, knowledge_base=knowledge_base,
                      min_prior_count=min_prior_count)


def build_task(benchmark, splits: tuple[str, ...], *, prompt: str, input_kind: str = "serialised",
               k: int = 5, max_input_words: int | None = None, budget=None,
               fallback: str = "train_median", folder: Path | None = None,
               actions: str = "tools", max_steps: int = 12, top_k: int = 5,
               knowledge_base: str | None = None, min_prior_count: int = 5,
               limit: int | None = None) -> Task:
    """The task of loaded data (``courtbench predict ecthr_npd`` calls this with its options;
    ``limit`` keeps the first cases only)."""
    import numpy as np

    from ecthr_npd.prompting.samples import prompted_cases, to_samples
    from ecthr_npd.prompting.scorer import award_scorer

    median = float(np.median(benchmark.target("train")))
    if prompt == "react":
        from ecthr_npd.agent.solver import agent_task_parts

        cases, solver, info = agent_task_parts(benchmark, splits, folder, actions=actions,
                                         max_steps=max_steps, top_k=top_k,
                                         knowledge_base=knowledge_base,
                                               min_prior_count=min_prior_count, limit=limit)
    else:
        info = {}
        cases = prompted_cases(benchmark, splits, prompt, k=k, input_kind=input_kind,
                               max_input_words=max_input_words, budget=budget, limit=limit)
        solver = generate()
    return Task(name="ecthr_npd", dataset=MemoryDataset(to_samples(cases), name="ecthr_npd"),
                solver=solver,
                scorer=award_scorer(median if fallback == "train_median" else None),
                config=GenerateConfig(**SETTINGS),
                metadata={"data_fingerprint": benchmark.fingerprint, "splits": list(splits),
                          "prompt": prompt, "input": input_kind, "train_median_eur": median,
                          **info})
