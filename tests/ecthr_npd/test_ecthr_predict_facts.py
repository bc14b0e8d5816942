"""``courtbench predict ecthr_npd --input facts|both``: prompt snapshots of the facts input,
cutting at a paragraph boundary, the audit-leak test on the facts path, and the report's
raw-vs-serialised (Table 4) and input-length (Table 27) tables."""

from __future__ import annotations

import argparse
import json
import os
import re
from pathlib import Path

import pyarrow as pa
import pytest
from fake_chat_server import FakeChatServer, Reply

from courtbench.cli import main
from ecthr_npd import schema
from ecthr_npd.build import build_synthetic
from ecthr_npd.data import from_canonical
from ecthr_npd.prompting import prompts
from ecthr_npd.prompting.facts_input import CUT_NOTE, cut_facts, facts_case_text
from ecthr_npd.prompting.samples import prompted_cases
from ecthr_npd.reader import read_case_level
from ecthr_npd.synthetic import write_synthetic
from ecthr_npd.synthetic_facts import synthetic_facts
from tests.ecthr_npd.test_ecthr_prompting import FIXED_CASE, FIXED_REFERENCES, planted_sentinels

SNAPSHOTS = Path(__file__).parents[1] / "snapshots"
UPDATE_SNAPSHOTS = os.environ.get("COURTBENCH_UPDATE_SNAPSHOTS") == "1"
FIXED_FACTS = ("1. The applicant was born in 1961 and lives in Izmir.\n\n"
               "2. On 3 May 2005 he brought proceedings before the Izmir Civil Court.\n\n"
               "3. The proceedings ended on 16 March 2013 with a decision of the Court of "
               "Cassation.")


@pytest.mark.parametrize("kind", prompts.PROMPT_KINDS)
def test_facts_input_prompt_snapshot(kind):
    shown = FIXED_REFERENCES if kind == "few_shot" else ()
    case, cut = facts_case_text(FIXED_CASE, FIXED_FACTS)
    assert not cut
    messages = prompts.render_messages(kind, FIXED_CASE, shown, case_text=case)
    text = "".join(f"[{m['role']}]\n{m['content']}\n\n" for m in messages)
    path = SNAPSHOTS / f"ecthr_npd_prompt_facts_{kind}.txt"
    if UPDATE_SNAPSHOTS:
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")
    for expected in ("Respondent state: Turkey", "Violated articles: Article 6; Article 13",
                     "GDP per capita", FIXED_FACTS):
        assert expected in text
    assert "Number of violations found" not in case  # the facts input is not the serialisation


def test_cut_facts_keeps_whole_paragraphs_and_says_so():
    text, cut = cut_facts(FIXED_FACTS, 25)
    assert cut and text.endswith(CUT_NOTE)
    assert "1. The applicant" in text and "2. On 3 May" in text and "3. The" not in text
    assert cut_facts(FIXED_FACTS, 1000) == (FIXED_FACTS, False)
    assert cut_facts(FIXED_FACTS, None) == (FIXED_FACTS, False)
    first, cut = cut_facts("one two three four five", 3)
    assert cut and first.startswith("one two three\n\n")


def test_no_audit_target_or_bookkeeping_value_reaches_a_facts_prompt(tmp_path):
    """Sentinels in every non-input column, held-out awards replaced by sentinels; every
    prompt kind on the facts path, and the Facts text itself, carry none of them."""
    path = write_synthetic(tmp_path / "case_level.csv", n=600, seed=5)
    table = read_case_level(path)
    facts = synthetic_facts(table, seed=5)
    split_codes = table.column("split").to_numpy()
    planted = planted_sentinels(table, keep=("case_id",))
    data = from_canonical(table)
    data.splits = {split: planted.filter(pa.array(split_codes == code))
                   for code, split in enumerate(schema.SPLITS)}
    data.facts = {c: r["facts_text"] for c, r in facts.records.items()}
    texts = []
    for kind in prompts.PROMPT_KINDS:
        cases = prompted_cases(data, ("validation", "test"), kind, k=5, input_kind="facts",
                               max_input_words=400)
        texts += [m["content"] for c in cases for m in c["messages"]]
        assert all(c["metadata"]["input_words"] > 0 for c in cases)
        assert any(c["metadata"]["cut"] for c in cases)
    corpus = "\n".join(texts)
    assert "SENTINEL" not in corpus
    assert re.search(r"91[34][,.\u00a0 ]?\d{3}[,.\u00a0 ]?\d{3}", corpus) is None
    held_out = set(data.ids("validation") + data.ids("test"))
    assert not any(case_id in corpus for case_id in held_out)


