"""A facts config built in warn mode with findings left in the text: baselines and predict
say so on every run (stderr) and in their manifests; a clean or masked folder says nothing."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from fake_chat_server import FakeChatServer, Reply

from courtbench.cli import main
from ecthr_npd.build import build_folder
from ecthr_npd.facts import ACCEPTED
from ecthr_npd.facts_report import facts_findings_notice
from ecthr_npd.reader import read_case_level
from ecthr_npd.synthetic import write_synthetic

TEXT = "The applicant was born in 1970. On 2 May 2001 he was arrested in Riga."
LEAK = "The Court awards the applicant EUR 4,500 in respect of non-pecuniary damage."


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict[str, Path]:
    """A warn build with one flagged passage and a mask build of the same facts."""
    root = tmp_path_factory.mktemp("notice")
    source = write_synthetic(root / "case_level.csv", n=240, seed=4)
    ids = read_case_level(source).column("case_id").to_pylist()
    lines = [json.dumps({"case_id": c, "facts_text": f"{TEXT} {LEAK}" if i == 3 else TEXT,
                         "review_status": ACCEPTED,
                         "source_document_sha256": hashlib.sha256(c.encode()).hexdigest(),
                         "source_anchor": "FACTS §§ 1-3"}) for i, c in enumerate(ids)]
    path = root / "facts.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    built = {}
    for mode in ("warn", "mask"):
        built[mode] = root / mode
        build_folder(built[mode], source, facts_path=path, id_size=20, recompute=True,
                     facts_screen=mode)
    return built


def test_the_notice_names_the_mode_the_count_and_the_report(folders):
    notice = facts_findings_notice(folders["warn"])
    assert "--facts-screen warn" in notice and "1 passage(s)" in notice
    assert "facts_screen_findings.jsonl" in notice and "\n" not in notice
    assert facts_findings_notice(folders["mask"]) is None
    assert facts_findings_notice(folders["warn"] / "missing") is None
    assert facts_findings_notice("org/ecthr_npd") is None  # a Hub id: nothing local to read


def test_baselines_on_warn_facts_say_so_and_record_it(folders, tmp_path, capsys):
    pytest.importorskip("bm25s")
    out = tmp_path / "warn"
    assert main(["baselines", "ecthr_npd", "--data", str(folders["warn"]), "--out", str(out),
                 "--systems", "bm25", "--k-grid", "5"]) == 0
    err = capsys.readouterr().err
    notice = json.loads((out / "settings.json").read_text(encoding="utf-8"))["data"][
        "facts_screen_notice"]
    assert "--facts-screen warn" in notice and f"warning: {notice}" in err


def test_predict_on_warn_facts_says_so_and_records_it(folders, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("COURTBENCH_TEST_KEY", "sk-test")
    out = tmp_path / "preds" / "llm.csv"
    with FakeChatServer(lambda body, attempt: Reply(json.dumps({"award_eur": 1000.0}))) as server:
        main(["predict", "ecthr_npd", "--data", str(folders["warn"]), "--out", str(out),
              "--base-url", server.url, "--model", "scripted", "--api-key-env",
              "COURTBENCH_TEST_KEY", "--max-retries", "0", "--prompt", "zero_shot",
              "--input", "facts", "--limit", "3"])
    err = capsys.readouterr().err
    manifest = json.loads(out.with_name(out.name + ".manifest.json").read_text(encoding="utf-8"))
    assert "--facts-screen warn" in manifest["facts_screen_notice"]
    assert f"warning: {manifest['facts_screen_notice']}" in err
