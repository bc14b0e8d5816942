"""SLDS end to end: the real BGE 151 II 245 record, a small synthetic build with ten configs
that verifies offline, byte-identical rebuilds, the card with and without the
summarization-properties module, the folder audit, and interrupted builds leaving nothing."""

from __future__ import annotations

import argparse
import json
import random
import shutil
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import pytest

from courtbench.errors import CourtbenchError
from courtbench.hub import verify_folder
from courtbench.hub.files import list_files
from slds import build as build_module
from slds.audit import audit_folder
from slds.build import build_folder, build_synthetic, format_report
from slds.plugin import PLUGIN, add_build_arguments
from slds.schema import PAIRS, pair_name

DECISIONS = 60


def _absent_module(name):
    raise CourtbenchError(f"metric module {name!r} not found (test: absent)")


def _load(folder: Path, config: str, split: str) -> datasets.Dataset:
    return datasets.load_dataset("parquet", data_files=str(folder / "data" / config /
                                                           f"{split}.parquet"), split="train")


@pytest.fixture(scope="module")
def synthetic_build(tmp_path_factory):
    out = tmp_path_factory.mktemp("slds") / "synthetic"
    result = build_synthetic(out, decisions=DECISIONS, seed=3, properties_loader=_absent_module)
    return out, result


def test_synthetic_build_has_ten_configs_and_verifies(synthetic_build):
    out, result = synthetic_build
    assert result.rows == 3 * DECISIONS and result.decisions == DECISIONS
    names = ["default"] + [pair_name(*p) for p in PAIRS]
    assert list(result.split_sizes) == names
    for name in names[1:]:
        assert list(result.split_sizes[name]) == ["train", "validation", "test",
                                                  "one_shot_examples"]
        assert result.split_sizes[name]["one_shot_examples"] == 1
    assert list(result.split_sizes["default"]) == ["train", "validation", "test"]
    assert sum(result.split_sizes["default"].values()) == 3 * DECISIONS
    report = verify_folder(out, audit=audit_folder)
    assert report.split_sizes == result.split_sizes and not report.problems


def test_one_shot_rows_are_shortest_validation_rows(synthetic_build):
    out, _ = synthetic_build
    for decision_language, headnote_language in PAIRS:
        name = pair_name(decision_language, headnote_language)
        shot = _load(out, name, "one_shot_examples")[0]
        validation = _load(out, name, "validation")
        best = min(validation, key=lambda r: (len(r["decision"]), r["sample_id"]))
        assert shot == best
        assert (shot["decision_language"], shot["headnote_language"]) == (
            decision_language, headnote_language)


def test_card_labels_synthetic_and_says_properties_absent(synthetic_build):
    out, result = synthetic_build
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "SYNTHETIC STAND-IN" in card and "pretty_name: 'SLDS: Swiss Landmark Decisions " \
        "Summarization (SYNTHETIC stand-in)'" in card
    assert "- synthetic" in card and "courtbench_dataset: slds" in card
    assert "license: cc-by-4.0" in card and "- summarization" in card
    assert "table is **not computed**" in card and "test: absent" in card
    assert "| compression ratio" not in card
    assert "not computed" in result.properties_note
    features = datasets.load_dataset(str(out), "de_fr", split="validation").features
    assert features["law_area"].dtype == "string" and features["sample_id"].dtype == "int64"
    assert features["volume"].dtype == "string"
    assert "`civil_and_debt_enforcement_and_bankruptcy_law`" in card
    text = format_report(result)
    assert "SYNTHETIC stand-in" in text and "one_shot_examples 1" in text


def test_row_groups_are_bounded(synthetic_build):
    out, _ = synthetic_build
    metadata = pq.ParquetFile(out / "data" / "default" / "train.parquet").metadata
    assert max(metadata.row_group(i).total_byte_size
               for i in range(metadata.num_row_groups)) <= 40 * 2**20


