"""bootstrap_mae: paired bootstrap comparison of two systems' mean absolute error.

ECtHR-NPD (non-pecuniary damage awards of the European Court of Human Rights, in EUR)
compares systems with 1,000 full-size paired bootstrap resamples of the test cases and
reports Pr(Δ* < 0), where Δ = MAE(system 1) − MAE(system 2). This module does that, plus a
percentile confidence interval and a verdict; its ``single`` config gives the bootstrap
confidence interval and standard error of one system's MAE.

How replicates are drawn (so that a plain loop reproduces them exactly):

1. Per-case absolute errors are computed once: ``e1 = |p1 − r|``, ``e2 = |p2 − r|`` and, for
   the paired comparison, ``d = e1 − e2`` (``single``: ``d = |p − r|``).
2. ``rng = numpy.random.default_rng(seed)``; replicate ``b = 0, 1, …, n_resamples − 1`` uses
   the indices ``idx_b = rng.integers(0, n, size=n)``, drawn in that order. Drawing them as
   the rows of ``rng.integers(0, n, size=(rows, n))`` chunks consumes the same stream.
3. The replicate is ``d[idx_b].mean()`` (Δ*_b, or MAE*_b for ``single``).

The computation is in the plain functions :func:`bootstrap_mae` and
:func:`bootstrap_mae_single`; :class:`BootstrapMae` is a thin ``evaluate.Comparison``
wrapper. This file imports nothing from the repository it was written in.
"""


import math

import datasets
import evaluate
import numpy as np

from .boundary import BoundaryError, check_count, check_number, check_seed
from .checked_wrapper import CheckedWrapper
from .npd_amounts import _as_amounts, _check_example
from .paired_bootstrap import (
    bootstrap_replicates,
    interval_side,
    percentile_interval,
    resample_indices,
)

_CITATION = """\
@inproceedings{koehn2004statistical,
  title     = {Statistical Significance Tests for Machine Translation Evaluation},
  author    = {Koehn, Philipp},
  booktitle = {Proceedings of EMNLP 2004},
  pages     = {388--395},
  year      = {2004}
}
@book{efron1993introduction,
  title     = {An Introduction to the Bootstrap},
  author    = {Efron, Bradley and Tibshirani, Robert J.},
  publisher = {Chapman \\& Hall},
  year      = {1993}
}
"""

_DESCRIPTION = """\
Paired bootstrap comparison of two systems' mean absolute error (MAE) on the same cases:
mae1, mae2, delta = mae1 - mae2, prob_1_better = Pr(delta* < 0) over full-size resamples, a
percentile confidence interval for delta and a verdict at two-sided `alpha`. Config `single`:
bootstrap confidence interval and standard error of one system's MAE. Replicates are drawn
from numpy.random.default_rng(seed); the seed is returned with the result.
"""

_KWARGS_DESCRIPTION = """
Args (config "default", paired):
    predictions1 (list of float): system 1's predictions (EUR), finite, >= 0 and <= 1e12.
    predictions2 (list of float): system 2's predictions (EUR), likewise.
    references (list of float): true amounts (EUR), likewise; all three the same
        length >= 1.
Args (config "single"):
    predictions (list of float), references (list of float).
Options (keyword-only, both configs):
    alpha (float): two-sided significance level, 0 < alpha < 1 (default 0.05); the
        confidence interval covers 1 - alpha.
    n_resamples (int): number of full-size resamples, 2 to 1,000,000 (default 1000), and at
        most 2,000,000,000 resampled cases (cases x resamples).
    seed (int): seed of numpy.random.default_rng, an integer in [0, 2**32 - 1]
        (default 12345).
Returns:
    default: mae1, mae2, delta, prob_1_better, ci_low, ci_high, verdict, plus the settings
    (alpha, confidence_level, n, n_resamples, seed, numpy_version, signature).
    single: mae, standard_error, ci_low, ci_high, plus the same settings.
Examples:
    >>> result = bootstrap_mae(predictions1=[0, 900, 5200, 48000, 0, 12000],
    ...                        predictions2=[3200, 3200, 3200, 3200, 3200, 3200],
    ...                        references=[0, 1000, 5000, 50000, 0, 10000])
    >>> result["mae1"], result["mae2"], result["delta"]
    (716.6666666666666, 10666.666666666666, -9950.0)
    >>> result["prob_1_better"], result["verdict"], result["seed"]
    (1.0, '1 better', 12345)
"""

