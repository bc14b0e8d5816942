"""Small self-verifying leaderboard records and results folders (no evaluation needed).

Records are built the way ``courtbench submit`` builds them: predictions first, every number
filled in by the benchmark's verifier against a small gold file, paired tests against the
reference records. :func:`write_results` writes them with the gold files and a card pinning
the accepted data, the gold files and the reference rows.
"""

from __future__ import annotations

import copy
import csv
import hashlib
import json
from pathlib import Path

import numpy as np

from courtbench.leaderboard.folders import references_from_records, results_card
from courtbench.leaderboard.record_check import (
    GOLD_SCHEMA,
    Bootstrap,
    dumps_gold,
    gold_path,
)
from courtbench.leaderboard.records import add_paired_test, complete_record
from courtbench.leaderboard.results_schema import SCHEMA_VERSION, dumps_record, record_path
from ecthr_npd import record_verifier as ecthr_verifier
from slds import record_verifier as slds_verifier

FINGERPRINT = "f" * 64
VERIFIERS = {"ecthr_npd": ecthr_verifier, "slds": slds_verifier}
OPTIONS = {"seed": 12345, "zero_threshold": 0.5, "rouge_tokenizer": "unicode",
           "bleu_tokenize": "13a", "resamples": 1000}
LANGUAGES = ("de", "fr", "it")
_BOOTSTRAP = Bootstrap()


def ecthr_gold(n: int = 60, seed: int = 0, fingerprint: str = FINGERPRINT) -> dict:
    """A gold file of ``n`` test awards (a third zero) with ID / OOD / Challenging views."""
    rng = np.random.default_rng(seed)
    values = np.round(rng.lognormal(8.5, 1.0, n), 2) * (rng.uniform(size=n) > 0.33)
    return {"schema": GOLD_SCHEMA, "benchmark": "ecthr_npd", "data_fingerprint": fingerprint,
            "split": "test", "item_ids": [f"case-{k:05d}" for k in range(n)],
            "values": [float(v) for v in values], "texts": None, "labels": {},
            "groups": {"MAE by test view": {"ID": list(range(0, n, 2)),
                                            "OOD": list(range(1, n, 2)),
                                            "Challenging": list(range(0, n, 5))}}}


def slds_gold(per_pair: int = 2, fingerprint: str = FINGERPRINT) -> dict:
    """A gold file with ``per_pair`` samples for each of the nine language pairs."""
    texts = {"de": "Art. {k} BV: Die Beschwerde wird gutgeheissen, E. {k}.",
             "fr": "Art. {k} Cst.: le recours est admis, consid. {k}.",
             "it": "Art. {k} Cost.: il ricorso è accolto, consid. {k}."}
    decision, headnote, gold = [], [], []
    for d in LANGUAGES:
        for h in LANGUAGES:
            for _ in range(per_pair):
                decision.append(d)
                headnote.append(h)
                gold.append(texts[h].format(k=len(gold) + 1))
    return {"schema": GOLD_SCHEMA, "benchmark": "slds", "data_fingerprint": fingerprint,
            "split": "test", "item_ids": [str(1000 + k) for k in range(len(gold))],
            "values": None, "texts": gold,
            "labels": {"decision_language": decision, "headnote_language": headnote},
            "groups": {}}


def skeleton(benchmark: str, system: str, *, values=None, texts=None, reference=False,
             family="llm", size=None, selection=None, table="main", reason=None,
             fingerprint=FINGERPRINT, model=None) -> dict:
    """A record before its numbers: identity, options and predictions."""
    return {
        "schema": SCHEMA_VERSION, "benchmark": benchmark, "system": system, "family": family,
        "reference": reference, "model_name": model, "model_size_b": size,
        "endpoint_host": None, "selection": selection, "parameters_json": "{}",
        "prompt_hashes_json": "{}", "data_kind": "synthetic", "data_source": "data",
        "data_fingerprint": fingerprint, "metric_signature": "sig",
        "predictions_sha256": "0" * 64, "courtbench_version": "0.1.0", "date": "2026-12-01",
        "metrics": [], "breakdowns": [], "paired_tests": [], "per_item_name": None,
        "per_item_lower_is_better": True, "per_item": [],
        "predicted_values": [float(v) for v in values] if values is not None else [],
        "predicted_texts": list(texts) if texts is not None else [],
        "run_complete": None, "failure_share": None, "fallback_share": None,
        "split": "test", "scope": "test", "options_json": json.dumps(OPTIONS, sort_keys=True),
        "resamples": OPTIONS["resamples"], "leaderboard_table": table,
        "unofficial_reason": reason,
    }


