"""ECtHR-NPD baselines: fit/predict contracts, k-NN filters, no peeking at held-out labels."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pyarrow as pa
import pytest

from ecthr_npd import schema
from ecthr_npd.baselines import SYSTEMS, make_baseline
from ecthr_npd.baselines.constant_baselines import ConstantBaseline
from ecthr_npd.baselines.features import FeatureEncoder
from ecthr_npd.baselines.hist_gradient_boosting import GradientBoostedTrees
from ecthr_npd.baselines.hurdle import LEVELS, HurdleModel, combine, mixture_median
from ecthr_npd.baselines.knn import KNNBaseline
from ecthr_npd.baselines.run import fit_and_predict
from ecthr_npd.data import BenchmarkData, from_canonical, inputs_only
from ecthr_npd.reader import read_case_level
from ecthr_npd.synthetic import write_synthetic

SMALL_TREE_GRID = {"learning_rate": (0.1,), "max_leaf_nodes": (15,), "loss": ("squared_error",)}
SMALL_CLASSIFIER_GRID = {"learning_rate": (0.1,), "max_leaf_nodes": (15,)}


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> BenchmarkData:
    """A synthetic release of 1,200 cases split into train/validation/test."""
    path = write_synthetic(tmp_path_factory.mktemp("ecthr") / "case_level.csv", n=1200, seed=3)
    return from_canonical(read_case_level(path), source=str(path))


def small(name: str, seed: int = 0):
    """A baseline with reduced grids (keeps the tests fast); others as made by name."""
    if name == "gbt":
        return GradientBoostedTrees(seed=seed, grid=dict(SMALL_TREE_GRID))
    if name == "hurdle":
        return HurdleModel(seed=seed, classifier_grid=dict(SMALL_CLASSIFIER_GRID),
                           regressor_grid=dict(SMALL_TREE_GRID))
    return make_baseline(name, seed=seed)


def with_target(table: pa.Table, values: np.ndarray) -> pa.Table:
    index = table.column_names.index(schema.TARGET_COLUMN)
    return table.set_column(index, schema.TARGET_COLUMN, pa.array(values, pa.float64()))


def fitted_predictions(data: BenchmarkData, name: str, validation: pa.Table | None = None,
                       baseline=None) -> np.ndarray:
    baseline = baseline or small(name)
    baseline.fit(data.splits["train"], validation or data.splits["validation"])
    return np.concatenate([baseline.predict(inputs_only(data.splits[s]))
                           for s in ("train", "validation", "test")])


@pytest.mark.parametrize("name", SYSTEMS)
def test_fit_predict_contract(data, name):
    first = fitted_predictions(data, name)
    n = sum(t.num_rows for t in data.splits.values())
    assert first.shape == (n,) and first.dtype == np.float64
    assert np.isfinite(first).all() and (first >= 0).all()
    np.testing.assert_array_equal(first, fitted_predictions(data, name))  # deterministic
    baseline = small(name)
    with pytest.raises(RuntimeError, match="before fit"):
        baseline.predict(inputs_only(data.splits["test"]))
    baseline.fit(data.splits["train"], data.splits["validation"])
    settings = baseline.settings()
    assert isinstance(settings, dict) and settings
    # the target column, if a caller leaves it in, changes nothing
    test = data.splits["test"]
    np.testing.assert_array_equal(baseline.predict(test), baseline.predict(inputs_only(test)))


def test_constant_values(data):
    y = data.target("train")
    expected = {"train_median": np.median(y), "train_mean": y.mean(), "zero": 0.0,
                "train_positive_median": np.median(y[y > 0]),
                "train_positive_mean": y[y > 0].mean()}
    for name, value in expected.items():
        baseline = ConstantBaseline(name).fit(data.splits["train"])
        assert baseline.value == pytest.approx(value)
        np.testing.assert_allclose(baseline.predict(data.splits["test"]), value)
    with pytest.raises(ValueError, match="constant baseline 'median'"):
        ConstantBaseline("median")


def test_fit_rejects_bad_targets(data):
    train = data.splits["train"]
    bad = data.target("train").copy()
    bad[7] = -1.0
    with pytest.raises(ValueError, match=r"y_amount_eur\[7\] = -1.0"):
        ConstantBaseline("train_mean").fit(with_target(train, bad))
    with pytest.raises(ValueError, match="no 'y_amount_eur' column"):
        ConstantBaseline("train_mean").fit(inputs_only(train))


@pytest.mark.parametrize("name", SYSTEMS)
def test_validation_and_test_labels_are_not_fitted_on(data, name):
    """Scrambled validation and test labels give identical fits (one setting, one τ, so that
    validation only could select)."""
    rng = np.random.default_rng(0)
    scrambled = BenchmarkData(dict(data.splits), data.views, data.fingerprint, data.source)
    for split in ("validation", "test"):
        y = data.target(split)
        scrambled.splits[split] = with_target(data.splits[split], rng.permutation(y) * 3 + 11)
    if name == "hurdle":
        make = lambda: HurdleModel(classifier_grid=dict(SMALL_CLASSIFIER_GRID),  # noqa: E731
                                   regressor_grid=dict(SMALL_TREE_GRID), thresholds=(0.5,),
                                   rules=("mixture_median",))
    else:
        make = lambda: small(name)  # noqa: E731
    original = fitted_predictions(data, name, baseline=make())
    again = fitted_predictions(scrambled, name, validation=scrambled.splits["validation"],
                               baseline=make())
    np.testing.assert_array_equal(original, again)


def test_validation_labels_select_but_do_not_fit(data):
    """With the full grid, the fitted model for each setting does not depend on validation
    labels: only the choice among settings may."""
    trees = GradientBoostedTrees(grid={"learning_rate": (0.05, 0.1), "max_leaf_nodes": (15,),
                                       "loss": ("squared_error",)})
    fitted_predictions(data, "gbt", baseline=trees)
    assert trees.chosen in ({"learning_rate": 0.05, "max_leaf_nodes": 15, "loss": "squared_error"},
                            {"learning_rate": 0.1, "max_leaf_nodes": 15, "loss": "squared_error"})
    best = min(trees.validation_mae.values())
    chosen_key = ",".join(f"{k}={v}" for k, v in trees.chosen.items())
    assert trees.validation_mae[chosen_key] == best


# --- k-NN -----------------------------------------------------------------------------------

def _edited(table: pa.Table, rows: list[int], **columns) -> pa.Table:
    """``table``'s ``rows`` with the given columns replaced (lists of Python values)."""
    out = table.take(rows)
    for name, values in columns.items():
        index = out.column_names.index(name)
        out = out.set_column(index, name, pa.array(values, out.schema.field(name).type))
    return out


