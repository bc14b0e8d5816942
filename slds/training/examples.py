"""Tokenised training examples of headnote generation, in the prompt ``generate slds`` sends.

Prompt: :func:`slds.generate.build_messages` without a one-shot example (fine-tuned models
are evaluated zero-shot), rendered with the model's chat template and the generation prompt;
target: the headnote and the end-of-sequence token. Only target tokens carry a loss
(``labels`` −100 elsewhere). The decision is cut, in tokens, so that prompt + target fit
``max_length`` (:func:`prompt_ids`); the headnote is cut only beyond ``max_target_tokens``.
"""

from __future__ import annotations

from dataclasses import dataclass

from courtbench.errors import CourtbenchError
from slds.generate import Prompts, build_messages

IGNORE = -100
#: Re-tokenising a cut decision can add a few tokens; this many cuts are tried before a hard cut.
CUT_ATTEMPTS = 4


def _render(tokenizer, render, decision: str) -> list[int]:
    text = tokenizer.apply_chat_template(list(render(decision)), add_generation_prompt=True,
                                         tokenize=False)
    return tokenizer(text, add_special_tokens=False)["input_ids"]


def zero_shot(prompts: Prompts, language: str):
    """``decision → messages``: the zero-shot messages of ``generate slds --shots 0``."""
    return lambda decision: build_messages(prompts, decision, language)


def check_chat_template(tokenizer, where: str) -> None:
    """CourtbenchError when the tokenizer cannot render chat messages."""
    if not getattr(tokenizer, "chat_template", None):
        raise CourtbenchError(f"{where}: the tokenizer has no chat template; use an instruct "
                              "model (its tokenizer_config.json carries one)")


def prompt_ids(tokenizer, render, decision: str, budget: int) -> tuple[list[int], bool]:
    """Token ids of the chat prompt ``render(decision)`` (messages, generation prompt added),
    at most ``budget`` tokens, cutting the decision's tail in tokens; returns
    ``(ids, decision_was_cut)``.

    Raises:
        CourtbenchError: the prompt without any decision text is already over ``budget``.
    """
    ids = _render(tokenizer, render, decision)
    if len(ids) <= budget:
        return ids, False
    overhead = len(_render(tokenizer, render, ""))
    if overhead >= budget:
        raise CourtbenchError(f"the prompt alone takes {overhead} tokens, more than the "
                              f"{budget} available; raise the length limit")
    decision_ids = tokenizer(decision, add_special_tokens=False)["input_ids"]
    keep = budget - overhead
    for _ in range(CUT_ATTEMPTS):
        ids = _render(tokenizer, render, tokenizer.decode(decision_ids[:max(keep, 0)]))
        if len(ids) <= budget:
            return ids, True
        keep -= len(ids) - budget
    return ids[:budget], True


@dataclass(frozen=True)
class Encoded:
    """``input_ids`` and ``labels`` (−100 on the prompt) of one example; what was cut."""

    input_ids: list[int]
    labels: list[int]
    decision_cut: bool
    target_cut: bool


def encode(tokenizer, prompts: Prompts, decision: str, headnote: str, language: str, *,
           max_length: int, max_target_tokens: int) -> Encoded:
    """One training example (see the module docstring)."""
    target = tokenizer(headnote, add_special_tokens=False)["input_ids"]
    target_cut = len(target) > max_target_tokens
    target = target[:max_target_tokens] + [tokenizer.eos_token_id]
    prompt, decision_cut = prompt_ids(tokenizer, zero_shot(prompts, language), decision,
                                      max_length - len(target))
    return Encoded(prompt + target, [IGNORE] * len(prompt) + target, decision_cut, target_cut)


class HeadnoteExamples:
    """A map-style dataset of :class:`Encoded` examples as ``{"input_ids", "labels"}``."""

    def __init__(self, encoded: list[Encoded]) -> None:
        self.encoded = encoded

    def __len__(self) -> int:
        return len(self.encoded)

    def __getitem__(self, index: int) -> dict:
        item = self.encoded[index]
        return {"input_ids": item.input_ids, "labels": item.labels}


@dataclass(frozen=True)
class Collator:
    """Right-pads ``input_ids`` (``pad_id``) and ``labels`` (−100); adds ``attention_mask``."""

    pad_id: int

    def __call__(self, items: list[dict]) -> dict:
        import torch

        length = max(len(item["input_ids"]) for item in items)
        ids = torch.full((len(items), length), self.pad_id, dtype=torch.long)
        labels = torch.full((len(items), length), IGNORE, dtype=torch.long)
        mask = torch.zeros((len(items), length), dtype=torch.long)
        for row, item in enumerate(items):
            size = len(item["input_ids"])
            ids[row, :size] = torch.tensor(item["input_ids"])
            labels[row, :size] = torch.tensor(item["labels"])
            mask[row, :size] = 1
        return {"input_ids": ids, "labels": labels, "attention_mask": mask}
