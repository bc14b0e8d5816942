"""Recompute an SLDS leaderboard record from its predicted headnotes and the gold headnotes.

The verifier of :mod:`courtbench.leaderboard.record_check` for SLDS (see there for the
contract). Self-contained: it imports numpy, ``boundary.py`` and the headnote_similarity
metric module, so ``courtbench leaderboard space`` copies it (with that module) into the
leaderboard Space as ``verifier_slds.py``, where it runs without courtbench.

From the record's ``predicted_texts`` (one headnote per gold sample in the gold file's
order, null for a sample of a language pair the system does not cover; a pair is covered
completely or not at all) it recomputes, with headnote_similarity on the covered samples and
the record's evaluation options (ROUGE tokenizer, BLEU tokenizer, resamples, seed) — exactly
the call ``courtbench evaluate slds`` makes:

- ``per_item``: each covered sample's ROUGE-L F1 × 100;
- ROUGE-1/2/L F1 and BLEU macro-averaged over the covered pairs (ROUGE-L primary), each with
  a normal-approximation 95% interval (macro ± 1.96 × its bootstrap standard error);
- breakdowns: the 3 × 3 decision × headnote language grid of each metric (null for a pair
  not covered) and the scope (samples per covered pair).

BERTScore and the LLM judge need a model: a record carries them as submitted (with their
protocol), never recomputed here.
"""

from __future__ import annotations

import json

try:
    from courtbench.boundary import (
        BoundaryError,
        check_choice,
        check_count,
        check_seed,
        check_text,
    )
except ImportError:  # the leaderboard Space: the validator is a sibling file
    from boundary import BoundaryError, check_choice, check_count, check_seed, check_text

BENCHMARK = "slds"
VERSION = "slds-verifier/1"
LANGUAGES = ("de", "fr", "it")
#: (key in headnote_similarity's result, displayed name); higher is better for all.
METRICS = (("rouge1", "ROUGE-1 F1"), ("rouge2", "ROUGE-2 F1"), ("rougeL", "ROUGE-L F1"),
           ("bleu", "BLEU"))
PRIMARY = "rougeL"
AS_SUBMITTED = ("BERTScore P", "BERTScore R", "BERTScore F1", "LLM judge")
#: The model-free reference baselines: only ``courtbench leaderboard init`` writes a record
#: under one of these names.
RESERVED_NAMES = ("lead", "citation_lead")
SCOPE_TABLE = "Scope"
Z_95 = 1.959963984540054
MAX_RESAMPLES = 100_000
ROUGE_TOKENIZERS = ("unicode", "rouge_score")


def similarity_function():
    """headnote_similarity's plain function: from the installed metric module, or from the
    sibling file in the leaderboard Space."""
    try:
        from courtbench.metric_modules import load_metric_module
    except ImportError:
        _sibling_module("evaluate_import").import_evaluate()  # without transformers.pipelines
        return _sibling_module("headnote_similarity").headnote_similarity
    return load_metric_module("headnote_similarity").headnote_similarity


#: The package name the Space folder's metric files are imported under.
SPACE_PACKAGE = "leaderboard_space_metric"


def _sibling_module(name: str):
    """``name``.py of this file's folder (the Space), imported as a member of a package
    spanning that folder, so that its relative imports (``from .boundary import ...``, the
    form ``evaluate`` needs) find their sibling files."""
    import importlib
    import sys
    import types
    from pathlib import Path

    if SPACE_PACKAGE not in sys.modules:
        package = types.ModuleType(SPACE_PACKAGE)
        package.__path__ = [str(Path(__file__).resolve().parent)]
        sys.modules[SPACE_PACKAGE] = package
    return importlib.import_module(f"{SPACE_PACKAGE}.{name}")


def _options(record: dict) -> dict:
    options = json.loads(record["options_json"])
    return {"rouge_tokenizer": check_choice(options.get("rouge_tokenizer"),
                                            "options_json.rouge_tokenizer", ROUGE_TOKENIZERS),
            # sacrebleu's tokenizer names: headnote_similarity refuses an unknown one
            "bleu_tokenize": check_text(options.get("bleu_tokenize"), "options_json.bleu_tokenize",
                                        max_chars=40, what="a sacrebleu tokenizer name"),
            "bootstrap_resamples": check_count(record["resamples"], "resamples", low=2,
                                               high=MAX_RESAMPLES,
                                               what="a number of bootstrap resamples"),
            "seed": check_seed(options.get("seed"), "options_json.seed")}


#: The leaderboard protocol of a ranked (main-table) record: option → value.
PROTOCOL_OPTIONS = {"rouge_tokenizer": "unicode", "bleu_tokenize": "13a"}
PROTOCOL_MIN_RESAMPLES = 1000


