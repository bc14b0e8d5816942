"""The ``selected`` system: its selection protocol cannot reach test, its search follows its
rules, its refit is deterministic, and its frozen configuration is the one the search chose.

A synthetic release of 700 cases, LightGBM only, and a search space shrunk to a few points
with 50 trees keep these fast; the libraries the tests need skip cleanly when missing.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import f1_score

from ecthr_npd.baselines import boosting_libraries as libraries
from ecthr_npd.baselines import search as search_module
from ecthr_npd.baselines.amount_models import (
    INCREASING,
    AmountSpec,
    KnnSpec,
    encoder_for,
    fit_amount,
    recency_weights,
)
from ecthr_npd.baselines.protocol import FOLD_YEARS, SelectionData, fold_scores, zero_f1
from ecthr_npd.baselines.search import gate_choice
from ecthr_npd.baselines.selected_config import (
    SELECTED,
    SELECTED_FOLD_SCORES,
    Gate,
    Member,
    SelectedConfig,
)
from ecthr_npd.baselines.selected_system import SelectedSystem
from ecthr_npd.baselines.zero_gate import ZeroSpec, gate
from ecthr_npd.data import BenchmarkData, from_canonical, inputs_only
from ecthr_npd.reader import read_case_level
from ecthr_npd.synthetic import write_synthetic

ROOT = Path(__file__).resolve().parents[2]
SELECTION_RECORD = ROOT / "benchmarks" / "results" / "ecthr_selection" / "selection.json"
TINY_AMOUNT = AmountSpec("lightgbm", "l1", params=(("min_child_samples", 10),
                                                   ("num_leaves", 7)), max_trees=50,
                         tree_step=25)
TINY_ZERO = ZeroSpec(params=(("min_child_samples", 10), ("num_leaves", 7)), max_trees=50,
                     tree_step=25)
TINY = SelectedConfig((Member(TINY_AMOUNT, 50), Member(dataclasses.replace(
    TINY_AMOUNT, loss="quantile", alpha=0.6), 25, 1.1)), "mean", Gate(TINY_ZERO, 50, 0.4))


def _needs_lightgbm() -> None:
    if not libraries.available("lightgbm"):
        pytest.skip(f"lightgbm is not installed ({libraries.INSTALL_COMMAND})")


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> BenchmarkData:
    path = write_synthetic(tmp_path_factory.mktemp("selected") / "case_level.csv", n=700,
                           seed=11)
    return from_canonical(read_case_level(path), source=str(path))


def _without_test_targets(data: BenchmarkData) -> BenchmarkData:
    splits = dict(data.splits)
    splits["test"] = inputs_only(data.splits["test"])
    return dataclasses.replace(data, splits=splits)


@pytest.fixture(scope="module")
def tiny_space():
    """The search's stages with a handful of candidates of 50 trees each (for this module)."""
    _needs_lightgbm()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(search_module, "MAX_TREES", 50)
        patch.setattr(search_module, "TREE_STEP", 25)
        patch.setattr(search_module, "LOSSES_TRIED", ({"loss": "l1"}, {"loss": "squared"}))
        patch.setattr(search_module, "REGULARISATION",
                      {"lightgbm": {"num_leaves": (7, 31), "min_child_samples": (20,),
                                    "reg_lambda": (0.0,)}})
        patch.setattr(search_module, "HALF_LIVES", (5.0,))
        patch.setattr(search_module, "KNN_K", (5,))
        patch.setattr(search_module, "ZERO_SPECS", (TINY_ZERO,))
        patch.setattr(search_module, "THRESHOLDS", (0.3, 0.5, 0.7, 0.95))
        yield


@pytest.fixture(scope="module")
def searched(data, tiny_space):
    """The tiny search on the synthetic train + validation, once: (result, log records)."""
    records: list = []
    result = _search(SelectionData.of(data.splits["train"], data.splits["validation"]),
                     records)
    return result, records


