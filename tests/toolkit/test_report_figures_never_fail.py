"""Figures are drawn last; one that cannot be drawn is a warning and a note, never exit 1."""

from __future__ import annotations

import csv
import re

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


def test_predictions_at_the_amount_ceiling_are_drawn_and_beyond_it_refused_at_the_row(
        tmp_path, capsys):
    """1e12 EUR (the ceiling) still draws on the log axes; 1e308 never reaches a figure: the
    predictions file is refused at its row in one line."""
    data, preds = tmp_path / "data", tmp_path / "preds"
    assert main(["build", "ecthr_npd", "--synthetic", "--n", "200", "--out", str(data)]) == 0
    assert main(["baselines", "ecthr_npd", "--data", str(data), "--out", str(preds),
                 "--systems", "zero"]) == 0
    rows = list(csv.reader((preds / "zero.csv").open(encoding="utf-8")))
    for value, expected_code in (("1e12", 0), ("1e308", 1)):
        huge = tmp_path / f"huge_{value}.csv"
        with huge.open("w", newline="", encoding="utf-8") as handle:
            csv.writer(handle, lineterminator="\n").writerows(
                [rows[0]] + [[row[0], value] for row in rows[1:]])
        capsys.readouterr()
        code = main(["evaluate", "ecthr_npd", "--data", str(data), "--predictions", str(huge),
                     "--out", str(tmp_path / f"report_{value}"), "--resamples", "20"])
        err = capsys.readouterr().err
        assert code == expected_code, err
        assert "Traceback" not in err
    assert (tmp_path / "report_1e12" / "report.md").is_file()
    assert "not drawn" not in (tmp_path / "report_1e12" / "report.md").read_text(encoding="utf-8")
    assert re.search(r"line \d+, column 'prediction': bad value '1e308'", err)
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "report_1e308").exists()
