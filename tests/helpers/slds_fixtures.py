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


# ----------------------------------------------------------------- one row per language pair

LANGS = ("de", "fr", "it")
INT_FEATURES = datasets.Features({**FEATURES.to_datasets(), "sample_id": datasets.Value("int64")})
PAIR_ROW = {"law_area": 0, "year": 2023, "volume": "I", "url": "https://example.org"}


def pair_table(rows: list[dict]) -> datasets.Dataset:
    return datasets.Dataset.from_dict({name: [r[name] for r in rows] for name in INT_FEATURES},
                                      features=INT_FEATURES)


def pair_rows(base: int, split: str) -> list[dict]:
    rows = []
    for i, decision_language in enumerate(LANGS):
        for j, headnote_language in enumerate(LANGS):
            decision = (f"{split} decision {i} ({decision_language}).\n\nSecond paragraph of "
                        f"{split} decision {i}, which is longer than the first one.")
            rows.append({**PAIR_ROW, "sample_id": base + 10 * i + j, "decision_id": f"{split}-{i}",
                         "decision": decision, "decision_language": decision_language,
                         "headnote": f"Art. {i + 1} ZGB; {split} headnote {i}/{headnote_language}.",
                         "headnote_language": headnote_language})
    return rows


def write_configs_folder(root: Path, configs: list[ConfigSpec]) -> Path:
    """``configs`` as a tiny SLDS Hub folder ``root/slds`` (one-line card)."""
    template = root / "card.md"
    template.write_text("tiny\n")
    write_hub_folder(root / "slds", configs, card_template=template, card_context={},
                     card_metadata={"courtbench_dataset": "slds", "license": "cc-by-4.0"})
    return root / "slds"


def write_pair_folder(root: Path) -> Path:
    """``root/slds``: nine test and nine validation rows (one per pair, sample ids
    ``1000 + 10 * decision + headnote`` and ``2000 + ...``), each pair's validation row its
    one_shot_examples row except it_it's (none)."""
    test, validation = pair_rows(1000, "test"), pair_rows(2000, "validation")
    configs = [ConfigSpec("default", {"test": pair_table(test), "validation": pair_table(validation)},
                          default=True)]
    for row in validation:  # every pair but it_it has its one-shot example
        pair = f"{row['decision_language']}_{row['headnote_language']}"
        if pair != "it_it":
            configs.append(ConfigSpec(pair, {"one_shot_examples": pair_table([row])}))
    return write_configs_folder(root, configs)
