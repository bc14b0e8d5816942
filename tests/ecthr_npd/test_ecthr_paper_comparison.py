"""ECtHR-NPD reference systems: CatBoost/XGBoost/LightGBM, selection folds, ensemble, report.

Small synthetic data and tiny grids (one point, 50 trees) keep these fast; each library test
skips cleanly when the ``trees`` extra is not installed, and the unavailable path is tested by
simulating the import failure.
"""

from __future__ import annotations

import datetime as dt
import importlib.util

import numpy as np
import pyarrow as pa
import pytest

from courtbench.cli import main
from courtbench.errors import CourtbenchError
from ecthr_npd.baselines import boosting_libraries as libraries
from ecthr_npd.baselines.boosting_systems import BoostedTrees
from ecthr_npd.baselines.ensemble import MedianEnsemble
from ecthr_npd.baselines.features import FEATURE_SETS, FeatureEncoder
from ecthr_npd.baselines.run import Options, check_available, default_systems, run_baselines_on
from ecthr_npd.baselines.selection import choose, selection_folds
from ecthr_npd.data import BenchmarkData, from_canonical, inputs_only
from ecthr_npd.paper_comparison import PAPER, reference_table
from ecthr_npd.reader import read_case_level
from ecthr_npd.synthetic import write_synthetic

TINY = {"catboost": {"depth": (4,), "learning_rate": (0.1,)},
        "xgboost": {"max_depth": (3,), "learning_rate": (0.1,)},
        "lightgbm": {"num_leaves": (7,), "learning_rate": (0.1,)}}


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> BenchmarkData:
    """A synthetic release of 500 cases."""
    path = write_synthetic(tmp_path_factory.mktemp("ecthr_ref") / "case_level.csv", n=500, seed=7)
    return from_canonical(read_case_level(path), source=str(path))


def tiny(library: str, **options) -> BoostedTrees:
    if not libraries.available(library):
        pytest.skip(f"{library} is not installed ({libraries.INSTALL_COMMAND})")
    return BoostedTrees(library, grid=dict(TINY[library]), max_trees=50, **options)


def all_predictions(model, data: BenchmarkData) -> np.ndarray:
    return np.concatenate([model.predict(inputs_only(data.splits[s]))
                           for s in ("train", "validation", "test")])


@pytest.mark.parametrize("library", libraries.LIBRARIES)
def test_library_system_fits_deterministically(data, library):
    first = tiny(library, objective="l1").fit(data.splits["train"], data.splits["validation"])
    again = tiny(library, objective="l1").fit(data.splits["train"], data.splits["validation"])
    values = all_predictions(first, data)
    assert np.isfinite(values).all() and (values >= 0).all()
    np.testing.assert_array_equal(values, all_predictions(again, data))
    assert first.n_trees in (25, 50)
    settings = first.settings()
    assert settings["fitted_on"] == "train" and settings["objective"] == "l1"
    # the chosen (point, trees) has the lowest validation MAE, MedAE breaking ties
    best = min(first.scores, key=lambda s: (s["mae"], s["medae"]))
    assert (best["params"], best["n_trees"]) == (first.chosen, first.n_trees)
    # validation selection reuses the train-fitted model: its validation MAE is the score
    validation = first.predict(inputs_only(data.splits["validation"]))
    assert np.mean(np.abs(validation - data.target("validation"))) == pytest.approx(best["mae"])


@pytest.mark.parametrize("library", libraries.LIBRARIES)
def test_test_labels_are_never_used(data, library):
    """Scrambled test labels give the same predictions (they never reach a fit), and with
    either selection the test split is in no fold."""
    rng = np.random.default_rng(1)
    scrambled = dict(data.splits)
    test = data.splits["test"]
    index = test.column_names.index("y_amount_eur")
    scrambled["test"] = test.set_column(index, "y_amount_eur",
                                        pa.array(rng.permutation(data.target("test")) * 7.0))
    for selection in ("validation", "rolling"):
        if not libraries.available(library):
            pytest.skip(f"{library} is not installed")
        model = BoostedTrees(library, grid=dict(TINY[library]), max_trees=25, tree_step=25,
                             selection=selection)
        model.fit(scrambled["train"], scrambled["validation"])
        folds = selection_folds(data.splits["train"], data.splits["validation"], selection)
        test_ids = set(data.ids("test"))
        for fold in folds:
            assert not test_ids & set(fold.fit.column("case_id").to_pylist())
            assert not test_ids & set(fold.score.column("case_id").to_pylist())
        original = BoostedTrees(library, grid=dict(TINY[library]), max_trees=25, tree_step=25,
                                selection=selection).fit(data.splits["train"],
                                                         data.splits["validation"])
        np.testing.assert_array_equal(model.predict(inputs_only(test)),
                                      original.predict(inputs_only(test)))


