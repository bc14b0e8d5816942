"""ECtHR-NPD reference baselines: constants, k-NN retrieval, gradient-boosted trees, hurdle.

Every baseline follows :mod:`ecthr_npd.baselines.base`: fit on train, choose settings on
validation, predict every split; deterministic by seed. :func:`make_baseline` builds one by
system name; :data:`SYSTEMS` lists them in report order.
"""

from __future__ import annotations

from ecthr_npd.baselines.base import Baseline
from ecthr_npd.baselines.constants import STATISTICS, ConstantBaseline
from ecthr_npd.baselines.hurdle import HurdleModel
from ecthr_npd.baselines.knn import KNNBaseline
from ecthr_npd.baselines.trees import GradientBoostedTrees

SYSTEMS = (*STATISTICS, "knn", "gbt", "hurdle")


def make_baseline(name: str, *, seed: int = 0, k: int = 20,
                  tree_backend: str = "sklearn", threads: int = 1) -> Baseline:
    """An unfitted baseline by system name (one of :data:`SYSTEMS`).

    Args:
        name: system name; also the predictions file's stem.
        seed: random_state of the tree models.
        k: neighbours of ``knn``.
        tree_backend: ``sklearn`` or ``lightgbm`` for ``gbt``.
        threads: OpenMP/BLAS threads of ``knn``, ``gbt`` and ``hurdle``.
    """
    if name in STATISTICS:
        return ConstantBaseline(name)
    if name == "knn":
        return KNNBaseline(k=k, threads=threads)
    if name == "gbt":
        return GradientBoostedTrees(seed=seed, backend=tree_backend, threads=threads)
    if name == "hurdle":
        return HurdleModel(seed=seed, threads=threads)
    raise ValueError(f"unknown baseline {name!r}; expected one of {', '.join(SYSTEMS)}")


__all__ = ["SYSTEMS", "Baseline", "ConstantBaseline", "GradientBoostedTrees", "HurdleModel",
           "KNNBaseline", "make_baseline"]
