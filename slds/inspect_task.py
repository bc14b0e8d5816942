"""SLDS as an Inspect AI task: ``inspect eval courtbench/slds``.

::

    inspect eval courtbench/slds --model <provider/model> -T data=<built folder or Hub id>
        -T config=<pair>|all [-T preset=published] --model-role grader=<provider/judge-model>

Dataset: one sample per row of ``split`` in the pair (``all``: the nine pairs), its chat built
by :mod:`slds.prompting` (the pair's one-shot example as a user/assistant exchange, never a
sample's own). Solver: ``generate()`` with the preset's decoding; top-k and the repetition
penalty go in the request body where the model's family accepts them
by its name whatever the host
(:func:`courtbench.inspect_glue.options.refused_parameters`: GPT, DeepSeek and Claude names lose
both, Anthropic's own API keeps top-k; providers with a top-k setting get it natively). Scorers (:mod:`slds.scorers`): the prediction with ROUGE / BLEU (/
BERTScore) per pair and macro by the ``headnote_similarity`` module, and the headnote judge
run by the grader model (``-T judge=false`` leaves it out; ``-T judge_parse=published``).
``courtbench generate slds`` runs this same task; ``courtbench judge slds`` runs
:func:`judge_task`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    get_model,
)
from inspect_ai.solver import Generate, TaskState, generate, solver

from courtbench.inspect_glue.options import sampling_config

PARSE_MODES = ("strict", "published")


def data_folder(data: str | Path) -> Path:
    """A built folder, or a Hub dataset id fetched with huggingface_hub (its local copy)."""
    from courtbench.errors import CourtbenchError

    folder = Path(data)
    if folder.exists() or "/" not in str(data) or str(data).startswith((".", "/")):
        return folder
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(str(data), repo_type="dataset"))
    except Exception as error:  # noqa: BLE001 - any Hub failure is one line
        raise CourtbenchError(f"data {data}: not a folder, and the Hub dataset could not be "
                              f"fetched ({type(error).__name__})") from None


def to_samples(items: list[dict[str, Any]]) -> list[Sample]:
    """Inspect samples of :func:`slds.prompting.headnote_items` (the decision text is in the
    input only)."""
    roles = {"system": ChatMessageSystem, "user": ChatMessageUser,
             "assistant": ChatMessageAssistant}
    keys = ("config", "headnote_language", "decision_language", "cut", "shot")
    return [Sample(id=item["id"], target=item["headnote"],
                   input=[roles[m["role"]](content=m["content"]) for m in item["messages"]],
                   metadata={key: item[key] for key in keys})
            for item in items]


@solver
def preset_generate(top_k: int | None = None, repetition_penalty: float | None = None):
    """``generate()`` with the server sampling settings the model's family accepts
    (:func:`courtbench.inspect_glue.options.sampling_config`)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        config = sampling_config(str(get_model()), top_k, repetition_penalty)
        return await generate(state, **config)

    return solve


def generate_settings(decoding: dict[str, Any]) -> dict[str, Any]:
    """Inspect ``GenerateConfig`` fields of a :func:`slds.prompting.decoding` (top-k and the
    repetition penalty are the solver's)."""
    settings = {name: decoding[name] for name in ("temperature", "top_p", "seed", "max_tokens")}
    if decoding.get("stop"):
        settings["stop_seqs"] = list(decoding["stop"])
    return settings


