"""One award-distribution figure: the evaluation report draws exactly the card's PNG."""

from __future__ import annotations

import pytest

from ecthr_npd.build import build_synthetic
from ecthr_npd.data import load_benchmark
from ecthr_npd.report_figures import award_distribution

pytest.importorskip("matplotlib")  # the plots extra (installed by `make test`)


@pytest.mark.slow
def test_report_and_card_award_distribution_are_the_same_png(tmp_path):
    folder = tmp_path / "ecthr"
    build_synthetic(folder, n=300, seed=3)
    drawn = tmp_path / "report_award_distribution.png"
    award_distribution(load_benchmark(folder))(drawn)
    assert drawn.read_bytes() == (folder / "award_distribution.png").read_bytes()


def test_a_zero_mae_is_marked_on_the_log_axis_instead_of_an_empty_slot(tmp_path, monkeypatch):
    from ecthr_npd import report_figures

    saved = {}
    monkeypatch.setattr(report_figures, "_save", lambda figure, path: saved.setdefault("f", figure))
    ranges = {"zero": {"mae": 0.0, "n": 3}, "up_to_10k": {"mae": 2_000.0, "n": 4},
              "10k_to_50k": {"mae": 20_000.0, "n": 2}, "over_50k": {"mae": None, "n": 0}}
    report_figures.mae_by_range({"zero": {"test": {"bucket_mae": ranges}}})(tmp_path / "m.png")
    axis = saved["f"].axes[0]
    markers = [line for line in axis.get_lines() if line.get_marker() == "v"]
    assert len(markers) == 1 and markers[0].get_ydata()[0] == pytest.approx(200.0)
    assert [t.get_text() for t in axis.texts] == ["0"]