def answering(body: dict, attempt: int) -> Reply:
    content = body["messages"][-1]["content"]
    award = 1000.0 * (1 + len(content) % 7) * (2 if "Facts of the case" in content else 1)
    return Reply(json.dumps({"award_eur": award}))


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("predict_facts") / "built"
    build_synthetic(out, n=300, seed=2)
    return out


def test_input_both_writes_two_runs_and_the_report_compares_them(folder, tmp_path,
                                                                  monkeypatch, capsys):
    monkeypatch.setenv("COURTBENCH_TEST_KEY", "sk-test")
    out = tmp_path / "preds" / "llm.csv"
    with FakeChatServer(answering) as server:
        assert main(["predict", "ecthr_npd", "--data", str(folder), "--out", str(out),
                     "--base-url", server.url, "--model", "scripted", "--api-key-env",
                     "COURTBENCH_TEST_KEY", "--max-retries", "0", "--prompt", "zero_shot",
                     "--input", "both", "--max-input-words", "300"]) == 0
    assert "were cut at a paragraph boundary" in capsys.readouterr().err
    runs = {kind: out.with_name(f"llm-{kind}.csv") for kind in ("serialised", "facts")}
    manifests = {k: json.loads(p.with_name(p.name + ".manifest.json").read_text())
                 for k, p in runs.items()}
    assert manifests["facts"]["prompt"]["input"]["kind"] == "facts"
    assert manifests["facts"]["prompt"]["input"]["cut_cases"] > 0
    assert manifests["serialised"]["prompt"]["input"]["cut_cases"] == 0
    assert (manifests["facts"]["prompt"]["input"]["words"]["median"]
            > manifests["serialised"]["prompt"]["input"]["words"]["median"])
    report = tmp_path / "report"
    assert main(["evaluate", "ecthr_npd", "--data", str(folder), "--predictions",
                 str(runs["serialised"]), str(runs["facts"]), "--splits", "validation,test",
                 "--out", str(report), "--no-figures", "--resamples", "20"]) == 0
    document = json.loads((report / "report.json").read_text())
    comparison = document["tables"]["raw_vs_serialised"]["rows"]
    assert len(comparison) == 1 and comparison[0][:2] == ["scripted", "zero_shot"]
    assert comparison[0][4] == pytest.approx(comparison[0][3] - comparison[0][2])
    lengths = {row[0]: row for row in document["tables"]["input_length"]["rows"]}
    assert set(lengths) == {"serialised", "facts"} and lengths["facts"][1] == "300"
    assert lengths["facts"][5] <= 300 + 120  # the cut, plus metadata lines and the note


def test_facts_input_needs_a_facts_config(tmp_path):
    from ecthr_npd.build import build_folder
    from ecthr_npd.prompting.run import _check_arguments

    args = argparse.Namespace(k=5, max_tokens=10, temperature=0.0, splits="test",
                              max_input_words=0)
    with pytest.raises(Exception, match="--max-input-words 0"):
        _check_arguments(args)
    source = write_synthetic(tmp_path / "c.csv", n=200, seed=1)
    built = tmp_path / "b"
    build_folder(built, source, recompute=True, id_size=10)  # no --facts
    from ecthr_npd.data import load_facts

    with pytest.raises(Exception, match="no 'facts' config"):
        load_facts(built)