def _search(selection: SelectionData, records: list):
    return search_module.search(selection, libraries=("lightgbm",), log=records.append)


def test_selection_data_holds_only_train_and_validation(data):
    fields = [f.name for f in dataclasses.fields(SelectionData)]
    assert fields == ["train", "validation"]
    selection = SelectionData.of(data.splits["train"], data.splits["validation"])
    test_ids = set(data.ids("test"))
    pooled_ids = selection.pooled().column("case_id").to_pylist()
    assert pooled_ids == data.ids("train") + data.ids("validation")
    assert not test_ids & set(pooled_ids)
    # an unlabelled table (test as a baseline sees it) cannot be a selection split
    with pytest.raises(ValueError, match="y_amount_eur"):
        SelectionData.of(data.splits["train"], inputs_only(data.splits["test"]))


def test_search_runs_without_any_test_target_and_ignores_them(data, tiny_space, searched):
    """The whole search on data whose test split has no target column at all, and on the
    original data: the same choice, the same fold predictions; no fold holds a test case."""
    blind = _without_test_targets(data)
    records_blind: list = []
    chosen_blind = _search(SelectionData.of(blind.splits["train"],
                                            blind.splits["validation"]), records_blind)
    chosen, records = searched
    assert chosen_blind.config == chosen.config
    np.testing.assert_array_equal(chosen_blind.prediction, chosen.prediction)
    assert [r["candidate"] for r in records_blind] == [r["candidate"] for r in records]
    test_ids = set(data.ids("test"))
    for fold in SelectionData.of(data.splits["train"], data.splits["validation"]).folds():
        assert not test_ids & set(fold.fit.column("case_id").to_pylist())
        assert not test_ids & set(fold.score.column("case_id").to_pylist())


def test_search_log_and_stage_rules(searched):
    result, records = searched
    scored = [r for r in records if "pooled" in r and "winner" not in r["stage"]]
    assert scored and all({"config", "folds", "seconds", "cpu_seconds"} <= set(r)
                          for r in scored)
    assert all(len(r["folds"]) == FOLD_YEARS for r in scored)
    # each loss candidate is logged with its MAE at every tree count; the kept count is best
    for record in (r for r in scored if r["stage"] == "1a loss lightgbm"):
        by_trees = {int(n): mae for n, mae in record["mae_by_trees"].items()}
        assert by_trees[record["config"]["n_trees"]] == pytest.approx(
            min(by_trees.values()), abs=0.01)
    # the ensemble stage keeps the lowest pooled fold MAE of everything it tried
    ensemble = [r for r in records if r["stage"] == "3 ensemble"]
    winner = next(r for r in records if r["stage"] == "3 ensemble winner")
    assert winner["pooled"]["mae"] == min(r["pooled"]["mae"] for r in ensemble)
    # the gate obeys its rule over every threshold it tried
    gated = [r for r in records if r["stage"] == "4 zero gate"]
    limit = gated[0]["mae_limit"]
    assert limit == pytest.approx((1 + search_module.MAE_TOLERANCE) * winner["pooled"]["mae"])
    feasible = [r for r in gated if r["pooled"]["mae"] <= limit]
    if feasible:
        best = max(r["pooled"]["zero_f1"] for r in feasible)
        assert result.scores["pooled"]["zero_f1"] == pytest.approx(best)
        assert result.config.gate is not None
    else:
        assert result.config.gate is None
    assert result.scores["pooled"]["mae"] <= limit


def test_gate_choice_by_brute_force():
    candidates = [(100.0, 0.5), (99.0, 0.6), (101.5, 0.9), (100.5, 0.6), (98.0, 0.1)]
    assert gate_choice(candidates, 101.0) == 1  # 0.6 twice: the lower MAE
    assert gate_choice(candidates, 102.0) == 2
    assert gate_choice(candidates, 97.0) is None


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1e6), st.floats(0, 1)), min_size=1, max_size=12),
       st.floats(0, 1e6))
