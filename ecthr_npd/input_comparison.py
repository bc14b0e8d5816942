"""The report's input tables for prompted runs: raw Facts vs serialised features.

:func:`prompted_runs` reads the manifest beside each predictions file written by
``courtbench predict ecthr_npd`` (model, prompt kind, input kind, input words).
:func:`input_tables` then gives

- ``raw_vs_serialised`` (the paper's Table 4 view): per model and prompt kind with both
  inputs, the test MAE of each and Δ = MAE(facts) − MAE(serialised);
- ``input_length`` (the paper's Table 27): words of the case block per input kind (and
  ``--max-input-words`` limit): mean, median, p95, max.

Files without such a manifest (baselines) take no part; no table is made without runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from courtbench.output_files import manifest_path
from courtbench.report import Table


def prompted_runs(prediction_files: dict[str, Path]) -> dict[str, dict[str, Any]]:
    """system → {"model", "prompt", "input", "max_input_words", "words"} for every
    predictions file whose manifest records a prompt."""
    runs = {}
    for name, path in prediction_files.items():
        manifest = manifest_path(Path(path))
        if not manifest.is_file():
            continue
        try:
            document = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        prompt = document.get("prompt") if isinstance(document, dict) else None
        if not isinstance(prompt, dict) or "kind" not in prompt:
            continue
        given = prompt.get("input") or {}
        runs[name] = {"model": document.get("model"), "prompt": prompt["kind"],
                      "input": given.get("kind", "serialised"),
                      "max_input_words": given.get("max_input_words"),
                      "words": given.get("words") or {}}
    return runs


def _comparison_rows(scores: dict[str, dict[str, Any]], runs: dict[str, dict[str, Any]]):
    pairs: dict[tuple, dict[str, float]] = {}
    for name, run in runs.items():
        if name in scores and scores[name].get("test") is not None:  # test-scored runs only
            pairs.setdefault((run["model"], run["prompt"]), {}).setdefault(
                run["input"], scores[name]["test"]["mae"])
    return [[model, prompt, maes["serialised"], maes["facts"],
             maes["facts"] - maes["serialised"]]
            for (model, prompt), maes in sorted(pairs.items(), key=lambda item: str(item[0]))
            if {"serialised", "facts"} <= set(maes)]


def input_tables(scores: dict[str, dict[str, Any]], runs: dict[str, dict[str, Any]]
                 ) -> list[Table]:
    """The two tables (see the module docstring); empty without prompted runs."""
    if not runs:
        return []
    tables = []
    rows = _comparison_rows(scores, runs)
    if rows:
        tables.append(Table(
            "raw_vs_serialised", "Raw Facts vs serialised features (test MAE, EUR)",
            ["Model", "Prompt", "MAE serialised", "MAE raw facts", "Δ (raw − serialised)"],
            rows, note="Same model, prompt kind and cases; Δ < 0: the raw Facts did better."))
    lengths: dict[tuple, dict[str, float]] = {}
    for run in runs.values():
        lengths.setdefault((run["input"], run["max_input_words"]), run["words"])
    tables.append(Table(
        "input_length", "Input length in words (case block of the prompt)",
        ["Input", "Limit", "Mean", "Median", "p95", "Max"],
        [[kind, "none" if limit is None else f"{limit:,}", words.get("mean"),
          words.get("median"), words.get("p95"), words.get("max")]
         for (kind, limit), words in sorted(lengths.items(), key=lambda item: str(item[0]))],
        note="Whitespace words of the case as shown to the model (instructions excluded), "
             "over the predicted cases.", digits=0))
    return tables
