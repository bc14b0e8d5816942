"""ECtHR-NPD evaluation: strict prediction files, report contents, CLI, reduced demo."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from courtbench.cli import main
from courtbench.errors import CourtbenchError, SourceError
from ecthr_npd.build import build_synthetic
from ecthr_npd.data import load_benchmark
from ecthr_npd.evaluation import (
    build_report,
    parse_prediction,
    parse_splits,
    read_system_predictions,
    state_groups,
)

CHEAP = ["train_median", "zero", "train_mean", "knn"]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """A synthetic Hub folder of 1,200 cases."""
    folder = tmp_path_factory.mktemp("ecthr_eval") / "hub"
    build_synthetic(folder, n=1200, seed=5)
    return folder


@pytest.fixture(scope="module")
def predictions(built, tmp_path_factory) -> Path:
    """Predictions of the cheap baselines, written by the CLI."""
    out = tmp_path_factory.mktemp("ecthr_pred") / "pred"
    assert main(["baselines", "ecthr_npd", "--data", str(built), "--out", str(out),
                 "--systems", ",".join(CHEAP)]) == 0
    return out


@pytest.fixture(scope="module")
def data(built):
    return load_benchmark(built)


def write_csv(path: Path, rows: list[tuple[str, str]]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["case_id", "prediction"])
        writer.writerows(rows)
    return path


def test_baselines_cli_writes_every_case(predictions, data):
    files = sorted(p.name for p in predictions.iterdir())
    assert files == sorted([f"{name}.csv" for name in CHEAP]
                           + ["settings.json", ".courtbench.json"])
    with open(predictions / "zero.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["case_id"] for r in rows] == data.all_ids()
    assert {float(r["prediction"]) for r in rows} == {0.0}
    settings = json.loads((predictions / "settings.json").read_text())
    assert settings["data"]["fingerprint"] == data.fingerprint
    assert settings["systems"]["train_median"]["settings"]["value_eur"] == float(
        np.median(data.target("train")))
    assert settings["systems"]["knn"]["settings"]["k"] == 20
    assert {"numpy", "scikit-learn", "python"} <= set(settings["versions"])


def test_load_benchmark_rejects_a_non_hub_folder(tmp_path):
    with pytest.raises(CourtbenchError, match="not a Hub folder"):
        load_benchmark(tmp_path)


def test_parse_prediction():
    assert parse_prediction("1500") == 1500.0
    assert parse_prediction(" 2.5e3") == 2500.0
    assert parse_prediction(0) == 0.0
    for bad in ("nan", "inf", "-1", "", "abc", "-inf"):
        with pytest.raises(ValueError):
            parse_prediction(bad)
    for bad in (True, None, [1]):
        with pytest.raises(TypeError):
            parse_prediction(bad)


def test_strict_prediction_files(tmp_path, data):
    ids = data.all_ids()
    good = [(case_id, "100") for case_id in ids]
    path = write_csv(tmp_path / "sys.csv", good)
    read = read_system_predictions([path], data)
    assert read["sys"]["test"].shape == (len(data.ids("test")),)

    broken = good + [good[-1], ("001-999999", "5")]
    path = write_csv(tmp_path / "broken.csv", broken)
    with pytest.raises(CourtbenchError) as error:
        read_system_predictions([path], data)
    message = str(error.value)
    assert "1 unknown" in message and "'001-999999'" in message
    assert "1 duplicate" in message and repr(ids[-1]) in message
    # a split covered in part is refused, naming the missing case
    partial = write_csv(tmp_path / "partial.csv", good[:3] + good[4:])
    with pytest.raises(CourtbenchError) as error:
        read_system_predictions([partial], data, ("train", "validation", "test"))
    assert "covers split train in part" in str(error.value) and repr(ids[3]) in str(error.value)

    for value, problem in (("nan", "not finite"), ("inf", "not finite"), ("-3", "negative")):
        rows = list(good)
        rows[10] = (ids[10], value)
        path = write_csv(tmp_path / "bad.csv", rows)
        with pytest.raises(SourceError, match=rf"bad\.csv, line 12, column 'prediction'.*{problem}"):
            read_system_predictions([path], data, ("train", "validation", "test"))

    jsonl = tmp_path / "json_sys.jsonl"
    jsonl.write_text("".join(json.dumps({"case_id": c, "prediction": 7}) + "\n" for c in ids))
    assert set(read_system_predictions([jsonl], data)["json_sys"]["test"].tolist()) == {7.0}
    lines = jsonl.read_text().splitlines()
    lines[1] = json.dumps({"case_id": ids[1], "prediction": True})
    jsonl.write_text("\n".join(lines) + "\n")
    with pytest.raises(SourceError, match=r"line 2, column 'prediction'.*expected a number"):
        read_system_predictions([jsonl], data, ("train", "validation", "test"))

    other_dir = tmp_path / "other"
    other_dir.mkdir()
    twin = write_csv(other_dir / "sys.csv", good)
    with pytest.raises(CourtbenchError, match="more than once"):
        read_system_predictions([tmp_path / "sys.csv", twin], data)


def test_splits_option(tmp_path, data):
    assert parse_splits("test,validation") == ("validation", "test")
    assert parse_splits("test") == ("test",)
    with pytest.raises(CourtbenchError, match="subset of train, validation, test"):
        parse_splits("dev")
    held_out = [(c, "1") for s in ("validation", "test") for c in data.ids(s)]
    path = write_csv(tmp_path / "held_out.csv", held_out)
    assert set(read_system_predictions([path], data, ("validation", "test"))["held_out"]) == {
        "validation", "test"}
    # train named in --splits but not covered at all: scored on what it covers
    assert set(read_system_predictions([path], data, ("train", "validation", "test"))
               ["held_out"]) == {"validation", "test"}
    # a file that also covers train compares with it: its train rows are skipped
    everything = [(c, "7") for s in ("train", "validation", "test") for c in data.ids(s)]
    full = write_csv(tmp_path / "full.csv", everything)
    both = read_system_predictions([path, full], data, ("validation", "test"))
    assert set(both) == {"held_out", "full"} and set(both["full"]) == {"validation", "test"}
    assert (both["full"]["test"] == 7.0).all()
    unknown = write_csv(tmp_path / "unknown.csv", [*held_out, ("no-such-case", "1")])
    with pytest.raises(CourtbenchError, match="no-such-case"):
        read_system_predictions([unknown], data, ("validation", "test"))  # still refused


def test_report_numbers(tmp_path, data, predictions):
    systems = read_system_predictions([predictions / f"{n}.csv" for n in CHEAP], data)
    report = build_report(data, systems, resamples=200, seed=1, figures=False)
    tables = {t.name: t for t in report.tables}
    assert list(tables) == ["main", "panel", "mae_by_range", "error_buckets", "by_state",
                            "by_article", "bootstrap"]
    main_rows = {row[0]: row for row in tables["main"].rows}
    assert list(main_rows) == CHEAP
    y_test = data.target("test")
    test_ids = data.ids("test")
    for name in CHEAP:
        prediction = systems[name]["test"]
        row = main_rows[name]
        assert row[1] == "validation+test"
        assert row[2] == pytest.approx(np.mean(np.abs(prediction - y_test)))
        low, high = (float(x.replace(",", "")) for x in row[3].strip("[]").split(", "))
        assert low <= row[2] <= high
        in_view = np.isin(test_ids, data.views["OOD"])
        assert row[12] == pytest.approx(np.mean(np.abs(prediction[in_view] - y_test[in_view])))
        assert row[14] == pytest.approx(np.mean(np.abs(systems[name]["validation"]
                                                       - data.target("validation"))))
        assert row[15] is None  # no runner manifest: no fallback share
    zero_share = np.mean(y_test <= 0.5)
    assert main_rows["zero"][10] == pytest.approx(2 * zero_share / (1 + zero_share))
    # constant predictors' correlations carry the footnote with the convention
    assert "Pearson r¹" in tables["main"].columns and "train_median" in tables["main"].note
    panel = {(row[0], row[1]): row for row in tables["panel"].rows}
    assert panel[("zero", "test")][2] == y_test.size and ("knn", "Challenging") in panel
    # states: at most twelve named plus "other"; the n column adds up to the test pool
    states = tables["by_state"].rows
    assert len([r for r in states if r[0] != "other"]) <= 12
    assert sum(r[1] for r in states) == y_test.size
    assert len(set(state_groups(data))) == len(states)
    # every bucket row sums to 100%
    for row in tables["error_buckets"].rows:
        assert sum(row[1:]) == pytest.approx(100.0)
    # bootstrap: each system against the best, and against train_median unless it is the best
    best = min(main_rows, key=lambda n: main_rows[n][2])
    pairs = {(r[0], r[1]) for r in tables["bootstrap"].rows}
    expected = {(n, best) for n in CHEAP if n != best}
    if best != "train_median":
        expected |= {(n, "train_median") for n in CHEAP if n != "train_median"}
    assert pairs == expected
    for row in tables["bootstrap"].rows:  # the verdict names a system, never "2 better"
        assert row[6] in (f"{row[0]} better", f"{row[1]} better", "not significant")
    assert report.provenance["metrics"]["bootstrap_mae"]["n_resamples"] == 200
    assert report.provenance["data"]["fingerprint"] == data.fingerprint


@pytest.mark.slow
def test_evaluate_cli_writes_the_report(tmp_path, built, predictions, capsys):
    out = tmp_path / "report"
    files = [str(predictions / f"{n}.csv") for n in CHEAP]
    assert main(["evaluate", "ecthr_npd", "--data", str(built), "--predictions", *files,
                 "--out", str(out), "--resamples", "100"]) == 0
    printed = capsys.readouterr().out
    assert "| train_median |" in printed
    names = {p.name for p in out.iterdir()}
    assert {"report.md", "report.json", "main.csv", "mae_by_range.csv", "error_buckets.csv",
            "by_state.csv", "by_article.csv", "bootstrap.csv"} <= names
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        pass
    else:
        assert {"award_distribution.png", "predicted_vs_actual.png", "mae_by_range.png"} <= names
    document = json.loads((out / "report.json").read_text())
    assert document["provenance"]["versions"]["numpy"] == np.__version__
    assert set(document["provenance"]["predictions"]) == set(CHEAP)
    assert document["provenance"]["baselines"][str(predictions)]["seed"] == 0
    assert (document["provenance"]["baselines"][str(predictions)]["data_fingerprint"]
            == document["provenance"]["data"]["fingerprint"])
    assert "## Main results" in (out / "report.md").read_text()

    # a bad file fails the whole run and leaves the previous report untouched
    bad = write_csv(tmp_path / "bad.csv", [("001-0000001", "1")])
    assert main(["evaluate", "ecthr_npd", "--data", str(built), "--predictions", str(bad),
                 "--out", str(out)]) == 1
    assert "unknown sample id" in capsys.readouterr().err
    assert json.loads((out / "report.json").read_text()) == document


@pytest.mark.slow
def test_any_complete_split_subset_is_scored_and_its_scope_stated(tmp_path, data, predictions):
    """Test only, validation only and both compare in one report; figures outside a
    system's scope are absent, paired tests use the systems with a test scope."""
    test_only = write_csv(tmp_path / "test_only.csv", [(c, "900") for c in data.ids("test")])
    validation_only = write_csv(tmp_path / "val_only.csv",
                                [(c, "900") for c in data.ids("validation")])
    files = [test_only, validation_only, predictions / "train_median.csv"]
    systems = read_system_predictions(files, data)
    assert {name: sorted(s) for name, s in systems.items()} == {
        "test_only": ["test"], "val_only": ["validation"],
        "train_median": ["test", "validation"]}
    report = build_report(data, systems, resamples=50, seed=1, figures=False)
    tables = {t.name: t for t in report.tables}
    rows = {row[0]: row for row in tables["main"].rows}
    assert rows["test_only"][1] == "test" and rows["test_only"][14] is None
    assert rows["val_only"][1] == "validation" and rows["val_only"][2] is None
    assert rows["val_only"][3] is None and rows["val_only"][14] is not None
    assert report.provenance["scope"] == {"test_only": "test", "val_only": "validation",
                                          "train_median": "validation+test"}
    assert all("val_only" not in row[:2] for row in tables["bootstrap"].rows)
    assert "val_only" not in tables["by_state"].columns
    assert "val_only" in report.intro and "test_only test" in report.intro
    empty = write_csv(tmp_path / "nothing.csv", [(data.ids("train")[0], "1")])
    with pytest.raises(CourtbenchError, match="no prediction for any case of validation, test"):
        read_system_predictions([empty], data)


