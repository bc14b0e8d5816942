"""The constant baselines on the release's labels and on the labels the paper used.

The release's changelog corrected two case totals after the paper was written (amount only;
membership unchanged): 001-142400 (train) 12,000 → 96,000 EUR and 001-210465 (validation)
800 → 2,400 EUR (:data:`PAPER_TIME_LABELS`). The paper's constant baselines (its Table 19) were
computed before; the train correction moves the train mean and the positive-award mean (and
so every MAE of those two constants), the validation correction moves every validation MAE —
by 1 to 8 EUR in all.

:func:`constant_figures` computes each constant (value, validation and test MAE, EUR) from a
given set of train / validation / test targets; :func:`paper_time_targets` restores the two
paper-time labels; :func:`constants_table` sets both side by side for the report.
:data:`PAPER_TABLE_19` holds the paper's printed figures where courtbench has them, and
:func:`table19_mismatches` lists the cells the restored computation does not reproduce after
rounding to whole EUR.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from courtbench.report import Table
from ecthr_npd.baselines.constant_baselines import STATISTICS

#: case_id → (split, the paper-time label, the release's corrected label), EUR.
PAPER_TIME_LABELS: dict[str, tuple[str, float, float]] = {
    "001-142400": ("train", 12_000.0, 96_000.0),
    "001-210465": ("validation", 800.0, 2_400.0),
}
#: (constant, "validation" | "test") → the paper's printed MAE (EUR). Empty: the paper's
#: Table 19 figures are not in the sources courtbench can read; fill from the paper.
PAPER_TABLE_19: dict[tuple[str, str], float] = {}
CELLS = ("value", "validation", "test")
NOTE = (
    "EUR. Release: the constants fitted on the public release's train labels; paper-time "
    "labels: the same with the two case totals the release's changelog corrected after the "
    "paper restored to their old values — 001-142400 (train) 96,000 → 12,000 and 001-210465 "
    "(validation) 2,400 → 800. The first moves the train mean and the positive-award mean (and "
    "every MAE of those constants), the second every validation MAE: the release's figures "
    "differ from the paper's constant baselines (its Table 19) by these 1–8 EUR. The authors "
    "also document a 1-EUR rounding difference in the train-median test MAE.")


def constant_figures(targets: dict[str, np.ndarray]) -> dict[str, dict[str, float]]:
    """Per constant of :data:`STATISTICS`: its value (from ``targets["train"]``) and its MAE on
    ``targets["validation"]`` and ``targets["test"]`` (EUR)."""
    figures = {}
    for name, statistic in STATISTICS.items():
        value = statistic(targets["train"])
        figures[name] = {"value": value, **{split: float(np.mean(np.abs(targets[split] - value)))
                                            for split in ("validation", "test")}}
    return figures


def paper_time_targets(data) -> dict[str, np.ndarray] | None:
    """Train / validation / test targets with the two paper-time labels restored; None when
    ``data`` is not the release (a case is missing or does not carry the corrected label)."""
    targets = {split: data.target(split).copy() for split in ("train", "validation", "test")}
    for case_id, (split, paper, corrected) in PAPER_TIME_LABELS.items():
        ids = data.ids(split)
        if case_id not in ids:
            return None
        row = ids.index(case_id)
        if targets[split][row] != corrected:
            return None
        targets[split][row] = paper
    return targets


def table19_mismatches(paper: dict[tuple[str, str], float],
                       figures: dict[str, dict[str, float]]) -> list[tuple[str, str, float, int]]:
    """The cells of ``paper`` that ``figures`` rounded to whole EUR (half up) do not give:
    ``(constant, split, paper figure, rounded figure)``."""
    mismatches = []
    for (name, split), printed in sorted(paper.items()):
        rounded = int(np.floor(figures[name][split] + 0.5))
        if rounded != printed:
            mismatches.append((name, split, printed, rounded))
    return mismatches


def constants_table(data, scores: dict[str, dict[str, Any]]) -> Table | None:
    """Release against paper-time figures per constant (None unless ``data`` is the release
    and a constant baseline was evaluated)."""
    if not set(scores) & set(STATISTICS):
        return None
    restored = paper_time_targets(data)
    if restored is None:
        return None
    release = constant_figures({split: data.target(split)
                                for split in ("train", "validation", "test")})
    paper_time = constant_figures(restored)
    rows = []
    for name in STATISTICS:
        ours, then = release[name], paper_time[name]
        printed = ([PAPER_TABLE_19.get((name, split)) for split in ("validation", "test")]
                   if PAPER_TABLE_19 else [])
        rows.append([name, *[value for cell in CELLS for value in
                             (ours[cell], then[cell], ours[cell] - then[cell])], *printed])
    columns = ["Constant"] + [f"{title} ({labels})" for title in ("Value", "Val MAE", "Test MAE")
                              for labels in ("release", "paper-time labels", "difference")]
    if PAPER_TABLE_19:
        columns += ["Paper Table 19 val MAE", "Paper Table 19 test MAE"]
    return Table("paper_constants", "Constant baselines: the release's labels and the paper's",
                 columns, rows, note=NOTE, digits=1)
