"""SLDS leaderboard records: what the page shows of an evaluation report.

Per system: the macro-average over language pairs of ROUGE-1/2/L, BLEU (and BERTScore and
the LLM judge when the report has them), each with a normal-approximation 95% interval from
the report's bootstrap standard error (macro ± 1.96·SE); the 3×3 decision × headnote language
grid of every metric as breakdowns; each test sample's ROUGE-L F1 (×100, the report's ROUGE
tokenizer) as per-item values; and paired bootstrap tests of those against the model-free
reference baselines scored in the same report.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

from rouge_score import rouge_scorer

from courtbench.leaderboard.protocol import check_option_types
from courtbench.leaderboard.results_schema import paired_bootstrap
from courtbench.metric_modules import load_metric_module
from courtbench.predictions import read_predictions
from slds.data import read_split
from slds.evaluation import (
    METRIC_TITLES,
    evaluate_files,
    prediction_text,
    settings_from_options,
)
from slds.schema import LANGUAGES, pair_name

#: The model-free baselines of ``courtbench baselines slds`` (reference rows of the page).
REFERENCE_SYSTEMS = ("lead", "citation_lead")
PRIMARY = "rougeL"
Z_95 = 1.959963984540054


#: Types of the evaluation options a report's rerun block must carry.
OPTION_TYPES = {"split": str, "rouge_tokenizer": str, "bleu_tokenize": str, "bertscore": bool,
                "resamples": int, "seed": int}
#: The leaderboard protocol: option → value it must have (the CLI's defaults).
PROTOCOL_OPTIONS = {"split": ("--splits", "test"), "rouge_tokenizer": ("--rouge-tokenizer",
                                                                       "unicode"),
                    "bleu_tokenize": ("--bleu-tokenize", "13a")}
PROTOCOL_MIN_RESAMPLES = 1000


def leaderboard_protocol(options: dict[str, Any], where: str) -> list[str]:
    """How a report's options differ from the leaderboard protocol (empty: comparable):
    the test split, the default Unicode ROUGE tokenizer and BLEU tokenizer, ≥ 1,000
    resamples."""
    check_option_types(options, OPTION_TYPES, where)
    differences = [f"{flag} {options[key]}: the protocol uses {flag} {value}"
                   for key, (flag, value) in PROTOCOL_OPTIONS.items() if options[key] != value]
    if options["resamples"] < PROTOCOL_MIN_RESAMPLES:
        differences.append(f"--resamples {options['resamples']}: the protocol needs at "
                           f"least {PROTOCOL_MIN_RESAMPLES:,}")
    return differences


def _scope(tables: dict[str, Any]) -> str:
    """The language pairs the report scored (columns of its ROUGE-L table)."""
    columns = tables.get(PRIMARY, {}).get("columns", [])
    pairs = [c for c in columns[1:] if c not in ("macro", "SE")]
    return "language pairs " + ", ".join(pairs)


def rescore_report(rerun: dict[str, Any], out_dir: Path) -> dict[str, Any]:
    """Recompute the report described by ``rerun`` into ``out_dir``; returns its JSON."""
    paths = [Path(entry["path"]) for entry in rerun["predictions"].values()]
    return evaluate_files(Path(rerun["data"]), paths, out_dir,
                          settings_from_options(rerun["options"])).to_json()


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def _per_item_rouge_l(rerun: dict[str, Any], systems: list[str]) -> dict[str, list[float]]:
    """Each sample's ROUGE-L F1 ×100 per system, in the split's sample_id order."""
    settings = rerun["options"]
    rows = read_split(Path(rerun["data"]), settings["split"], columns=("headnote",))
    ids, references = rows["sample_id"], rows["headnote"]
    tokenizer = (None if settings["rouge_tokenizer"] == "rouge_score"
                 else load_metric_module("headnote_similarity").UnicodeTokenizer())
    scorer = rouge_scorer.RougeScorer(["rougeL"], tokenizer=tokenizer)
    values = {}
    for system in systems:
        predicted = read_predictions(Path(rerun["predictions"][system]["path"]), "sample_id",
                                     "prediction", ids, prediction_text)
        # a failed generation (null) scores as an empty prediction, as in the report
        # NFC as in headnote_similarity: composed and decomposed "ä" are the same text
        values[system] = [100.0 * scorer.score(_nfc(reference), _nfc(predicted[i] or ""))
                          ["rougeL"].fmeasure
                          for i, reference in zip(ids, references, strict=True)]
    return values


def _records_metrics(tables: dict[str, Any], system: str) -> tuple[list[dict], list[dict]]:
    metrics, breakdowns = [], []
    for key, title in METRIC_TITLES.items():
        if key not in tables:
            continue
        columns = tables[key]["columns"]
        row = dict(zip(columns, next(r for r in tables[key]["rows"] if r[0] == system),
                       strict=True))
        macro, se = row["macro"], row["SE"]
        interval = (macro - Z_95 * se, macro + Z_95 * se) if None not in (macro, se) else None
        metrics.append({"name": title, "value": macro,
                        "ci_low": interval[0] if interval else None,
                        "ci_high": interval[1] if interval else None,
                        "lower_is_better": False, "primary": key == PRIMARY})
        breakdowns += [{"table": title, "row": source, "column": target,
                        "value": row.get(pair_name(source, target))}
                       for source in LANGUAGES for target in LANGUAGES]
    return metrics, breakdowns


def leaderboard_records(rerun: dict[str, Any], report: dict[str, Any],
                        systems: list[str]) -> list[dict[str, Any]]:
    """One record per system of a freshly recomputed report (the generic fields are filled
    in by :mod:`courtbench.leaderboard.records`)."""
    references = [s for s in REFERENCE_SYSTEMS if s in rerun["predictions"]]
    per_item = _per_item_rouge_l(rerun, sorted(set(systems) | set(references)))
    options = rerun["options"]
    records = []
    for system in systems:
        metrics, breakdowns = _records_metrics(report["tables"], system)
        tests = []
        for against in references:
            if against == system:
                continue
            result = paired_bootstrap(per_item[system], per_item[against], lower_is_better=False,
                                      n_resamples=options["resamples"], seed=options["seed"])
            tests.append({"against": against, "delta": result["delta"],
                          "ci_low": result["ci_low"], "ci_high": result["ci_high"],
                          "p_better": result["p_a_better"]})
        records.append({
            "system": system, "reference": system in REFERENCE_SYSTEMS, "metrics": metrics,
            "split": options["split"], "scope": _scope(report["tables"]),
            "breakdowns": breakdowns, "paired_tests": tests,
            "per_item_name": f"ROUGE-L F1 ×100 per {options['split']} sample",
            "per_item_lower_is_better": False, "per_item": per_item[system],
            **({"family": "baseline"} if system in REFERENCE_SYSTEMS else {}),
        })
    return records