def test_knn_filters_on_a_handmade_pool(data):
    train = data.splits["train"]
    day = dt.date(2015, 6, 1)
    pool = _edited(
        train, [0, 1, 2, 3, 4],
        case_id=["001-000001", "001-000002", "001-000003", "001-000004", "001-000005"],
        judgment_date=[dt.date(2014, 1, 1), dt.date(2016, 1, 1), dt.date(2014, 1, 1), day,
                       dt.date(2013, 1, 1)],
        violated_articles=[["3"], ["3"], ["6"], ["3", "6"], ["P1-1", "3"]],
        y_amount_eur=[100.0, 1e6, 5e5, 7e5, 300.0])
    knn = KNNBaseline(k=20).fit(pool)
    target = _edited(train, [5, 6], case_id=["001-000009", "001-000004"],
                     judgment_date=[day, day], violated_articles=[["3", "13"], ["3"]])
    # case 1: earlier and sharing "3": rows 0 (2014) and 4 (2013); row 1 is later, row 2 shares
    # nothing, row 3 is the same day. Case 2 is row 3 itself: same neighbours, never itself.
    neighbours = knn.neighbours(inputs_only(target))
    assert [sorted(n.tolist()) for n in neighbours] == [[0, 4], [0, 4]]
    np.testing.assert_array_equal(knn.predict(inputs_only(target)), [200.0, 200.0])
    lonely = _edited(train, [7], judgment_date=[dt.date(1990, 1, 1)], violated_articles=[["3"]])
    assert knn.predict(inputs_only(lonely)).tolist() == [np.median([100.0, 1e6, 5e5, 7e5, 300.0])]
    assert knn.last_fallback_share == 1.0
    knn_one = KNNBaseline(k=1).fit(pool)
    assert [len(n) for n in knn_one.neighbours(inputs_only(target))] == [1, 1]


def test_knn_matches_a_brute_force_search(data):
    """The vectorised search equals a plain per-case loop (filters, k nearest, ties by pool
    order) on every validation and test case and on a sample of training cases."""
    knn = KNNBaseline(k=5).fit(data.splits["train"])
    pool = knn._pool
    targets = pa.concat_tables([data.splits["train"].slice(0, 150),
                                data.splits["validation"], data.splits["test"]])
    features = (knn.encoder.transform(targets, "one_hot") - pool["center"]) / pool["scale"]
    dates = targets.column("judgment_date").to_pylist()
    pool_dates = data.splits["train"].column("judgment_date").to_pylist()
    pool_articles = [set(a) for a in data.splits["train"].column("violated_articles").to_pylist()]
    ids = targets.column("case_id").to_pylist()
    pool_ids = data.splits["train"].column("case_id").to_pylist()
    got = knn.neighbours(inputs_only(targets))
    for row, articles in enumerate(targets.column("violated_articles").to_pylist()):
        eligible = [j for j in range(len(pool_ids)) if pool_dates[j] < dates[row]
                    and pool_articles[j] & set(articles) and pool_ids[j] != ids[row]]
        distance = np.round(((pool["features"][eligible] - features[row]) ** 2).sum(axis=1), 9)
        order = np.argsort(distance, kind="stable")[:5]
        expected = sorted(np.asarray(eligible, dtype=int)[order].tolist())
        # distances equal up to rounding may swap at the boundary; the sets must match exactly
        # when the k-th distance is not tied with the (k+1)-th
        if len(eligible) > 5 and np.isclose(np.sort(distance)[4], np.sort(distance)[5]):
            continue
        assert sorted(got[row].tolist()) == expected, f"row {row}"
        for j in got[row]:
            assert pool_dates[j] < dates[row] and pool_articles[j] & set(articles)
            assert pool_ids[j] != ids[row]


