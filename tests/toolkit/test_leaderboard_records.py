"""Self-verifying leaderboard records: the check shared by ``courtbench leaderboard check`` and
the leaderboard Space recomputes every number from a record's predictions against the gold
values and refuses any record that differs, naming the field and both values; every hostile
record is refused with its reason and none of them raises."""

from __future__ import annotations

import copy
import json
import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leaderboard_records import (
    HOSTILE_REASONS,
    VERIFIERS,
    build,
    ecthr_gold,
    ecthr_predictions,
    skeleton,
    slds_gold,
    write_hostile_records,
    write_results,
)
from sklearn.metrics import mean_absolute_error, mean_squared_error, median_absolute_error, r2_score

from courtbench.errors import CourtbenchError
from courtbench.hub import read_card_metadata
from courtbench.leaderboard.paired_bootstrap import bootstrap_replicates
from courtbench.leaderboard.record_check import (
    Bootstrap,
    Checker,
    figure_problems,
    paired_test_problems,
    predictions_digest,
)
from courtbench.leaderboard.results_schema import dumps_record, validate_result
from courtbench.metric_modules import load_metric_module

GOLD = ecthr_gold()
SLDS_GOLD = slds_gold()


def _reference():
    median = float(np.median(GOLD["values"]))
    return build(skeleton("ecthr_npd", "train_median", values=[median] * len(GOLD["values"]),
                          reference=True, family="baseline"), GOLD)


REFERENCE = _reference()
BIG = build(skeleton("ecthr_npd", "big_llm", values=ecthr_predictions(GOLD, 500, 1)), GOLD,
            {"train_median": REFERENCE})
LEAD = build(skeleton("slds", "lead", texts=[t[:22] for t in SLDS_GOLD["texts"]],
                      reference=True, family="baseline"), SLDS_GOLD)


def _valid_records() -> list[dict]:
    mine = build(skeleton("ecthr_npd", "MyModel", values=ecthr_predictions(GOLD, 900, 2)),
                 GOLD, {"train_median": REFERENCE})[0]
    slds_mine = build(skeleton("slds", "mine", texts=[t[:30] if k < 6 else None
                                                      for k, t in enumerate(SLDS_GOLD["texts"])]),
                      SLDS_GOLD, {"lead": LEAD})[0]
    return [copy.deepcopy(r) for r in (REFERENCE[0], BIG[0], LEAD[0])] + [mine, slds_mine]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    write_results(folder, [GOLD, SLDS_GOLD], _valid_records())
    write_hostile_records(folder, BIG[0])
    return folder


def _check(folder):
    return Checker(VERIFIERS).check_folder(folder, read_card_metadata(folder))


def test_valid_records_pass_and_hostile_ones_are_refused_each_with_its_reason(hostile):
    records, refused = _check(hostile)
    assert sorted(r["system"] for r in records) == ["MyModel", "big_llm", "lead", "mine",
                                                    "train_median"]
    reasons = dict(refused)
    assert set(reasons) == set(HOSTILE_REASONS)
    for name, phrase in HOSTILE_REASONS.items():
        assert phrase in reasons[name], (name, reasons[name])
        assert len(reasons[name]) <= 1000 and "\n" not in reasons[name]