def build(record: dict, gold: dict, references: dict | None = None) -> tuple[dict, dict]:
    """``(record, verifier result)``: ``record`` with every number filled in and a paired
    test against each of ``references`` (``{name: (record, result)}``) but itself."""
    expected = complete_record(record, gold, VERIFIERS[record["benchmark"]], _BOOTSTRAP)
    for name, (_, other) in sorted((references or {}).items()):
        if name != record["system"]:
            add_paired_test(record, expected, name, other, _BOOTSTRAP)
    return record, expected


def write_results(folder, golds: list[dict], records: list[dict], *,
                  accepted_kind: str = "synthetic") -> None:
    """A results folder: the card pinning ``golds`` and the reference records, the gold files,
    and every record at its own path."""
    pins, accepted = {}, {}
    for gold in golds:
        data = dumps_gold(gold)
        path = folder / gold_path(gold["benchmark"], gold["data_fingerprint"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        pins.setdefault(gold["benchmark"], {})[gold["data_fingerprint"]] = \
            hashlib.sha256(data).hexdigest()
        accepted.setdefault(gold["benchmark"], {})[gold["data_fingerprint"]] = accepted_kind
    references = references_from_records([r for r in records if r["reference"]])
    (folder / "README.md").write_text(results_card(accepted, pins, references),
                                      encoding="utf-8")
    write_records(folder, records)


def write_records(folder, records: list[dict]) -> None:
    for record in records:
        path = folder / record_path(record)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dumps_record(record), encoding="utf-8")


def ecthr_predictions(gold: dict, scale: float, seed: int) -> list[float]:
    """Predictions around the gold awards (errors growing with ``scale``)."""
    rng = np.random.default_rng(seed)
    values = np.asarray(gold["values"])
    return [float(v) for v in np.maximum(0, np.round(values + rng.normal(0, scale, values.size)))]


#: The hostile files of :func:`write_hostile_records` → a phrase of the reason each is refused.
HOSTILE_REASONS = {
    "results/ecthr_npd/half_interval.json": "ci_high: the record says None",
    "results/ecthr_npd/claims_mae_1.json": "value: the record says 1.0",
    "results/ecthr_npd/copy_of_big_llm.json": "stored as results/ecthr_npd/copy_of_big_llm.json",
    "results/ecthr_npd/<img src=x onerror=alert(1)>.json": "system:",
    "results/ecthr_npd/huge_integer.json": "400 digits",
    "results/ecthr_npd/deep.json": "nested too deeply",
    "results/ecthr_npd/x.json": "not a regular file",
    "results/ecthr_npd/long_name.json": "characters; expected at most",
    "results/ecthr_npd/rmse_1e20.json": "('RMSE').value: the record says 1e+20",
    "results/ecthr_npd/per_item_1e308.json": "per_item[0]: the record says 1e+308",
    "results/ecthr_npd/negative_errors.json": "per_item[0]: the record says -",
    "results/ecthr_npd/mymodel.json": "the name is already taken",
    "results/ecthr_npd/zero.json": "name of reference baseline",
    "results/ecthr_npd/fake_reference.json": "lists no reference 'fake_reference'",
    "results/ecthr_npd/int64.json": "expected an integer within 64 bits",
    "results/ecthr_npd/old_schema.json": "carries no predictions",
    "results/ecthr_npd/award_1e13.json": "predicted_values[0] = 10000000000000.0",
    "results/ecthr_npd/nan_text.json": "NaN",
    "results/ecthr_npd/off_protocol_main.json": "leaderboard_table 'main', but resamples 2",
    "results/ecthr_npd/fallback_main.json": "fallback_share 1.0: cases filled with a fallback",
}


def write_hostile_records(folder, big_llm: dict) -> None:
    """The records that once broke or fooled the leaderboard (one file each, names in
    ``HOSTILE_REASONS``); ``big_llm`` is a valid record (copied under other names). The
    folder's card must accept ``big_llm``'s data and list a reference ``train_median``; a
    valid ``MyModel`` record must be in the folder (``mymodel`` is its name again)."""
    results = folder / "results" / "ecthr_npd"
    results.mkdir(parents=True, exist_ok=True)

    def variant(system, **fields):
        record = copy.deepcopy(big_llm)
        record.update(system=system, **fields)
        return record

    def write(name, record):
        (results / name).write_text(dumps_record(record), encoding="utf-8")

    half = variant("half_interval")
    half["metrics"][0]["ci_high"] = None
    write("half_interval.json", half)
    claims = variant("claims_mae_1")
    claims["metrics"][0].update(value=1.0)
    write("claims_mae_1.json", claims)
    write("copy_of_big_llm.json", big_llm)
    write("<img src=x onerror=alert(1)>.json", variant("<img src=x onerror=alert(1)>"))
    text = dumps_record(variant("huge_integer"))
    (results / "huge_integer.json").write_text(
        text.replace('"per_item": [', '"per_item": [' + "9" * 400 + ", ", 1), encoding="utf-8")
    (results / "deep.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    (results / "x.json").mkdir(exist_ok=True)
    write("long_name.json", variant("a" * 10_000_000))
    rmse = variant("rmse_1e20")
    next(m for m in rmse["metrics"] if m["name"] == "RMSE")["value"] = 1e20
    write("rmse_1e20.json", rmse)
    write("per_item_1e308.json", variant("per_item_1e308",
                                         per_item=[1e308] * len(big_llm["per_item"])))
    negative = variant("negative_errors", per_item=[-e - 1 for e in big_llm["per_item"]])
    negative["metrics"][0].update(value=-13_933.0, ci_low=-14_000.0, ci_high=-13_000.0)
    write("negative_errors.json", negative)
    write("mymodel.json", variant("mymodel"))
    write("zero.json", variant("zero"))
    write("fake_reference.json", variant("fake_reference", reference=True))
    text = dumps_record(variant("int64"))
    (results / "int64.json").write_text(text.replace('"resamples": 1000', '"resamples": '
                                                     + str(2**64), 1), encoding="utf-8")
    off = variant("off_protocol_main", resamples=2)  # recomputes, but not on the protocol
    write("off_protocol_main.json", build(off, ecthr_gold())[0])
    write("fallback_main.json", variant("fallback_main", fallback_share=1.0))
    write("old_schema.json", variant("old_schema", schema="courtbench-result/1"))
    huge_award = variant("award_1e13")
    huge_award["predicted_values"] = [1e13] + huge_award["predicted_values"][1:]
    write("award_1e13.json", huge_award)
    (results / "nan_text.json").write_text(dumps_record(variant("nan_text")).replace(
        '"resamples": 1000', '"resamples": NaN', 1), encoding="utf-8")


OFF_PROTOCOL = "--resamples 2: the protocol needs at least 1,000"


def page_records(scales: dict[str, float] | None = None) -> dict[str, dict]:
    """The records the page tests show, by system: the reference ``train_median``,
    ``big_llm`` (70B, a Hub model id), its twin (same predictions, hostile model text),
    ``small_llm`` (7B, selected on validation), ``MyModel``, an unofficial
    ``few_resamples``, and the SLDS reference ``lead``."""
    gold, slds = ecthr_gold(), slds_gold()
    median = float(np.median(gold["values"]))
    reference = build(skeleton("ecthr_npd", "train_median", values=[median] * len(gold["values"]),
                               reference=True, family="baseline"), gold)
    refs = {"train_median": reference}
    scales = scales or {"big_llm": 500.0, "small_llm": 3000.0, "MyModel": 6000.0,
                        "few_resamples": 800.0}
    records = {"train_median": reference[0]}
    big = skeleton("ecthr_npd", "big_llm", values=ecthr_predictions(gold, scales["big_llm"], 1),
                   size=70.0, model="org/big-model")
    records["big_llm"] = build(big, gold, refs)[0]
    twin = dict(copy.deepcopy(records["big_llm"]), system="big_llm_twin",
                model_name="<img src=x onerror=alert(1)>")
    twin["paired_tests"] = []
    records["big_llm_twin"] = build(twin, gold, refs)[0]
    records["small_llm"] = build(skeleton("ecthr_npd", "small_llm", values=ecthr_predictions(
        gold, scales["small_llm"], 2), size=7.0, selection="validation"), gold, refs)[0]
    records["MyModel"] = build(skeleton("ecthr_npd", "MyModel", values=ecthr_predictions(
        gold, scales["MyModel"], 3)), gold, refs)[0]
    few = skeleton("ecthr_npd", "few_resamples", values=ecthr_predictions(
        gold, scales["few_resamples"], 4), table="unofficial", reason=OFF_PROTOCOL)
    few["resamples"] = 2
    records["few_resamples"] = build(few, gold, refs)[0]
    records["lead"] = build(skeleton("slds", "lead", texts=[t[:22] for t in slds["texts"]],
                                     reference=True, family="baseline"), slds)[0]
    return records


def write_page_folder(folder) -> dict[str, dict]:
    """A results folder with :func:`page_records`, a broken file and the hostile records;
    returns the records by system."""
    records = page_records()
    write_results(folder, [ecthr_gold(), slds_gold()], list(records.values()))
    (folder / "results" / "slds" / "broken.json").write_text('{"schema": "x"}\n')
    write_hostile_records(folder, records["big_llm"])
    return records


def write_changed_predictions(source: Path, target: Path, change) -> Path:
    """``target``: the predictions CSV ``source`` with every value replaced by
    ``change(value)`` (value in EUR, as a float)."""
    rows = list(csv.reader(source.open(encoding="utf-8")))
    with target.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(rows[0])
        writer.writerows([case, change(float(value))] for case, value in rows[1:])
    return target