def test_prediction_files_in_the_authors_formats(tmp_path, data):
    """itemid / predicted_award_eur columns, JSON arrays and JSON Lines read the same."""
    ids = data.ids("test")
    csv_path = tmp_path / "authors.csv"
    csv_path.write_text("itemid,predicted_award_eur\n"
                        + "".join(f"{c},{i % 7}.5\n" for i, c in enumerate(ids)))
    json_path = tmp_path / "authors_json.json"
    json_path.write_text(json.dumps([{"itemid": c, "predicted_award_eur": i % 7 + 0.5}
                                     for i, c in enumerate(ids)], indent=1))
    jsonl_path = tmp_path / "mixed.jsonl"
    jsonl_path.write_text("".join(json.dumps({"case_id": c, "predicted_award_eur": i % 7 + 0.5})
                                  + "\n" for i, c in enumerate(ids)))
    read = read_system_predictions([csv_path, json_path, jsonl_path], data)
    assert np.array_equal(read["authors"]["test"], read["authors_json"]["test"])
    assert np.array_equal(read["authors"]["test"], read["mixed"]["test"])


@pytest.mark.parametrize("text, line, column, problem", [
    ("case_id,prediction,prediction\n", 1, "prediction", "names this column twice"),
    ("case_id,prediction\n{first},\uff15\uff10\n", 2, "prediction", "plain decimal"),
    ("case_id,prediction\n{first},\u0665\u0660\n", 2, "prediction", "plain decimal"),
    ("case_id,prediction\n{first},5_000\n", 2, "prediction", "plain decimal"),
    ("case_id,prediction\n{first},0x1388\n", 2, "prediction", "plain decimal"),
    ("itemid,case_id,prediction\n{first},{first},1\n", 2, "itemid", "both given"),
])
def test_malformed_prediction_csv_is_one_line_naming_file_line_column(tmp_path, data, text,
                                                                      line, column, problem):
    path = tmp_path / "bad.csv"
    path.write_text(text.format(first=data.ids("test")[0]), encoding="utf-8")
    with pytest.raises(SourceError) as error:
        read_system_predictions([path], data)
    message = str(error.value)
    assert f"bad.csv, line {line}, column {column!r}" in message and problem in message
    assert "\n" not in message