def test_leaderboard_check_refuses_hostile_records_in_one_message(hostile):
    done = subprocess.run([sys.executable, "-m", "courtbench", "leaderboard", "check",
                           str(hostile)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert f"{len(HOSTILE_REASONS)} invalid result record(s)" in done.stderr, done.stderr[-2000:]
    assert len(done.stderr.strip().splitlines()) == 1 and len(done.stderr) < 6000


def test_the_ecthr_verifier_agrees_with_sklearn_and_the_metric_modules():
    record, expected = BIG
    y, p = np.asarray(GOLD["values"]), np.asarray(record["predicted_values"])
    figures = {m["name"]: m for m in expected["metrics"]}
    assert figures["MAE"]["value"] == pytest.approx(mean_absolute_error(y, p), rel=1e-12)
    assert figures["RMSE"]["value"] == pytest.approx(math.sqrt(mean_squared_error(y, p)),
                                                     rel=1e-12)
    assert figures["MedAE"]["value"] == pytest.approx(median_absolute_error(y, p), rel=1e-12)
    assert figures["R²"]["value"] == pytest.approx(r2_score(y, p), rel=1e-12)
    true_zero, pred_zero = y <= 0.5, p <= 0.5  # an amount at or below 0.5 EUR is zero
    tp = int(np.sum(true_zero & pred_zero))
    assert figures["Zero-F1"]["value"] == pytest.approx(2 * tp / (true_zero.sum() + pred_zero.sum()))
    module = load_metric_module("npd_regression").npd_regression(predictions=p, references=y)
    for name, key in (("MAE", "mae"), ("RMSE", "rmse"), ("MedAE", "medae"), ("Zero-F1", "zero_f1"),
                      ("R²", "r2")):
        assert figures[name]["value"] == pytest.approx(module[key], rel=1e-12, abs=1e-12)
    interval = load_metric_module("bootstrap_mae").bootstrap_mae_single(
        predictions=p, references=y, n_resamples=1000, seed=12345)
    assert figures["MAE"]["ci_low"] == pytest.approx(interval["ci_low"], rel=1e-12)
    assert figures["MAE"]["ci_high"] == pytest.approx(interval["ci_high"], rel=1e-12)
    views = {b["row"]: b["value"] for b in expected["breakdowns"] if b["table"] == "MAE by test view"}
    assert views["ID"] == pytest.approx(np.abs(p - y)[::2].mean())
    [test] = record["paired_tests"]
    paired = load_metric_module("bootstrap_mae").bootstrap_mae(
        predictions1=p, predictions2=REFERENCE[0]["predicted_values"], references=y,
        n_resamples=1000, seed=12345)
    assert (test["delta"], test["ci_low"], test["ci_high"]) == pytest.approx(
        (paired["delta"], paired["ci_low"], paired["ci_high"]), rel=1e-9)
    assert test["p_better"] == paired["prob_1_better"]


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 300), resamples=st.integers(2, 300), seed=st.integers(0, 2**32 - 1),
       scale=st.sampled_from([1.0, 1e4, 1e12]))
def test_count_matrix_bootstrap_equals_the_shared_resamples(n, resamples, seed, scale):
    values = np.random.default_rng(seed).uniform(0, scale, n)
    fast = Bootstrap().replicates(values, resamples, seed)
    plain = bootstrap_replicates(values, n_resamples=resamples, seed=seed)
    np.testing.assert_allclose(fast, plain, rtol=1e-12, atol=scale * 1e-15)


#: (path into a record, how it is changed): every number a record states.
_TARGETS = [("metrics", 0, "value"), ("metrics", 0, "ci_low"), ("metrics", 0, "ci_high"),
            ("metrics", 1, "value"), ("metrics", 2, "value"), ("metrics", 3, "value"),
            ("metrics", 4, "value"), ("breakdowns", 0, "value"), ("breakdowns", 3, "value"),
            ("paired_tests", 0, "delta"), ("paired_tests", 0, "ci_low"),
            ("paired_tests", 0, "ci_high")]


def _problems(record: dict) -> list[str]:
    checker = Checker(VERIFIERS)
    expected, problems = checker.own_figures(record, GOLD)
    if expected is None:
        return problems
    tests = paired_test_problems([REFERENCE, (record, expected)], checker.bootstrap)
    return problems + tests.get(1, [])


def test_an_unchanged_record_passes():
    assert validate_result(BIG[0]) == [] and _problems(copy.deepcopy(BIG[0])) == []


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(target=st.sampled_from(_TARGETS), factor=st.one_of(
    st.floats(-1e6, 1e6).filter(lambda f: abs(f - 1) > 1e-5 and abs(f) > 1e-6),
    st.sampled_from([-1.0, 0.0, 1e20, 1e300])))
def test_any_changed_number_is_refused_naming_the_field_and_both_values(target, factor):
    record = copy.deepcopy(BIG[0])
    section, index, key = target
    item = record[section][index]
    item[key] = item[key] * factor if item[key] else factor
    problems = _problems(record)
    assert problems, (target, factor)
    assert any(key in p and "the record says" in p and "recomputed" in p for p in problems)


@settings(max_examples=60, deadline=None)
@given(index=st.integers(0, 59), value=st.one_of(
    st.floats(-1e308, 1e308, allow_nan=False), st.integers(-(2**63), 2**63 - 1)))
