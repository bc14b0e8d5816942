"""A tiny SLDS Hub folder for tests of the commands that read one (baselines, evaluation)."""

from __future__ import annotations

from pathlib import Path

import datasets

from courtbench.hub import ConfigSpec, write_hub_folder
from slds.schema import FEATURES, derived_sample_id

ROW_DEFAULTS = {"law_area": "constitutional_law", "year": 2023, "volume": "I", "url": "https://example.org"}


def sample_id(decision: int, headnote_language: str) -> int:
    """The int64 sample id of decision ``d<decision>``'s ``headnote_language`` row."""
    return derived_sample_id(f"d{decision}", headnote_language)


def write_slds_folder(tmp_path: Path, decisions: list[tuple[str, str]],
                      headnotes: dict[str, str], *, split: str = "test") -> Path:
    """Write ``tmp_path/slds``: one ``default`` config with one split.

    Args:
        decisions: ``(decision text, decision language)``; decision ``i`` gets the id ``d<i>``.
        headnotes: headnote language → headnote text; every decision gets one row per entry,
            with sample id :func:`sample_id` ``(i, language)``.
    """
    rows: dict[str, list] = {name: [] for name in FEATURES}
    for i, (decision, decision_language) in enumerate(decisions):
        for headnote_language, headnote in headnotes.items():
            row = {**ROW_DEFAULTS, "sample_id": sample_id(i, headnote_language),
                   "decision_id": f"d{i}",
                   "decision": decision, "decision_language": decision_language,
                   "headnote": headnote, "headnote_language": headnote_language}
            for name in FEATURES:
                rows[name].append(row[name])
    table = datasets.Dataset.from_dict(rows, features=FEATURES.to_datasets())
    template = tmp_path / "card.md"
    template.write_text("tiny\n")
    out = tmp_path / "slds"
    write_hub_folder(out, [ConfigSpec("default", {split: table}, default=True)],
                     card_template=template, card_context={},
                     card_metadata={"courtbench_dataset": "slds", "license": "cc-by-4.0"})
    return out
