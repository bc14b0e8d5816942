"""The leaderboard Space's logic as functions (no server): its check runs without courtbench,
no record's numbers can break the tables, and the header, the tables and a reload's summary
count the same records."""

from __future__ import annotations

import copy
import importlib.util
import json
import subprocess
import sys

import pytest
from leaderboard_records import page_records, write_page_folder

from courtbench.leaderboard.folders import write_space_folder

pytest.importorskip("gradio", reason="needs the 'spaces' extra")


@pytest.fixture(scope="module")
def space(tmp_path_factory):
    folder = tmp_path_factory.mktemp("space-parent") / "space"
    write_space_folder(folder, "org/res")
    return folder


@pytest.fixture(scope="module")
def app(space):
    """The Space's app.py imported from its folder; the folder's modules are removed from
    sys.path and sys.modules again afterwards (they shadow nothing of the tests)."""
    before_path, before_modules = list(sys.path), set(sys.modules)
    spec = importlib.util.spec_from_file_location("leaderboard_space_app", space / "app.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    sys.path[:] = before_path
    for name in set(sys.modules) - before_modules:
        if name in ("results_schema", "record_check", "boundary", "paired_bootstrap",
                    "headnote_similarity") or name.startswith("verifier_"):
            del sys.modules[name]


def test_the_space_check_runs_without_courtbench(space, tmp_path):
    results = tmp_path / "results"
    write_page_folder(results)
    script = (
        "import sys, json\n"
        "sys.modules['courtbench'] = None  # importing courtbench fails, as in a Space\n"
        f"sys.path.insert(0, {str(space)!r})\n"
        "import importlib.util, pathlib\n"
        "from record_check import Checker\n"
        "from huggingface_hub import metadata_load\n"
        "verifiers = {}\n"
        f"for path in sorted(pathlib.Path({str(space)!r}).glob('verifier_*.py')):\n"
        "    spec = importlib.util.spec_from_file_location(path.stem, path)\n"
        "    module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)\n"
        "    verifiers[module.BENCHMARK] = module\n"
        f"folder = pathlib.Path({str(results)!r})\n"
        "records, refused = Checker(verifiers).check_folder(folder, metadata_load(folder / "
        "'README.md'))\n"
        "print(json.dumps([sorted(r['system'] for r in records), len(refused)]))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    systems, refused = json.loads(done.stdout.strip().splitlines()[-1])
    assert systems == sorted(page_records()) and refused >= 19


def test_load_records_verifies_and_the_header_counts_what_the_tables_show(app, tmp_path):
    folder = tmp_path / "results"
    records_by_name = write_page_folder(folder)
    records, refused = app.load_records(folder)
    assert {r["system"] for r in records} == set(records_by_name)
    header = app.header_text(records, refused)
    ranked = app.ranked_count(records, "ecthr_npd")
    table = app.filtered_table(records, "ecthr_npd", None, "better first", "", None, "all",
                               "all", None)
    assert len(table) == ranked == 5 and "ecthr_npd: 5 ranked, 1 unofficial" in header
    assert len(app.unofficial_table(records, "ecthr_npd")) == 1
    assert f"{len(refused)} file(s) refused" in header
    assert app.table_note(len(table), ranked) == "5 system(s)."
    assert app.table_note(2, ranked) == ("2 of 5 ranked system(s) shown; the search and "
                                         "filters hide 3.")


@pytest.mark.parametrize("value", [1e20, -1e27, 1.7976931348623157e308, 9.3e18, 2.0**63,
                                   -0.0, 1e-300])
def test_no_number_breaks_the_tables(app, value):
    """A recomputed figure can be huge (R² of a silly system is about -1e27): the page shows
    it as a float, never as a Python int beyond 64 bits."""
    records = copy.deepcopy(list(page_records().values()))
    for record in records:
        for metric in record["metrics"]:
            metric["value"] = value
        for item in record["breakdowns"]:
            item["value"] = value
    frame = app.leaderboard_rows(records, "ecthr_npd")
    assert all(isinstance(v, float) or v is None for v in frame["MAE ↓"])
    import gradio as gr
    import orjson

    shown = gr.Dataframe(value=frame, datatype=app._datatypes(frame)).postprocess(frame)
    orjson.dumps(shown.model_dump())  # what gradio sends: an int beyond 64 bits failed here
    app.filtered_table(records, "ecthr_npd", "MAE ↓", "worse first", "", None, "all", "all",
                       None)
    app.unofficial_table(records, "ecthr_npd")


def test_a_reload_summary_names_what_was_added_removed_changed_and_refused(app):
    records = list(page_records().values())
    changed = copy.deepcopy(records[1])
    changed["date"] = "2026-12-31"
    after = [records[0], changed, *records[3:]]
    change = app.changes(records, after, [["a.json", "x"]], [["a.json", "x"], ["b.json", "y"]])
    assert change["added"] == [] and change["removed"] == [f"ecthr_npd/{records[2]['system']}"]
    assert change["changed"] == [f"ecthr_npd/{records[1]['system']}"]
    assert change["refused"] == 2 and change["newly_refused"] == ["b.json"]
    text = app.change_text(change)
    assert text.startswith("Reloaded: 0 record(s) added; 1 removed: ecthr_npd/")
    assert "1 changed" in text and "2 file(s) refused (1 newly: b.json)" in text


def test_a_folder_that_cannot_be_read_is_one_refused_line(app, tmp_path):
    records, refused = app.load_records(tmp_path / "missing")
    assert records == [] and refused == []  # no files: nothing to refuse, nothing shown
    (tmp_path / "results").write_text("not a folder")
    records, refused = app.load_records(tmp_path)
    assert records == []


def test_as_submitted_numbers_are_marked_with_their_protocol(app):
    records = copy.deepcopy(list(page_records().values()))
    lead = next(r for r in records if r["system"] == "lead")
    lead["metrics"].append({"name": "LLM judge", "value": 41.0, "ci_low": None, "ci_high": None,
                            "lower_is_better": False, "primary": False,
                            "as_submitted": "judge m, prompt sha 1234"})
    assert "LLM judge ↑ (as submitted)" in app.leaderboard_rows(records, "slds").columns
    assert "LLM judge — lead: judge m, prompt sha 1234" in app.as_submitted_text(records, "slds")
