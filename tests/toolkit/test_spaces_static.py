"""Metric Spaces without starting them: pinned SDK, no Gradio-3 helper, identical page helpers,
the publish check of the pages' imports, and the helpers' file and table reading."""

from __future__ import annotations

import json
import re

import pytest
import yaml

from courtbench.metric_modules import metric_dir, metric_folders
from courtbench.publish import PublishRefused, make_plan
from courtbench.publish.checks import requirement_names, space_import_problems
from courtbench.publish.kinds import METRIC, app_sibling_files, select_files
from courtbench.publish.pyimports import module_level_imports

NAMES = sorted(metric_folders())


def _front_matter(name: str) -> dict:
    text = (metric_dir(name) / "README.md").read_text(encoding="utf-8")
    return yaml.safe_load(text.split("---\n", 2)[1])


def test_every_metric_module_has_a_page():
    assert NAMES == ["bootstrap_mae", "headnote_judge", "headnote_similarity", "npd_regression",
                     "summarization_properties", "zero_f1"]


def test_cards_pin_the_gradio_of_the_spaces_extra(repo_root):
    extra = re.search(r"^spaces = \[(.*)\]$", (repo_root / "pyproject.toml").read_text(
        encoding="utf-8"), re.MULTILINE)
    [pin] = re.findall(r'"gradio==([0-9.]+)"', extra.group(1))
    versions = {name: _front_matter(name)["sdk_version"] for name in NAMES}
    assert set(versions.values()) == {pin}, versions
    assert int(pin.split(".")[0]) >= 5


@pytest.mark.parametrize("name", NAMES)
def test_app_is_its_own_page_on_the_script_beside_it(name):
    folder = metric_dir(name)
    source = (folder / "app.py").read_text(encoding="utf-8")
    assert "launch_gradio_widget" not in source and "evaluate.load" not in source
    assert f'load_metric("{name}")' in source
    assert "gr.Examples(" in source and 'api_name="from_table"' in source
    assert 'api_name="from_files"' in source
    included, _ = select_files(folder, METRIC)
    assert {"app.py", "space_io.py", f"{name}.py", "requirements.txt"} <= set(included)
    assert app_sibling_files(folder) == {"space_io.py"}
    assert space_import_problems(folder, included) == []


def test_requirement_names_normalise_like_pip():
    text = ("# comment\nrouge-score>=0.1.2\nPyYAML==6.0  # inline\n\n-r other.txt\n"
            "scikit_learn[alldeps]>=1.4; python_version>'3'\nzope.interface\n")
    assert requirement_names(text) == {"rouge_score", "pyyaml", "scikit_learn", "zope_interface"}


def test_module_level_imports_skip_function_bodies():
    source = ("import os, json.decoder\nfrom . import sibling\ntry:\n    import yaml\n"
              "except ImportError:\n    yaml = None\nif True:\n    from numpy import array\n"
              "def f():\n    import torch\nclass C:\n    import scipy\n")
    assert module_level_imports(source, "x.py") == [(1, "json"), (1, "os"), (4, "yaml"),
                                                    (8, "numpy")]


def _toy_metric(folder, app_source, requirements="evaluate\ndatasets\n"):
    folder.mkdir()
    (folder / f"{folder.name}.py").write_text("import evaluate\n", encoding="utf-8")
    (folder / "README.md").write_text("---\ntitle: Toy\nsdk: gradio\nsdk_version: 6.31.0\n"
                                      "app_file: app.py\n---\n\n# Toy\n", encoding="utf-8")
    (folder / "requirements.txt").write_text(requirements, encoding="utf-8")
    (folder / "app.py").write_text(app_source, encoding="utf-8")
    (folder / "helper.py").write_text("import json\nimport yaml\n", encoding="utf-8")
    (folder / "unused.py").write_text("import torch\n", encoding="utf-8")
    return folder


