"""The evaluation report's figures (need matplotlib, the ``plots`` extra).

:func:`figures` returns ``file name → draw(path)`` functions for
:func:`courtbench.report.write_report`; each imports matplotlib only when called, so that a
missing matplotlib raises ImportError there and the report skips the figure.

- ``award_distribution.png``: the card's figure (:func:`ecthr_npd.figures.award_distribution`):
  positive awards per split (EUR, log x axis), each split's zero share in the legend;
- ``predicted_vs_actual.png``: one panel per system, test cases, 1 + EUR on both log axes;
- ``mae_by_range.png``: test MAE per award range, bars grouped by range, one colour per system;
  an MAE of exactly 0 (e.g. the ``zero`` baseline on zero awards) is marked with a ▼ and "0"
  at the foot of the log axis instead of leaving an empty slot.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ecthr_npd import figures as figures_module
from ecthr_npd.data import SPLITS, BenchmarkData

#: Largest value (EUR) drawn on the log axes; larger predictions are drawn at this value and
#: counted in the report's figure notes (matplotlib cannot scale or label values near 1e308).
PLOT_MAX_EUR = 1e12

RANGES = (("zero", "0"), ("up_to_10k", ">0–10k"), ("10k_to_50k", "10k–50k"),
          ("over_50k", ">50k"))


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(figure, path: Path) -> None:
    figure.tight_layout()
    figure.savefig(path, metadata={"Software": None})
    _pyplot().close(figure)


def _synthetic(data: BenchmarkData) -> bool:
    """Whether ``data`` comes from a Hub folder whose card marks it SYNTHETIC."""
    from courtbench.hub.card import read_card_metadata

    folder = Path(data.source)
    if not (folder / "README.md").is_file():
        return False
    provenance = read_card_metadata(folder).get("provenance") or {}
    return bool(provenance.get("synthetic"))


def award_distribution(data: BenchmarkData) -> Callable[[Path], None]:
    """The card's award-distribution figure (:mod:`ecthr_npd.figures`) for ``data``: the same
    drawing, so the same bytes as the card's ``award_distribution.png``."""
    return figures_module.award_distribution({split: data.target(split) for split in SPLITS},
                                             synthetic=_synthetic(data))


def predicted_vs_actual(data: BenchmarkData, systems: dict[str, dict[str, np.ndarray]]
                        ) -> Callable[[Path], None]:
    y = data.target("test")

    def draw(path: Path) -> str | None:
        plt = _pyplot()
        names = list(systems)
        columns = min(4, len(names))
        rows = -(-len(names) // columns)
        figure, axes = plt.subplots(rows, columns, figsize=(3.2 * columns, 3.0 * rows), dpi=100,
                                    squeeze=False)
        shown = {name: np.minimum(systems[name]["test"], PLOT_MAX_EUR) for name in names}
        clipped = {name: int(np.sum(systems[name]["test"] > PLOT_MAX_EUR)) for name in names}
        top = max(float(y.max()), max(float(v.max()) for v in shown.values())) + 1
        for axis, name in zip(axes.flat, names, strict=False):
            axis.scatter(y + 1, shown[name] + 1, s=3, alpha=0.3, linewidths=0)
            axis.plot([1, top], [1, top], color="grey", linewidth=0.8)
            axis.set_xscale("log")
            axis.set_yscale("log")
            axis.set_xlim(0.8, top * 1.2)
            axis.set_ylim(0.8, top * 1.2)
            axis.set_title(name, fontsize=9)
            axis.set_xlabel("1 + actual (EUR)", fontsize=8)
            axis.set_ylabel("1 + predicted (EUR)", fontsize=8)
        for axis in list(axes.flat)[len(names):]:
            axis.set_visible(False)
        _save(figure, path)
        return clip_note(clipped)

    return draw


def clip_note(clipped: dict[str, int]) -> str | None:
    """The report's note on predictions drawn at :data:`PLOT_MAX_EUR` (None: none were)."""
    parts = [f"{name} {count:,}" for name, count in clipped.items() if count]
    if not parts:
        return None
    return (f"predictions above {PLOT_MAX_EUR:.0e} EUR drawn at {PLOT_MAX_EUR:.0e} (scores use "
            f"the real values): {', '.join(parts)} test case(s)")


def mae_by_range(scores: dict[str, dict[str, Any]]) -> Callable[[Path], None]:
    def draw(path: Path) -> None:
        plt = _pyplot()
        names = list(scores)
        width = 0.8 / max(1, len(names))
        figure, axis = plt.subplots(figsize=(8, 4), dpi=100)
        positions = np.arange(len(RANGES))
        drawn = [v for name in names for key, _ in RANGES
                 if (v := scores[name]["test"]["bucket_mae"][key]["mae"])]
        floor = min(drawn) / 10 if drawn else 1.0  # where a zero MAE is marked on the log axis
        for i, name in enumerate(names):
            values = [scores[name]["test"]["bucket_mae"][key]["mae"] for key, _ in RANGES]
            bars = axis.bar(positions + i * width, [np.nan if not v else min(v, PLOT_MAX_EUR) for v in values],
                            width=width, label=name)
            for position, value in zip(positions + i * width, values, strict=True):
                if value == 0:  # a log axis has no 0: mark it instead of leaving a gap
                    axis.plot(position, floor, marker="v", color=bars.patches[0].get_facecolor(),
                              markersize=6)
                    axis.annotate("0", (position, floor), textcoords="offset points",
                                  xytext=(0, 5), ha="center", fontsize=7)
        axis.set_xticks(positions + width * (len(names) - 1) / 2, [t for _, t in RANGES])
        axis.set_yscale("log")
        axis.set_xlabel("true award range (EUR)")
        axis.set_ylabel("MAE (EUR, log scale)")
        axis.set_title("Test MAE by award range")
        axis.legend(fontsize=7, ncol=2)
        _save(figure, path)

    return draw


def figures(data: BenchmarkData, systems: dict[str, dict[str, np.ndarray]],
            scores: dict[str, dict[str, Any]]) -> dict[str, Callable[[Path], None]]:
    """The report's figures by file name (see the module docstring)."""
    return {"award_distribution.png": award_distribution(data),
            "predicted_vs_actual.png": predicted_vs_actual(data, systems),
            "mae_by_range.png": mae_by_range(scores)}
