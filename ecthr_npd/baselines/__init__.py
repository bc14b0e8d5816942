"""ECtHR-NPD reference baselines: constants, k-NN retrieval, gradient-boosted trees, hurdle,
and the paper's reference systems (CatBoost, XGBoost, LightGBM, their median ensemble).

Every baseline follows :mod:`ecthr_npd.baselines.base`: fit on train, choose settings without
the test split, predict every split; deterministic by seed. :func:`make_baseline` builds one of
:data:`SYSTEMS` by name (the systems that need nothing beyond the core install);
:data:`TREE_SYSTEMS` and :data:`SELECTED_SYSTEMS` (``selected``: the configuration chosen on
rolling-origin folds, :mod:`ecthr_npd.baselines.selected_system`) need the optional extra
``trees`` and are built by :mod:`ecthr_npd.baselines.run`; :data:`TEXT_SYSTEMS` read the facts text
(:mod:`ecthr_npd.baselines.text_systems`); :data:`ALL_SYSTEMS` lists both in report order.
"""

from __future__ import annotations

from ecthr_npd.baselines.base import Baseline
from ecthr_npd.baselines.constant_baselines import STATISTICS, ConstantBaseline
from ecthr_npd.baselines.features import FEATURE_SETS, FeatureEncoder
from ecthr_npd.baselines.hist_gradient_boosting import GradientBoostedTrees
from ecthr_npd.baselines.hurdle import HurdleModel
from ecthr_npd.baselines.knn import KNNBaseline
from ecthr_npd.baselines.text_systems import TEXT_SYSTEMS

SYSTEMS = (*STATISTICS, "knn", "knn-metadata", "gbt", "hurdle")
TREE_SYSTEMS = ("catboost", "xgboost", "lightgbm", "ensemble")
#: The configuration chosen on rolling-origin folds, refitted on train+validation
#: (:mod:`ecthr_npd.baselines.selected_system`; needs the ``trees`` extra).
SELECTED_SYSTEMS = ("selected",)
ALL_SYSTEMS = (*SYSTEMS, *TREE_SYSTEMS, *SELECTED_SYSTEMS, *TEXT_SYSTEMS)


def make_baseline(name: str, *, seed: int = 0, k: int = 20, threads: int = 1) -> Baseline:
    """An unfitted baseline by system name (one of :data:`SYSTEMS`).

    Args:
        name: system name; also the predictions file's stem.
        seed: random_state of the tree models.
        k: neighbours of ``knn`` and ``knn-metadata`` (X0 case metadata only).
        threads: OpenMP/BLAS threads of ``knn``, ``gbt`` and ``hurdle``.
    """
    if name in STATISTICS:
        return ConstantBaseline(name)
    if name == "knn":
        return KNNBaseline(k=k, threads=threads)
    if name == "knn-metadata":  # the paper's "kNN metadata": distances over X0 only
        return KNNBaseline(k=k, threads=threads, name=name,
                           encoder=FeatureEncoder(top_k_articles=30,
                                                  predictors=FEATURE_SETS["X0"]))
    if name == "gbt":
        return GradientBoostedTrees(seed=seed, threads=threads)
    if name == "hurdle":
        return HurdleModel(seed=seed, threads=threads)
    raise ValueError(f"unknown baseline {name!r}; expected one of {', '.join(SYSTEMS)}")


__all__ = ["ALL_SYSTEMS", "SELECTED_SYSTEMS", "SYSTEMS", "TEXT_SYSTEMS", "TREE_SYSTEMS", "Baseline",
           "ConstantBaseline",
           "GradientBoostedTrees", "HurdleModel", "KNNBaseline", "make_baseline"]