DEFAULT_SEED = 12345
DEFAULT_N_RESAMPLES = 1000
DEFAULT_ALPHA = 0.05
#: Caps of the work parameters: replicates kept (8 bytes each) and resampled cases drawn.
MAX_RESAMPLES = 1_000_000
MAX_DRAWS = 2_000_000_000
#: Below this magnitude squared deviations could underflow (see ``_standard_error``).
TINY = 2.0 ** -400
OPTION_NAMES = ("alpha", "n_resamples", "seed")
#: re-exported from the shared paired bootstrap (tests and the page use them from here)
__all__ = ["bootstrap_mae", "bootstrap_mae_single", "bootstrap_replicates",
           "BootstrapMae"]


def _check_inputs(**named):
    """Validate every named input and that all have the same length; return float64 arrays."""
    arrays = {name: _as_amounts(values, name) for name, values in named.items()}
    (first, reference), *others = arrays.items()
    for name, array in others:
        if array.size != reference.size:
            raise BoundaryError(name, f"<{array.size:,} values>",
                                f"one value per case ({first} has {reference.size:,})")
    return arrays.values()


def _check_options(alpha, n_resamples, seed, n):
    """``(alpha, n_resamples, seed)`` checked by the boundary validator; the resamples are a
    work parameter, capped (:data:`MAX_RESAMPLES`, and :data:`MAX_DRAWS` resampled cases)."""
    alpha = check_number(alpha, "alpha", low=0.0, high=1.0, low_open=True, high_open=True,
                         what="a significance level")
    n_resamples = check_count(n_resamples, "n_resamples", low=2, high=MAX_RESAMPLES,
                              what="a number of resamples")
    if n_resamples * n > MAX_DRAWS:
        raise BoundaryError("n_resamples", n_resamples,
                            f"at most {MAX_DRAWS:,} resampled cases; with {n:,} cases at most "
                            f"{max(2, MAX_DRAWS // n):,} resamples")
    return alpha, n_resamples, check_seed(seed, "seed")


def _standard_error(replicates):
    """Sample standard deviation (ddof=1) of the replicates, exact up to rounding: deviations
    from the mean by the corrected two-pass formula, rescaled by a power of two where their
    squares could underflow; exactly 0.0 when every replicate is the same."""
    if replicates.min() == replicates.max():
        return 0.0
    deviations = replicates - replicates.mean()
    largest = max(float(deviations.max()), -float(deviations.min()))
    exponent = math.frexp(largest)[1] if largest < TINY else 0
    if exponent:
        np.ldexp(deviations, -exponent, out=deviations)
    total = float(deviations.sum())
    squares = float(np.einsum("i,i->", deviations, deviations)) - total * total / deviations.size
    return math.ldexp(math.sqrt(max(squares, 0.0) / (deviations.size - 1)), exponent)


def _near_zero(replicates, e1, e2):
    """Which replicates Δ* lie within rounding of 0: a replicate is the mean of n rounded
    differences of rounded absolute errors, so its error is below n + 4 roundings of the
    largest absolute error."""
    scale = max(float(e1.max()), float(e2.max()))
    return np.abs(replicates) <= 4.0 * (e1.size + 4) * 2.0 ** -53 * scale + 2.0 ** -1060