def test_any_changed_per_item_value_is_refused(index, value):
    record = copy.deepcopy(BIG[0])
    if math.isclose(value, record["per_item"][index], rel_tol=1e-8, abs_tol=1e-5):
        return
    record["per_item"][index] = value
    problems = _problems(record)
    assert any(p.startswith(f"per_item[{index}]: the record says") for p in problems), problems


@settings(max_examples=80, deadline=None)
@given(value=st.one_of(st.floats(allow_nan=False), st.integers(-(2**70), 2**70),
                       st.booleans(), st.text(max_size=5), st.none()),
       field=st.sampled_from(["resamples", "model_size_b", "failure_share", "fallback_share",
                              "per_item", "predicted_values", "metric", "breakdown", "test"]))
def test_hostile_numbers_anywhere_are_refused_or_recomputed_never_raise(value, field):
    """Any value in any numeric field: refused with a message or, when legitimate, equal to
    its recomputation; never an exception (the Space must never die on a record)."""
    record = copy.deepcopy(BIG[0])
    places = {"per_item": ("per_item", 0), "predicted_values": ("predicted_values", 0),
              "metric": ("metrics", 1), "breakdown": ("breakdowns", 0), "test": ("paired_tests", 0)}
    if field in places:
        section, index = places[field]
        if isinstance(record[section][index], dict):
            record[section][index]["value" if field != "test" else "delta"] = value
        else:
            record[section][index] = value
    else:
        record[field] = value
    try:
        text = dumps_record(record)
    except ValueError:  # inf is no JSON: a file cannot hold it
        return
    from courtbench.leaderboard.results_schema import read_record_bytes

    parsed, problems = read_record_bytes(text.encode("utf-8"))
    if parsed is not None:
        problems = _problems(parsed)
    assert all(isinstance(p, str) and "\n" not in p for p in problems)


def test_a_record_of_schema_1_is_refused_with_the_reason():
    record = dict(copy.deepcopy(BIG[0]), schema="courtbench-result/1")
    [problem] = validate_result(record)
    assert "carries no predictions" in problem and "resubmit" in problem


def test_a_changed_gold_file_refuses_every_record_of_its_data(tmp_path):
    write_results(tmp_path, [GOLD], [copy.deepcopy(REFERENCE[0]), copy.deepcopy(BIG[0])])
    [gold] = (tmp_path / "gold" / "ecthr_npd").glob("*.json")
    document = json.loads(gold.read_text())
    document["values"][0] += 1000
    gold.write_text(json.dumps(document))
    records, refused = _check(tmp_path)
    assert records == [] and len(refused) == 2
    assert all("sha256 differs from the one its card pins" in reason for _, reason in refused)


def test_a_changed_paired_test_p_value_is_refused(tmp_path):
    record = copy.deepcopy(BIG[0])
    record["paired_tests"][0]["p_better"] = 0.5
    assert any("p_better: the record says 0.5" in p for p in _problems(record))
    record["paired_tests"][0]["against"] = "nobody"
    assert any("no verified reference record" in p for p in _problems(record))


def test_reference_rows_are_only_those_the_card_lists(tmp_path):
    fake = dict(copy.deepcopy(BIG[0]), system="knn", reference=True)
    write_results(tmp_path, [GOLD], [copy.deepcopy(REFERENCE[0]), copy.deepcopy(BIG[0])])
    (tmp_path / "results" / "ecthr_npd" / "knn.json").write_text(dumps_record(fake))
    _, refused = _check(tmp_path)
    assert "lists no reference 'knn'" in dict(refused)["results/ecthr_npd/knn.json"]
    for name in ("Train_Median", "GBT"):  # a reference's name, another case: still refused
        (tmp_path / "results" / "ecthr_npd" / "knn.json").unlink(missing_ok=True)
        squatter = dict(copy.deepcopy(BIG[0]), system=name)
        (tmp_path / "results" / "ecthr_npd" / f"{name}.json").write_text(dumps_record(squatter))
        reason = dict(_check(tmp_path)[1])[f"results/ecthr_npd/{name}.json"]
        assert "the name of reference baseline" in reason or "already taken" in reason
        (tmp_path / "results" / "ecthr_npd" / f"{name}.json").unlink()
    assert predictions_digest(REFERENCE[0]) in (tmp_path / "README.md").read_text()


