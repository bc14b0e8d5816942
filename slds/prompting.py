"""What an SLDS model sees: prompts, decoding presets and one chat per sample of a split.

Per sample: a system message (``slds/prompts/headnote_system.txt``, courtbench's own wording,
not the published evaluation's; ``--system-prompt FILE`` sends another file byte for byte),
with one shot the pair's ``one_shot_examples`` row as a user/assistant exchange, then the
user message "Leading decision:\\n```{decision}```\\n\\nGenerate a headnote in {language} for
the leading decision above." A sample that is itself its pair's one-shot example (the
validation split) runs zero-shot: its own gold headnote never reaches its prompt.

Decoding (:data:`PRESETS`): ``courtbench`` temperature 0.7, top-p 0.8, seed 2025, 1,024 new
tokens; ``published`` (paper Appendix F.3 and the published evaluation code) temperature 0.7,
top-p 0.8, top-k 20, repetition penalty 1.05, seed 2025, 512 new tokens (x 10 for reasoning
models), stop ``</s>``.

Used by the Inspect task (:mod:`slds.inspect_task`), ``courtbench generate slds`` and the
fine-tuning recipe (zero-shot prompts). Imports nothing of Inspect.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from courtbench.errors import CourtbenchError
from courtbench.resources import package_path
from slds.schema import PAIRS, pair_name

LANGUAGE_NAMES = {"de": "German", "fr": "French", "it": "Italian"}
CONFIG_NAMES = tuple(pair_name(d, h) for d, h in PAIRS)
ONE_SHOT_SPLIT = "one_shot_examples"
_PLACEHOLDER = re.compile(r"\{(decision|language)\}")
#: Decoding of each preset; ``reasoning_factor`` multiplies ``max_tokens`` for reasoning
#: models (room for their thinking).
PRESETS: dict[str, dict[str, Any]] = {
    "courtbench": {"temperature": 0.7, "top_p": 0.8, "seed": 2025, "max_tokens": 1024,
                   "top_k": None, "repetition_penalty": None, "stop": None,
                   "reasoning_factor": 10},
    "published": {"temperature": 0.7, "top_p": 0.8, "seed": 2025, "max_tokens": 512,
                  "top_k": 20, "repetition_penalty": 1.05, "stop": ["</s>"],
                  "reasoning_factor": 10},
}


def sha256_text(text: str) -> str:
    """sha256 (hex) of the UTF-8 bytes of ``text``."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Prompts:
    """The system message and the user template (placeholders ``{decision}``, ``{language}``)."""

    system: str
    user: str

    def hashes(self) -> dict:
        return {"system_prompt_sha256": sha256_text(self.system),
                "user_prompt_sha256": sha256_text(self.user)}


def _read_prompt(path: Path | None, default: str, option: str) -> str:
    file = path if path is not None else package_path("slds", "prompts", default)
    try:
        text = Path(file).read_bytes().decode("utf-8")  # byte for byte: no newline translation
    except (OSError, UnicodeDecodeError) as error:
        raise CourtbenchError(f"{option} {file}: cannot read it as UTF-8 text: {error}") from None
    if not text.strip():
        raise CourtbenchError(f"{option} {file}: the prompt is empty")
    return text


def load_prompts(system_file: Path | None = None, user_file: Path | None = None) -> Prompts:
    """The packaged prompts, or the given files; the user template must contain ``{decision}``."""
    prompts = Prompts(_read_prompt(system_file, "headnote_system.txt", "--system-prompt"),
                      _read_prompt(user_file, "headnote_user.txt", "--user-prompt"))
    if "{decision}" not in prompts.user:
        raise CourtbenchError(f"--user-prompt {user_file}: the template never uses {{decision}}; "
                              "the model would not see the decision")
    return prompts


def render_user(template: str, decision: str, headnote_language: str) -> str:
    """Fill ``{decision}`` and ``{language}`` in one pass (text inside the decision that looks
    like a placeholder stays as it is)."""
    values = {"decision": decision,
              "language": LANGUAGE_NAMES.get(headnote_language, headnote_language)}
    return _PLACEHOLDER.sub(lambda match: values[match.group(1)], template)


def build_messages(prompts: Prompts, decision: str, headnote_language: str,
                   one_shot: tuple[str, str] | None = None) -> tuple[dict, ...]:
    """system, [user (one-shot decision), assistant (its headnote)], user (the decision)."""
    messages = [{"role": "system", "content": prompts.system}]
    if one_shot is not None:
        messages += [{"role": "user", "content": render_user(prompts.user, one_shot[0],
                                                             headnote_language)},
                     {"role": "assistant", "content": one_shot[1]}]
    messages.append({"role": "user", "content": render_user(prompts.user, decision,
                                                            headnote_language)})
    return tuple(messages)


