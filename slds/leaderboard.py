"""SLDS leaderboard records: what the page shows of an evaluation report.

Per system: the macro-average over language pairs of ROUGE-1/2/L, BLEU (and BERTScore and
the LLM judge when the report has them), each with a normal-approximation 95% interval from
the report's bootstrap standard error (macro ± 1.96·SE); the 3×3 decision × headnote language
grid of every metric as breakdowns; each test sample's ROUGE-L F1 (×100, the report's ROUGE
tokenizer) as per-item values; and paired bootstrap tests of those against the model-free
reference baselines scored in the same report (on the system's pairs).

Scope: the language pairs a system covers are recorded as the breakdown table ``Scope`` (one
row per pair, value = its number of samples) — the schema's existing shape, so re-scoring and
record validation stay as they are; the macro-averages are over those pairs only.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

from rouge_score import rouge_scorer

from courtbench.leaderboard.protocol import check_option_types
from courtbench.leaderboard.results_schema import paired_bootstrap
from courtbench.metric_modules import load_metric_module
from slds.data import read_split
from slds.evaluation import (
    METRIC_TITLES,
    evaluate_files,
    read_system,
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
    rows = read_split(Path(rerun["data"]), settings["split"],
                      columns=("headnote", "headnote_language", "decision_language"))
    ids, references = rows["sample_id"], rows["headnote"]
    pairs = [pair_name(d, h) for d, h in zip(rows["decision_language"],
                                             rows["headnote_language"], strict=True)]
    configs = settings.get("configs")
    tokenizer = (None if settings["rouge_tokenizer"] == "rouge_score"
                 else load_metric_module("headnote_similarity").UnicodeTokenizer())
    scorer = rouge_scorer.RougeScorer(["rougeL"], tokenizer=tokenizer)
    values = {}
    for system in systems:
        predicted, covered = read_system(Path(rerun["predictions"][system]["path"]), ids, pairs,
                                         None if configs is None else tuple(configs))
        # a failed generation (null) scores as an empty prediction, as in the report
        # NFC as in headnote_similarity: composed and decomposed "ä" are the same text
        values[system] = {i: 100.0 * scorer.score(_nfc(reference), _nfc(predicted[i] or ""))
                          ["rougeL"].fmeasure
                          for i, reference, pair in zip(ids, references, pairs, strict=True)
                          if pair in covered}
    return values


def _scope_counts(report: dict[str, Any], system: str) -> dict[str, int]:
    """Pair → samples of ``system``'s scope, from the report's rougeL table."""
    table = report["tables"]["rougeL"]
    columns = table["columns"]
    mine = dict(zip(columns, next(r for r in table["rows"] if r[0] == system), strict=True))
    counts = dict(zip(columns, next(r for r in table["rows"] if r[0] == "n (samples)"),
                      strict=True))
    return {pair: counts[pair] for pair in mine["pairs"].split("+")}


def _records_metrics(tables: dict[str, Any], system: str) -> tuple[list[dict], list[dict]]:
    metrics, breakdowns = [], []
    for key, title in METRIC_TITLES.items():
        if key not in tables:
            continue
        columns = tables[key]["columns"]
        row = dict(zip(columns, next(r for r in tables[key]["rows"] if r[0] == system),
                       strict=True))
        macro, se = row["macro"], row["SE"]
        defined = isinstance(se, float | int) and macro is not None
        interval = (macro - Z_95 * se, macro + Z_95 * se) if defined else None
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
        breakdowns += [{"table": "Scope", "row": pair, "column": "samples", "value": float(n)}
                       for pair, n in _scope_counts(report, system).items()]
        tests = []
        own = per_item[system]
        for against in references:
            if against == system or not set(own) <= set(per_item[against]):
                continue
            result = paired_bootstrap(list(own.values()), [per_item[against][i] for i in own],
                                      lower_is_better=False,
                                      n_resamples=options["resamples"], seed=options["seed"])
            tests.append({"against": against, "delta": result["delta"],
                          "ci_low": result["ci_low"], "ci_high": result["ci_high"],
                          "p_better": result["p_a_better"]})
        records.append({
            "system": system, "reference": system in REFERENCE_SYSTEMS, "metrics": metrics,
            "split": options["split"], "scope": _scope(report["tables"]),
            "breakdowns": breakdowns, "paired_tests": tests,
            "per_item_name": f"ROUGE-L F1 ×100 per {options['split']} sample",
            "per_item_lower_is_better": False, "per_item": list(own.values()),
            **({"family": "baseline"} if system in REFERENCE_SYSTEMS else {}),
        })
    return records
