"""The award-distribution figure, one drawing for the card and the evaluation report.

Histograms of the positive awards per split on log-spaced bins (EUR, log x axis), each
split's zero share in the legend (needs matplotlib, the ``plots`` extra).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa

    from ecthr_npd.splits import Membership


@dataclass(frozen=True)
class AwardDistribution:
    """Writes ``award_distribution.png`` for the awards (EUR) of each split when called with
    the file's path; see :func:`award_distribution`."""

    targets: Mapping[str, np.ndarray]
    synthetic: bool = False

    def __call__(self, path: Path) -> None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        every = (np.concatenate(list(self.targets.values())) if self.targets
                 else np.zeros(0))
        positive = every[every > 0]
        low = max(1.0, float(positive.min())) if len(positive) else 1.0
        high = max(low * 10, float(positive.max())) if len(positive) else 10.0
        bins = np.logspace(np.log10(low), np.log10(high), 40)
        figure, axis = plt.subplots(figsize=(7, 4), dpi=100)
        for name, values in self.targets.items():
            if len(values) == 0:
                continue
            zero_share = float((values == 0).mean())
            weights = np.full((values > 0).sum(), 1 / len(values))
            axis.hist(values[values > 0], bins=bins, weights=weights, histtype="step",
                      linewidth=1.5, label=f"{name} (n={len(values):,}; zero {zero_share:.1%})")
        axis.set_xscale("log")
        axis.set_xlabel("non-pecuniary damage award, EUR (log scale; zero awards in legend)")
        axis.set_ylabel("share of the split's cases")
        axis.set_title("ECtHR-NPD award distribution per split"
                       + (" — SYNTHETIC stand-in" if self.synthetic else ""))
        axis.legend(frameon=False)
        figure.tight_layout()
        figure.savefig(path, format="png", metadata={"Software": None})
        plt.close(figure)


def award_distribution(targets: Mapping[str, np.ndarray], *,
                       synthetic: bool = False) -> AwardDistribution:
    """A function writing ``award_distribution.png`` for the awards (EUR) of each split.

    Each split's histogram counts its positive awards on 40 log-spaced bins spanning every
    split's positive awards, weighted by 1 / the split's size (so a bar is a share of the
    split's cases); the legend gives each split's size and zero share; empty splits are left
    out; the title says SYNTHETIC when ``synthetic``.

    The returned function imports matplotlib when called, so that a missing ``plots`` extra
    raises ImportError there (the Hub and report writers then skip the figure). The PNG
    carries no software/date metadata, so redrawing gives identical bytes.
    """
    return AwardDistribution({name: np.asarray(y, dtype=float) for name, y in targets.items()},
                             synthetic=synthetic)


def award_distribution_figure(table: pa.Table, membership: Membership, *,
                              synthetic: bool = False) -> AwardDistribution:
    """:func:`award_distribution` of a canonical case table's target, split by
    ``membership`` (the card's figure)."""
    from ecthr_npd import schema

    y = table.column(schema.TARGET_COLUMN).to_numpy()
    return award_distribution({name: y[membership.split == code]
                               for code, name in enumerate(schema.SPLITS)},
                              synthetic=synthetic)