def test_slds_records_are_recomputed_and_only_model_metrics_may_be_as_submitted():
    record, expected = copy.deepcopy(LEAD[0]), LEAD[1]
    assert figure_problems(record, expected, VERIFIERS["slds"].AS_SUBMITTED) == []
    judge = {"name": "LLM judge", "value": 41.0, "ci_low": None, "ci_high": None,
             "lower_is_better": False, "primary": False, "as_submitted": "judge model m, prompt x"}
    record["metrics"].append(judge)
    assert figure_problems(record, expected, VERIFIERS["slds"].AS_SUBMITTED) == []
    record["metrics"][2]["as_submitted"] = "trust me"  # ROUGE-L F1: recomputable
    problems = figure_problems(record, expected, VERIFIERS["slds"].AS_SUBMITTED)
    assert any("marked as submitted, but it is not a number that needs a model" in p
               for p in problems)
    partial = copy.deepcopy(LEAD[0])
    partial["predicted_texts"][0] = None  # a pair covered in part
    _, problems = Checker(VERIFIERS).own_figures(partial, SLDS_GOLD)
    assert any("a pair covered in part" in p for p in problems)


def test_the_checker_recomputes_only_changed_files(tmp_path, monkeypatch):
    write_results(tmp_path, [GOLD], [copy.deepcopy(REFERENCE[0]), copy.deepcopy(BIG[0])])
    checker = Checker(VERIFIERS)
    card = read_card_metadata(tmp_path)
    assert len(checker.check_folder(tmp_path, card)[0]) == 2
    calls = []
    original = VERIFIERS["ecthr_npd"].recompute
    monkeypatch.setattr(VERIFIERS["ecthr_npd"], "recompute",
                        lambda *a: calls.append(1) or original(*a))
    assert len(checker.check_folder(tmp_path, card)[0]) == 2 and calls == []
    changed = copy.deepcopy(BIG[0])
    changed["date"] = "2026-12-02"
    (tmp_path / "results" / "ecthr_npd" / "big_llm.json").write_text(dumps_record(changed))
    assert len(checker.check_folder(tmp_path, card)[0]) == 2 and calls == [1]


def test_a_verifier_that_fails_refuses_the_record_and_the_check_goes_on(tmp_path, monkeypatch):
    write_results(tmp_path, [GOLD], [copy.deepcopy(REFERENCE[0]), copy.deepcopy(BIG[0])])

    def broken(*args):
        raise RuntimeError("a bug")

    monkeypatch.setattr(VERIFIERS["ecthr_npd"], "recompute", broken)
    records, refused = _check(tmp_path)
    assert records == [] and all("cannot be recomputed (RuntimeError: a bug)" in r
                                 for _, r in refused)


def test_init_keeps_every_reference_baseline_of_a_13_system_report_and_says_what_it_left_out():
    from courtbench.leaderboard.records import _reference_names, select_systems
    from ecthr_npd.baselines import ALL_SYSTEMS, SYSTEMS, TREE_SYSTEMS
    from ecthr_npd.leaderboard import verifier_spec

    spec = verifier_spec()
    assert set(spec.references) == set(ALL_SYSTEMS)  # the verifier's copy is the full list
    report = [*SYSTEMS, *TREE_SYSTEMS, "catboost.seed1", "my_llm"]  # 13 systems + 2
    selection = select_systems(report, None, _reference_names(spec, None), init=True)
    assert selection.systems == [*SYSTEMS, *TREE_SYSTEMS]
    assert set(selection.left_out) == {"catboost.seed1", "my_llm"}
    assert all("not a reference baseline" in why for why in selection.left_out.values())
    submitted = select_systems(report, None, _reference_names(spec, None), init=False)
    assert submitted.systems == ["catboost.seed1", "my_llm"]
    assert "a reference baseline" in submitted.left_out["gbt"]
    for claimed in ("zero", "Zero", "GBT", "ｇｂｔ"):  # fullwidth letters: NFKC makes them gbt
        with pytest.raises(CourtbenchError, match="the name of a reference baseline"):
            select_systems([*report, claimed], [claimed], _reference_names(spec, None),
                           init=False)