def test_rebuild_is_byte_identical(synthetic_build, tmp_path):
    out, first = synthetic_build
    again = build_synthetic(tmp_path / "again", decisions=DECISIONS, seed=3,
                            properties_loader=_absent_module)
    assert [(e.path, e.sha256) for e in again.report.files] == [
        (e.path, e.sha256) for e in first.report.files]


def test_interrupted_build_leaves_nothing(tmp_path, monkeypatch):
    def interrupted_figure(stats):
        def draw(path):
            raise KeyboardInterrupt

        return draw

    previous = tmp_path / "previous"
    build_synthetic(previous, decisions=10, seed=1, properties_loader=_absent_module)
    before = list_files(previous)
    monkeypatch.setattr(build_module, "length_figure", interrupted_figure)
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        build_synthetic(out, decisions=10, properties_loader=_absent_module)
    assert [p.name for p in tmp_path.iterdir()] == ["previous"]
    with pytest.raises(KeyboardInterrupt):  # a failed rebuild keeps the previous build
        build_synthetic(previous, decisions=10, properties_loader=_absent_module)
    assert [p.name for p in tmp_path.iterdir()] == ["previous"]
    assert list_files(previous) == before


def test_invalid_source_writes_nothing(tmp_path):
    source = tmp_path / "rows.jsonl"
    source.write_text(json.dumps({"decision_id": "d", "decision": "x", "decision_language": "de",
                                  "headnote": "", "headnote_language": "de", "year": 2020,
                                  "volume": "II", "url": ""}) + "\n", encoding="utf-8")
    with pytest.raises(CourtbenchError, match=r"rows.jsonl, line 1, column 'headnote'"):
        build_folder(tmp_path / "out", source, properties_loader=_absent_module)
    assert not (tmp_path / "out").exists()


def test_audit_reports_a_wrong_one_shot_row(synthetic_build, tmp_path):
    out, _ = synthetic_build
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    test_rows = pq.read_table(copy / "data" / "fr_it" / "test.parquet")
    pq.write_table(test_rows.slice(0, 1), copy / "data" / "fr_it" / "one_shot_examples.parquet")
    problems = audit_folder(copy)
    assert len(problems) == 1 and problems[0].startswith("fr_it/one_shot_examples: row")


def test_real_bge_151_ii_245_build(shared_data, tmp_path):
    out = tmp_path / "real"
    result = build_folder(out, shared_data / "slds" / "search_law_1.json")
    assert result.source_format == "entscheidsuche"
    assert result.skipped == {"not a BGE landmark decision": 2}
    assert result.split_sizes == {"default": {"test_2025": 3}, "de_de": {"test_2025": 1},
                                  "de_fr": {"test_2025": 1}, "de_it": {"test_2025": 1}}
    rows = list(datasets.load_dataset(str(out), "default", split="test_2025"))
    assert [(r["decision_language"], r["headnote_language"]) for r in rows] == [
        ("de", "de"), ("de", "fr"), ("de", "it")]
    for row in rows:
        assert (row["volume"], row["year"]) == ("II", 2025)
        assert row["law_area"] == "administrative_and_international_public_law"
        assert row["url"].endswith("CH_BGE_004_BGE-151-II-245_2025.html")
        for other in rows:
            assert other["headnote"] not in row["decision"]
    assert verify_folder(out, audit=audit_folder).split_sizes == result.split_sizes
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "2 × not a BGE landmark decision" in card
    assert "SYNTHETIC" not in card
    # the metric module is installed in this repository: the card carries its table
    assert "| compression ratio (decision / headnote tokens) |" in card
    assert "| fragment coverage |" in card and "not computed" not in card


