"""The ``selected`` system's search: a fixed, staged search on the rolling-origin folds.

Input: a :class:`~ecthr_npd.baselines.protocol.SelectionData` (train + validation, labelled;
no test case exists in it). Output: a :class:`SearchResult` — the chosen
:class:`~ecthr_npd.baselines.selected_config.SelectedConfig` and its fold scores. Every
candidate scored goes to the log callback (configuration, fold scores, seconds).

Stages (each keeps the candidate with the lowest pooled fold MAE, ties: MedAE, then the
incumbent, then the order tried — :func:`ecthr_npd.baselines.selection.choose`):

1. **Per library** (LightGBM, XGBoost, CatBoost), coordinate by coordinate from
   :data:`BASE_PARAMS`: the loss (:data:`LOSSES_TRIED`; the squared loss on log1p(y) also with
   its bias correction — a multiplier of its EUR output chosen on the folds from
   :data:`SCALES`); then the regularisation grid :data:`REGULARISATION`; then recency weights
   (:data:`HALF_LIVES`); then the paper's X1 predictors instead of all 21; then monotone
   constraints in applicants, applications and violations (where the library allows them
   with the loss). The number of trees is chosen per candidate (every 50 up to 1,000).
2. **k-NN** retrieval with k in :data:`KNN_K` (pool: the fold's fitted cases).
3. **Ensembles**: every subset of the stage winners (three libraries and k-NN), combined
   by median or mean; a single member wins ties against any ensemble.
4. **Zero decision**: the zero classifier of :data:`ZERO_SPECS` with the lowest fold log
   loss (trees by log loss too); two amount sources — the stage-3 winner, and a hurdle
   whose members are refitted on positive awards only (trees chosen by MAE on the folds'
   positive cases: that part only has to size a positive award); each gated at every
   threshold of :data:`THRESHOLDS`. Rule: among gated candidates whose pooled fold MAE is
   at most (1 + :data:`MAE_TOLERANCE`) × the stage-3 winner's, the highest pooled fold
   Zero-F1 (ties: lower MAE, then order); none feasible: no gate. MAE is the benchmark's
   primary metric, so the zero decision may cost at most 1% of it.

Why these candidates: the target is zero-inflated (22–29% zeros) with a tail up to millions
of EUR, scored by MAE, whose best constant is the median: hence absolute and quantile losses
on log1p(y) (conditional median and its neighbours), the paper's squared loss with and without
bias correction, and Tweedie (a zero-inflated conditional mean) to measure what a mean costs;
recency weights and the folds' years because the award level and the case mix drift over
time; the paper's tree trio because each encodes categories differently (CatBoost's ordered
target statistics, one-hot for the others), which is what a median or mean ensemble feeds on.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ecthr_npd.baselines.amount_models import AmountSpec, KnnSpec, fit_knn
from ecthr_npd.baselines.base import limited_threads
from ecthr_npd.baselines.fold_runner import Clock, FoldRunner, Scored
from ecthr_npd.baselines.protocol import SelectionData
from ecthr_npd.baselines.selected_config import Gate, Member, SelectedConfig
from ecthr_npd.baselines.selection import choose
from ecthr_npd.baselines.zero_gate import ZeroSpec, gate, log_loss

LIBRARY_ORDER = ("lightgbm", "xgboost", "catboost")
MAX_TREES, TREE_STEP = 1000, 50  # every amount model: trees fitted, scoring interval
BASE_PARAMS: dict[str, dict[str, Any]] = {
    "lightgbm": {"num_leaves": 31, "min_child_samples": 20, "reg_lambda": 0.0},
    "xgboost": {"max_depth": 6, "min_child_weight": 1.0},
    "catboost": {"depth": 6, "l2_leaf_reg": 3.0},
}
LOSSES_TRIED: tuple[dict[str, Any], ...] = (
    {"loss": "l1"}, {"loss": "quantile", "alpha": 0.45}, {"loss": "quantile", "alpha": 0.55},
    {"loss": "quantile", "alpha": 0.6}, {"loss": "squared"}, {"loss": "tweedie", "power": 1.5})
REGULARISATION: dict[str, dict[str, tuple]] = {
    "lightgbm": {"num_leaves": (15, 31, 63), "min_child_samples": (20, 50),
                 "reg_lambda": (0.0, 10.0)},
    "xgboost": {"max_depth": (4, 6, 8), "min_child_weight": (1.0, 10.0)},
    "catboost": {"depth": (4, 6, 8), "l2_leaf_reg": (3.0, 10.0)},
}
HALF_LIVES = (10.0, 5.0)
SCALES = tuple(np.round(np.arange(0.5, 2.0 + 1e-9, 0.05), 2).tolist())
KNN_K = (10, 20, 50)
ZERO_SPECS = tuple(ZeroSpec(params=(("min_child_samples", mcs), ("num_leaves", leaves)),
                            half_life=half_life)
                   for leaves, mcs in ((7, 50), (15, 20), (31, 20)) for half_life in (None, 5.0))
THRESHOLDS = tuple(np.round(np.arange(0.2, 0.95 + 1e-9, 0.025), 3).tolist())
MAE_TOLERANCE = 0.01
#: (library, loss) pairs that refuse monotone constraints (LightGBM's leaf renewal).
NO_MONOTONE = {("lightgbm", "l1"), ("lightgbm", "quantile")}


@dataclass
class SearchResult:
    """The chosen configuration, its pooled fold predictions and scores, and each stage's
    winner (name and pooled fold MAE)."""

    config: SelectedConfig
    prediction: np.ndarray
    scores: dict[str, Any]
    path: list[dict[str, Any]]


@dataclass
class Candidate:
    """A scored amount member: the spec, its chosen trees and scale, and its fold scores."""

    member: Member
    scored: Scored


def _best(candidates: list[Candidate]) -> Candidate:
    return candidates[choose([c.scored.rank_key for c in candidates])]


class Search:
    """Runs the stages of the module docstring on one :class:`FoldRunner`."""

    def __init__(self, runner: FoldRunner, progress: Callable[[str], None] | None = None):
        self.runner = runner
        self.path: list[dict[str, Any]] = []
        self.progress = progress or (lambda text: None)

    def _winner(self, stage: str, candidate: Candidate) -> Candidate:
        self.path.append({"stage": stage, "winner": candidate.scored.name,
                          "mae": candidate.scored.mae})
        self.runner.log({"stage": f"{stage} winner", "candidate": candidate.scored.name,
                         "config": candidate.scored.config, **candidate.scored.scores})
        self.progress(f"{stage}: {candidate.scored.name} (fold MAE "
                      f"{candidate.scored.mae:,.0f})")
        return candidate

    def evaluate(self, spec: AmountSpec, stage: str) -> Candidate:
        """Score ``spec``; a squared log1p loss also gets its fold-chosen multiplier."""
        scored = self.runner.score_amount(spec, stage)
        member = Member(spec, scored.config["n_trees"])
        if spec.loss != "squared":
            return Candidate(member, scored)
        maes = [(float(np.mean(np.abs(self.runner.y - c * scored.prediction))), 0.0)
                for c in SCALES]
        scale = SCALES[choose(maes)]
        config = {**scored.config, "scale": scale}
        corrected = self.runner.record(f"{stage} bias-corrected", f"{spec.key()}-x{scale:g}",
                                       config, scale * scored.prediction)
        return _best([Candidate(member, scored),
                      Candidate(replace(member, scale=scale), corrected)])

    def library(self, library: str) -> Candidate:
        """Stage 1 for one library (see the module docstring)."""
        base = AmountSpec(library, params=tuple(sorted(BASE_PARAMS[library].items())),
                          max_trees=MAX_TREES, tree_step=TREE_STEP)
        stage = f"1a loss {library}"
        best = self._winner(stage, _best([self.evaluate(replace(base, **loss), stage)
                                          for loss in LOSSES_TRIED]))
        stage = f"1b regularisation {library}"
        grid = REGULARISATION[library]
        points = [dict(zip(grid, values, strict=True))
                  for values in itertools.product(*grid.values())]
        current = best.member.spec
        specs = [replace(current, params=tuple(sorted({**dict(current.params), **point}
                                                      .items()))) for point in points]
        tried = [best] + [self.evaluate(spec, stage) for spec in specs if spec != current]
        best = self._winner(stage, _best(tried))
        for stage, changes in ((f"1c recency {library}",
                                [{"half_life": h} for h in HALF_LIVES]),
                               (f"1d predictors {library}", [{"features": "X1"}]),
                               (f"1e monotone {library}", self._monotone(best.member.spec))):
            tried = [best] + [self.evaluate(replace(best.member.spec, **change), stage)
                              for change in changes]
            best = self._winner(stage, _best(tried))
        return best

    @staticmethod
    def _monotone(spec: AmountSpec) -> list[dict[str, Any]]:
        return [] if (spec.library, spec.loss) in NO_MONOTONE else [{"monotone": True}]

    def knn(self) -> Candidate:
        """Stage 2: k-NN with each k of :data:`KNN_K`."""
        tried = []
        for k in KNN_K:
            clock = Clock()
            spec = KnnSpec(k)
            with limited_threads(self.runner.threads):
                prediction = np.concatenate([
                    fit_knn(spec, fold.fit, self.runner.threads).predict(fold.score)
                    for fold in self.runner.folds])
            scored = self.runner.record("2 knn", spec.key(), {"amount": spec.to_json(),
                                                              "n_trees": 0}, prediction,
                                        seconds=clock.seconds())
            tried.append(Candidate(Member(spec, 0), scored))
        return self._winner("2 knn", _best(tried))

    def ensemble(self, members: list[Candidate]) -> tuple[SelectedConfig, Scored]:
        """Stage 3: every subset of ``members`` by median and mean (singletons first)."""
        configs, scored = [], []
        for size in range(1, len(members) + 1):
            for subset in itertools.combinations(members, size):
                for combine in ("median", "mean") if size > 1 else ("median",):
                    config = SelectedConfig(tuple(c.member for c in subset), combine)
                    name = f"{combine}({' | '.join(c.scored.name for c in subset)})"
                    prediction = config.combined([c.scored.prediction for c in subset])
                    configs.append(config)
                    scored.append(self.runner.record("3 ensemble", name, config.to_json(),
                                                     prediction))
        best = choose([s.rank_key for s in scored])
        self._winner("3 ensemble", Candidate(configs[best].members[0], scored[best]))
        return configs[best], scored[best]

    def zero_classifier(self) -> tuple[ZeroSpec, int, np.ndarray]:
        """Stage 4's classifier: the spec and trees with the lowest fold log loss."""
        is_zero = (self.runner.y == 0).astype(np.float64)
        options = []
        for spec in ZERO_SPECS:
            for n, p in self.runner.zero_probabilities(spec).items():
                options.append((log_loss(is_zero, p), 0.0, spec, n, p))
        loss, _, spec, n, p = options[choose([(o[0], o[1]) for o in options])]
        self.path.append({"stage": "4 zero classifier", "winner": f"{spec.key()} ({n} trees)",
                          "log_loss": loss})
        return spec, n, p

    def hurdle_source(self, config: SelectedConfig) -> tuple[SelectedConfig, np.ndarray]:
        """The stage-3 members refitted on positive awards only, trees by MAE on the folds'
        positive cases, combined the same way."""
        positive = self.runner.y > 0
        members, predictions = [], []
        for member in config.members:
            if isinstance(member.spec, KnnSpec):
                return config, np.empty(0)  # k-NN has no positive-only variant
            spec = replace(member.spec, positive_only=True)
            by_trees, seconds = self.runner.amount_predictions(spec)
            trees = sorted(by_trees)
            maes = [(float(np.mean(np.abs(self.runner.y[positive] - member.scale
                                          * by_trees[n][positive]))), 0.0) for n in trees]
            n = trees[choose(maes)]
            members.append(replace(member, spec=spec, n_trees=n))
            predictions.append(member.scale * by_trees[n])
            self.runner.log({"stage": "4 hurdle amount", "candidate": spec.key(),
                             "config": {"amount": spec.to_json(), "n_trees": n},
                             "positive_mae_by_trees": {str(t): round(m[0], 2) for t, m in
                                                       zip(trees, maes, strict=True)},
                             **seconds})
        hurdle = SelectedConfig(tuple(members), config.combine)
        return hurdle, hurdle.combined(predictions)

    def gate(self, config: SelectedConfig, scored: Scored) -> tuple[SelectedConfig, np.ndarray]:
        """Stage 4 (see the module docstring)."""
        spec, n, p_zero = self.zero_classifier()
        sources = [(config, scored.prediction)]
        hurdle, hurdle_prediction = self.hurdle_source(config)
        if hurdle_prediction.size:
            sources.append((hurdle, hurdle_prediction))
        limit = (1.0 + MAE_TOLERANCE) * scored.mae
        options = []
        for source, prediction in sources:
            for threshold in THRESHOLDS:
                gated = gate(prediction, p_zero, threshold)
                result = replace(source, gate=Gate(spec, n, threshold))
                s = self.runner.record("4 zero gate", f"{_describe(source)} | P(zero) > "
                                       f"{threshold:g}", result.to_json(), gated,
                                       {"mae_limit": limit})
                options.append((result, s))
        best = gate_choice([(s.mae, s.scores["pooled"]["zero_f1"]) for _, s in options], limit)
        if best is None:
            self.path.append({"stage": "4 zero gate", "winner": "no gate (none within the "
                              "MAE tolerance)", "mae": scored.mae})
            return config, scored.prediction
        result, s = options[best]
        self.path.append({"stage": "4 zero gate", "winner": s.name, "mae": s.mae,
                          "zero_f1": s.scores["pooled"]["zero_f1"]})
        self.runner.log({"stage": "4 zero gate winner", "candidate": s.name,
                         "config": result.to_json(), **s.scores})
        return result, s.prediction


