"""Figures are drawn last; one that cannot be drawn is a warning and a note, never exit 1."""

from __future__ import annotations

import csv

from courtbench.cli import main
from courtbench.report import Report, Table, write_report


def test_a_figure_that_raises_is_a_warning_and_a_note(tmp_path, capsys):
    def broken(path):
        path.write_bytes(b"half")
        raise OverflowError("cannot convert float infinity to integer")

    report = Report(title="t", provenance={},
                    tables=[Table(name="main", title="Main", columns=["a"], rows=[[1]])],
                    figures={"broken.png": broken, "fine.png": lambda p: p.write_bytes(b"x")})
    written = write_report(report, tmp_path / "r")
    names = sorted(p.name for p in written)
    assert "broken.png" not in names and "fine.png" in names and "report.json" in names
    markdown = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert "broken.png not drawn: the plotting library failed (OverflowError" in markdown
    assert "warning: broken.png not drawn" in capsys.readouterr().err


def test_huge_predictions_are_clipped_in_the_figures_and_said_in_the_report(tmp_path, capsys):
    data, preds = tmp_path / "data", tmp_path / "preds"
    assert main(["build", "ecthr_npd", "--synthetic", "--n", "200", "--out", str(data)]) == 0
    assert main(["baselines", "ecthr_npd", "--data", str(data), "--out", str(preds),
                 "--systems", "zero"]) == 0
    rows = list(csv.reader((preds / "zero.csv").open(encoding="utf-8")))
    huge = tmp_path / "huge.csv"
    with huge.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, lineterminator="\n").writerows(
            [rows[0]] + [[row[0], "1e308"] for row in rows[1:]])
    capsys.readouterr()
    code = main(["evaluate", "ecthr_npd", "--data", str(data), "--predictions", str(huge),
                 "--out", str(tmp_path / "report"), "--resamples", "20"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "Traceback" not in err
    markdown = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert "Figure notes" in markdown
    assert "predictions above 1e+12 EUR drawn at 1e+12" in markdown