def test_rolling_folds_are_the_last_years_fitted_on_earlier_cases(data):
    train, validation = data.splits["train"], data.splits["validation"]
    folds = selection_folds(train, validation, "rolling")
    pooled_years = [d.year for t in (train, validation)
                    for d in t.column("judgment_date").to_pylist()]
    expected = sorted(set(pooled_years))[-3:]
    assert [f.label for f in folds] == [f"year {y}" for y in expected]
    for year, fold in zip(expected, folds, strict=True):
        fit_years = {d.year for d in fold.fit.column("judgment_date").to_pylist()}
        score_years = {d.year for d in fold.score.column("judgment_date").to_pylist()}
        assert max(fit_years) < year and score_years == {year}
        assert fold.fit.num_rows == sum(y < year for y in pooled_years)
    with pytest.raises(ValueError, match="selection='test'"):
        selection_folds(train, validation, "test")


def test_choose_breaks_ties_by_medae_then_order():
    assert choose([(3.0, 1.0), (2.0, 9.0), (2.0, 5.0), (2.0, 5.0)]) == 2
    with pytest.raises(ValueError):
        choose([])


class _Member:
    def __init__(self, name, selection, full):
        self.name, self.selection = name, "validation"
        self.selection_prediction = np.asarray(selection, dtype=float)
        self.selection_target = np.array([10.0, 20.0, 30.0, 40.0])
        self.full = np.asarray(full, dtype=float)

    def predict(self, table):
        return self.full


def test_ensemble_picks_the_best_median_by_brute_force():
    a = _Member("a", [0, 0, 0, 0], [1, 1])
    b = _Member("b", [10, 20, 30, 50], [2, 2])
    c = _Member("c", [12, 18, 33, 39], [5, 5])
    ensemble = MedianEnsemble([a, b, c]).fit()
    target = a.selection_target
    best = min((np.mean(np.abs(np.median(np.stack([m.selection_prediction for m in s]), axis=0)
                                - target)), len(s), [m.name for m in s])
                for s in ([a], [b], [c], [a, b], [a, c], [b, c], [a, b, c]))
    assert [m.name for m in ensemble.members] == best[2]
    assert ensemble.predict(None).tolist() == np.median(
        np.stack([m.full for m in ensemble.members]), axis=0).tolist()
    with pytest.raises(ValueError, match="no candidate"):
        MedianEnsemble([]).fit()


def test_feature_sets_add_only_the_applicant_columns(data):
    train = data.splits["train"]
    x0 = FeatureEncoder(predictors=FEATURE_SETS["X0"]).fit(train).feature_names("one_hot")
    x1 = FeatureEncoder(predictors=FEATURE_SETS["X1"]).fit(train).feature_names("one_hot")
    added = [name for name in x1 if name not in x0]
    assert set(x0) < set(x1)
    assert all(name.startswith(("log1p_num_applicants", "applicant_", "birth_year_"))
               for name in added), added
    assert not any(name.startswith(("applicant_", "log1p_num_applicants")) for name in x0)
    assert "log1p_hudoc_application_count" in x0
    assert not any("has_mixed_outcome" in name for name in x1)
    native = FeatureEncoder(predictors=FEATURE_SETS["X1"]).fit(train)
    matrix = native.transform(data.splits["test"], "native")
    mask = native.categorical_mask("native")
    assert mask.sum() == 5 and not np.isnan(matrix).any()
    assert (matrix[:, mask] >= -1).all()


@pytest.mark.slow
def test_unavailable_libraries_are_listed_not_raised(monkeypatch, data, tmp_path, capsys):
    """Simulated import failure: the systems are reported with the install command."""
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name in libraries.LIBRARIES else real(name, *a))
    assert libraries.unavailable() == list(libraries.LIBRARIES)
    assert "catboost" not in default_systems() and "ensemble" not in default_systems()
    with pytest.raises(CourtbenchError, match=r"catboost unavailable.*pip install -e '\.\[trees\]'"):
        check_available(["knn", "catboost"])
    folder = tmp_path / "hub"
    from ecthr_npd.build import build_synthetic

    build_synthetic(folder, n=400, seed=2)
    assert main(["baselines", "ecthr_npd", "--data", str(folder), "--out",
                 str(tmp_path / "pred"), "--systems", "xgboost,zero"]) == 1
    err = capsys.readouterr().err
    assert "xgboost unavailable" in err and "'.[trees]'" in err
    assert "Traceback" not in err and not (tmp_path / "pred").exists()
    with pytest.raises(ValueError, match="xgboost is not installed"):
        libraries.make_model("xgboost", {}, "squared", 10, 0, 1)