def _settle_near_zero(replicates, near, inputs, seed):
    """Recompute the replicates marked ``near`` exactly; return how many are negative.

    Each is one correctly rounded sum (``math.fsum``) of the inputs themselves over its
    resample — every absolute error written as ±(prediction − reference), the sign from an
    exact comparison — so its sign is exact; the replicate becomes that sum over n. Rare:
    systems that differ only by rounding, or errors that cancel exactly.
    """
    p1, p2, y = inputs
    wanted = set(np.flatnonzero(near).tolist())
    if not wanted:
        return 0
    s1, s2 = np.where(p1 >= y, 1.0, -1.0), np.where(p2 >= y, 1.0, -1.0)
    negative, start = 0, 0
    for chunk in resample_indices(y.size, n_resamples=replicates.size, seed=seed):
        for offset in sorted(b - start for b in wanted if start <= b < start + len(chunk)):
            index = chunk[offset]
            total = math.fsum(np.concatenate([s1[index] * p1[index], -(s1[index] * y[index]),
                                              -(s2[index] * p2[index]),
                                              s2[index] * y[index]]).tolist())
            replicates[start + offset] = total / y.size
            negative += total < 0
        start += len(chunk)
    return negative


def _settings(kind, n, alpha, n_resamples, seed):
    signature = (f"bootstrap_mae:{kind}|n:{n}|resamples:{n_resamples}|seed:{seed}|"
                 f"alpha:{alpha}|ci:percentile|rng:default_rng|numpy:{np.__version__}")
    return {"alpha": alpha, "confidence_level": 1.0 - alpha, "n": n,
            "n_resamples": n_resamples, "seed": seed, "numpy_version": np.__version__,
            "signature": signature}


def bootstrap_mae(*, predictions1, predictions2, references, alpha=DEFAULT_ALPHA,
                  n_resamples=DEFAULT_N_RESAMPLES, seed=DEFAULT_SEED):
    """Paired bootstrap comparison of two systems' MAE on the same cases.

    Args:
        predictions1, predictions2: the two systems' predictions (EUR): amounts, finite, in
            [0, 1e12] (the boundary validator's ceiling).
        references: the true amounts (EUR), likewise; all three the same length >= 1.
        alpha: two-sided level of the verdict, 0 < alpha < 1; the interval covers 1 − alpha.
        n_resamples: number of full-size paired resamples, 2 to :data:`MAX_RESAMPLES`, and
            at most :data:`MAX_DRAWS` resampled cases (n × n_resamples).
        seed: seed of ``numpy.random.default_rng``, an integer in [0, 2**32 − 1]; returned.

    Returns:
        dict: mae1, mae2 (EUR, lower is better), delta = mae1 − mae2 (EUR; negative favours
        system 1), prob_1_better = share of replicates with Δ* < 0, ci_low / ci_high = the
        alpha/2 and 1 − alpha/2 percentiles of Δ* (linear interpolation), verdict = "1 better"
        if ci_high < 0, "2 better" if ci_low > 0, else "not significant"; and the settings
        alpha, confidence_level, n, n_resamples, seed, numpy_version, signature. Every
        figure is exact up to float rounding (no rescaling is needed below the ceiling).

    Raises:
        ValueError: (``BoundaryError``) naming the argument, the first offending index and
            value, for invalid input or options (a float seed such as 1.5 included).
        TypeError: an unknown keyword argument (Python's rule for calls).
    """
    p1, p2, y = _check_inputs(predictions1=predictions1, predictions2=predictions2,
                              references=references)
    alpha, n_resamples, seed = _check_options(alpha, n_resamples, seed, y.size)
    e1 = np.abs(p1 - y)
    e2 = np.abs(p2 - y)
    replicates = bootstrap_replicates(e1 - e2, n_resamples=n_resamples, seed=seed)
    # identical predictions: every exact Δ* is 0, as every computed one is
    near = np.zeros(n_resamples, bool) if np.array_equal(p1, p2) else _near_zero(replicates, e1, e2)
    negative = int(np.count_nonzero(replicates[~near] < 0))
    negative += _settle_near_zero(replicates, near, (p1, p2, y), seed)
    ci_low, ci_high = percentile_interval(replicates, alpha)
    mae1 = float(e1.mean())
    mae2 = float(e2.mean())
    return {
        "mae1": mae1,
        "mae2": mae2,
        "delta": mae1 - mae2,
        "prob_1_better": float(negative / n_resamples),
        "ci_low": ci_low,
        "ci_high": ci_high,
        "verdict": _verdict(ci_low, ci_high),
        **_settings("paired", int(y.size), alpha, n_resamples, seed),
    }