def gate_choice(candidates: list[tuple[float, float]], limit: float) -> int | None:
    """Index of the gated candidate ``(pooled MAE, pooled Zero-F1)`` with the highest Zero-F1
    among those with MAE ≤ ``limit`` (ties: lower MAE, then order); None if none is."""
    feasible = [i for i, (mae, _) in enumerate(candidates) if mae <= limit]
    if not feasible:
        return None
    return min(feasible, key=lambda i: (-candidates[i][1], candidates[i][0], i))


def _describe(config: SelectedConfig) -> str:
    names = [m.spec.key() for m in config.members]
    return names[0] if len(names) == 1 else f"{config.combine}({' | '.join(names)})"


def search(data: SelectionData, *, seed: int = 0, threads: int = 1,
           log: Callable[[dict[str, Any]], None] | None = None,
           libraries: tuple[str, ...] = LIBRARY_ORDER,
           progress: Callable[[str], None] | None = None) -> SearchResult:
    """Run every stage on ``data``'s folds and return the chosen configuration."""
    runner = FoldRunner(data, seed=seed, threads=threads, log=log)
    run = Search(runner, progress)
    winners = [run.library(library) for library in libraries]
    winners.append(run.knn())
    config, scored = run.ensemble(winners)
    final, prediction = run.gate(config, scored)
    return SearchResult(final, prediction, runner.scores(prediction), run.path)
