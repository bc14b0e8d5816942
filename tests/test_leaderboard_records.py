"""The record reader shared by ``courtbench leaderboard check`` and the leaderboard Space:
every hostile record is refused with one reason, none of them raises, valid ones pass."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from leaderboard_records import HOSTILE_REASONS, make_record, write_hostile_records, write_records

from courtbench.leaderboard.results_schema import (
    page_table,
    read_record_folder,
    shown,
    validate_result,
)

ERRORS = list(np.random.default_rng(1).uniform(0, 60, 30))


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    big = make_record("ecthr_npd", "big_llm", ERRORS)
    write_records(folder, [big, make_record("slds", "lead", [10.0, 20.0, 30.0], lower=False,
                                            grid=True)])
    write_hostile_records(folder, big)
    (folder / "README.md").write_text("courtbench_results: x\n", encoding="utf-8")
    return folder


def test_hostile_records_are_refused_each_with_its_reason(hostile):
    records, refused = read_record_folder(hostile)
    assert sorted(r["system"] for r in records) == ["big_llm", "lead"]
    reasons = dict(refused)
    assert set(reasons) == set(HOSTILE_REASONS)
    for name, phrase in HOSTILE_REASONS.items():
        assert phrase in reasons[name], (name, reasons[name])
        assert len(reasons[name]) <= 1000 and "\n" not in reasons[name]


def test_interval_must_hold_the_value_and_be_set_on_both_sides():
    record = make_record("ecthr_npd", "s", ERRORS)
    assert validate_result(record) == []
    record["metrics"][0]["ci_high"] = None
    assert any("both numbers or both null" in p for p in validate_result(record))
    record["metrics"][0].update(ci_low=record["metrics"][0]["value"] + 1, ci_high=1e9)
    assert any("outside its interval" in p for p in validate_result(record))


def test_each_record_is_placed_in_the_main_or_the_unofficial_table():
    main = make_record("ecthr_npd", "main_llm", ERRORS)  # fingerprint "f" * 64, synthetic
    accepted = {"ecthr_npd": {"f" * 64: "synthetic"}}
    assert page_table(main, accepted) == ("main", None)
    off_protocol = dict(main, leaderboard_table="unofficial",
                        unofficial_reason="--resamples 2: the protocol needs at least 1,000")
    assert validate_result(off_protocol) == []
    assert page_table(off_protocol, accepted) == (
        "unofficial", "--resamples 2: the protocol needs at least 1,000")
    other_data = dict(main, data_fingerprint="a" * 64)  # marked main, data not accepted
    table, reason = page_table(other_data, accepted)
    assert table == "unofficial" and "data fingerprint aaaaaaaaaaaaaaaa… is not among" in reason
    assert page_table(other_data, {"slds": {"a" * 64: "synthetic"}})[0] == "unofficial"
    table, reason = page_table(main, {"ecthr_npd": {"f" * 64: "real"}})
    assert table == "unofficial" and "as 'real' data" in reason
    assert page_table(other_data, None) == ("main", None)  # the card declares nothing


def test_the_mean_metric_is_recomputed_from_per_item_values_up_to_rounding():
    record = make_record("ecthr_npd", "s", ERRORS)
    record["metrics"][0]["value"] = round(record["metrics"][0]["value"], 4)
    assert validate_result(record) == []
    record["metrics"][0]["value"] += 0.01
    assert any("the mean of per_item" in p for p in validate_result(record))


def test_a_test_against_the_system_itself_is_refused():
    record = make_record("ecthr_npd", "s", ERRORS)
    record["paired_tests"] = [{"against": "s", "delta": 0.0, "ci_low": 0.0, "ci_high": 0.0,
                               "p_better": 0.0}]
    assert any("never compared with itself" in p for p in validate_result(record))


def test_messages_shorten_what_they_quote():
    assert len(shown("a" * 10_000_000)) < 100 and len(shown(10 ** 400)) < 100
    nested: list = []
    for _ in range(10_000):
        nested = [nested]
    assert len(shown(nested)) < 100


def test_leaderboard_check_refuses_hostile_records_in_one_message(hostile):
    done = subprocess.run([sys.executable, "-m", "courtbench", "leaderboard", "check",
                           str(hostile)], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert "9 invalid result record(s)" in done.stderr, done.stderr[-2000:]
    assert len(done.stderr) < 5000
