"""A courtbench SLDS build is a drop-in for the published SLDS dataset: every config has the
published features (names, order, dtypes), and a tiny reimplementation of the lighteval
``swiss_legal`` SLDS task (its ``hf_filter`` and prompt function) runs on a built folder."""

from __future__ import annotations

import datasets
import pytest

from courtbench.errors import CourtbenchError
from courtbench.hub.card import read_card_metadata
from courtbench.hub.offline import hub_offline
from slds.build import build_synthetic
from slds.law_areas import LAW_AREAS
from slds.schema import PAIRS, pair_name

PUBLISHED_FEATURES = {
    "sample_id": "int64", "decision_id": "string", "decision": "string",
    "decision_language": "string", "headnote": "string", "headnote_language": "string",
    "law_area": "string", "year": "int64", "volume": "string", "url": "string",
}
"""The published SLDS configs' features, in order (the issue's list)."""


def _absent_module(name):
    raise CourtbenchError(f"metric module {name!r} not found (test: absent)")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("slds_schema") / "slds"
    build_synthetic(out, decisions=40, seed=5, properties_loader=_absent_module)
    return out


def _dtypes(features: datasets.Features) -> dict[str, str]:
    return {name: feature.dtype for name, feature in features.items()
            if isinstance(feature, datasets.Value)} | {
        name: type(feature).__name__ for name, feature in features.items()
        if not isinstance(feature, datasets.Value)}


def test_every_config_has_the_published_features(built):
    metadata = read_card_metadata(built)
    infos = {info["config_name"]: info for info in metadata["dataset_info"]}
    names = ["default"] + [pair_name(*pair) for pair in PAIRS]
    assert sorted(infos) == sorted(names)
    for name in names:
        declared = {f["name"]: f["dtype"] for f in infos[name]["features"]}
        assert list(declared.items()) == list(PUBLISHED_FEATURES.items()), name
        with hub_offline():
            loaded = datasets.load_dataset(str(built), name)
        for split in loaded.values():
            assert list(_dtypes(split.features).items()) == list(PUBLISHED_FEATURES.items())
            assert all(area in LAW_AREAS for area in split["law_area"])
            assert all(type(i) is int for i in split["sample_id"])


# --- a tiny reimplementation of lighteval's swiss_legal SLDS task -------------------------
def slds_filter(decision_language: str, headnote_language: str):
    """The task's ``hf_filter``: keep the rows of one language pair."""
    def keep(example: dict) -> bool:
        return (example["decision_language"] == decision_language
                and example["headnote_language"] == headnote_language)
    return keep


def slds_prompt(line: dict, task_name: str) -> dict:
    """The task's prompt function: the decision is the query, the headnote the gold answer,
    the headnote language named in the instruction."""
    language = {"de": "German", "fr": "French", "it": "Italian"}[line["headnote_language"]]
    return {"task_name": task_name,
            "query": f"Leading decision:\n```{line['decision']}```\n\nGenerate a headnote in "
                     f"{language} for the leading decision above.",
            "choices": [line["headnote"]], "gold_index": 0,
            "specific": {"law_area": line["law_area"], "sample_id": line["sample_id"]}}


def test_lighteval_task_runs_on_a_built_folder(built):
    with hub_offline():
        default = datasets.load_dataset(str(built), "default", split="test")
    for decision_language, headnote_language in PAIRS:
        subset = pair_name(decision_language, headnote_language)
        with hub_offline():
            pair = datasets.load_dataset(str(built), subset, split="test")
        keep = slds_filter(decision_language, headnote_language)
        assert pair.filter(keep).num_rows == pair.num_rows > 0
        from_default = default.filter(keep)
        assert from_default["sample_id"] == pair["sample_id"]
        docs = [slds_prompt(line, f"slds:{subset}") for line in pair]
        for doc, line in zip(docs, pair, strict=True):
            assert line["decision"] in doc["query"] and doc["choices"] == [line["headnote"]]
            assert isinstance(doc["specific"]["law_area"], str)
