"""``courtbench evaluate slds`` hashes the data folder once per run."""

from __future__ import annotations

import json

from fingerprint_calls import count_fingerprints
from slds_fixtures import sample_id, write_slds_folder

import slds.evaluation  # noqa: F401  (loaded before the patch, as the CLI would load it)
from courtbench.cli import main


def test_evaluate_computes_the_data_fingerprint_once(tmp_path, monkeypatch):
    headnotes = {"de": "Art. 8 BV; Gleichbehandlung.", "fr": "Art. 8 Cst.; égalité."}
    data = write_slds_folder(tmp_path, [("decision text 0", "de")], headnotes)
    predictions = tmp_path / "copy.jsonl"
    predictions.write_text("".join(
        json.dumps({"sample_id": sample_id(0, language), "prediction": text}) + "\n"
        for language, text in headnotes.items()), encoding="utf-8")
    calls = count_fingerprints(monkeypatch)
    assert main(["evaluate", "slds", "--data", str(data), "--predictions", str(predictions),
                 "--out", str(tmp_path / "report"), "--resamples", "20"]) == 0
    assert len(calls) == 1
    provenance = json.loads((tmp_path / "report" / "report.json").read_text())["provenance"]
    assert provenance["rerun"]["data_fingerprint"] == provenance["data_fingerprint"]
