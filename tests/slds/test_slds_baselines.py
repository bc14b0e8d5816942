"""SLDS model-free baselines: lead and citation-lead."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from slds_fixtures import sample_id, write_slds_folder

from courtbench.cli import main
from slds.baselines import citation_lead, lead
from slds.text import considerations_text, sentences

DECISION_DE = """Sachverhalt

A. Der Beschwerdeführer verlangte Akteneinsicht. Das Amt lehnte ab.

Erwägungen

Aus den Erwägungen:

2. Nach Art. 8 Abs. 1 BV sind alle Menschen vor dem Gesetz gleich. Die Vorinstanz hat dies verkannt.
2.1 Wie in E. 2 dargelegt, gilt auch Art. 29 Abs. 2 BV. Der Anspruch ist formeller Natur.
"""
DECISION_FR = ("Faits\n\nA. Le recourant a demandé l'accès au dossier.\n\nConsidérant en droit:\n\n"
               "2. Selon l'art. 8 al. 1 Cst., tous les êtres humains sont égaux. "
               "Comme exposé au consid. 2.1, l'autorité a violé ce principe.")
DECISION_IT = ("Fatti\n\nA. Il ricorrente ha chiesto l'accesso.\n\nConsiderando in diritto:\n\n"
               "2. Secondo l'art. 8 cpv. 1 Cost., tutti sono uguali. Vedi consid. 3.2 sotto.")


def test_considerations_skip_facts_and_stacked_headings():
    text = considerations_text(DECISION_DE)
    assert text.lstrip().startswith("2. Nach Art. 8")
    assert "Akteneinsicht" not in text


def test_sentences_do_not_break_after_abbreviations():
    found = sentences("Nach Art. 8 Abs. 1 BV gilt dies. Siehe E. 2.1. Die Frage bleibt offen.")
    assert found == ["Nach Art. 8 Abs. 1 BV gilt dies.", "Siehe E. 2.1. Die Frage bleibt offen."]


@pytest.mark.parametrize("budget", [1, 5, 12, 200])
def test_lead_respects_the_budget_and_is_never_empty(budget):
    prediction = lead(DECISION_DE, budget=budget)
    assert prediction and len(prediction.split()) <= budget
    assert prediction.split()[0] == "2."


def test_lead_takes_whole_sentences_when_they_fit():
    assert lead(DECISION_DE, budget=14) == ("2. Nach Art. 8 Abs. 1 BV sind alle Menschen vor "
                                            "dem Gesetz gleich.")


@pytest.mark.parametrize("decision, expected", [
    (DECISION_DE, ["Art. 8 Abs. 1 BV", "Art. 29 Abs. 2 BV", "E. 2"]),
    (DECISION_FR, ["art. 8 al. 1 Cst.", "consid. 2.1"]),
    (DECISION_IT, ["art. 8 cpv. 1 Cost.", "consid. 3.2"]),
])
def test_citation_lead_cites_articles_and_considerations(decision, expected):
    prediction = citation_lead(decision)
    for citation in expected:
        assert citation in prediction
    assert prediction.index(expected[0]) < prediction.index("2.")


def test_baselines_on_the_real_landmark_decision(shared_data):
    response = json.loads((shared_data / "slds/search_law_1.json").read_text())
    hit = next(h for h in response["hits"]["hits"] if "BGE-151-II-245" in h["_id"])
    decision = hit["_source"]["attachment"]["content"]
    prediction = lead(decision)
    assert prediction.startswith("4. Bevor auf die streitig gebliebenen Ansprüche")
    assert "Art. 3 Abs. 1 Ziff. 6" in citation_lead(decision)


def _tiny_folder(tmp_path: Path) -> Path:
    return write_slds_folder(tmp_path, [(DECISION_DE, "de"), (DECISION_FR, "fr")],
                             {"de": "Art. 8 BV.", "fr": "Art. 8 BV."})


def test_runner_writes_one_sorted_file_per_system(tmp_path):
    import argparse

    from slds.baselines.run import add_baseline_arguments, run_baselines

    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path)
    parser.add_argument("--out", type=Path)
    add_baseline_arguments(parser)
    data = _tiny_folder(tmp_path)
    args = parser.parse_args(["--data", str(data), "--out", str(tmp_path / "pred")])
    assert run_baselines(args) == 0
    assert sorted(p.name for p in (tmp_path / "pred").iterdir()) == [
        ".courtbench.json", "citation_lead.jsonl", "lead.jsonl", "settings.json"]
    records = [json.loads(line) for line in (tmp_path / "pred/lead.jsonl").read_text().splitlines()]
    assert [r["sample_id"] for r in records] == sorted(
        sample_id(i, h) for i in (0, 1) for h in ("de", "fr"))
    by_id = {r["sample_id"]: r["prediction"] for r in records}
    assert by_id[sample_id(1, "de")].startswith("2. Selon l'art. 8 al. 1 Cst.")
    first = (tmp_path / "pred/lead.jsonl").read_bytes()
    run_baselines(args)
    assert (tmp_path / "pred/lead.jsonl").read_bytes() == first


def test_runner_names_a_missing_split(tmp_path, capsys):
    data = _tiny_folder(tmp_path)
    assert main(["baselines", "slds", "--data", str(data), "--out", str(tmp_path / "p"),
                 "--splits", "test", "validation"]) == 1
    error = capsys.readouterr().err
    assert "split 'validation' not in config 'default'" in error and "(splits: test)" in error
    assert not (tmp_path / "p").exists()


def test_cli_reaches_the_runner_through_the_plugin(tmp_path):
    data = _tiny_folder(tmp_path)
    assert main(["baselines", "slds", "--data", str(data), "--out", str(tmp_path / "p")]) == 0


@pytest.mark.parametrize("collapsed, start", [
    ("Sachverhalt ab Seite 2 A. Am 4. November stellte A. einen Antrag. Erwägungen: 1. Die "
     "Vorinstanz hat entschieden.", "1. Die Vorinstanz"),
    ("Faits: A. Le recourant a recouru. Considérant en droit: 2. Le recours est recevable.",
     "2. Le recours"),
    ("Fatti: A. Il ricorrente. Considerando in diritto: 3. Il ricorso è ammissibile.",
     "3. Il ricorso"),
])
def test_considerations_found_in_whitespace_collapsed_text(collapsed, start):
    """Published SLDS rows collapse whitespace, so headings are not on their own line."""
    assert considerations_text(collapsed).lstrip().startswith(start)
    assert lead(collapsed).startswith(start)


def test_heading_without_colon_on_its_own_line():
    assert considerations_text("Sachverhalt\nA. x\nErwägungen\n\n2. Die Frage").lstrip() \
        .startswith("2. Die Frage")
