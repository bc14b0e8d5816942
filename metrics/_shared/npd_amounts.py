"""Input checks and overflow-safe scaling shared by the ECtHR-NPD metric modules.

One source, linked into the folders of ``npd_regression``, ``zero_f1`` and ``bootstrap_mae``
(each imports it relatively, ``from .npd_amounts import ...``, the form ``evaluate`` copies
beside a module script). Wheels, ``courtbench metrics export`` and ``courtbench publish``
carry it as a real file in each folder, so every module still loads alone from a Hub Space.

Every check raises ``ValueError`` naming the argument, the first offending index and its
value; nothing is coerced or clipped.
"""

import math
import sys

import datasets
import evaluate
import numpy as np

#: The citation every ECtHR-NPD metric module reports (the data release).
_CITATION = """\
@misc{ecthr_npd,
  title        = {{ECtHR-NPD}: non-pecuniary damage awards of the European Court of Human Rights},
  howpublished = {Data release, https://github.com/YanyiPU/ECtHR-NPD},
  note         = {Please also cite the benchmark paper named in the release}
}
"""

_EXPECTED = "expected a finite, non-negative number (an amount in EUR)"


def _shorten(value, limit=200):
    """``repr(value)``, cut to ``limit`` characters with its full length when longer."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def _as_amounts(values, name):
    """Check ``values`` (list, tuple or 1-D numeric array) and return it as float64 array.

    Raises ValueError naming ``name``, the first offending index and its value for: a
    container of another kind, empty input, None, strings, booleans, nested sequences, NaN,
    +-inf and negative numbers. Nothing is coerced or clipped.
    """
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            first = values[0] if values.ndim > 1 and len(values) else values
            raise ValueError(f"{name}[0] = {_shorten(first)}: {_EXPECTED}, got an array of "
                             f"shape {values.shape} (nested sequences are not accepted)")
        if values.dtype.kind not in "iuf":
            if values.size and values.dtype.kind == "O":
                return _as_amounts(values.tolist(), name)
            if values.size:
                raise ValueError(f"{name}[0] = {_shorten(values[0])}: {_EXPECTED}, "
                                 f"got an array of dtype {values.dtype}")
    elif isinstance(values, (list, tuple)):
        if not set(map(type, values)) <= {float, int}:
            _first_bad_element(values, name)
    else:
        raise ValueError(f"{name}: expected a list, tuple or 1-D numpy array of amounts, "
                         f"got {type(values).__name__}")
    if len(values) == 0:
        raise ValueError(f"{name} is empty: expected at least one amount")
    try:
        array = np.asarray(values, dtype=np.float64)
    except OverflowError:
        _first_bad_element(values, name)
    # min and max read the array without a temporary: a NaN makes the minimum NaN (which is
    # not >= 0), +inf is the maximum, -inf and negatives the minimum
    if not (array.min() >= 0 and array.max() < math.inf):
        bad = ~np.isfinite(array) | (array < 0)
        index = int(np.argmax(bad))
        raise ValueError(f"{name}[{index}] = {_shorten(values[index])}: {_EXPECTED}")
    return array


def _first_bad_element(values, name):
    """Raise ValueError for the first element of a list that is not a finite number >= 0."""
    for index, value in enumerate(values):
        _check_amount(value, f"{name}[{index}]")


def _check_amount(value, label):
    """Return ``value`` as a float if it is a finite number >= 0 (not a boolean); else raise
    ValueError starting with ``"<label> = <value>"``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                     np.floating)):
        kind = "a nested sequence" if isinstance(value, (list, tuple, np.ndarray)) else \
            type(value).__name__
        raise ValueError(f"{label} = {_shorten(value)}: {_EXPECTED}, got {kind}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number) or number < 0:
        raise ValueError(f"{label} = {_shorten(value)}: {_EXPECTED}")
    return number


def _check_example(example, keywords):
    """Check one example of ``add()`` (``{feature: value}``); name each value by the keyword
    it was passed with (``keywords[feature]``, default the feature name)."""
    for feature, value in example.items():
        _check_amount(value, keywords.get(feature, feature))


def _check_pair(predictions, references):
    """Validate both inputs and their lengths; return them as float64 arrays."""
    y_pred = _as_amounts(predictions, "predictions")
    y_true = _as_amounts(references, "references")
    if y_pred.size != y_true.size:
        raise ValueError(f"predictions has {y_pred.size} values but references has {y_true.size}: "
                         "expected one prediction per reference")
    return y_pred, y_true


def _zero_mask(amounts, zero_threshold):
    """Which amounts are zero awards: those at or below ``zero_threshold`` (EUR).

    The ECtHR-NPD authors' rule: an amount is positive when it exceeds the threshold
    (0.5 EUR by default), so exactly 0.5 EUR is a zero award.
    """
    return amounts <= zero_threshold


def _check_threshold(zero_threshold):
    if isinstance(zero_threshold, (bool, np.bool_)) or not isinstance(
            zero_threshold, (int, float, np.integer, np.floating)) \
            or not math.isfinite(zero_threshold) or zero_threshold <= 0:
        raise ValueError(f"zero_threshold = {_shorten(zero_threshold)}: expected a finite "
                         "number > 0 (EUR)")
    return float(zero_threshold)


#: Amounts up to this (EUR, 2**400 ≈ 2.6e120) are used as given. Above it, sums of squares
#: could overflow float64 (a prediction of 1e308 gave an infinite MAE), so the figures are
#: computed on the amounts divided by a power of two (exact) and multiplied back.
RESCALE_ABOVE = 2.0 ** 400


def _rescale_exponent(*arrays):
    """0 when every amount is at most RESCALE_ABOVE; else the binary exponent ``e`` of the
    largest amount, so that every amount / 2**e lies in [0, 1)."""
    largest = max(float(array.max()) for array in arrays)
    return 0 if largest <= RESCALE_ABOVE else math.frexp(largest)[1]


def _unscale(value, exponent):
    """``value * 2**exponent``; a mean of values just below the largest float can round up
    to one beyond it, which is then the largest float (with the sign of ``value``)."""
    try:
        return math.ldexp(value, exponent)
    except OverflowError:
        return math.copysign(sys.float_info.max, value)


def amount_pairs_info(description: str, inputs_description: str):
    """The ``evaluate.MetricInfo`` of an ECtHR-NPD metric over award pairs: float64
    ``predictions`` and ``references`` (EUR), the release's citation and page.

    No ``format="numpy"``: datasets' numpy formatter would hand back float32 arrays.
    """
    return evaluate.MetricInfo(
        module_type="metric",
        description=description,
        citation=_CITATION,
        inputs_description=inputs_description,
        features=datasets.Features({"predictions": datasets.Value("float64"),
                                    "references": datasets.Value("float64")}),
        reference_urls=["https://github.com/YanyiPU/ECtHR-NPD"],
    )


class CheckedAmountPairs:
    """Mixin for an ``evaluate.Metric`` over ``predictions`` / ``references`` amounts: the
    inputs are checked before evaluate's Arrow conversion (which would turn "12" or True into
    numbers), with the plain function's messages, and one process with nothing queued skips
    the Arrow round trip (it would only copy the inputs)."""

    def compute(self, *, predictions=None, references=None, **kwargs):
        """The plain function's result; see the module description for the arguments."""
        if predictions is not None or references is not None:
            if self.num_process == 1 and self.writer is None:
                return self._compute(predictions, references, **kwargs)
        return super().compute(predictions=predictions, references=references, **kwargs)

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Queue a batch after the plain function's checks."""
        _check_pair(predictions, references)
        super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Queue one case after the same checks as :meth:`add_batch`."""
        _check_example({"predictions": prediction, "references": reference},
                       {"predictions": "prediction", "references": "reference"})
        super().add(prediction=prediction, reference=reference, **kwargs)
