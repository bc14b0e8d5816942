"""``courtbench evaluate slds``: per-pair tables, macro-averages, heatmaps, judge, strictness."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from fake_chat_server import FakeChatServer, Reply, judgement
from slds_fixtures import sample_id, write_slds_folder

from courtbench.errors import CourtbenchError, SourceError
from slds.evaluation import add_evaluate_arguments, evaluate

HEADNOTES = {
    "de": "Art. 8 Abs. 1 BV; Gleichbehandlung. Der Anspruch auf rechtliches Gehör ist formeller Natur.",
    "fr": "Art. 8 al. 1 Cst.; égalité de traitement. Le droit d'être entendu est de nature formelle.",
    "it": "Art. 8 cpv. 1 Cost.; parità di trattamento. Il diritto di essere sentito è formale.",
}


def _folder(tmp_path: Path) -> Path:
    return write_slds_folder(tmp_path, [("decision text 0", "de"), ("decision text 1", "fr")],
                             HEADNOTES)


def _predictions(tmp_path: Path, name: str, texts: dict[str, str]) -> Path:
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps({"sample_id": k, "prediction": v}, ensure_ascii=False) + "\n"
                            for k, v in texts.items()), encoding="utf-8")
    return path


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path)
    parser.add_argument("--predictions", type=Path, nargs="+")
    parser.add_argument("--out", type=Path)
    add_evaluate_arguments(parser)
    return parser.parse_args(list(argv))


def _gold(language: str) -> str:
    return HEADNOTES[language]


def test_report_has_macro_and_pairs(tmp_path):
    data = _folder(tmp_path)
    perfect = _predictions(tmp_path, "oracle", {sample_id(i, h): _gold(h) for i in (0, 1)
                                                for h in ("de", "fr", "it")})
    partial = _predictions(tmp_path, "partial", {sample_id(i, h): ("" if h == "it" else _gold("de"))
                                                 for i in (0, 1) for h in ("de", "fr", "it")})
    out = tmp_path / "report"
    assert evaluate(_args("--data", str(data), "--predictions", str(perfect), str(partial),
                          "--out", str(out), "--resamples", "50")) == 0
    report = json.loads((out / "report.json").read_text())
    main = report["tables"]["main"]
    assert main["columns"] == ["system", "pairs", "n", "ROUGE-1 F1", "ROUGE-2 F1", "ROUGE-L F1",
                               "BLEU", "failed %"]
    assert main["rows"][0][0] == "oracle" and main["rows"][0][3] == 100.0
    assert main["rows"][0][1] == "de_de+de_fr+de_it+fr_de+fr_fr+fr_it" and main["rows"][0][2] == 6
    rouge1 = report["tables"]["rouge1"]
    assert rouge1["columns"][:7] == ["system", "pairs", "n", "macro", "SE", "de_de", "de_fr"]
    oracle, partial_row, counts = rouge1["rows"]
    assert oracle[5:11] == [100.0, 100.0, 100.0, 100.0, 100.0, 100.0]
    assert oracle[11:] == [None, None, None]  # it_* pairs are absent
    assert counts[0] == "n (samples)" and counts[5:11] == [1] * 6
    assert oracle[4] == "n/a"  # one item per pair: the SE is undefined, never 0.00
    # partial: German text for de/fr headnotes, empty for it; pair de_de is exact
    assert partial_row[5] == pytest.approx(100.0)
    assert partial_row[7] == 0.0
    assert partial_row[3] == pytest.approx(sum(partial_row[5:11]) / 6)
    assert {p.name for p in out.iterdir()} >= {"report.md", "report.json", "main.csv", "bleu.csv"}
    assert "Macro-average over language pairs" in (out / "report.md").read_text()


def test_heatmaps_are_drawn(tmp_path):
    pytest.importorskip("matplotlib")
    data = _folder(tmp_path)
    preds = _predictions(tmp_path, "oracle", {sample_id(i, h): _gold(h) for i in (0, 1)
                                              for h in ("de", "fr", "it")})
    evaluate(_args("--data", str(data), "--predictions", str(preds), "--out",
                   str(tmp_path / "r"), "--resamples", "10"))
    for metric in ("rouge1", "rouge2", "rougeL", "bleu"):
        assert (tmp_path / f"r/heatmap_{metric}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_missing_and_unknown_ids_are_listed(tmp_path):
    data = _folder(tmp_path)
    preds = _predictions(tmp_path, "bad", {sample_id(0, "de"): "x", 4711: "y"})
    with pytest.raises(CourtbenchError) as error:
        evaluate(_args("--data", str(data), "--predictions", str(preds), "--out", str(tmp_path / "r")))
    assert "'4711'" in str(error.value)
    assert not (tmp_path / "r").exists()
    (tmp_path / "two").mkdir()
    two = write_slds_folder(tmp_path / "two", [("decision text 0", "de"), ("decision text 1", "fr"),
                                                ("decision text 2", "de")], HEADNOTES)
    preds = _predictions(tmp_path, "part", {sample_id(0, "de"): "x"})
    with pytest.raises(CourtbenchError) as error:  # de_de covered in part: the missing id named
        evaluate(_args("--data", str(two), "--predictions", str(preds), "--out", str(tmp_path / "r")))
    assert "covers pair de_de in part: 1 sample id(s)" in str(error.value)
    assert str(sample_id(2, "de")) in str(error.value)


def test_old_string_ids_are_refused_naming_the_integer_form(tmp_path):
    data = _folder(tmp_path)
    preds = _predictions(tmp_path, "old", {"d0/de": "x"})
    with pytest.raises(SourceError, match=r"old.jsonl, line 1, column 'sample_id': sample id "
                       r"'d0/de' is not an integer \(the old '<decision_id>/<headnote_language>'"
                       r" form is no longer used\); expected the integer sample_id"):
        evaluate(_args("--data", str(data), "--predictions", str(preds), "--out", str(tmp_path / "r")))
    assert not (tmp_path / "r").exists()


def test_csv_ids_are_parsed_as_integers(tmp_path):
    data = _folder(tmp_path)
    path = tmp_path / "oracle.csv"
    path.write_text("sample_id,prediction\n" + "".join(
        f" {sample_id(i, h)} ,{_gold(h)}\n" for i in (0, 1) for h in ("de", "fr", "it")),
        encoding="utf-8")
    assert evaluate(_args("--data", str(data), "--predictions", str(path),
                          "--out", str(tmp_path / "r"), "--resamples", "10")) == 0
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    assert report["tables"]["main"]["rows"][0][0] == "oracle"
    assert report["tables"]["main"]["rows"][0][3] == 100.0


def test_non_string_prediction_names_line_and_column(tmp_path):
    data = _folder(tmp_path)
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"sample_id": sample_id(0, "de"), "prediction": 3}) + "\n")
    with pytest.raises(SourceError, match=r"bad.jsonl, line 1, column 'prediction'"):
        evaluate(_args("--data", str(data), "--predictions", str(path), "--out", str(tmp_path / "r")))


def test_judge_half_configured_is_refused(tmp_path):
    # --judge-model alone is an Inspect model (openai/..., anthropic/...); a URL needs a name
    with pytest.raises(CourtbenchError, match="--judge-base-url goes with --judge-model"):
        evaluate(_args("--data", str(tmp_path), "--predictions", "x.jsonl", "--out", "r",
                       "--judge-base-url", "http://127.0.0.1:9/v1"))


def test_judge_scores_per_pair_through_a_local_endpoint(tmp_path):
    data = _folder(tmp_path)
    preds = _predictions(tmp_path, "oracle", {sample_id(i, h): _gold(h) for i in (0, 1)
                                              for h in ("de", "fr", "it")})
    with FakeChatServer(lambda request, attempt: Reply(judgement([3, 3, 2, 2, 1]))) as server:
        evaluate(_args("--data", str(data), "--predictions", str(preds), "--out",
                       str(tmp_path / "r"), "--resamples", "10", "--judge-base-url", server.url,
                       "--judge-model", "judge-1", "--judge-cache", str(tmp_path / "c")))
    report = json.loads((tmp_path / "r/report.json").read_text())
    assert report["tables"]["main"]["columns"][-2] == "LLM judge"
    assert report["tables"]["main"]["rows"][0][-2] == pytest.approx(60.0)  # (2+2+1+1+0)*10
    assert report["tables"]["judge"]["rows"][0][5:11] == [60.0] * 6
    assert report["provenance"]["settings"]["oracle"]["judge"]["n_failed"] == 0


def test_judge_decoding_limit_and_parse_mode_reach_the_requests_and_the_report(tmp_path):
    data = _folder(tmp_path)
    preds = _predictions(tmp_path, "oracle", {sample_id(i, h): _gold(h) for i in (0, 1)
                                              for h in ("de", "fr", "it")})
    answer = "ARTICLES_SCORE: 3\nARTICLES_SCORE: 2"  # published: summed to 5, others 1
    with FakeChatServer(lambda request, attempt: Reply(answer)) as server:
        assert evaluate(_args("--data", str(data), "--predictions", str(preds), "--out",
                              str(tmp_path / "r"), "--resamples", "10", "--judge-base-url",
                              server.url, "--judge-model", "judge-1", "--judge-temperature", "0.2",
                              "--judge-seed", "5", "--judge-max-tokens", "77", "--judge-limit",
                              "4", "--judge-parse", "published")) == 0
        bodies = [r.body for r in server.requests]
    assert 1 <= len(bodies) <= 4  # identical requests are sent once
    assert {(b["temperature"], b["seed"], b["max_tokens"]) for b in bodies} == {(0.2, 5, 77)}
    judge = json.loads((tmp_path / "r/report.json").read_text())["provenance"]["settings"]["oracle"]["judge"]
    assert judge["parse"] == "published" and judge["n_excluded"] == 0 and judge["limit"] == 4
    assert judge["n_samples"] == 4


def test_judge_failures_exit_non_zero_with_the_report_written_and_cache_beside_it(tmp_path, capsys):
    data = _folder(tmp_path)
    preds = _predictions(tmp_path, "oracle", {sample_id(i, h): _gold(h) for i in (0, 1)
                                              for h in ("de", "fr", "it")})
    with FakeChatServer(lambda request, attempt: Reply(status=503)) as server:
        code = evaluate(_args("--data", str(data), "--predictions", str(preds), "--out",
                              str(tmp_path / "r"), "--resamples", "10", "--judge-base-url",
                              server.url, "--judge-model", "judge-1", "--judge-max-retries", "0"))
    assert code == 1
    assert "judge of oracle: 6 judge request(s) could not be completed" in capsys.readouterr().err
    report = json.loads((tmp_path / "r/report.json").read_text())
    assert report["provenance"]["settings"]["oracle"]["judge"]["n_request_failed"] == 6
    assert (tmp_path / "r.judge-inspect" / "logs").is_dir()  # the shared default: beside --out


def test_files_for_some_pairs_are_scored_on_those_pairs_only(tmp_path):
    """One pair, some pairs (--configs or inferred) and all pairs compare in one report;
    the macro-average is over the pairs present, and the tables say which."""
    data = _folder(tmp_path)
    one = _predictions(tmp_path, "one", {sample_id(0, "fr"): _gold("fr")})  # de_fr only
    some = _predictions(tmp_path, "some", {sample_id(0, h): _gold(h) for h in ("de", "fr")}
                        | {sample_id(1, "it"): ""})  # de_de, de_fr and fr_it
    out = tmp_path / "r"
    assert evaluate(_args("--data", str(data), "--predictions", str(one), str(some),
                          "--out", str(out), "--resamples", "10")) == 0
    report = json.loads((out / "report.json").read_text())
    rows = {row[0]: row for row in report["tables"]["main"]["rows"]}
    assert rows["one"][1:4] == ["de_fr", 1, 100.0]
    assert rows["some"][1:3] == ["de_de+de_fr+fr_it", 3]
    assert rows["some"][3] == pytest.approx(200.0 / 3)
    assert report["provenance"]["scope"] == {"one": ["de_fr"], "some": ["de_de", "de_fr", "fr_it"]}
    assert "one: de_fr" in (out / "report.md").read_text()
    # --configs: exactly these pairs; rows of other pairs are skipped
    assert evaluate(_args("--data", str(data), "--predictions", str(some), "--configs",
                          "de_fr,de_de", "--out", str(tmp_path / "r2"), "--resamples", "10")) == 0
    report = json.loads((tmp_path / "r2" / "report.json").read_text())
    assert report["tables"]["main"]["rows"][0][1:4] == ["de_de+de_fr", 2, 100.0]
    with pytest.raises(CourtbenchError, match="no prediction for pair fr_fr named by --configs"):
        evaluate(_args("--data", str(data), "--predictions", str(one), "--configs", "fr_fr",
                       "--out", str(tmp_path / "r3")))
    with pytest.raises(CourtbenchError, match="--configs 'xx_yy'"):
        evaluate(_args("--data", str(data), "--predictions", str(one), "--configs", "xx_yy",
                       "--out", str(tmp_path / "r3")))


def test_extractiveness_of_predictions_beside_the_gold_headnotes(tmp_path):
    data = write_slds_folder(tmp_path, [("Erwägung eins. Der Anspruch auf rechtliches Gehör ist "
                                         "formeller Natur und gilt.", "de"),
                                        ("Une décision française.", "fr")], HEADNOTES)
    copying = _predictions(tmp_path, "copy", {
        sample_id(0, "de"): "Der Anspruch auf rechtliches Gehör ist formeller Natur.",
        sample_id(0, "fr"): _gold("fr"), sample_id(1, "fr"): "Une décision."})
    out = tmp_path / "r"
    assert evaluate(_args("--data", str(data), "--predictions", str(copying), "--out", str(out),
                          "--resamples", "10")) == 0
    table = json.loads((out / "report.json").read_text())["tables"]["extractiveness"]
    assert table["columns"][:5] == ["system", "pair", "n", "coverage (system)", "coverage (gold)"]
    rows = {row[1]: row for row in table["rows"]}
    assert set(rows) == {"de_de", "fr_fr", "macro"}  # same-language pairs only
    assert rows["de_de"][3] == pytest.approx(1.0)  # copied from the decision
    assert rows["de_de"][3] > rows["de_de"][4]     # more than the gold headnote copies
    assert rows["macro"][3] == pytest.approx((rows["de_de"][3] + rows["fr_fr"][3]) / 2)
    assert "Extractiveness of the predictions" in (out / "report.md").read_text()
