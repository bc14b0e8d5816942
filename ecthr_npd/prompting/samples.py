"""The cases of a built folder as Inspect samples: one per case of the chosen splits.

A sample's input is the chat of its prompt kind (:func:`ecthr_npd.prompting.prompts.render_messages`:
system message, user message with the case block and, for ``few_shot``, the references of
:mod:`ecthr_npd.prompting.few_shot_retrieval`); for the agent (``react``) it is the agent's
first messages and the solver builds the rest. Its id is the case id, its target the award
(EUR, the scorer's reference; never in the input), its metadata the case's ``split``, test
``views``, ``references`` (case ids), ``input_words`` and which budget cut its Facts.
"""

from __future__ import annotations

from typing import Any

from ecthr_npd.data import BenchmarkData
from ecthr_npd.facts import word_count
from ecthr_npd.prompting.facts_input import FactsCut, TokenBudget, facts_block
from ecthr_npd.prompting.few_shot_retrieval import ReferenceIndex
from ecthr_npd.prompting.prompts import ReferenceCase, render_messages
from ecthr_npd.prompting.serialise import case_records, serialise_case

SPLITS = ("validation", "test")


def parse_splits(text: str) -> tuple[str, ...]:
    """``validation,test`` → the splits in canonical order; ValueError otherwise."""
    names = [part.strip() for part in str(text).split(",") if part.strip()]
    unknown = [name for name in names if name not in SPLITS]
    if unknown or not names:
        raise ValueError(f"splits {text!r}: expected a comma-separated subset of "
                         f"{', '.join(SPLITS)} (train is the reference pool)")
    return tuple(s for s in SPLITS if s in names)


def case_block(record: dict[str, Any], case_id: str, input_kind: str,
               facts: dict[str, str] | None, max_words: int | None,
               budget: TokenBudget | None = None) -> FactsCut:
    """The case as the prompt shows it for ``input_kind`` and which budget cut its Facts."""
    if input_kind == "serialised":
        return FactsCut(serialise_case(record))
    if facts is None or case_id not in facts:
        raise ValueError(f"input facts: case {case_id} has no facts text; expected a folder "
                         "built with --facts (or --synthetic)")
    return facts_block(record, facts[case_id], max_words, budget)


def views_by_case(data: BenchmarkData) -> dict[str, list[str]]:
    by_case: dict[str, list[str]] = {}
    for view, ids in data.views.items():
        for case_id in ids:
            by_case.setdefault(case_id, []).append(view)
    return by_case


def prompted_cases(data: BenchmarkData, splits: tuple[str, ...], kind: str, *, k: int,
                   input_kind: str = "serialised", max_input_words: int | None = None,
                   budget: TokenBudget | None = None,
                   limit: int | None = None) -> list[dict[str, Any]]:
    """Per case of ``splits`` (split order, table order; the first ``limit`` only): ``id``,
    ``messages``, ``target`` (EUR) and ``metadata`` (see the module docstring)."""
    index = ReferenceIndex(data.splits["train"], k) if kind == "few_shot" else None
    train_records = case_records(data.splits["train"]) if index else []
    views = views_by_case(data)
    cases = []
    for split in splits:
        table = data.splits[split]
        if limit is not None:
            table = table.slice(0, max(0, limit - len(cases)))
        records = case_records(table)
        references = index.references(table) if index else [[] for _ in records]
        ids, awards = data.ids(split)[:table.num_rows], data.target(split)[:table.num_rows]
        for case_id, record, award, chosen in zip(ids, records, awards, references, strict=True):
            shown = [ReferenceCase(train_records[r.row], r.award_eur) for r in chosen]
            block = case_block(record, case_id, input_kind, data.facts, max_input_words, budget)
            cases.append({"id": case_id, "target": float(award),
                          "messages": render_messages(kind, record, shown, case_text=block.text),
                          "metadata": {"split": split, "views": views.get(case_id, []),
                                       "references": [r.case_id for r in chosen],
                                       "input_words": word_count(block.text), "cut": block.cut,
                                       "cut_by_words": block.by_words,
                                       "cut_by_tokens": block.by_tokens}})
    return cases


def to_samples(cases: list[dict[str, Any]]) -> list:
    """Inspect ``Sample`` s of :func:`prompted_cases` (or the agent's cases)."""
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ChatMessageSystem, ChatMessageUser

    roles = {"system": ChatMessageSystem, "user": ChatMessageUser}
    return [Sample(id=case["id"], target=repr(case["target"]), metadata=case["metadata"],
                   input=[roles[m["role"]](content=m["content"]) for m in case["messages"]])
            for case in cases]
