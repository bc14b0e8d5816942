"""Built from published rows, the published ``one_shot_examples`` row is kept; a pair whose
source has none gets the recomputed one (the shortest validation decision); the card says
which, and the audit accepts both."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from courtbench.errors import SourceError
from slds.audit import audit_folder
from slds.build import build_folder
from tests.slds.test_slds_build import _absent_module, _load


def _row(decision_id: str, decision: str, headnote_language: str, year: int, **extra) -> dict:
    return {"decision_id": decision_id, "decision": decision, "decision_language": "de",
            "headnote": f"Regeste {decision_id} {headnote_language}.",
            "headnote_language": headnote_language, "year": year, "volume": "II", "url": "",
            **extra}


def _source(tmp_path: Path, extra_rows: list[dict]) -> Path:
    rows = [_row("v1", "Sachverhalt kurz.", language, 2022, split="validation")
            for language in ("de", "fr")]
    rows += [_row("v2", "Sachverhalt deutlich länger als der kürzeste Entscheid.", language,
                  2022, split="validation") for language in ("de", "fr")]
    rows += [_row("t1", "Sachverhalt eines Testentscheids.", "de", 2023, split="test")]
    path = tmp_path / "published.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows + extra_rows),
                    encoding="utf-8")
    return path


def test_the_published_one_shot_row_is_kept_and_the_card_says_so(tmp_path):
    # the published de_de example is the *longer* validation decision: kept, not recomputed
    published = _row("v2", "Sachverhalt deutlich länger als der kürzeste Entscheid.", "de", 2022,
                     split="one_shot_examples")
    out = tmp_path / "out"
    result = build_folder(out, _source(tmp_path, [published]), source_format="slds",
                          properties_loader=_absent_module)
    assert result.split_sizes["de_de"]["validation"] == 2  # not a data row twice
    assert _load(out, "de_de", "one_shot_examples")["decision_id"] == ["v2"]
    assert _load(out, "de_fr", "one_shot_examples")["decision_id"] == ["v1"]  # recomputed
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "**Kept as published**" in card and "for de_de" in card
    assert "**recomputed** for de_fr" in card
    assert "courtbench's own wording, not the published evaluation's" in card
    assert audit_folder(out) == []


def test_without_published_rows_every_example_is_recomputed(tmp_path):
    out = tmp_path / "out"
    build_folder(out, _source(tmp_path, []), source_format="slds",
                 properties_loader=_absent_module)
    assert _load(out, "de_de", "one_shot_examples")["decision_id"] == ["v1"]
    assert "**Recomputed** (the source has no `one_shot_examples` rows)" in \
        (out / "README.md").read_text(encoding="utf-8")
    assert audit_folder(out) == []


def test_two_published_examples_of_one_pair_are_refused(tmp_path):
    shots = [_row(d, "Sachverhalt kurz.", "de", 2022, split="one_shot_examples")
             for d in ("v1", "v2")]
    with pytest.raises(SourceError, match="a second one_shot_examples row for pair de_de"):
        build_folder(tmp_path / "out", _source(tmp_path, shots), source_format="slds",
                     properties_loader=_absent_module)