def test_ensemble_needs_a_library_member():
    with pytest.raises(CourtbenchError, match="ensemble takes the median"):
        check_available(["ensemble", "zero"])


@pytest.mark.slow
def test_two_runs_write_identical_files_with_refit_seeds_and_report(data, tmp_path):
    """Every library, the ensemble, +refit and a second seed; the files are byte-identical
    across runs, and the report has the reference table with the seed spread."""
    present = [lib for lib in libraries.LIBRARIES if libraries.available(lib)]
    if not present:
        pytest.skip(f"no tree library installed ({libraries.INSTALL_COMMAND})")
    options = Options(seeds=(0, 1), refit=True, grids=TINY, max_trees=50,
                      feature_set="X0", objective="l1", selection="rolling")
    systems = ["train_median", *present, "ensemble"]
    for run in ("a", "b"):
        run_baselines_on(data, tmp_path / run, systems=systems, options=options, progress=False)
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert f"{present[0]}-X0-l1-rolling+refit.seed1.csv" in names
    assert "ensemble-X0-l1-rolling.csv" in names
    for name in names:
        # settings.json holds timings; the ownership marker names the folder it was written for
        if name not in ("settings.json", ".courtbench.json"):
            assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()

    from ecthr_npd.evaluation import build_report, read_system_predictions

    files = {p.stem: p for p in (tmp_path / "a").glob("*.csv")}
    systems_read = read_system_predictions(list(files.values()), data)
    report = build_report(data, systems_read, prediction_files=files, resamples=50,
                          figures=False)
    tables = {t.name: t for t in report.tables}
    main_names = [row[0] for row in tables["main"].rows]
    assert not any(".seed" in name for name in main_names)
    rows = {row[0]: row for row in tables["reference"].rows}
    stem = f"{present[0]}-X0-l1-rolling"
    assert set(rows) >= {stem, f"{stem}+refit", "ensemble-X0-l1-rolling"}
    row = rows[stem]
    assert row[2] == "X0" and row[4] == "rolling" and row[5] == "train"
    paper = PAPER[(present[0], "X0")][0]
    assert row[8] == paper and row[10] == pytest.approx(row[7] - paper)
    assert row[12] == 2 and "±" in row[13]
    assert rows[f"{stem}+refit"][5] == "train+validation"
    assert "X2/X3" in tables["reference"].note


def test_reference_table_from_recorded_variants():
    scores = {name: {"test": {"mae": mae}, "validation": {"mae": 1.0}}
              for name, mae in (("catboost", 10_000.0), ("catboost.seed1", 10_200.0),
                                ("zero", 11_000.0))}
    variants = {"catboost": {"system": "catboost", "feature_set": "X1", "objective": "squared",
                             "selection": "validation", "refit": False, "replica_of": None},
                "catboost.seed1": {"system": "catboost", "feature_set": "X1",
                                   "replica_of": "catboost"},
                "zero": {"system": "zero", "selection": "none"}}
    table = reference_table(scores, variants)
    assert [row[0] for row in table.rows] == ["catboost"]
    row = table.rows[0]
    assert row[8] == 9_881.0 and row[9] == "Table 20" and row[10] == pytest.approx(119.0)
    assert row[12] == 2 and row[13].startswith("10,100 ± 141")
    # the paper's X1 is context: our rows are the public 20-predictor X1, never "historical X1"
    assert row[2] == "X1 (public, 20 predictors)"
    assert "Paper test MAE (context)" in table.columns
    assert "allocation-derived" in table.note and "not a like-for-like target" in table.note
    assert "historical X1" not in " ".join(str(cell) for cell in row)
    assert reference_table({"zero": scores["zero"]}, {"zero": variants["zero"]}) is None


@pytest.mark.slow
def test_real_release_rolling_folds(shared_data):
    """On the real release the rolling folds are the years 2019, 2020 and 2021."""
    release = from_canonical(read_case_level(shared_data / "ecthr_npd" / "case_level.csv"))
    folds = selection_folds(release.splits["train"], release.splits["validation"], "rolling")
    assert [f.label for f in folds] == ["year 2019", "year 2020", "year 2021"]
    assert sum(f.score.num_rows for f in folds[1:]) + folds[0].score.num_rows > 1_461
    assert max(folds[-1].fit.column("judgment_date").to_pylist()) < dt.date(2021, 1, 1)
