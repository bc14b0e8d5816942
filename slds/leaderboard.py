"""SLDS leaderboard records: what the page shows of an evaluation report.

Per system a record carries its predicted headnotes (one per test sample in the gold file's
order; null for a sample of a language pair the system does not cover) and what
:mod:`slds.record_verifier` recomputes from them: the macro-average over the covered language
pairs of ROUGE-1/2/L and BLEU, each with a normal-approximation 95% interval from the
bootstrap standard error (macro ± 1.96·SE); the 3×3 decision × headnote language grid of every
metric and the scope (samples per pair) as breakdowns; each covered sample's ROUGE-L F1 (×100)
as per-item values. BERTScore and the LLM judge, when the report has them, are carried "as
submitted" with their protocol (they need a model to recompute). Before a record is written,
every recomputed number is checked against the freshly re-scored report.

The gold file (:func:`leaderboard_gold`): the test split's sample ids, gold headnotes and
their decision / headnote languages. The reference systems are the model-free baselines
``lead`` and ``citation_lead``: only ``courtbench leaderboard init`` writes them as reference
rows.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from courtbench.boundary import name_key
from courtbench.hub.files import fingerprint, list_files
from courtbench.leaderboard.protocol import check_option_types
from courtbench.leaderboard.record_check import GOLD_SCHEMA, agrees
from courtbench.leaderboard.results_schema import MAX_TEXT_CHARS
from courtbench.leaderboard.verifiers import VerifierSpec
from courtbench.metric_modules import metric_dir
from slds import record_verifier
from slds.data import read_split
from slds.evaluation import METRIC_TITLES, evaluate_files, read_system, settings_from_options
from slds.schema import LANGUAGES, pair_name

#: The model-free baselines of ``courtbench baselines slds`` (reference rows of the page).
REFERENCE_SYSTEMS = record_verifier.RESERVED_NAMES
#: Metrics of the report that need a model to recompute: shown as submitted.
AS_SUBMITTED_KEYS = ("bertscore_precision", "bertscore_recall", "bertscore_f1", "judge")
GOLD_SPLIT = "test"

#: Types of the evaluation options a report's rerun block must carry.
OPTION_TYPES = {"split": str, "rouge_tokenizer": str, "bleu_tokenize": str, "bertscore": bool,
                "resamples": int, "seed": int}
#: The command-line option of each value the protocol fixes (the values themselves:
#: :func:`slds.record_verifier.protocol_differences`, the CLI's defaults).
PROTOCOL_FLAGS = {"split": "--splits", "rouge_tokenizer": "--rouge-tokenizer",
                  "bleu_tokenize": "--bleu-tokenize", "resamples": "--resamples"}
PROTOCOL_MIN_RESAMPLES = record_verifier.PROTOCOL_MIN_RESAMPLES


def leaderboard_protocol(options: dict[str, Any], where: str) -> list[str]:
    """How a report's options differ from the leaderboard protocol (empty: comparable):
    the test split, the default Unicode ROUGE tokenizer and BLEU tokenizer, ≥ 1,000
    resamples."""
    check_option_types(options, OPTION_TYPES, where)
    return record_verifier.protocol_differences(
        options, named=lambda key, value: f"{PROTOCOL_FLAGS[key]} {value}")


def rescore_report(rerun: dict[str, Any], out_dir: Path) -> dict[str, Any]:
    """Recompute the report described by ``rerun`` into ``out_dir``; returns its JSON."""
    paths = [Path(entry["path"]) for entry in rerun["predictions"].values()]
    return evaluate_files(Path(rerun["data"]), paths, out_dir,
                          settings_from_options(rerun["options"])).to_json()


def _rows(data_dir: Path, split: str):
    rows = read_split(Path(data_dir), split,
                      columns=("headnote", "headnote_language", "decision_language"))
    pairs = [pair_name(d, h) for d, h in zip(rows["decision_language"],
                                             rows["headnote_language"], strict=True)]
    return rows, pairs


def leaderboard_gold(data_dir: Path) -> dict[str, Any]:
    """The gold file of a built folder: the test split's sample ids (as text), gold
    headnotes and their decision / headnote languages (labels)."""
    rows, _ = _rows(data_dir, GOLD_SPLIT)
    return {"schema": GOLD_SCHEMA, "benchmark": record_verifier.BENCHMARK,
            "data_fingerprint": fingerprint(list_files(Path(data_dir))), "split": GOLD_SPLIT,
            "item_ids": [str(i) for i in rows["sample_id"]], "values": None,
            "texts": list(rows["headnote"]),
            "labels": {"decision_language": list(rows["decision_language"]),
                       "headnote_language": list(rows["headnote_language"])},
            "groups": {}}


def is_reference(system: str) -> bool:
    """Whether ``system`` is (ignoring case and width) the name of a reference baseline."""
    return name_key(system) in {name_key(name) for name in REFERENCE_SYSTEMS}


def _scope(tables: dict[str, Any]) -> str:
    """The language pairs the report scored (columns of its ROUGE-L table)."""
    columns = tables.get(record_verifier.PRIMARY, {}).get("columns", [])
    return "language pairs " + ", ".join(c for c in columns[1:] if c not in ("macro", "SE"))


def _row(tables: dict[str, Any], key: str, system: str) -> dict[str, Any]:
    columns = tables[key]["columns"]
    return dict(zip(columns, next(r for r in tables[key]["rows"] if r[0] == system), strict=True))


def _protocol(report: dict[str, Any], system: str, key: str) -> str:
    """What produced an as-submitted number (its settings in the report, as JSON text)."""
    settings = report["provenance"].get("settings", {}).get(system, {})
    chosen = (settings.get("judge", {}) if key == "judge" else
              {k: v for k, v in settings.items() if k.startswith("bertscore")})
    text = json.dumps(chosen, sort_keys=True, ensure_ascii=False, default=str)
    return f"{METRIC_TITLES[key]} as submitted: {text}"[:MAX_TEXT_CHARS]


def _as_submitted(report: dict[str, Any], system: str) -> tuple[list[dict], list[dict]]:
    """The report's model-based metrics of ``system`` (macro with its interval, and the
    language grid), marked as submitted with their protocol."""
    metrics, breakdowns = [], []
    for key in AS_SUBMITTED_KEYS:
        if key not in report["tables"]:
            continue
        row = _row(report["tables"], key, system)
        macro, se = row["macro"], row["SE"]
        interval = ((macro - record_verifier.Z_95 * se, macro + record_verifier.Z_95 * se)
                    if isinstance(se, float | int) and macro is not None else (None, None))
        metrics.append({"name": METRIC_TITLES[key], "value": macro, "ci_low": interval[0],
                        "ci_high": interval[1], "lower_is_better": False, "primary": False,
                        "as_submitted": _protocol(report, system, key)})
        breakdowns += [{"table": METRIC_TITLES[key], "row": source, "column": target,
                        "value": row.get(pair_name(source, target))}
                       for source in LANGUAGES for target in LANGUAGES]
    return metrics, breakdowns


def leaderboard_records(rerun: dict[str, Any], report: dict[str, Any],
                        systems: list[str]) -> list[dict[str, Any]]:
    """One record per system of a freshly recomputed report, with its predictions and the
    as-submitted metrics (:mod:`courtbench.leaderboard.records` has the verifier fill in
    every other number and calls :func:`cross_check`)."""
    options = rerun["options"]
    rows, pairs = _rows(Path(rerun["data"]), options["split"])
    ids = rows["sample_id"]
    configs = options.get("configs")
    records = []
    for system in systems:
        predicted, covered = read_system(Path(rerun["predictions"][system]["path"]), ids, pairs,
                                         None if configs is None else tuple(configs))
        # a failed generation (null) is scored as an empty prediction, as in the report
        texts = [(predicted[i] or "") if pair in covered else None
                 for i, pair in zip(ids, pairs, strict=True)]
        metrics, breakdowns = _as_submitted(report, system)
        records.append({
            "system": system, "reference": is_reference(system), "split": options["split"],
            "scope": _scope(report["tables"]), "predicted_values": [],
            "predicted_texts": texts, "metrics": metrics, "breakdowns": breakdowns,
            "paired_tests": [], **({"family": "baseline"} if is_reference(system) else {})})
    return records


def cross_check(report: dict[str, Any], record: dict[str, Any], gold: dict[str, Any]
                ) -> list[str]:
    """Where the verifier's numbers in ``record`` differ from the re-scored report: each
    recomputed metric's macro-average, its interval (from the report's SE) and its pairs."""
    del gold
    problems = []
    titles = {title: key for key, title in record_verifier.METRICS}
    for metric in record["metrics"]:
        key = titles.get(metric["name"])
        if key is None:
            continue
        row = _row(report["tables"], key, record["system"])
        if not agrees(metric["value"], row["macro"]):
            problems.append(f"{metric['name']}: verifier {metric['value']!r}, report "
                            f"{row['macro']!r}")
        if isinstance(row["SE"], float | int) and not agrees(
                metric["ci_high"], row["macro"] + record_verifier.Z_95 * row["SE"]):
            problems.append(f"{metric['name']} interval: verifier {metric['ci_high']!r}, report "
                            f"macro + 1.96 × SE {row['macro'] + record_verifier.Z_95 * row['SE']!r}")
    for item in record["breakdowns"]:
        key = titles.get(item["table"])
        if key is not None:
            stated = _row(report["tables"], key, record["system"]).get(
                pair_name(item["row"], item["column"]))
            if not agrees(item["value"], stated):
                problems.append(f"{item['table']} {item['row']}→{item['column']}: verifier "
                                f"{item['value']!r}, report {stated!r}")
    return problems


def verifier_spec() -> VerifierSpec:
    """How the leaderboard recomputes SLDS records (see :class:`VerifierSpec`): the verifier
    travels into the Space with the headnote_similarity module and its requirements."""
    similarity = metric_dir("headnote_similarity")
    requirements = tuple(line.strip() for line in
                         (similarity / "requirements.txt").read_text(encoding="utf-8")
                         .splitlines() if line.strip() and not line.startswith("#"))
    return VerifierSpec(module=record_verifier,
                        space_files={f"verifier_{record_verifier.BENCHMARK}.py":
                                     Path(record_verifier.__file__),
                                     # the module and the siblings it imports relatively
                                     **{name: similarity / name for name in (
                                         "headnote_similarity.py", "checked_wrapper.py",
                                         "slds_languages.py", "evaluate_import.py")}},
                        space_requirements=requirements, references=REFERENCE_SYSTEMS,
                        paired_against=REFERENCE_SYSTEMS,
                        gold=leaderboard_gold, cross_check=cross_check)