def cut_decision(text: str, max_chars: int | None) -> tuple[str, bool]:
    """``text`` cut to at most ``max_chars`` characters at the last paragraph boundary.

    A boundary is a line break; without one in reach, the last whitespace, else a hard cut.
    Returns ``(text, was_cut)``.

    >>> cut_decision("First.\\n\\nSecond paragraph.", 12)
    ('First.', True)
    """
    if max_chars is None or len(text) <= max_chars:
        return text, False
    head = text[:max_chars + 1]
    for boundary in ("\n", " "):
        position = head.rfind(boundary)
        if position > 0:
            return head[:position].rstrip(), True
    return text[:max_chars], True


@dataclass(frozen=True)
class InputCut:
    """How decisions are cut: at most ``max_chars`` characters and/or ``max_tokens`` tokens of
    a local tokenizer (:class:`courtbench.inspect_glue.tokens.LocalTokenizer`), each at a
    paragraph boundary inside the limit."""

    max_chars: int | None = None
    tokenizer: Any = None
    max_tokens: int | None = None

    def __call__(self, text: str) -> tuple[str, bool]:
        by_tokens = False
        if self.tokenizer is not None and self.max_tokens is not None:
            end = self.tokenizer.end_of_tokens(text, self.max_tokens)
            if end is not None:
                text, by_tokens = cut_decision(text, end)[0], True
        text, by_chars = cut_decision(text, self.max_chars)
        return text, by_tokens or by_chars


def decoding(preset: str, reasoning: bool = False, **explicit) -> dict[str, Any]:
    """``temperature``, ``top_p``, ``seed``, ``max_tokens``, ``top_k``,
    ``repetition_penalty`` and ``stop`` of ``preset``, each replaced by an ``explicit`` value
    that is not None; ``max_tokens`` x the preset's factor for a reasoning model."""
    chosen = {name: value for name, value in PRESETS[preset].items() if name != "reasoning_factor"}
    if reasoning:
        chosen["max_tokens"] *= PRESETS[preset]["reasoning_factor"]
    chosen.update({name: value for name, value in explicit.items() if value is not None})
    return chosen


def one_shot_row(data: Path, config: str) -> tuple[int, str, str] | None:
    """(sample_id, decision, headnote) of the config's one_shot_examples row; None when the
    folder has none for it."""
    import datasets

    from courtbench.hub.offline import hub_offline

    try:
        with hub_offline():
            rows = datasets.load_dataset(str(data), config, split=ONE_SHOT_SPLIT)
    except (ValueError, FileNotFoundError, KeyError):
        return None
    if not rows.num_rows:
        return None
    return int(rows[0]["sample_id"]), rows[0]["decision"], rows[0]["headnote"]


def _rows_by_config(data: Path, split: str, configs: list[str]) -> dict[str, list[dict]]:
    from slds.data import read_split

    by_config: dict[str, list[dict]] = {config: [] for config in configs}
    rows = read_split(data, split, columns=("decision", "decision_language", "headnote",
                                            "headnote_language"))
    for row in rows:  # one pass over the split, in sample_id order
        config = pair_name(row["decision_language"], row["headnote_language"])
        if config in by_config:
            by_config[config].append(row)
    return by_config


def headnote_items(data: Path, configs: list[str], split: str, shots: int, prompts: Prompts,
                   cut: Callable[[str], tuple[str, bool]] = InputCut()
                   ) -> tuple[list[dict], dict[str, Any]]:
    """One item per sample of ``split`` in ``configs`` (config order, then sample_id):
    ``id`` (sample_id), ``config``, ``messages``, ``headnote`` (gold), ``decision`` (as
    sent), ``headnote_language``, ``decision_language``, ``cut``, ``shot`` (the one-shot
    example's sample_id or None). Also the counts: ``cut_decisions``,
    ``cut_one_shot_decisions``, ``configs_without_one_shot``, ``one_shot_withheld`` (samples
    that are their own pair's example and ran zero-shot)."""
    counts: dict[str, Any] = {"cut_decisions": 0, "cut_one_shot_decisions": 0,
                              "configs_without_one_shot": [], "one_shot_withheld": []}
    items = []
    for config, rows in _rows_by_config(data, split, configs).items():
        decision_language, headnote_language = config.split("_")
        example = one_shot_row(data, config) if shots and rows else None
        if shots and rows and example is None:
            counts["configs_without_one_shot"].append(config)
        if example is not None:
            text, was_cut = cut(example[1])
            counts["cut_one_shot_decisions"] += was_cut
            example = (example[0], text, example[2])
        for row in rows:
            decision, was_cut = cut(row["decision"])
            counts["cut_decisions"] += was_cut
            own = example is not None and example[0] == row["sample_id"]
            if own:
                counts["one_shot_withheld"].append(row["sample_id"])
            shot = None if example is None or own else example
            items.append({"id": row["sample_id"], "config": config, "cut": was_cut,
                          "decision": decision, "headnote": row["headnote"],
                          "headnote_language": headnote_language,
                          "decision_language": decision_language,
                          "shot": None if shot is None else shot[0],
                          "messages": build_messages(prompts, decision, headnote_language,
                                                     None if shot is None else shot[1:])})
    return items, counts
