"""Reviewed facts: every rule of the JSON Lines file, the text leakage screen in the build
(refuse / warn / mask, the findings report, verify), the facts configs (round trip through
datasets.load_dataset) and the synthetic facts. The screen itself: test_ecthr_facts_screen.py."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from courtbench.errors import CourtbenchError, SourceError
from ecthr_npd.build import build_folder
from ecthr_npd.facts import ACCEPTED, read_facts
from ecthr_npd.facts_build import FactsLeakageError
from ecthr_npd.facts_report import (
    REPORT_FILE,
    facts_findings_notice,
    read_report,
    recorded_screen,
    refusal_folder,
)
from ecthr_npd.facts_screen import MARKER, screen_text, screen_texts
from ecthr_npd.reader import read_case_level
from ecthr_npd.synthetic import write_synthetic
from ecthr_npd.synthetic_facts import LABEL, P95_WORDS, length_words, synthetic_facts

ORDINARY = ("The applicant was born in 1961 and lives in Vilnius. On 3 May 2005 he was "
            "arrested and detained at the police station for 48 hours; application no. "
            "5000/06 was lodged on 12 January 2006. Under Article 5 § 3 the detention was "
            "reviewed by the District Court, which heard 12 witnesses.")
PLANTED = [
    "The Court awards the applicant EUR 5,000 in respect of non-pecuniary damage.",
    "The applicant claimed 12,000 euros in respect of non-pecuniary damage.",
    "Holds that the respondent State is to pay the applicant, within three months, the sums.",
    "Dismisses the remainder of the applicant's claim for just satisfaction.",
    "Under Article 41 of the Convention the applicant sought 7 500 for distress.",
    "As to just satisfaction, the Government considered 3.000 excessive.",
    "Under the former Article 50 the Court granted 20,000 to the applicant.",
]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _record(case_id: str, text: str = ORDINARY, **overrides) -> dict:
    record = {"case_id": case_id, "facts_text": text, "review_status": ACCEPTED,
              "source_document_sha256": _digest(case_id), "source_anchor": "FACTS §§ 1-20"}
    record.update(overrides)
    return record


def _write(path: Path, records: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n"
                            for r in records), encoding="utf-8")
    return path


COHORT = ["001-1", "001-2", "001-3"]


def test_a_valid_file_is_read_with_lines_and_status_counts(tmp_path):
    facts = read_facts(_write(tmp_path / "f.jsonl", [_record(c) for c in COHORT]), COHORT)
    assert list(facts.records) == COHORT
    assert facts.lines == {"001-1": 1, "001-2": 2, "001-3": 3}
    assert facts.status_counts == {ACCEPTED: 3}
    assert set(facts.records["001-1"]) == {"facts_text", "source_document_sha256",
                                           "source_anchor"}


@pytest.mark.parametrize(("record", "field", "expectation"), [
    (_record("001-2", text=""), "facts_text", "a non-empty string"),
    (_record("001-2", text="   "), "facts_text", "a non-empty string"),
    (_record("001-2", text="\u200b\u00a0\u202f\ufeff\u2060"), "facts_text", "visible text"),
    (_record("001-2", text="Facts\x00 text"), "facts_text", "no NUL character"),
    (json.dumps(_record("001-2")).replace('"facts_text": "', '"facts_text": "\\ud800'),
     "facts_text", "a lone surrogate U+D800"),
    (_record("001-2", text="x" * 2_000_001), "facts_text", "at most 2,000,000 characters"),
    (_record("001-2", source_anchor="\u3000"), "source_anchor", "visible text"),
    (_record("001-2", text=None), "facts_text", "a non-empty string"),
    (_record("001-2", review_status="draft"), "review_status", repr(ACCEPTED)),
    (_record("001-2", source_document_sha256="abc"), "source_document_sha256", "64 lower-case"),
    (_record("001-2", source_document_sha256="G" * 64), "source_document_sha256", "64 lower"),
    (_record("001-2", source_anchor=""), "source_anchor", "a non-empty string"),
    ({**_record("001-2"), "case_id": ""}, "case_id", "a non-empty string"),
    ({k: v for k, v in _record("001-2").items() if k != "source_anchor"}, "source_anchor",
     "the field to be present"),
    ({**_record("001-2"), "award": 5}, "award", "no such field"),
    ("[1, 2]", "<line>", "a JSON object"),
    ("{not json", "<line>", "one JSON object"),
])
def test_every_rule_names_line_field_value_and_expectation(tmp_path, record, field,
                                                           expectation):
    path = _write(tmp_path / "f.jsonl", [_record("001-1"), record, _record("001-3")])
    with pytest.raises(SourceError) as caught:
        read_facts(path, COHORT)
    message = str(caught.value)
    assert "f.jsonl" in message and "line 2" in message and repr(field) in message
    assert expectation in message and "\n" not in message


def test_duplicates_strangers_and_missing_cases_are_listed_together(tmp_path):
    path = _write(tmp_path / "f.jsonl", [_record("001-1"), _record("001-1"), _record("001-9")])
    with pytest.raises(SourceError) as caught:
        read_facts(path, COHORT)
    message = str(caught.value)
    assert "3 violation(s)" in message
    assert "line 2, field 'case_id'" in message and "already on line 1" in message
    assert "line 3, field 'case_id', value '001-9': expected a case of the cohort" in message
    assert "2 cohort case(s) have no record, e.g. 001-2, 001-3" in message


def test_empty_and_non_utf8_files_are_refused(tmp_path):
    with pytest.raises(SourceError, match="no record"):
        read_facts(_write(tmp_path / "e.jsonl", []), [])
    bad = tmp_path / "b.jsonl"
    bad.write_bytes(b'{"case_id": "\xff"}\n')
    with pytest.raises(SourceError, match="b.jsonl"):
        read_facts(bad, COHORT)


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from(list(" \t\n\u00a0\u202f\u2009\u3000\u200b\u200c"
                                             "\u200d\u2060\ufeff\u180e")), min_size=1,
               max_size=20))
def test_a_text_of_spaces_and_invisible_characters_only_is_refused(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("blank") / "f.jsonl"
    _write(path, [_record("001-1"), _record("001-2", text=text), _record("001-3")])
    with pytest.raises(SourceError, match="line 2, field 'facts_text'"):
        read_facts(path, COHORT)


def test_ordinary_facts_pass_the_screen():
    assert screen_text(ORDINARY, 5000.0) == []
    assert screen_text(ORDINARY, 1961.0) == []  # a year is not the award
    assert screen_text("The proceedings lasted 2,100 days.", 3000.0) == []


@pytest.mark.parametrize("sentence", PLANTED)
def test_planted_award_sentences_are_caught(sentence):
    text = f"{ORDINARY}\n\n{sentence}\n\n{ORDINARY}"
    assert screen_text(text, None), sentence


@pytest.mark.parametrize(("written", "amount"), [
    ("5000 EUR", 5000.0), ("5,000", 5000.0), ("5 000", 5000.0), ("EUR 5,000", 5000.0),
    ("5,000 euros", 5000.0), ("€5000", 5000.0), ("5.000", 5000.0), ("12,500.00", 12500.0),
    ("750 euros", 750.0), ("1,250.50", 1250.5), ("five thousand euros", 5000.0),
    ("16k EUR", 16000.0), ("5\u202f000\u00a0€", 5000.0), ("EUR 2'500", 2500.0),
])
def test_the_cases_own_award_is_caught_in_common_written_forms(written, amount):
    text = f"{ORDINARY} The sum of {written} was mentioned."
    assert [hit.kind for hit in screen_text(text, amount)] == ["own_award"]


@pytest.fixture(scope="module")
def small_source(tmp_path_factory) -> tuple[Path, list[str]]:
    folder = tmp_path_factory.mktemp("facts-source")
    source = write_synthetic(folder / "case_level.csv", n=240, seed=3)
    ids = read_case_level(source).column("case_id").to_pylist()
    return source, ids


def _facts_file(path: Path, ids: list[str], planted: dict[str, str] | None = None) -> Path:
    planted = planted or {}
    return _write(path, [_record(c, f"{ORDINARY} {planted.get(c, '')}".strip()) for c in ids])


def test_build_with_facts_round_trips_through_load_dataset_and_verifies(tmp_path,
                                                                         small_source):
    import datasets

    from courtbench.hub import verify_folder
    from ecthr_npd.audit import audit_folder

    source, ids = small_source
    out = tmp_path / "built"
    build_folder(out, source, facts_path=_facts_file(tmp_path / "f.jsonl", ids), id_size=20,
                 recompute=True)
    verify_folder(out, audit=audit_folder)
    cache = tmp_path / "cache"
    default = datasets.load_dataset(str(out), "default", cache_dir=str(cache))
    facts = datasets.load_dataset(str(out), "facts", cache_dir=str(cache))
    for split in ("train", "validation", "test"):
        assert facts[split]["case_id"] == default[split]["case_id"]
        assert set(facts[split].column_names) == {"case_id", "facts_text",
                                                  "source_document_sha256", "source_anchor"}
    for view in ("id", "ood", "challenging"):
        loaded = datasets.load_dataset(str(out), f"facts_{view}", cache_dir=str(cache))
        assert loaded["test"]["case_id"] == datasets.load_dataset(
            str(out), view, cache_dir=str(cache))["test"]["case_id"]
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "Text leakage screen (mode `refuse`): 240 texts screened, 0 finding(s)" in card
    assert f"`{ACCEPTED}` 240" in card


def test_the_screen_refuses_by_default_writes_nothing_and_reports_beside(tmp_path,
                                                                         small_source):
    source, ids = small_source
    path = _facts_file(tmp_path / "f.jsonl", ids, {ids[5]: PLANTED[0]})
    out = tmp_path / "built"
    with pytest.raises(FactsLeakageError) as caught:
        build_folder(out, source, facts_path=path, id_size=20, recompute=True)
    message = str(caught.value)
    assert ids[5] in message and "line 6" in message and "\n" not in message
    assert "--facts-screen mask" in message and "warn" in message
    assert not out.exists()
    report = refusal_folder(out) / REPORT_FILE
    assert str(report) in message
    records = read_report(refusal_folder(out))
    assert [(r["case_id"], r["line"]) for r in records] == [(ids[5], 6)]
    assert records[0]["kind"] in ("own_award", "award_amount")
    text = f"{ORDINARY} {PLANTED[0]}"
    assert text[records[0]["start"]:records[0]["end"]] == records[0]["passage"] == PLANTED[0]


def test_a_refusal_never_replaces_a_folder_it_did_not_write(tmp_path, small_source):
    source, ids = small_source
    path = _facts_file(tmp_path / "f.jsonl", ids, {ids[5]: PLANTED[0]})
    out = tmp_path / "built"
    foreign = refusal_folder(out)
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(FactsLeakageError, match="could not be written"):
        build_folder(out, source, facts_path=path, id_size=20, recompute=True)
    assert (foreign / "notes.txt").read_text(encoding="utf-8") == "mine"


PLANTED_CASES = {5: PLANTED[0], 9: PLANTED[2], 17: PLANTED[3]}


@pytest.fixture(scope="module")
def screened_builds(tmp_path_factory, small_source):
    """A warn build and a mask build of the same reviewed facts with three award passages."""
    source, ids = small_source
    folder = tmp_path_factory.mktemp("screened")
    path = _facts_file(folder / "f.jsonl", ids, {ids[i]: t for i, t in PLANTED_CASES.items()})
    builds = {}
    for mode in ("warn", "mask"):
        builds[mode] = folder / mode
        build_folder(builds[mode], source, facts_path=path, id_size=20, recompute=True,
                     facts_screen=mode)
    return builds, ids


def _facts_texts(folder: Path) -> dict[str, str]:
    import pyarrow.parquet as pq

    texts = {}
    for split in ("train", "validation", "test"):
        table = pq.read_table(folder / "data" / "facts" / f"{split}.parquet")
        texts.update(zip(table.column("case_id").to_pylist(),
                         table.column("facts_text").to_pylist(), strict=True))
    return texts


def test_warn_keeps_the_text_lists_each_finding_and_the_card_counts_kinds(screened_builds):
    from courtbench.hub import verify_folder
    from ecthr_npd.audit import audit_folder

    builds, ids = screened_builds
    out = builds["warn"]
    records = read_report(out)
    assert sorted(r["case_id"] for r in records) == sorted(ids[i] for i in PLANTED_CASES)
    texts = _facts_texts(out)
    for record in records:
        assert texts[record["case_id"]][record["start"]:record["end"]] == record["passage"]
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "mode `warn`): 240 texts screened, 3 finding(s) in\n  3 case(s)" in card
    assert "award passage 2" in card and "still in the text" in card and REPORT_FILE in card
    screen = recorded_screen(out)
    assert screen["screen_findings"] == 3 and screen["screen_masked"] == 0
    assert sum(screen["screen_findings_by_kind"].values()) == 3
    verify_folder(out, audit=audit_folder)  # the report lists everything the screen finds
    notice = facts_findings_notice(out)
    assert notice and "--facts-screen warn" in notice and "3 passage(s)" in notice


def test_mask_replaces_each_passage_records_it_and_verifies(screened_builds):
    from courtbench.hub import verify_folder
    from ecthr_npd.audit import audit_folder

    builds, ids = screened_builds
    out = builds["mask"]
    texts = _facts_texts(out)
    records = read_report(out)
    assert len(records) == 3
    for record in records:
        masked = texts[record["case_id"]]
        assert masked.startswith(MARKER, record["masked_at"])
        assert record["passage"] not in masked
    assert texts[ids[0]] == ORDINARY  # untouched cases stay as they were
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "3 passage(s) replaced by `[masked]`" in card
    assert recorded_screen(out)["screen_masked"] == 3
    assert facts_findings_notice(out) is None  # nothing left in the text
    verify_folder(out, audit=audit_folder)


def _rewrite_text(folder: Path, case_id: str, change) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    for path in sorted((folder / "data" / "facts").glob("*.parquet")):
        table = pq.read_table(path)
        ids = table.column("case_id").to_pylist()
        if case_id in ids:
            texts = table.column("facts_text").to_pylist()
            texts[ids.index(case_id)] = change(texts[ids.index(case_id)])
            pq.write_table(table.set_column(1, "facts_text", pa.array(texts)), path)


def test_verify_catches_an_unlisted_passage_and_a_lost_marker(tmp_path, screened_builds):
    import shutil

    from ecthr_npd.audit import audit_folder

    builds, ids = screened_builds
    warn, mask = tmp_path / "warn", tmp_path / "mask"
    shutil.copytree(builds["warn"], warn)
    shutil.copytree(builds["mask"], mask)
    _rewrite_text(warn, ids[0], lambda t: t + " " + PLANTED[4])
    assert any(f"{REPORT_FILE} does not list" in p for p in audit_folder(warn))
    _rewrite_text(mask, ids[5], lambda t: t.replace(MARKER, "[gone]"))
    assert any(f"no {MARKER} at masked_at" in p for p in audit_folder(mask))
    (mask / REPORT_FILE).unlink()
    assert any("no findings report" in p for p in audit_folder(mask))


def test_verify_catches_a_tampered_facts_config(tmp_path, small_source):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ecthr_npd.audit import audit_folder

    source, ids = small_source
    out = tmp_path / "built"
    build_folder(out, source, facts_path=_facts_file(tmp_path / "f.jsonl", ids), id_size=20,
                 recompute=True)
    assert read_report(out) == [] and facts_findings_notice(out) is None
    path = out / "data" / "facts" / "test.parquet"
    table = pq.read_table(path)
    texts = table.column("facts_text").to_pylist()
    texts[0] = PLANTED[0]
    texts[1] = "\u200b\u00a0"
    pq.write_table(table.set_column(1, "facts_text", pa.array(texts)), path)
    problems = audit_folder(out)
    assert any("leakage screen finds" in p for p in problems)
    assert any("row 2" in p and "visible text" in p for p in problems)


def test_cli_refuses_a_bad_facts_file_in_one_line(tmp_path, small_source, repo_root):
    source, ids = small_source
    path = _write(tmp_path / "f.jsonl", [_record(c) for c in ids[1:]])
    result = subprocess.run([sys.executable, "-m", "courtbench", "build", "ecthr_npd",
                             "--source", str(source), "--recompute", "--id-size", "20",
                             "--facts", str(path), "--out", str(tmp_path / "o")],
                            capture_output=True, text=True, cwd=repo_root,
                            env={"PYTHONPATH": str(repo_root), "HF_HUB_OFFLINE": "1",
                                 "PATH": "/usr/bin:/bin"})
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "1 cohort case(s) have no record" in result.stderr
    assert not (tmp_path / "o").exists()


def test_synthetic_facts_follow_the_case_and_are_deterministic(small_source):
    source, _ = small_source
    table = read_case_level(source)
    first, again = synthetic_facts(table, seed=1), synthetic_facts(table, seed=1)
    assert first.records == again.records
    assert synthetic_facts(table, seed=2).records != first.records
    row = 0
    case_id = table.column("case_id")[row].as_py()
    text = first.records[case_id]["facts_text"]
    assert text.startswith(LABEL)
    assert table.column("respondent_state")[row].as_py() in text
    assert first.records[case_id]["source_document_sha256"] == _digest(text)
    findings, _ = screen_texts((c, first.lines[c], r["facts_text"], y) for (c, r), y in zip(
        first.records.items(), table.column("y_amount_eur").to_pylist(), strict=True))
    assert findings == []
    for word in ("award", "EUR", "euro", "claim", "just satisfaction", "non-pecuniary"):
        assert all(word not in r["facts_text"] for r in first.records.values())


def test_synthetic_lengths_are_calibrated_to_table_27():
    words = length_words(20_000, seed=0)
    assert abs(np.median(words) - 1_400) < 60
    assert abs(np.percentile(words, 95) - P95_WORDS) < 250


def test_synthetic_build_carries_synthetic_facts(tmp_path):
    from ecthr_npd.build import build_synthetic

    out = tmp_path / "syn"
    result = build_synthetic(out, n=300, seed=0)
    assert "300 reviewed texts from <synthetic>" in result.facts
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "**SYNTHETIC** text from `ecthr_npd.synthetic_facts`" in card
    with pytest.raises(CourtbenchError):
        from ecthr_npd.data import load_facts
        load_facts(tmp_path)  # no facts config there
