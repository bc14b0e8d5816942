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


import datasets
import evaluate
import numpy as np

from .npd_amounts import _as_amounts, _check_example, _rescale_exponent, _unscale
from .paired_bootstrap import bootstrap_replicates, interval_side, percentile_interval

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
    predictions1 (list of float): system 1's predictions (EUR), finite and >= 0.
    predictions2 (list of float): system 2's predictions (EUR), finite and >= 0.
    references (list of float): true amounts (EUR), finite and >= 0; all three the same
        length >= 1.
Args (config "single"):
    predictions (list of float), references (list of float).
Options (keyword-only, both configs):
    alpha (float): two-sided significance level, 0 < alpha < 1 (default 0.05); the
        confidence interval covers 1 - alpha.
    n_resamples (int): number of full-size resamples, >= 2 (default 1000).
    seed (int): seed of numpy.random.default_rng, >= 0 (default 12345).
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
#: re-exported from the shared paired bootstrap (tests and the page use them from here)
__all__ = ["bootstrap_mae", "bootstrap_mae_single", "bootstrap_replicates",
           "BootstrapMae"]


def _check_inputs(**named):
    """Validate every named input and that all have the same length; return float64 arrays."""
    arrays = {name: _as_amounts(values, name) for name, values in named.items()}
    (first, reference), *others = arrays.items()
    for name, array in others:
        if array.size != reference.size:
            raise ValueError(f"{name} has {array.size} values but {first} has {reference.size}: "
                             "expected one value per case")
    return arrays.values()


