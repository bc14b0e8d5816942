"""Small valid leaderboard records for page tests (no evaluation needed)."""

from __future__ import annotations

import numpy as np

from courtbench.leaderboard.results_schema import SCHEMA_VERSION, dumps_record, record_path


def make_record(benchmark: str, system: str, per_item: list[float], *, lower: bool = True,
                reference: bool = False, family: str = "llm", grid: bool = False,
                size: float | None = None, selection: str | None = None) -> dict:
    """A valid record whose primary metric is the mean of ``per_item``."""
    value = float(np.mean(per_item))
    name = "MAE" if lower else "ROUGE-L F1"
    if grid:
        breakdowns = [{"table": name, "row": d, "column": h, "value": value + i}
                      for i, (d, h) in enumerate((d, h) for d in ("de", "fr", "it")
                                                 for h in ("de", "fr", "it"))]
    else:
        breakdowns = [{"table": "MAE by test view", "row": v, "column": "MAE", "value": value}
                      for v in ("ID", "OOD", "Challenging")]
    return {
        "schema": SCHEMA_VERSION, "benchmark": benchmark, "system": system, "family": family,
        "reference": reference, "model_name": None, "model_size_b": size,
        "endpoint_host": None, "selection": selection, "parameters_json": "{}",
        "prompt_hashes_json": "{}", "data_kind": "synthetic", "data_source": "data",
        "data_fingerprint": "f" * 64, "metric_signature": "sig", "predictions_sha256": "0" * 64,
        "courtbench_version": "0.1.0", "date": "2026-12-01",
        "metrics": [{"name": name, "value": value, "ci_low": value - 1, "ci_high": value + 1,
                     "lower_is_better": lower, "primary": True}],
        "breakdowns": breakdowns, "paired_tests": [],
        "per_item_name": "absolute error" if lower else "ROUGE-L", "per_item_lower_is_better":
            lower, "per_item": [float(v) for v in per_item],
        "split": "test", "scope": "test", "options_json": "{}", "resamples": 1000,
        "leaderboard_table": "main", "unofficial_reason": None,
    }


def write_records(folder, records: list[dict]) -> None:
    for record in records:
        path = folder / record_path(record)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dumps_record(record), encoding="utf-8")
