"""``selected``: the configuration chosen on rolling-origin folds, refitted on train + validation.

The configuration (default :data:`~ecthr_npd.baselines.selected_config.SELECTED`) was chosen
by :func:`ecthr_npd.baselines.search.search` on the folds of
:mod:`ecthr_npd.baselines.protocol` — train and validation only; the test split took no part.
:meth:`SelectedSystem.fit` refits every member (and the zero classifier) on train and
validation pooled, with the chosen numbers of trees; :meth:`SelectedSystem.predict` gives each
member's EUR prediction times its multiplier, combines them (median or mean) and sets 0 where
the zero classifier's P(zero) exceeds the chosen threshold. Its validation figures are
therefore in-sample. Needs LightGBM (the ``trees`` extra), and XGBoost / CatBoost when the
configuration has such members. Deterministic for a seed and a thread count.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from ecthr_npd.baselines.amount_models import KnnSpec, fit_amount, fit_knn
from ecthr_npd.baselines.base import limited_threads
from ecthr_npd.baselines.protocol import SelectionData
from ecthr_npd.baselines.selected_config import (
    SELECTED,
    SELECTED_FOLD_SCORES,
    SelectedConfig,
)
from ecthr_npd.baselines.zero_gate import fit_zero, gate


@dataclass
class SelectedSystem:
    """See the module docstring. ``config``: what to refit; ``seed``/``threads``: of every
    fit."""

    config: SelectedConfig = SELECTED
    seed: int = 0
    threads: int = 1
    name: str = "selected"
    _members: list[Any] = field(default_factory=list, repr=False)
    _zero: Any = None
    _fitted_cases: int = 0

    def libraries(self) -> set[str]:
        """The tree libraries this configuration needs."""
        needed = {m.spec.library for m in self.config.members if not isinstance(m.spec, KnnSpec)}
        return needed | ({"lightgbm"} if self.config.gate else set())

    def fit(self, train: pa.Table, validation: pa.Table) -> SelectedSystem:
        """Refit the configuration on ``train`` and ``validation`` pooled."""
        pooled = SelectionData.of(train, validation).pooled()
        with limited_threads(self.threads):
            self._members = [fit_knn(m.spec, pooled, self.threads) if isinstance(m.spec, KnnSpec)
                             else fit_amount(m.spec, pooled, self.seed, self.threads)
                             for m in self.config.members]
            gate_config = self.config.gate
            self._zero = (fit_zero(gate_config.spec, pooled, self.seed, self.threads)
                          if gate_config else None)
        self._fitted_cases = pooled.num_rows
        return self

    def predict(self, table: pa.Table) -> np.ndarray:
        """EUR predictions of ``table``'s cases (inputs only are read)."""
        if not self._members:
            raise RuntimeError(f"{self.name}: predict called before fit")
        with limited_threads(self.threads):
            amounts = [m.scale * fitted.predict(table, m.n_trees)
                       for m, fitted in zip(self.config.members, self._members, strict=True)]
            prediction = self.config.combined(amounts)
            if self._zero is not None:
                g = self.config.gate
                prediction = gate(prediction, self._zero.probability(table, g.n_trees),
                                  g.threshold)
        return prediction

    def settings(self) -> dict[str, Any]:
        return {"configuration": self.config.to_json(), "fitted_on": "train+validation",
                "fitted_cases": self._fitted_cases, "seed": self.seed, "threads": self.threads,
                "selection": "rolling-origin folds over train+validation (the last five "
                             "judgment years), staged search of ecthr_npd.baselines.search",
                "selection_fold_scores": SELECTED_FOLD_SCORES}