def _check_options(alpha, n_resamples, seed):
    def is_int(value):
        return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))

    if isinstance(alpha, (bool, np.bool_)) or not isinstance(alpha, (int, float, np.floating)) \
            or not 0 < alpha < 1:
        raise ValueError(f"alpha = {alpha!r}: expected a number strictly between 0 and 1")
    if not is_int(n_resamples) or n_resamples < 2:
        raise ValueError(f"n_resamples = {n_resamples!r}: expected an integer >= 2")
    if not is_int(seed) or seed < 0:
        raise ValueError(f"seed = {seed!r}: expected an integer >= 0")
    return float(alpha), int(n_resamples), int(seed)


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
        predictions1, predictions2: the two systems' predictions (EUR), finite and >= 0.
        references: the true amounts (EUR), finite and >= 0; all three the same length >= 1.
        alpha: two-sided level of the verdict; the interval covers 1 − alpha.
        n_resamples: number of full-size paired resamples (>= 2).
        seed: seed of ``numpy.random.default_rng`` (>= 0); returned in the result.

    Returns:
        dict: mae1, mae2 (EUR, lower is better), delta = mae1 − mae2 (EUR; negative favours
        system 1), prob_1_better = share of replicates with Δ* < 0, ci_low / ci_high = the
        alpha/2 and 1 − alpha/2 percentiles of Δ* (linear interpolation), verdict = "1 better"
        if ci_high < 0, "2 better" if ci_low > 0, else "not significant"; and the settings
        alpha, confidence_level, n, n_resamples, seed, numpy_version, signature.

    Raises:
        ValueError: naming the argument, the first offending index and value, for invalid
            input or options.
    """
    p1, p2, y = _check_inputs(predictions1=predictions1, predictions2=predictions2,
                              references=references)
    alpha, n_resamples, seed = _check_options(alpha, n_resamples, seed)
    exponent = _rescale_exponent(p1, p2, y)  # 0 unless amounts are astronomically large
    e1 = _scaled(np.abs(p1 - y), exponent)
    e2 = _scaled(np.abs(p2 - y), exponent)
    replicates = bootstrap_replicates(e1 - e2, n_resamples=n_resamples, seed=seed)
    ci_low, ci_high = percentile_interval(replicates, alpha)
    mae1 = float(e1.mean())
    mae2 = float(e2.mean())
    return {
        "mae1": _unscale(mae1, exponent),
        "mae2": _unscale(mae2, exponent),
        "delta": _unscale(mae1 - mae2, exponent),
        "prob_1_better": float(np.count_nonzero(replicates < 0) / n_resamples),
        "ci_low": _unscale(ci_low, exponent),
        "ci_high": _unscale(ci_high, exponent),
        "verdict": _verdict(ci_low, ci_high),
        **_settings("paired", int(y.size), alpha, n_resamples, seed),
    }


def _scaled(values, exponent):
    """``values / 2**exponent`` (exact; the array itself when exponent is 0)."""
    return np.ldexp(values, -exponent) if exponent else values


def _verdict(ci_low, ci_high):
    """"1 better" / "2 better" / "not significant" (the shared rule: a tie is not a win)."""
    return {"below": "1 better", "above": "2 better"}.get(interval_side(ci_low, ci_high),
                                                         "not significant")


def bootstrap_mae_single(*, predictions, references, alpha=DEFAULT_ALPHA,
                         n_resamples=DEFAULT_N_RESAMPLES, seed=DEFAULT_SEED):
    """Bootstrap confidence interval and standard error of one system's MAE.

    Args:
        predictions: predictions (EUR), finite and >= 0.
        references: true amounts (EUR), finite and >= 0; same length >= 1.
        alpha, n_resamples, seed: as in :func:`bootstrap_mae`.

    Returns:
        dict: mae (EUR), standard_error (standard deviation of the MAE replicates, ddof=1,
        EUR), ci_low / ci_high (percentile interval covering 1 − alpha, EUR), and the
        settings alpha, confidence_level, n, n_resamples, seed, numpy_version, signature.
    """
    p, y = _check_inputs(predictions=predictions, references=references)
    alpha, n_resamples, seed = _check_options(alpha, n_resamples, seed)
    exponent = _rescale_exponent(p, y)  # 0 unless amounts are astronomically large
    errors = _scaled(np.abs(p - y), exponent)
    replicates = bootstrap_replicates(errors, n_resamples=n_resamples, seed=seed)
    ci_low, ci_high = percentile_interval(replicates, alpha)
    return {
        "mae": _unscale(float(errors.mean()), exponent),
        "standard_error": _unscale(float(replicates.std(ddof=1)), exponent),
        "ci_low": _unscale(ci_low, exponent),
        "ci_high": _unscale(ci_high, exponent),
        **_settings("single", int(y.size), alpha, n_resamples, seed),
    }


_FEATURES = {
    "default": ("predictions1", "predictions2", "references"),
    "single": ("predictions", "references"),
}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class BootstrapMae(evaluate.Comparison):
    """``evaluate`` wrapper of :func:`bootstrap_mae` (config ``default``) and
    :func:`bootstrap_mae_single` (config ``single``)."""

    def _info(self):
        if self.config_name not in _FEATURES:
            raise ValueError(f"config_name = {self.config_name!r}: expected one of "
                             f"{sorted(_FEATURES)}")
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

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Compute the comparison; see the module description for the arguments.

        With one process and nothing queued by ``add``/``add_batch``, the inputs go straight
        to the plain function (which validates them): evaluate's Arrow round trip, which
        gathers inputs across processes, would only copy them here. Otherwise evaluate's
        usual path runs, through :meth:`add_batch` and its checks.
        """
        names = _FEATURES[self.config_name]
        given = {"predictions": predictions, "references": references, **kwargs}
        inputs = {name: given.get(name) for name in names}
        if any(value is not None for value in inputs.values()):
            if self.num_process == 1 and self.writer is None:
                options = {k: v for k, v in kwargs.items() if k not in names}
                return self._compute(**inputs, **options)
        return super().compute(predictions=predictions, references=references, **kwargs)

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Queue a batch after the checks of the plain function, with the same messages
        (evaluate's own conversion would turn "12" or True into numbers)."""
        given = {"predictions": predictions, "references": references, **kwargs}
        _check_inputs(**{name: given.get(name) for name in _FEATURES[self.config_name]})
        super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Queue one case after the same checks as :meth:`add_batch`."""
        given = {"predictions": prediction, "references": reference, **kwargs}
        keywords = {name: name[:-1] for name in ("predictions", "references")
                    if name not in kwargs}  # passed as prediction= / reference=
        _check_example({name: given.get(name) for name in _FEATURES[self.config_name]},
                       keywords)
        super().add(prediction=prediction, reference=reference, **kwargs)

    def _compute(self, references, predictions=None, predictions1=None, predictions2=None,
                 alpha=DEFAULT_ALPHA, n_resamples=DEFAULT_N_RESAMPLES, seed=DEFAULT_SEED):
        options = {"alpha": alpha, "n_resamples": n_resamples, "seed": seed}
        if self.config_name == "single":
            return bootstrap_mae_single(predictions=predictions, references=references, **options)
        return bootstrap_mae(predictions1=predictions1, predictions2=predictions2,
                             references=references, **options)