def test_plugin_cli_arguments(tmp_path):
    parser = argparse.ArgumentParser()
    add_build_arguments(parser)
    args = parser.parse_args(["--synthetic", "--decisions", "12", "--seed", "4",
                              "--last-test-year", "2023"])
    assert (args.synthetic, args.decisions, args.seed, args.last_test_year) == (True, 12, 4, 2023)
    assert args.num_proc is None  # the build then uses the available cores
    assert parser.parse_args(["--synthetic", "--num-proc", "1"]).num_proc == 1
    for bad in ("0", "two"):
        with pytest.raises(SystemExit):
            parser.parse_args(["--synthetic", "--num-proc", bad])
    with pytest.raises(SystemExit):
        parser.parse_args(["--synthetic", "--source", "x"])
    assert PLUGIN.name == "slds" and PLUGIN.audit_folder.resolve() is audit_folder


def test_detected_language_is_recorded_in_report_and_card(tmp_path):
    rows = [{"decision_id": f"w{i}", "decision": text, "decision_language": language,
             "headnote_de": "Kopf.", "headnote_fr": "Tête.", "headnote_it": "Testa.",
             "year": year, "volume": "II", "url": ""}
            for i, (text, language, year) in enumerate([
                ("Faits A. Le recourant invoque une violation du droit d'être entendu.", "",
                 2022),
                ("Sachverhalt A. Die Beschwerdeführerin rügt eine Verletzung.", "de", 2010)])]
    source = tmp_path / "wide.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = build_folder(tmp_path / "out", source, properties_loader=_absent_module)
    assert [(d.decision_id, d.language) for d in result.detected_languages] == [("w0", "fr")]
    assert "decision language DETECTED" in format_report(result)
    card = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert "**Detected decision languages.**" in card and "`w0` → fr" in card
    assert result.split_sizes["fr_de"] == {"validation": 1, "one_shot_examples": 1}
    assert result.split_sizes["de_it"] == {"train": 1}


def test_cli_build_and_verify(tmp_path, monkeypatch, capsys):
    import slds.build
    from courtbench.cli import main

    monkeypatch.setattr(slds.build, "build_synthetic", lambda out, **kw: build_synthetic(
        out, properties_loader=_absent_module, **kw))
    out = tmp_path / "cli"
    assert main(["build", "slds", "--synthetic", "--decisions", "10", "--seed", "2",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "SYNTHETIC stand-in" in printed and "it_it: train" in printed
    assert main(["verify", str(out)]) == 0
    assert main(["build", "slds", "--synthetic", "--format", "wide",
                 "--out", str(tmp_path / "x")]) == 1
    err = capsys.readouterr().err  # refused by the parser (or the plugin): never ignored
    assert "--format" in err and "--source" in err
    assert not (tmp_path / "x").exists()


def test_shuffled_long_source_with_own_ids_rebuilds_the_same_files(synthetic_build, tmp_path):
    """Rows in any source order, carrying their sample ids: ids kept, order restored, every
    parquet file byte-identical (the build streams the rows into blocks and sorts those)."""
    out, first = synthetic_build
    rows = [row for split in first.split_sizes["default"]
            for row in _load(out, "default", split)]
    random.Random(1).shuffle(rows)
    source = tmp_path / "rows.jsonl"
    source.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows),
                      encoding="utf-8")
    again = build_folder(tmp_path / "again", source, properties_loader=_absent_module)
    parquet = [(e.path, e.sha256) for e in first.report.files if e.path.endswith(".parquet")]
    assert [(e.path, e.sha256) for e in again.report.files
            if e.path.endswith(".parquet")] == parquet


@pytest.mark.slow
def test_num_proc_does_not_change_the_build(tmp_path):
    one = build_synthetic(tmp_path / "one", decisions=24, seed=4, num_proc=1)
    two = build_synthetic(tmp_path / "two", decisions=24, seed=4, num_proc=2)
    assert one.properties_note.startswith("computed with")
    assert [(e.path, e.sha256) for e in one.report.files] == [
        (e.path, e.sha256) for e in two.report.files]
    assert "| fragment coverage |" in (tmp_path / "two" / "README.md").read_text()