def _verdict(ci_low, ci_high):
    """"1 better" / "2 better" / "not significant" (the shared rule: a tie is not a win)."""
    return {"below": "1 better", "above": "2 better"}.get(interval_side(ci_low, ci_high),
                                                         "not significant")


def bootstrap_mae_single(*, predictions, references, alpha=DEFAULT_ALPHA,
                         n_resamples=DEFAULT_N_RESAMPLES, seed=DEFAULT_SEED):
    """Bootstrap confidence interval and standard error of one system's MAE.

    Args:
        predictions: predictions (EUR), amounts in [0, 1e12].
        references: true amounts (EUR), likewise; same length >= 1.
        alpha, n_resamples, seed: as in :func:`bootstrap_mae`.

    Returns:
        dict: mae (EUR), standard_error (standard deviation of the MAE replicates, ddof=1,
        EUR), ci_low / ci_high (percentile interval covering 1 − alpha, EUR), and the
        settings alpha, confidence_level, n, n_resamples, seed, numpy_version, signature.
    """
    p, y = _check_inputs(predictions=predictions, references=references)
    alpha, n_resamples, seed = _check_options(alpha, n_resamples, seed, y.size)
    errors = np.abs(p - y)
    replicates = bootstrap_replicates(errors, n_resamples=n_resamples, seed=seed)
    ci_low, ci_high = percentile_interval(replicates, alpha)
    return {
        "mae": float(errors.mean()),
        "standard_error": _standard_error(replicates),
        "ci_low": ci_low,
        "ci_high": ci_high,
        **_settings("single", int(y.size), alpha, n_resamples, seed),
    }


_FEATURES = {
    "default": ("predictions1", "predictions2", "references"),
    "single": ("predictions", "references"),
}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class BootstrapMae(CheckedWrapper, evaluate.Comparison):
    """``evaluate`` wrapper of :func:`bootstrap_mae` (config ``default``) and
    :func:`bootstrap_mae_single` (config ``single``)."""

    def _info(self):
        if self.config_name not in _FEATURES:
            raise BoundaryError("config_name", self.config_name,
                                f"one of {', '.join(map(repr, sorted(_FEATURES)))}")
        return evaluate.ComparisonInfo(
            module_type="comparison",
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            # no format="numpy": datasets' numpy formatter would hand back float32 arrays
            features=datasets.Features({name: datasets.Value("float64")
                                        for name in _FEATURES[self.config_name]}),
            reference_urls=["https://aclanthology.org/W04-3250/"],
        )

    @property
    def FUNCTION(self):  # noqa: N802 - the wrapper's name for the plain function
        return "bootstrap_mae_single" if self.config_name == "single" else "bootstrap_mae"

    OPTIONS = OPTION_NAMES

    def check_batch(self, batch):
        _check_inputs(**batch)

    def check_one(self, example):
        _check_example(example)

    def _compute(self, references, predictions=None, predictions1=None, predictions2=None,
                 alpha=DEFAULT_ALPHA, n_resamples=DEFAULT_N_RESAMPLES, seed=DEFAULT_SEED):
        # every argument was checked by compute(): the defaults are never used for inputs
        options = {"alpha": alpha, "n_resamples": n_resamples, "seed": seed}
        if self.config_name == "single":
            return bootstrap_mae_single(predictions=predictions, references=references, **options)
        return bootstrap_mae(predictions1=predictions1, predictions2=predictions2,
                             references=references, **options)
