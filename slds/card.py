"""Statistics and figure for the SLDS dataset card (template: ``cards/slds.md``).

- :func:`language_table`: decisions per split × decision language;
- :func:`law_area_table`: decisions per law area × split;
- :class:`CardStatistics`: what those tables and the figure need, accumulated row by row;
- :func:`load_properties_module`: the metric module ``metrics/summarization_properties``
  (loaded by path) whose per-split aggregates :mod:`slds.card_properties` computes; when that
  module is not installed the card says the table is not computed — no placeholder numbers;
- :func:`length_figure`: histogram PNG of decision and headnote lengths.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from courtbench.errors import CourtbenchError
from courtbench.metric_modules import load_metric_module
from slds.law_areas import LAW_AREAS
from slds.schema import LANGUAGES
from slds.splits import split_order

PROPERTIES_MODULE = "summarization_properties"
CARD_PROPERTIES: tuple[tuple[str, str], ...] = (
    ("compression_ratio", "compression ratio (decision / headnote tokens)"),
    ("coverage", "fragment coverage"),
    ("density", "fragment density"),
    ("novelty_1", "novelty, unigrams (%)"),
    ("novelty_2", "novelty, bigrams (%)"),
    ("novelty_3", "novelty, trigrams (%)"),
    ("novelty_4", "novelty, 4-grams (%)"),
)
"""Properties shown in the card, in order, with their row titles."""


class CardStatistics:
    """Counts for the card, accumulated row by row as the build streams (no texts kept).

    Keeps per decision its split, language and law area and its decision length in words;
    per row its headnote length in words and its split.
    """

    def __init__(self) -> None:
        self.decisions: dict[str, tuple[str, str, str]] = {}
        self.decision_words: dict[str, int] = {}
        self.headnote_words: list[int] = []
        self.rows_per_split: Counter = Counter()

    def add(self, row: dict[str, Any], split: str) -> None:
        """Count one canonical row of ``split``."""
        decision_id = row["decision_id"]
        if decision_id not in self.decisions:
            self.decisions[decision_id] = (split, row["decision_language"], row["law_area"])
            self.decision_words[decision_id] = len(row["decision"].split())
        self.headnote_words.append(len(row["headnote"].split()))
        self.rows_per_split[split] += 1

    @property
    def n_rows(self) -> int:
        return sum(self.rows_per_split.values())

    def split_names(self) -> list[str]:
        return split_order(self.rows_per_split)


def language_table(stats: CardStatistics) -> list[list[Any]]:
    """Rows ``[split, decisions de, fr, it, total decisions, rows]`` per split, then total."""
    per_split = {split: Counter() for split in stats.split_names()}
    for split, language, _ in stats.decisions.values():
        per_split[split][language] += 1
    table, totals = [], Counter()
    for split, counts in per_split.items():
        rows = stats.rows_per_split[split]
        totals.update(counts)
        totals["rows"] += rows
        table.append([split, *(counts[x] for x in LANGUAGES), sum(counts.values()), rows])
    table.append(["all", *(totals[x] for x in LANGUAGES), sum(totals[x] for x in LANGUAGES),
                  totals["rows"]])
    return table


def law_area_table(stats: CardStatistics) -> list[list[Any]]:
    """Rows ``[law area, decisions per split …, total]`` for the law areas that occur."""
    splits = stats.split_names()
    per_split = {split: Counter() for split in splits}
    for split, _, area in stats.decisions.values():
        per_split[split][area] += 1
    rows = []
    for name in LAW_AREAS:
        counts = [per_split[split][name] for split in splits]
        if sum(counts):
            rows.append([name.replace("_", " "), *counts, sum(counts)])
    return rows


def load_properties_module(loader: Callable[[str], ModuleType] = load_metric_module
                           ) -> tuple[ModuleType | None, str]:
    """``(module, note)``: the ``summarization_properties`` module, or ``None`` with a note
    saying why the card's table is not computed."""
    try:
        return loader(PROPERTIES_MODULE), f"computed with metrics/{PROPERTIES_MODULE}"
    except CourtbenchError as error:
        return None, f"not computed: the metric module is not available ({error})"


def properties_rows(tables: dict[str, dict[str, dict[str, Any]]]) -> dict[str, list[list[Any]]]:
    """Card rows per split: ``[property title, mean, std, min, median, max, n]``."""
    def number(value: Any) -> Any:
        return None if value is None else round(float(value), 3)

    return {split: [[title, *(number(table[name][k]) for k in ("mean", "std", "min", "median",
                                                                 "max")), table[name]["n"]]
                     for name, title in CARD_PROPERTIES]
            for split, table in tables.items()}


def length_figure(stats: CardStatistics) -> Callable[[Path], None]:
    """Return a function that writes the decision/headnote length histogram PNG.

    Lengths are whitespace-separated words (one per unique decision; one per headnote row),
    on log-scaled bins. Raises ImportError inside the returned function when matplotlib
    (the ``plots`` extra) is missing, which the Hub writer reports as a skipped figure.
    """
    decision_words = list(stats.decision_words.values())
    headnote_words = stats.headnote_words

    def draw(path: Path) -> None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import numpy as np

        figure, axes = plt.subplots(1, 2, figsize=(10, 3.6))
        for ax, values, title in ((axes[0], decision_words, "decisions"),
                                  (axes[1], headnote_words, "headnotes (all languages)")):
            low, high = max(1, min(values)), max(values) + 1
            bins = np.geomspace(low, high, 40) if high > low * 2 else 20
            ax.hist(values, bins=bins, color="#4c72b0")
            ax.set_xscale("log")
            ax.set_xlabel("words (whitespace-separated, log scale)")
            ax.set_ylabel("count")
            ax.set_title(f"{title}: median {int(np.median(values)):,} words, n = {len(values):,}")
            ax.title.set_fontsize(9)
        figure.tight_layout()
        figure.savefig(path, dpi=100, metadata={"Software": None})
        plt.close(figure)

    return draw