def test_space_import_check_names_what_the_space_lacks(tmp_path):
    folder = _toy_metric(tmp_path / "toy", "import gradio as gr\nimport pandas\nimport helper\n"
                                           "from toy import x\n")
    included, excluded = select_files(folder, METRIC)
    assert "helper.py" in included and "unused.py" in excluded  # only what app.py imports
    problems = space_import_problems(folder, included)
    assert problems == [
        "app.py line 2: imports 'pandas', which neither requirements.txt, the gradio SDK, the "
        "standard library nor a sibling file provides; add its PyPI package to requirements.txt",
        "helper.py line 2: imports 'yaml', which neither requirements.txt, the gradio SDK, the "
        "standard library nor a sibling file provides; add its PyPI package to requirements.txt"]
    (folder / "requirements.txt").write_text("evaluate\npandas>=2\nPyYAML\n", encoding="utf-8")
    assert space_import_problems(folder, included) == []


def test_publish_dry_run_refuses_a_page_importing_an_unlisted_package(tmp_path, monkeypatch):
    monkeypatch.setattr("courtbench.publish.checks.metric_load_problems",
                        lambda folder, uploaded: [])  # the evaluate.load check is tested elsewhere
    folder = _toy_metric(tmp_path / "toy", "import gradio as gr\nimport matplotlib.pyplot\n")
    with pytest.raises(PublishRefused) as error:
        make_plan(folder, "org/toy")
    assert error.value.problems == [
        "app.py line 2: imports 'matplotlib', which neither requirements.txt, the gradio SDK, "
        "the standard library nor a sibling file provides; add its PyPI package to "
        "requirements.txt"]
    (folder / "requirements.txt").write_text("evaluate\nmatplotlib\n", encoding="utf-8")
    plan = make_plan(folder, "org/toy")
    assert any("import only the standard library, gradio" in note for note in plan.checks)


@pytest.mark.parametrize("name", NAMES)
def test_published_metric_folders_pass_the_import_check(name, tmp_path, monkeypatch):
    monkeypatch.setattr("courtbench.publish.checks.metric_load_problems",
                        lambda folder, uploaded: [])
    plan = make_plan(metric_dir(name), f"org/{name}")
    assert "space_io.py" in [entry.path for entry in plan.files]


# --------------------------------------------------------------------------- space_io itself

@pytest.fixture(scope="module")
def space_io():
    pytest.importorskip("gradio", reason="extra 'spaces' not installed")
    import importlib.util

    spec = importlib.util.spec_from_file_location("space_io_under_test",
                                                  metric_dir("zero_f1") / "space_io.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", NAMES)
def test_page_shows_the_cards_description(space_io, name, monkeypatch):
    monkeypatch.setattr(space_io, "FOLDER", metric_dir(name))
    description = _front_matter(name)["description"]
    assert space_io.card_description() == description and len(description) > 40
    monkeypatch.setenv("SPACE_ID", "org/x")
    assert "https://huggingface.co/spaces/org/x/blob/main/README.md" in space_io.card_header(name)
    assert not space_io.card_body().startswith("---")


def test_table_columns_skip_blank_rows(space_io):
    rows = [[1, 2], ["", None], [3.5, "4"], [float("nan"), " "]]
    assert space_io.table_columns(rows, ["a", "b"]) == {"a": [1, 3.5], "b": [2, "4"]}
    with pytest.raises(space_io.gr.Error, match="the table is empty"):
        space_io.table_columns([[None, ""]], ["a", "b"])


def test_table_values_parse_each_column_and_name_the_bad_cell(space_io):
    rows = [[1, "a; b"], ["", None], ["2.5", ""]]
    assert space_io.table_values(rows, {"x": space_io.number, "y": space_io.labels}) == {
        "x": [1.0, 2.5], "y": [["a", "b"], []]}
    with pytest.raises(space_io.gr.Error) as error:
        space_io.table_values([[1, 2], [3, 4.5]], {"n": space_io.integer, "m": space_io.integer})
    assert error.value.message.startswith("table row 2, column 'm' = 4.5: expected an integer in")
    assert space_io.integer("3", "cell") == 3 and space_io.integer(2.0, "cell") == 2


def test_page_options_go_through_the_boundary_validator(space_io):
    """The pages' integer options, seeds and caps are the validator's rules (one copy of it:
    the metric script's own boundary module)."""
    assert space_io.boundary.__name__.endswith(".boundary")
    for call, message in [
            (lambda: space_io.seed(1.5), "seed = 1.5: expected an integer seed"),
            (lambda: space_io.seed("7"), "seed = '7': expected an integer seed"),
            (lambda: space_io.count(10**9, "n", low=1, high=100), "n = 1000000000: expected an "
                                                                  "integer in [1, 100]"),
            (lambda: space_io.finite(float("nan"), "alpha"), "alpha = nan: expected a finite"),
            (lambda: space_io.integer(True, "k"), "k = True: expected an integer")]:
        with pytest.raises(space_io.gr.Error) as error:
            call()
        assert error.value.message.startswith(message), error.value.message