def test_knn_ties_follow_pool_order(data):
    """Identical encodings tie exactly; the earlier pool rows win."""
    train = data.splits["train"]
    pool = _edited(train, [0, 0, 0, 0], case_id=["001-000001", "001-000002", "001-000003",
                                                  "001-000004"],
                   y_amount_eur=[10.0, 20.0, 30.0, 40.0])
    target = _edited(train, [0], case_id=["001-000009"],
                     judgment_date=[dt.date(2100, 1, 1)])
    knn = KNNBaseline(k=2).fit(pool)
    assert [n.tolist() for n in knn.neighbours(inputs_only(target))] == [[0, 1]]
    assert knn.predict(inputs_only(target)).tolist() == [15.0]


def test_knn_rejects_bad_k_and_unfitted_use(data):
    with pytest.raises(ValueError, match="k=0"):
        KNNBaseline(k=0)
    with pytest.raises(RuntimeError, match="before fit"):
        KNNBaseline().neighbours(data.splits["test"])


# --- encoder and hurdle rule ----------------------------------------------------------------

def test_encoder_learns_from_train_only(data):
    train, test = data.splits["train"], data.splits["test"]
    encoder = FeatureEncoder(top_k_articles=5).fit(train)
    ordinal, one_hot = encoder.transform(test), encoder.transform(test, "one_hot")
    assert ordinal.shape == (test.num_rows, len(encoder.feature_names()))
    assert one_hot.shape == (test.num_rows, len(encoder.feature_names("one_hot")))
    assert not np.isnan(one_hot).any()
    assert len(encoder.articles) == 5
    assert encoder.categorical_mask().sum() == 5
    # a country never seen in training is "missing", not a new code
    renamed = _edited(test, [0], country_alpha2=["zz"])
    column = encoder.feature_names().index("cat:country_alpha2")
    assert np.isnan(encoder.transform(renamed)[0, column])
    # the target never enters the encoding
    shifted = with_target(train, data.target("train") + 1000)
    np.testing.assert_array_equal(FeatureEncoder(top_k_articles=5).fit(shifted).transform(test),
                                  ordinal)
    with pytest.raises(ValueError, match="encoding='dense'"):
        encoder.transform(test, "dense")


def test_hurdle_rule():
    p_zero = np.array([0.1, 0.5, 0.51, 0.9])
    amounts = np.array([10.0, 20.0, 30.0, 40.0])
    assert combine(p_zero, amounts, 0.5).tolist() == [10.0, 20.0, 0.0, 0.0]
    assert combine(p_zero, amounts, 1.0).tolist() == amounts.tolist()


def test_hurdle_threshold_and_rule_minimise_validation_mae(data):
    hurdle = small("hurdle")
    fitted_predictions(data, "hurdle", baseline=hurdle)
    by_threshold = hurdle.diagnostics["validation_mae_by_threshold"]
    assert by_threshold[str(hurdle.threshold)] == min(by_threshold.values())
    assert hurdle.threshold in hurdle.thresholds
    by_rule = hurdle.diagnostics["validation_mae_by_rule"]
    assert by_rule[hurdle.rule] == min(by_rule.values())
    validation = hurdle.predict(inputs_only(data.splits["validation"]))
    assert np.mean(np.abs(validation - data.target("validation"))) == pytest.approx(
        by_rule[hurdle.rule])


def test_mixture_median_is_the_median_of_the_mixture():
    """Against the sample median of "0 with share p, else exp(m + residual) − 1"."""
    rng = np.random.default_rng(0)
    residuals = rng.normal(0.0, 1.0, 20_000)
    quantiles = np.quantile(residuals, LEVELS)
    positives = np.expm1(8.0 + residuals)
    for p in (0.0, 0.2, 0.45):
        got = mixture_median(np.array([p]), np.array([8.0]), quantiles)[0]
        zeros = np.zeros(int(round(p / (1.0 - p) * positives.size)))  # zero share exactly p
        expected = np.median(np.concatenate([zeros, positives]))
        assert got == pytest.approx(expected, rel=0.01), p
    assert mixture_median(np.array([0.5, 0.9]), np.array([8.0, 8.0]), quantiles).tolist() == [
        0.0, 0.0]


def test_fit_and_predict_aligns_with_all_ids(data):
    predictions, settings = fit_and_predict(data, ["zero", "train_median"])
    assert set(predictions) == {"zero", "train_median"}
    assert predictions["zero"].shape == (len(data.all_ids()),)
    assert settings["train_median"]["settings"]["value_eur"] == np.median(data.target("train"))