def test_duplicate_json_keys_are_refused(tmp_path, data):
    first = data.ids("test")[0]
    jsonl = tmp_path / "dup.jsonl"
    jsonl.write_text(f'{{"case_id": "{first}", "prediction": 1, "prediction": 2}}\n')
    with pytest.raises(SourceError, match=r"dup\.jsonl, line 1, column 'prediction'.*twice"):
        read_system_predictions([jsonl], data)
    array = tmp_path / "dup.json"
    array.write_text(f'[\n{{"case_id": "{first}", "prediction": 1}},\n'
                     f'{{"case_id": "{first}", "case_id": "x", "prediction": 2}}\n]')
    with pytest.raises(SourceError, match=r"dup\.json, line 3, column 'case_id'.*twice"):
        read_system_predictions([array], data)


def test_evaluate_computes_the_data_fingerprint_once(built, predictions, tmp_path, monkeypatch):
    from fingerprint_calls import count_fingerprints

    calls = count_fingerprints(monkeypatch)
    assert main(["evaluate", "ecthr_npd", "--data", str(built), "--predictions",
                 str(predictions / "zero.csv"), str(predictions / "train_median.csv"),
                 "--out", str(tmp_path / "report"), "--resamples", "20", "--no-figures"]) == 0
    assert len(calls) == 1
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    assert report["provenance"]["rerun"]["data_fingerprint"] == \
        report["provenance"]["data"]["fingerprint"]