@pytest.mark.parametrize("value", ["1_000", "abc", "", True, None, [1]])
def test_number_rejects_what_is_not_a_number(space_io, value):
    with pytest.raises(space_io.gr.Error, match=re.escape(f"row 1 = {value!r}: expected a number")):
        space_io.number(value, "row 1")


def test_read_aligned_pairs_files_by_id(space_io, tmp_path):
    (tmp_path / "p.csv").write_text("\ufeffcase_id,prediction\n2,20\n1,\"10\"\n", encoding="utf-8")
    (tmp_path / "r.jsonl").write_text('{"case_id": 1, "reference": 1}\n\n'
                                      '{"case_id": "2", "reference": 2, "groups": ["A"]}\n',
                                      encoding="utf-8")
    ids, predictions, references = space_io.read_aligned(
        str(tmp_path / "p.csv"), str(tmp_path / "r.jsonl"), "case_id", ["prediction"],
        {"reference": True, "groups": False})
    assert ids == ["1", "2"]
    assert predictions["prediction"] == [("predictions file p.csv line 3, column 'prediction'",
                                          "10"),
                                         ("predictions file p.csv line 2, column 'prediction'",
                                          "20")]
    assert [value for _, value in references["groups"]] == [None, ["A"]]


@pytest.mark.parametrize("file_name, content, message", [
    ("p.txt", "x", "predictions file p.txt: unknown format '.txt'"),
    ("p.csv", "case_id,value\n1,2\n", "predictions file p.csv line 2, column 'prediction': "
                                      "field missing (fields: case_id, value)"),
    ("p.csv", "case_id,prediction\n1,2,3\n", "predictions file p.csv line 2: 3 fields, the "
                                             "header has 2"),
    ("p.jsonl", '{"case_id": 1, "prediction": 2}\n[1]\n', "predictions file p.jsonl line 2: "
                                                         "expected a JSON object, got list"),
    ("p.jsonl", '{"case_id": 1, "prediction": 2}\n{"case_id": 1, "prediction": 2}\n',
     "1 duplicate id(s): '1' (predictions file p.jsonl line 2)"),
    ("p.jsonl", '{"case_id": 9, "prediction": 2}\n{"case_id": 1, "prediction": 2}\n',
     "1 id(s) not in the references file: '9' (predictions file p.jsonl line 1)"),
])
def test_read_aligned_names_the_problem(space_io, tmp_path, file_name, content, message):
    (tmp_path / file_name).write_text(content, encoding="utf-8")
    (tmp_path / "r.csv").write_text("case_id,reference\n1,1\n", encoding="utf-8")
    with pytest.raises(space_io.gr.Error) as error:
        space_io.read_aligned(str(tmp_path / file_name), str(tmp_path / "r.csv"), "case_id",
                              ["prediction"], {"reference": True})
    assert message in error.value.message


def test_read_records_rejects_bytes_that_are_not_utf8(space_io, tmp_path):
    (tmp_path / "r.csv").write_bytes(b"case_id,reference\n1,caf\xe9\n")
    with pytest.raises(space_io.gr.Error) as error:
        space_io.read_records(str(tmp_path / "r.csv"), "references file", ["case_id"])
    assert error.value.message == "references file r.csv line 2: byte 0xe9 is not UTF-8"


def test_result_rows_flatten_and_round(space_io):
    result = {"mae": 5125.0, "n": 12000, "bucket": {"zero": {"mae": None, "n": 1}},
              "groups": {"x": 1}, "ratio": 1 / 3}
    assert space_io.result_rows(result, skip=("groups",)) == [
        ["mae", "5,125"], ["n", "12,000"], ["bucket.zero.mae", "null"], ["bucket.zero.n", "1"],
        ["ratio", "0.3333"]]
    assert json.dumps(result)  # the JSON output keeps every digit
