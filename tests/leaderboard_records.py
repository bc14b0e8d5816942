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


#: The hostile files of :func:`write_hostile_records` → a phrase of the reason each is refused.
HOSTILE_REASONS = {
    "results/ecthr_npd/half_interval.json": "expected both numbers or both null",
    "results/ecthr_npd/claims_mae_1.json": "outside its interval",
    "results/ecthr_npd/copy_of_big_llm.json": "stored as results/ecthr_npd/copy_of_big_llm.json",
    "results/ecthr_npd/<img src=x onerror=alert(1)>.json": "system:",
    "results/ecthr_npd/huge_integer.json": "400 digits",
    "results/ecthr_npd/deep.json": "nested too deeply",
    "results/ecthr_npd/x.json": "not a regular file",
    "results/ecthr_npd/long_name.json": "characters (expected at most",
    "results/ecthr_npd/mean_mismatch.json": "the mean of per_item is",
}


def write_hostile_records(folder, big_llm: dict) -> None:
    """The records that once broke or fooled the leaderboard (one file each, names in
    ``HOSTILE_REASONS``); ``big_llm`` is a valid record (copied under another file name)."""
    results = folder / "results" / "ecthr_npd"
    results.mkdir(parents=True, exist_ok=True)

    def write(name, record):
        (results / name).write_text(dumps_record(record), encoding="utf-8")

    half = dict(big_llm, system="half_interval")
    half["metrics"] = [dict(big_llm["metrics"][0], ci_low=1.0, ci_high=None)]
    write("half_interval.json", half)
    claims = dict(big_llm, system="claims_mae_1")
    claims["metrics"] = [dict(big_llm["metrics"][0], value=1.0, ci_low=9376.0, ci_high=33135.0)]
    write("claims_mae_1.json", claims)
    liar = dict(big_llm, system="mean_mismatch")
    liar["metrics"] = [dict(big_llm["metrics"][0], value=1.0, ci_low=0.5, ci_high=1.5)]
    write("mean_mismatch.json", liar)
    write("copy_of_big_llm.json", big_llm)
    write("<img src=x onerror=alert(1)>.json",
          dict(big_llm, system="<img src=x onerror=alert(1)>"))
    text = dumps_record(dict(big_llm, system="huge_integer"))
    (results / "huge_integer.json").write_text(
        text.replace('"per_item": [', '"per_item": [' + "9" * 400 + ", ", 1), encoding="utf-8")
    (results / "deep.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    (results / "x.json").mkdir(exist_ok=True)
    write("long_name.json", dict(big_llm, system="a" * 10_000_000))
