"""courtbench.report: Markdown, CSV and JSON reports from the same tables."""

from __future__ import annotations

import csv
import json
import math

import pytest

from courtbench.errors import CourtbenchError
from courtbench.report import Report, Table, format_cell, write_report


def _report(**kwargs) -> Report:
    table = Table("main", "Main results", ["system", "MAE", "n"],
                  [["median", 1234.5678, 2897], ["knn", math.nan, None]], note="MAE in EUR.")
    return Report("Toy report", {"seed": 0, "numpy": "2.x"}, [table], **kwargs)


def test_report_files_agree(tmp_path):
    files = write_report(_report(), tmp_path / "r")
    assert [p.name for p in files] == ["main.csv", "report.json", "report.md"]
    markdown = (tmp_path / "r/report.md").read_text()
    assert "| median | 1,234.57 | 2,897 |" in markdown
    assert "| knn | — | — |" in markdown and "MAE in EUR." in markdown
    assert '"seed": 0' in markdown
    rows = list(csv.reader(open(tmp_path / "r/main.csv")))
    assert rows == [["system", "MAE", "n"], ["median", "1234.5678", "2897"], ["knn", "nan", ""]]
    data = json.loads((tmp_path / "r/report.json").read_text())
    assert data["tables"]["main"]["rows"] == [["median", 1234.5678, 2897], ["knn", None, None]]
    assert data["provenance"] == {"seed": 0, "numpy": "2.x"}


def test_report_is_deterministic(tmp_path):
    write_report(_report(), tmp_path / "a")
    write_report(_report(), tmp_path / "b")
    for name in ("main.csv", "report.json", "report.md"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_a_figure_failure_still_writes_the_scored_report(tmp_path):
    """A failing figure no longer costs the report: it is left out and noted (the scores
    are computed before any figure is drawn)."""
    write_report(_report(), tmp_path / "r")

    def broken(path):
        raise RuntimeError("boom")

    files = write_report(_report(figures={"x.png": broken}), tmp_path / "r")
    assert "x.png" not in [p.name for p in files]
    assert "x.png not drawn" in (tmp_path / "r/report.md").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]


def test_missing_plot_extra_skips_figure(tmp_path):
    def no_matplotlib(path):
        raise ImportError("No module named 'matplotlib'")

    files = write_report(_report(figures={"x.png": no_matplotlib}), tmp_path / "r")
    assert "x.png" not in [p.name for p in files]


def test_duplicate_table_names_are_refused(tmp_path):
    table = Table("t", "T", ["a"], [[1]])
    with pytest.raises(ValueError, match="duplicate"):
        write_report(Report("x", {}, [table, table]), tmp_path / "r")


@pytest.mark.parametrize("value, text", [(None, "—"), (True, "yes"), (12345, "12,345"),
                                         (0.5, "0.50"), ("x", "x"), (float("nan"), "—")])
def test_format_cell(value, text):
    assert format_cell(value) == text


def test_report_never_replaces_an_unrelated_folder(tmp_path):
    (tmp_path / "r").mkdir()
    (tmp_path / "r/slds_preds.jsonl").write_text("{}\n")
    with pytest.raises(CourtbenchError, match="refusing to replace"):
        write_report(_report(), tmp_path / "r")
    assert (tmp_path / "r/slds_preds.jsonl").is_file()