@task
def slds(data: str, config: str = "de_de", preset: str = "courtbench", split: str = "test",
         shots: int = 1, reasoning: bool = False, system_prompt: str | None = None,
         user_prompt: str | None = None, max_input_chars: int | None = None,
         judge: bool = True, judge_parse: str = "strict", rouge_tokenizer: str = "unicode",
         bleu_tokenize: str = "13a", bertscore: bool = False,
         bertscore_model_path: str | None = None, resamples: int = 1000) -> Task:
    """The SLDS headnote task (see the module docstring).

    Args:
        data: a folder built by ``courtbench build slds``, or a Hub dataset id.
        config: a language pair (``de_fr`` …) or ``all``.
        preset: ``courtbench`` or ``published`` decoding (:data:`slds.prompting.PRESETS`);
            ``reasoning``: the preset's new-token budget x 10.
        split, shots (0 or 1), system_prompt / user_prompt (files), max_input_chars: as
            ``courtbench generate slds``.
        judge, judge_parse: the grader's judgement (``--model-role grader=...``) and its
            parse mode (``strict`` or ``published``).
        rouge_tokenizer, bleu_tokenize, bertscore, bertscore_model_path, resamples: as
            ``courtbench evaluate slds``.
    """
    from slds.prompting import (
        CONFIG_NAMES,
        PRESETS,
        InputCut,
        decoding,
        headnote_items,
        load_prompts,
    )

    for name, value, choices in (("config", config, (*CONFIG_NAMES, "all")),
                                 ("preset", preset, tuple(PRESETS)),
                                 ("judge_parse", judge_parse, PARSE_MODES)):
        if value not in choices:
            raise ValueError(f"{name}={value!r}: expected one of {', '.join(choices)}")
    prompts = load_prompts(None if system_prompt is None else Path(system_prompt),
                           None if user_prompt is None else Path(user_prompt))
    configs = list(CONFIG_NAMES) if config == "all" else [config]
    items, _ = headnote_items(data_folder(data), configs, split, int(shots), prompts,
                              InputCut(max_chars=max_input_chars))
    chosen = decoding(preset, reasoning)
    similarity = {"rouge_tokenizer": rouge_tokenizer, "bleu_tokenize": bleu_tokenize,
                  "bertscore": bertscore, "bertscore_model_path": bertscore_model_path,
                  "resamples": resamples}
    return build_task(items, generate_settings(chosen), top_k=chosen["top_k"],
                      repetition_penalty=chosen["repetition_penalty"], similarity=similarity,
                      judge={"parse": judge_parse} if judge else None)


def build_task(items: list[dict[str, Any]], settings: dict[str, Any], *,
               top_k: int | None = None, repetition_penalty: float | None = None,
               similarity: dict[str, Any] | None = None,
               judge: dict[str, Any] | None = None) -> Task:
    """The task of prepared items (``courtbench generate slds`` calls this with its options;
    server sampling settings then come from the runner, not the solver)."""
    from slds.scorers import headnote_scorer, judge_scorer

    scorers = [headnote_scorer(similarity)]
    if judge is not None:
        scorers.append(judge_scorer(**judge))
    return Task(name="slds", dataset=MemoryDataset(to_samples(items), name="slds"),
                solver=preset_generate(top_k, repetition_penalty), scorer=scorers,
                config=GenerateConfig(**settings))


def judge_task(rows: list[dict[str, Any]], messages: list[list[dict]],
               parse: str, failed_as_zero: bool, max_tokens: int,
               max_answer_chars: int | None) -> Task:
    """``courtbench judge slds``: the judge is the task's model; one sample per row (``id``,
    ``config``, ``headnote``, languages) whose input is the judge's chat for its prediction
    (``messages``: the prediction is in it), scored by parsing the judge's answer
    (:func:`slds.scorers.judged_scorer`)."""
    from slds.scorers import judged_scorer

    roles = {"system": ChatMessageSystem, "user": ChatMessageUser}
    samples = [Sample(id=row["id"], target=row["headnote"],
                      input=[roles[m["role"]](content=m["content"]) for m in chat],
                      metadata={"config": row["config"], "sample_id": row["id"],
                                "headnote_language": row["headnote_language"],
                                "decision_language": row["decision_language"]})
               for row, chat in zip(rows, messages, strict=True)]
    return Task(name="slds_judge", dataset=MemoryDataset(samples, name="slds_judge"),
                solver=generate(), scorer=judged_scorer(
                    parse=parse, failed_as_zero=failed_as_zero, max_tokens=max_tokens,
                    max_answer_chars=max_answer_chars))