def test_gate_choice_property(candidates, limit):
    index = gate_choice(candidates, limit)
    feasible = [c for c in candidates if c[0] <= limit]
    if not feasible:
        assert index is None
    else:
        assert candidates[index][0] <= limit
        assert candidates[index][1] == max(f for _, f in feasible)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, 0.3, 0.5, 0.6, 20.0, 5000.0]),
                          st.sampled_from([0.0, 0.5, 0.51, 100.0])), min_size=1, max_size=40))
def test_zero_f1_matches_sklearn(pairs):
    y, prediction = (np.array(v, dtype=float) for v in zip(*pairs, strict=True))
    expected = f1_score(y <= 0.5, prediction <= 0.5, pos_label=True, zero_division=0.0)
    assert zero_f1(y, prediction) == pytest.approx(expected)


def test_fold_scores_pool_and_split():
    targets = [np.array([0.0, 10.0]), np.array([5.0, 0.0, 1.0])]
    predictions = [np.array([0.0, 4.0]), np.array([5.0, 3.0, 1.0])]
    scores = fold_scores(targets, predictions, ["a", "b"])
    assert scores["pooled"]["mae"] == pytest.approx(9.0 / 5)
    assert scores["pooled"]["medae"] == 0.0
    assert scores["folds"]["a"]["mae"] == 3.0 and scores["folds"]["b"]["n"] == 3
    assert scores["folds"]["a"]["zero_f1"] == 1.0


def test_rolling_folds_are_the_last_five_years(data):
    selection = SelectionData.of(data.splits["train"], data.splits["validation"])
    pooled_years = [d.year for d in selection.pooled().column("judgment_date").to_pylist()]
    folds = selection.folds()
    expected = sorted(set(pooled_years))[-FOLD_YEARS:]
    assert [f.label for f in folds] == [f"year {y}" for y in expected]
    for year, fold in zip(expected, folds, strict=True):
        assert max(d.year for d in fold.fit.column("judgment_date").to_pylist()) < year
        assert {d.year for d in fold.score.column("judgment_date").to_pylist()} == {year}


def test_recency_weights_halve_every_half_life():
    dates = pa.array([0, 365, 730, 730], type=pa.int32()).cast(pa.date32())
    table = pa.table({"judgment_date": dates})
    weights = recency_weights(table, 730 / 365.25)
    np.testing.assert_allclose(weights, [0.5, 2 ** -0.5, 1.0, 1.0])
    assert recency_weights(table, None) is None


def test_monotone_constraints_name_encoded_columns(data):
    names = encoder_for("all").fit(data.splits["train"]).feature_names("one_hot")
    assert set(INCREASING) <= set(names)


@pytest.mark.parametrize("library", libraries.LIBRARIES)
def test_amount_losses_fit_and_predict_non_negative_euros(data, library):
    if not libraries.available(library):
        pytest.skip(f"{library} is not installed")
    train, validation = data.splits["train"], inputs_only(data.splits["validation"])
    params = {"lightgbm": (("num_leaves", 7),), "xgboost": (("max_depth", 3),),
              "catboost": (("depth", 4),)}[library]
    for loss in ("l1", "quantile", "squared", "tweedie"):
        spec = AmountSpec(library, loss, alpha=0.6, params=params, max_trees=20, tree_step=10,
                          monotone=library != "lightgbm", half_life=5.0)
        fitted = fit_amount(spec, train, seed=0)
        first, second = fitted.predict_at(validation, [10, 20])
        assert np.isfinite(second).all() and (second >= 0).all()
        np.testing.assert_array_equal(second, fitted.predict(validation, 20))
        assert not np.array_equal(first, second)


