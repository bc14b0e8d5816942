"""Statistics and figure for the SLDS dataset card (template: ``slds/card_template.md``).

- :func:`language_table`: decisions per split × decision language;
- :func:`law_area_table`: decisions per law area × split;
- :func:`properties_by_split`: the summarization-properties aggregates per split of the
  ``default`` config, computed with the metric module ``slds/metrics/summarization_properties``
  (loaded by path); when that module is not installed the card says the table is not
  computed — no placeholder numbers;
- :func:`length_figure`: histogram PNG of decision and headnote lengths.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from courtbench.errors import CourtbenchError
from courtbench.metric_modules import load_metric_module
from slds.assemble import Assembled
from slds.law_areas import LAW_AREAS
from slds.properties import split_properties
from slds.schema import LANGUAGES

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


def _decision_rows(assembled: Assembled, start: int, stop: int) -> dict[str, tuple[str, int]]:
    """decision_id -> (decision language, law-area label) for rows ``start:stop``."""
    columns = assembled.columns
    return {columns["decision_id"][i]: (columns["decision_language"][i], columns["law_area"][i])
            for i in range(start, stop)}


def language_table(assembled: Assembled) -> list[list[Any]]:
    """Rows ``[split, decisions de, fr, it, total decisions, rows]`` per split, then total."""
    table, totals = [], Counter()
    for split, (start, stop) in assembled.splits.items():
        counts = Counter(language for language, _ in _decision_rows(assembled, start, stop).values())
        totals.update(counts)
        totals["rows"] += stop - start
        table.append([split, *(counts[x] for x in LANGUAGES), sum(counts.values()), stop - start])
    table.append(["all", *(totals[x] for x in LANGUAGES), sum(totals[x] for x in LANGUAGES),
                  totals["rows"]])
    return table


def law_area_table(assembled: Assembled) -> list[list[Any]]:
    """Rows ``[law area, decisions per split …, total]`` for the law areas that occur."""
    per_split = {split: Counter(area for _, area in _decision_rows(assembled, *bounds).values())
                 for split, bounds in assembled.splits.items()}
    rows = []
    for label, name in enumerate(LAW_AREAS):
        counts = [per_split[split][label] for split in assembled.splits]
        if sum(counts):
            rows.append([name.replace("_", " "), *counts, sum(counts)])
    return rows


def properties_by_split(assembled: Assembled, *,
                        loader: Callable[[str], ModuleType] = load_metric_module
                        ) -> tuple[dict[str, dict[str, dict[str, Any]]] | None, str, float]:
    """Summarization-properties aggregates per split of the ``default`` config.

    Each split's rows are computed once, spread over processes by decision
    (:func:`slds.properties.split_properties`). Returns ``(tables, note, seconds)``: ``tables`` maps split -> property ->
    {mean, std, min, median, max, n} (``None`` when the metric module is not installed,
    with ``note`` saying so), and the wall-clock seconds spent.
    """
    try:
        module = loader(PROPERTIES_MODULE)
    except CourtbenchError as error:
        return None, f"not computed: the metric module is not available ({error})", 0.0
    start_time = time.perf_counter()
    tables = split_properties(module, assembled.columns, assembled.splits,
                              [name for name, _ in CARD_PROPERTIES])
    seconds = time.perf_counter() - start_time
    return tables, f"computed with slds/metrics/{PROPERTIES_MODULE}", seconds


def properties_rows(tables: dict[str, dict[str, dict[str, Any]]]) -> dict[str, list[list[Any]]]:
    """Card rows per split: ``[property title, mean, std, min, median, max, n]``."""
    def number(value: Any) -> Any:
        return None if value is None else round(float(value), 3)

    return {split: [[title, *(number(table[name][k]) for k in ("mean", "std", "min", "median",
                                                                 "max")), table[name]["n"]]
                     for name, title in CARD_PROPERTIES]
            for split, table in tables.items()}


def length_figure(assembled: Assembled) -> Callable[[Path], None]:
    """Return a function that writes the decision/headnote length histogram PNG.

    Lengths are whitespace-separated words (one per unique decision; one per headnote row),
    on log-scaled bins. Raises ImportError inside the returned function when matplotlib
    (the ``plots`` extra) is missing, which the Hub writer reports as a skipped figure.
    """
    columns = assembled.columns
    decisions = {columns["decision_id"][i]: columns["decision"][i]
                 for i in range(len(columns["decision_id"]))}
    decision_words = [len(text.split()) for text in decisions.values()]
    headnote_words = [len(text.split()) for text in columns["headnote"]]

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
