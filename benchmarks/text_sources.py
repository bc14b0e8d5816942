"""The full-size synthetic stand-in with its SYNTHETIC facts, for the text benchmarks."""

from __future__ import annotations

import tempfile
from pathlib import Path

from ecthr_npd.data import BenchmarkData, from_canonical
from ecthr_npd.reader import read_case_level
from ecthr_npd.synthetic import DEFAULT_ROWS, write_synthetic
from ecthr_npd.synthetic_facts import synthetic_facts


def synthetic_with_facts(n: int = DEFAULT_ROWS, seed: int = 0):
    """(canonical table, BenchmarkData with ``facts``, FactsInput) of the synthetic stand-in."""
    with tempfile.TemporaryDirectory(prefix="bench-text-") as tmp:
        table = read_case_level(write_synthetic(Path(tmp) / "case_level.csv", n=n, seed=seed))
    facts = synthetic_facts(table, seed=seed)
    data: BenchmarkData = from_canonical(table, source=f"synthetic n={n} seed={seed}")
    data.facts = {case_id: r["facts_text"] for case_id, r in facts.records.items()}
    return table, data, facts