def test_configuration_json_round_trip():
    for config in (TINY, SELECTED, SelectedConfig((Member(KnnSpec(7), 0),))):
        assert SelectedConfig.from_json(json.loads(json.dumps(config.to_json()))) == config
    with pytest.raises(ValueError, match="combine"):
        SelectedConfig((Member(TINY_AMOUNT, 50),), "mode")


def test_frozen_configuration_is_the_recorded_choice():
    """SELECTED in code is what the search on the release chose (its recorded output)."""
    record = json.loads(SELECTION_RECORD.read_text(encoding="utf-8"))
    assert SelectedConfig.from_json(record["configuration"]) == SELECTED
    pooled = record["fold_scores"]["pooled"]
    assert SELECTED_FOLD_SCORES["n"] == pooled["n"]
    for key, digits in (("mae", 2), ("medae", 2), ("zero_f1", 4)):
        assert SELECTED_FOLD_SCORES[key] == round(pooled[key], digits)


def test_selected_system_combines_members_and_gate(data):
    _needs_lightgbm()
    system = SelectedSystem(TINY).fit(data.splits["train"], data.splits["validation"])
    test = inputs_only(data.splits["test"])
    predicted = system.predict(test)
    pooled = SelectionData.of(data.splits["train"], data.splits["validation"]).pooled()
    members = [m.scale * fit_amount(m.spec, pooled, 0).predict(test, m.n_trees)
               for m in TINY.members]
    from ecthr_npd.baselines.zero_gate import fit_zero

    p_zero = fit_zero(TINY_ZERO, pooled, 0).probability(test, 50)
    expected = gate(np.mean(members, axis=0), p_zero, 0.4)
    np.testing.assert_array_equal(predicted, expected)
    assert (predicted[p_zero > 0.4] == 0).all() and (p_zero > 0.4).any()
    settings_ = system.settings()
    assert settings_["fitted_on"] == "train+validation"
    assert settings_["fitted_cases"] == pooled.num_rows


def test_selected_system_is_deterministic_and_blind_to_test_targets(data):
    _needs_lightgbm()
    blind = _without_test_targets(data)
    first = SelectedSystem(TINY).fit(data.splits["train"], data.splits["validation"])
    again = SelectedSystem(TINY).fit(blind.splits["train"], blind.splits["validation"])
    for split in ("train", "validation", "test"):
        table = inputs_only(data.splits[split])
        assert first.predict(table).tobytes() == again.predict(table).tobytes()
    with pytest.raises(RuntimeError, match="before fit"):
        SelectedSystem(TINY).predict(inputs_only(data.splits["test"]))


def test_the_selecting_entry_point_hands_the_search_only_train_and_validation(
        data, searched, tmp_path, monkeypatch):
    """``python -m benchmarks.ecthr_selection search`` (the code that selects on the release):
    whatever it loads, the search receives one SelectionData — train and validation, no test
    case — and nothing else that holds data; its record goes where RESULTS points."""
    monkeypatch.syspath_prepend(str(ROOT))
    from benchmarks import ecthr_selection

    calls = []

    def spy(selection, **options):
        calls.append((selection, options))
        return searched[0]

    monkeypatch.setattr(ecthr_selection, "_load", lambda scratch: data)
    monkeypatch.setattr(ecthr_selection, "RESULTS", tmp_path)
    monkeypatch.setattr(ecthr_selection.space, "search", spy)
    document = ecthr_selection.run_search(threads=1)
    [(selection, options)] = calls
    assert type(selection) is SelectionData
    assert set(options) == {"threads", "log", "progress"}
    assert options["threads"] == 1
    assert all(callable(options[k]) for k in ("log", "progress"))
    ids = selection.pooled().column("case_id").to_pylist()
    assert ids == data.ids("train") + data.ids("validation")
    assert not set(ids) & set(data.ids("test"))
    assert document["configuration"] == searched[0].config.to_json()
    assert json.loads((tmp_path / "selection.json").read_text(encoding="utf-8"))[
        "data_fingerprint"] == data.fingerprint
