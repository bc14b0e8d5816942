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