def protocol_problems(record: dict) -> list[str]:
    """How a record's evaluation differs from the protocol of the ranked table: the test
    split, the Unicode ROUGE tokenizer, BLEU's 13a tokenizer, at least 1,000 resamples."""
    options = json.loads(record["options_json"])
    values = {"split": record["split"], "resamples": record["resamples"],
              **{key: options.get(key) for key in PROTOCOL_OPTIONS}}
    return protocol_differences(values, named=lambda key, value: f"{key} {value!r}")


def protocol_differences(values: dict, *, named) -> list[str]:
    """The one statement of the protocol, for a record and for a report's options alike:
    how ``values`` (``split``, ``resamples`` and the :data:`PROTOCOL_OPTIONS`) differ from it
    (empty: they follow it). ``named(key, value)``: how the message names a value (a record's
    field or a command-line option)."""
    wanted = {"split": "test", **PROTOCOL_OPTIONS}
    differences = [f"{named(key, values[key])}: the protocol uses {named(key, value)}"
                   for key, value in wanted.items() if values[key] != value]
    if values["resamples"] < PROTOCOL_MIN_RESAMPLES:
        differences.append(f"{named('resamples', values['resamples'])}: the protocol needs at "
                           f"least {PROTOCOL_MIN_RESAMPLES:,}")
    return differences


def covered_items(texts: list, pairs: list[str]) -> list[int]:
    """Indices of the samples whose pair the system covers: a pair is covered when its
    samples have texts, all of them (a pair covered in part is refused)."""
    if len(texts) != len(pairs):
        raise BoundaryError("predicted_texts", f"<{len(texts):,} texts>",
                            f"one headnote (or null) per gold sample ({len(pairs):,})")
    with_text = {pair for text, pair in zip(texts, pairs, strict=True) if text is not None}
    partial = sorted(pair for pair, text in zip(pairs, texts, strict=True)
                     if pair in with_text and text is None)
    if partial:
        raise BoundaryError("predicted_texts", f"<pair {partial[0]}>",
                            "every sample of a covered language pair (a pair covered in part)")
    if not with_text:
        raise BoundaryError("predicted_texts", "<no texts>", "the samples of at least one "
                            "language pair")
    return [k for k, pair in enumerate(pairs) if pair in with_text]


def _metrics(result: dict) -> list[dict]:
    metrics = []
    for key, title in METRICS:
        value, se = result[key], result[f"{key}_se"]
        interval = (value - Z_95 * se, value + Z_95 * se) if se is not None else None
        metrics.append({"name": title, "value": value,
                        "ci_low": interval[0] if interval else None,
                        "ci_high": interval[1] if interval else None, "lower_is_better": False,
                        "primary": key == PRIMARY, "as_submitted": None})
    return metrics


def _breakdowns(result: dict) -> list[dict]:
    groups = result["groups"]
    cells = [{"table": title, "row": source, "column": target,
              "value": groups.get(f"{source}_{target}", {}).get(key)}
             for key, title in METRICS for source in LANGUAGES for target in LANGUAGES]
    return cells + [{"table": SCOPE_TABLE, "row": pair, "column": "samples",
                     "value": float(group["n"])} for pair, group in sorted(groups.items())]


def recompute(record: dict, gold: dict) -> dict:
    """Every recomputable number of an SLDS record (see the module docstring); the intervals
    come from headnote_similarity's own resamples (per language pair).

    Raises:
        BoundaryError / ValueError: predictions or options that cannot be scored (named).
    """
    if record["predicted_values"]:
        raise BoundaryError("predicted_values", "<numbers>", "headnote texts in "
                            "predicted_texts (SLDS predicts headnotes)")
    labels = gold["labels"]
    pairs = [f"{d}_{h}" for d, h in zip(labels["decision_language"],
                                        labels["headnote_language"], strict=True)]
    index = covered_items(record["predicted_texts"], pairs)
    options = _options(record)
    result = similarity_function()(
        [record["predicted_texts"][k] for k in index], [gold["texts"][k] for k in index],
        [labels["headnote_language"][k] for k in index],
        [labels["decision_language"][k] for k in index], return_per_item=True, **options)
    return {"metrics": _metrics(result), "breakdowns": _breakdowns(result),
            "per_item": result["per_item"][PRIMARY], "item_index": index,
            "per_item_name": f"ROUGE-L F1 ×100 per {gold['split']} sample",
            "per_item_lower_is_better": False,
            "resamples": options["bootstrap_resamples"], "seed": options["seed"]}
