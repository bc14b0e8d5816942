"""Award-amount models of the ``selected`` system's search: one tree library, one loss.

An :class:`AmountSpec` names a library (``lightgbm``, ``xgboost``, ``catboost``), a loss, the
library's regularisation settings, the predictors and an optional recency weighting;
:func:`fit_amount` fits it on labelled cases and returns a :class:`FittedAmount` whose
:meth:`~FittedAmount.predict` gives EUR with the first ``n`` trees (one fit serves every
candidate number of trees).

Losses (why each is a candidate for a zero-inflated, heavy-tailed target scored by MAE):

- ``l1`` on log1p(y): its minimiser is the conditional median of log1p(y), whose expm1 is the
  conditional median in EUR — exactly what MAE rewards (a median commutes with a monotone
  transform); where most similar cases got 0 it predicts ≈ 0;
- ``quantile`` (level ``alpha``) on log1p(y): a median shifted down or up, for a test period
  whose awards are lower or higher than the fitted years';
- ``squared`` on log1p(y): the paper's loss (a conditional mean of the log, below the median
  of a right-skewed law);
- ``tweedie`` (variance power ``power``) on y in EUR: a conditional mean for zero-inflated
  positive data, which MAE does not reward on a heavy tail, tried to measure that.

Predictors: ``all`` (the shared encoder's 21 permitted inputs: the 20 public predictors and
``has_mixed_outcome``), or the paper's ``X1`` / ``X0``. Encodings as in
:mod:`ecthr_npd.baselines.boosting_libraries` (CatBoost: native categoricals; the others
one-hot). Recency weighting (``half_life`` in years): a case judged ``a`` years before the
latest case of the fitted table weighs ``0.5 ** (a / half_life)``.

Fixed settings of every fit: learning rate :attr:`AmountSpec.learning_rate`; LightGBM
row subsampling 0.8 every iteration and feature fraction 0.8, deterministic mode; XGBoost hist
trees, subsample 0.8, colsample_bytree 0.8; CatBoost defaults besides the spec's settings.
Deterministic for a seed and a thread count.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from ecthr_npd.baselines import boosting_libraries as libraries
from ecthr_npd.baselines.base import target_of
from ecthr_npd.baselines.features import FEATURE_SETS, FeatureEncoder

LOSSES = ("l1", "quantile", "squared", "tweedie")
FEATURES = ("all", "X1", "X0")
#: Encoded counts the award may only grow with under ``monotone``: applicants, HUDOC
#: applications and violations found (awards add up over applicants and violations).
INCREASING = ("log1p_num_applicants", "log1p_hudoc_application_count",
              "log1p_num_violations_found")
DAYS_PER_YEAR = 365.25
FIXED: dict[str, dict[str, Any]] = {
    "lightgbm": {"subsample": 0.8, "subsample_freq": 1, "colsample_bytree": 0.8,
                 "deterministic": True, "force_col_wise": True, "verbose": -1},
    "xgboost": {"tree_method": "hist", "subsample": 0.8, "colsample_bytree": 0.8},
    "catboost": {"verbose": False, "allow_writing_files": False},
}


@dataclass(frozen=True)
class AmountSpec:
    """One amount model (see the module docstring). ``params``: the library's own keyword
    settings as sorted ``(name, value)`` pairs; ``max_trees`` trees are fitted and scored after
    every ``tree_step``."""

    library: str = "lightgbm"
    loss: str = "l1"
    alpha: float = 0.5
    power: float = 1.5
    params: tuple[tuple[str, Any], ...] = ()
    half_life: float | None = None
    features: str = "all"
    learning_rate: float = 0.05
    max_trees: int = 1000
    tree_step: int = 50
    monotone: bool = False
    positive_only: bool = False

    def __post_init__(self) -> None:
        libraries._check(self.library)
        if self.loss not in LOSSES:
            raise ValueError(f"loss={self.loss!r}; expected one of {LOSSES}")
        if self.features not in FEATURES:
            raise ValueError(f"features={self.features!r}; expected one of {FEATURES}")
        if self.half_life is not None and self.half_life <= 0:
            raise ValueError(f"half_life={self.half_life}; expected a number of years > 0")
        if self.tree_step < 1 or self.max_trees < self.tree_step:
            raise ValueError(f"max_trees={self.max_trees}, tree_step={self.tree_step}; expected "
                             "1 <= tree_step <= max_trees")

    @property
    def log_target(self) -> bool:
        """Whether the model is fitted to log1p(y) (every loss but ``tweedie``)."""
        return self.loss != "tweedie"

    def checkpoints(self) -> list[int]:
        """The tree counts scored: ``tree_step``, 2 × ``tree_step``, … ``max_trees``."""
        return list(range(self.tree_step, self.max_trees + 1, self.tree_step))

    def key(self) -> str:
        """A short, unique, readable name of the spec (the search log's id)."""
        loss = {"quantile": f"q{self.alpha:g}", "tweedie": f"tweedie{self.power:g}"}.get(
            self.loss, self.loss)
        parts = [self.library, loss, self.features, f"lr{self.learning_rate:g}",
                 *(f"{k}{v:g}" if isinstance(v, float) else f"{k}{v}" for k, v in self.params)]
        if self.half_life is not None:
            parts.append(f"hl{self.half_life:g}")
        parts += [flag for flag, on in (("monotone", self.monotone),
                                        ("positives", self.positive_only)) if on]
        return "-".join(parts)

    def to_json(self) -> dict[str, Any]:
        record = asdict(self)
        record["params"] = dict(self.params)
        return record


def recency_weights(table: pa.Table, half_life: float | None) -> np.ndarray | None:
    """``0.5 ** (age / half_life)`` per case, age in years before the table's latest
    ``judgment_date``; None without a half-life (every case weighs 1)."""
    if half_life is None:
        return None
    days = table.column("judgment_date").cast(pa.int32()).to_numpy(zero_copy_only=False)
    age = (days.max() - days.astype(np.float64)) / DAYS_PER_YEAR
    return np.power(0.5, age / half_life)


def _objective(spec: AmountSpec) -> dict[str, Any]:
    """The library's loss keywords for ``spec.loss``."""
    names = {
        "lightgbm": {"l1": {"objective": "regression_l1"}, "squared": {"objective": "regression"},
                     "quantile": {"objective": "quantile", "alpha": spec.alpha},
                     "tweedie": {"objective": "tweedie",
                                 "tweedie_variance_power": spec.power}},
        "xgboost": {"l1": {"objective": "reg:absoluteerror"},
                    "squared": {"objective": "reg:squarederror"},
                    "quantile": {"objective": "reg:quantileerror", "quantile_alpha": spec.alpha},
                    "tweedie": {"objective": "reg:tweedie",
                                "tweedie_variance_power": spec.power}},
        "catboost": {"l1": {"loss_function": "MAE"}, "squared": {"loss_function": "RMSE"},
                     "quantile": {"loss_function": f"Quantile:alpha={spec.alpha:g}"},
                     "tweedie": {"loss_function": f"Tweedie:variance_power={spec.power:g}"}},
    }
    return names[spec.library][spec.loss]


def monotone_constraints(feature_names: list[str]) -> list[int]:
    """+1 for the encoded counts in :data:`INCREASING` (the prediction may only grow with
    them), 0 elsewhere."""
    return [1 if name in INCREASING else 0 for name in feature_names]


def make_regressor(spec: AmountSpec, seed: int, threads: int,
                   feature_names: list[str] | None = None) -> Any:
    """An unfitted regressor of ``spec`` with ``max_trees`` trees (``feature_names``: the
    encoded columns, needed for monotone constraints)."""
    settings = {**FIXED[spec.library], **_objective(spec), **dict(spec.params),
                "learning_rate": spec.learning_rate}
    if spec.monotone:
        constraints = monotone_constraints(feature_names or [])
        settings["monotone_constraints"] = (
            "(" + ",".join(map(str, constraints)) + ")" if spec.library == "xgboost"
            else constraints)
    if spec.library == "lightgbm":
        import lightgbm

        return lightgbm.LGBMRegressor(n_estimators=spec.max_trees, random_state=seed,
                                      n_jobs=threads, **settings)
    if spec.library == "xgboost":
        import xgboost

        return xgboost.XGBRegressor(n_estimators=spec.max_trees, random_state=seed,
                                    n_jobs=threads, **settings)
    import catboost

    return catboost.CatBoostRegressor(iterations=spec.max_trees, random_seed=seed,
                                      thread_count=threads, **settings)


def encoder_for(features: str) -> FeatureEncoder:
    """An unfitted shared encoder over ``features`` (``all``: every permitted predictor)."""
    return FeatureEncoder(predictors=None if features == "all" else FEATURE_SETS[features])


def model_input(encoder: FeatureEncoder, library: str, table: pa.Table) -> libraries.ModelInput:
    """``table``'s inputs as ``library`` takes them (see the module docstring)."""
    encoding = libraries.ENCODING[library]
    matrix = encoder.transform(table, encoding)
    categorical = (encoder.categorical_mask(encoding) if encoding == "native"
                   else np.zeros(matrix.shape[1], dtype=bool))
    return libraries.ModelInput(library, matrix, categorical)


@dataclass
class FittedAmount:
    """A fitted amount model: :meth:`predict` in EUR with the first ``n_trees`` trees."""

    spec: AmountSpec
    encoder: FeatureEncoder
    model: Any

    def predict(self, table: pa.Table, n_trees: int) -> np.ndarray:
        return self.predict_at(table, [n_trees])[0]

    def predict_at(self, table: pa.Table, tree_counts: list[int]) -> list[np.ndarray]:
        """EUR predictions of ``table`` with the first ``n`` trees, for each ``n`` of
        ``tree_counts`` (the table is encoded once)."""
        data = model_input(self.encoder, self.spec.library, table)
        return [self._predict(data, n) for n in tree_counts]

    def _predict(self, data: libraries.ModelInput, n_trees: int) -> np.ndarray:
        library = self.spec.library
        if library == "catboost":
            kind = "Exponent" if self.spec.loss == "tweedie" else "RawFormulaVal"
            raw = self.model.predict(data.data, ntree_end=n_trees, prediction_type=kind)
        elif library == "xgboost":
            raw = self.model.predict(data.data, iteration_range=(0, n_trees))
        else:
            raw = self.model.predict(data.data, num_iteration=n_trees)
        raw = np.asarray(raw, dtype=np.float64)
        values = np.expm1(raw) if self.spec.log_target else raw
        return np.clip(values, 0.0, None)


def fit_amount(spec: AmountSpec, table: pa.Table, seed: int, threads: int = 1) -> FittedAmount:
    """Fit ``spec`` on the labelled ``table`` (encoder vocabularies from ``table`` too; with
    ``positive_only`` on its positive awards only)."""
    if spec.positive_only:
        table = table.filter(pa.array(target_of(table) > 0))
    y = target_of(table)
    target = np.log1p(y) if spec.log_target else y
    encoder = encoder_for(spec.features).fit(table)
    data = model_input(encoder, spec.library, table)
    weight = recency_weights(table, spec.half_life)
    model = make_regressor(spec, seed, threads,
                           encoder.feature_names(libraries.ENCODING[spec.library]))
    if spec.library == "catboost":
        model.fit(data.training(target, weight))
    else:
        model.fit(data.data, target, sample_weight=weight)
    return FittedAmount(spec, encoder, model)


@dataclass(frozen=True)
class KnnSpec:
    """The k-NN retrieval baseline as an amount model (:mod:`ecthr_npd.baselines.knn`: the
    median award of the ``k`` nearest earlier cases sharing a violated article; the pool is
    the fitted table)."""

    k: int = 20

    def key(self) -> str:
        return f"knn-k{self.k}"

    def to_json(self) -> dict[str, Any]:
        return {"kind": "knn", "k": self.k}


@dataclass
class FittedKnn:
    spec: KnnSpec
    model: Any

    def predict(self, table: pa.Table, n_trees: int = 0) -> np.ndarray:
        """EUR predictions (``n_trees`` is ignored: one signature with :class:`FittedAmount`)."""
        from ecthr_npd.data import inputs_only

        return self.model.predict(inputs_only(table))


def fit_knn(spec: KnnSpec, table: pa.Table, threads: int = 1) -> FittedKnn:
    """Fit the k-NN baseline with pool ``table``."""
    from ecthr_npd.baselines.knn import KNNBaseline

    return FittedKnn(spec, KNNBaseline(k=spec.k, threads=threads).fit(table))
