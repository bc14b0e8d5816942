"""``courtbench leaderboard check`` on 1,000 ECtHR-NPD records: recompute time (budget 60 s).

Source: the real release's test split (2,897 cases, ``../shared/data/ecthr_npd``) when present,
else the synthetic stand-in at the same size. A results folder is written (not timed) with the
gold file, the reference record ``train_median`` and 999 submitted records, each predicting
the test awards with its own noise and carrying a paired test against ``train_median`` — what
``courtbench submit`` writes. Then, in the same run, interleaved:

- **check**: a fresh :class:`record_check.Checker` recomputes every record (per-item errors,
  MAE with its 1,000-resample bootstrap interval, RMSE, MedAE, Zero-F1, R², the three views,
  the scope, the paired test) and compares each number, as ``leaderboard check`` and the
  leaderboard Space do;
- **reference**: plain reading of the same files (``json.loads`` of each), the least any
  check must do;
- **shape only**: reading with the schema's validation (the shared validator on every value)
  but no recomputation.

Figures: median wall and CPU seconds of each over the runs, the ratios check / reference,
whether the check (wall) is within the 60 s budget, and the whole ``courtbench leaderboard check`` command once (a new
process: imports and the refusal report included). The machine's load average is recorded:
on a shared machine wall times are upper bounds (the CPU seconds are what the check costs).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.sources import ecthr_release_or_synthetic
from benchmarks.timing import median_time
from courtbench.hub import read_card_metadata
from courtbench.leaderboard.folders import references_from_records, results_card
from courtbench.leaderboard.record_check import Bootstrap, Checker, dumps_gold, gold_path
from courtbench.leaderboard.records import add_paired_test, complete_record
from courtbench.leaderboard.results_schema import (
    SCHEMA_VERSION,
    dumps_record,
    read_record_folder,
    record_path,
)
from courtbench.leaderboard.verifiers import verifier_modules
from ecthr_npd import record_verifier
from ecthr_npd.build import build_folder
from ecthr_npd.leaderboard import leaderboard_gold

N_RECORDS = 1_000
BUDGET_SECONDS = 60.0
RUNS = 3
OPTIONS = {"seed": 12345, "zero_threshold": 0.5, "resamples": 1000, "splits": ["test"],
           "top_articles": 15}


def _skeleton(system: str, values: np.ndarray, gold: dict, reference: bool) -> dict:
    return {
        "schema": SCHEMA_VERSION, "benchmark": "ecthr_npd", "system": system,
        "family": "baseline" if reference else "llm", "reference": reference,
        "model_name": None, "model_size_b": None, "endpoint_host": None, "selection": None,
        "parameters_json": "{}", "prompt_hashes_json": "{}", "data_kind": "real",
        "data_source": "ecthr_npd", "data_fingerprint": gold["data_fingerprint"],
        "metric_signature": "bench", "predictions_sha256": "0" * 64,
        "courtbench_version": "bench", "date": "2026-12-01", "metrics": [], "breakdowns": [],
        "paired_tests": [], "per_item_name": None, "per_item_lower_is_better": True,
        "per_item": [], "predicted_values": [float(v) for v in values], "predicted_texts": [],
        "run_complete": None, "failure_share": None, "fallback_share": None, "split": "test",
        "scope": "test", "options_json": json.dumps(OPTIONS, sort_keys=True), "resamples": 1000,
        "leaderboard_table": "main", "unofficial_reason": None}


def write_folder(folder: Path, gold: dict) -> None:
    """The gold file, ``train_median`` and ``N_RECORDS - 1`` noisy systems, and the card."""
    bootstrap = Bootstrap()
    y = np.asarray(gold["values"])
    reference = _skeleton("train_median", np.full(y.size, 3200.0), gold, True)
    reference_result = complete_record(reference, gold, record_verifier, bootstrap)
    records = [reference]
    rng = np.random.default_rng(0)
    for index in range(N_RECORDS - 1):
        noise = rng.normal(0, rng.uniform(500, 20_000), y.size)
        values = np.maximum(0.0, np.round(y + noise))
        record = _skeleton(f"system-{index:04d}", values, gold, False)
        expected = complete_record(record, gold, record_verifier, bootstrap)
        add_paired_test(record, expected, "train_median", reference_result, bootstrap)
        records.append(record)
    data = dumps_gold(gold)
    (folder / gold_path("ecthr_npd", gold["data_fingerprint"])).parent.mkdir(parents=True)
    (folder / gold_path("ecthr_npd", gold["data_fingerprint"])).write_bytes(data)
    card = results_card({"ecthr_npd": {gold["data_fingerprint"]: "real"}},
                        {"ecthr_npd": {gold["data_fingerprint"]:
                                       hashlib.sha256(data).hexdigest()}},
                        references_from_records([reference]))
    (folder / "README.md").write_text(card, encoding="utf-8")
    for record in records:
        path = folder / record_path(record)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dumps_record(record), encoding="utf-8")


def _plain_read(folder: Path) -> int:
    return sum(len(json.loads(p.read_text(encoding="utf-8")))
               for p in sorted((folder / "results").rglob("*.json")))


def main() -> dict:
    """Figures (see the module docstring)."""
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench-leaderboard-check-") as tmp:
        source, kind = ecthr_release_or_synthetic(Path(tmp))
        build_folder(Path(tmp) / "data", source)
        gold = leaderboard_gold(Path(tmp) / "data")
        folder = Path(tmp) / "results"
        folder.mkdir()
        started = time.perf_counter()
        write_folder(folder, gold)
        write_seconds = time.perf_counter() - started
        card = read_card_metadata(folder)
        verifiers = verifier_modules()
        outcome = {}

        def check():
            outcome["check"] = Checker(verifiers).check_folder(folder, card)

        times = {"reference": [], "shape": [], "check": []}
        cpu = {"reference": [], "shape": [], "check": []}
        jobs = {"reference": lambda: _plain_read(folder),
                "shape": lambda: read_record_folder(folder), "check": check}
        for _ in range(RUNS):  # interleaved, so that load changes hit all three alike
            for name, job in jobs.items():
                started_cpu = time.process_time()
                times[name].append(median_time(job, repeat=1))
                cpu[name].append(time.process_time() - started_cpu)
        records, refused = outcome["check"]
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "courtbench", "leaderboard", "check",
                               str(folder)], capture_output=True, text=True)
        command_seconds = time.perf_counter() - started
        folder_bytes = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    medians = {name: float(np.median(values)) for name, values in times.items()}
    cpu_medians = {name: float(np.median(values)) for name, values in cpu.items()}
    return {
        "source": kind, "records": N_RECORDS, "test_cases": len(gold["item_ids"]),
        "folder_mb": round(folder_bytes / 2**20, 1), "write_seconds": round(write_seconds, 2),
        "reference_plain_read_seconds": round(medians["reference"], 3),
        "shape_validation_seconds": round(medians["shape"], 3),
        "check_seconds": round(medians["check"], 3),
        "check_runs_seconds": [round(t, 3) for t in times["check"]],
        "ratio_check_to_plain_read": round(medians["check"] / medians["reference"], 2),
        "cpu_seconds": {name: round(value, 3) for name, value in cpu_medians.items()},
        "cpu_ratio_check_to_plain_read": round(cpu_medians["check"] / cpu_medians["reference"],
                                               2),
        "budget_seconds": BUDGET_SECONDS,
        "within_budget": medians["check"] <= BUDGET_SECONDS,
        "accepted": len(records), "refused": len(refused),
        "command_seconds": round(command_seconds, 2), "command_exit_status": done.returncode,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
    }


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
