"""Input checks shared by the ECtHR-NPD metric modules (amounts in EUR, the zero threshold)
and their evaluate metadata.

One source, linked into the folders of ``npd_regression``, ``zero_f1`` and ``bootstrap_mae``
(each imports it relatively, ``from .npd_amounts import ...``, the form ``evaluate`` copies
beside a module script). Wheels, ``courtbench metrics export`` and ``courtbench publish``
carry it as a real file in each folder, so every module still loads alone from a Hub Space.

The evaluate wrappers' call checks are ``checked_wrapper.py``'s. The rules are those of the
one boundary validator, ``boundary.py`` (linked beside it): an
amount is a finite number in ``[0, AMOUNT_CEILING]`` (1e12 EUR), not a bool and not text; a
refusal is a ``BoundaryError`` (a ``ValueError``) naming the argument, the first offending
index and its value; nothing is coerced or clipped. Arrays are checked in one vectorised
pass; the first bad value is then refused by ``boundary.check_amount`` itself, so the
message and the range are the validator's.

Within that range every figure of the modules is exact up to float rounding: sums of
squares cannot overflow (n · 1e24 stays far below the float maximum) and the modules rescale
tiny values by powers of two where squares could underflow.
"""

import datasets
import evaluate
import numpy as np

from .boundary import AMOUNT_CEILING, BoundaryError, check_amount, check_number

#: The citation every ECtHR-NPD metric module reports (the data release).
_CITATION = """\
@misc{ecthr_npd,
  title        = {{ECtHR-NPD}: non-pecuniary damage awards of the European Court of Human Rights},
  howpublished = {Data release, https://github.com/YanyiPU/ECtHR-NPD},
  note         = {Please also cite the benchmark paper named in the release}
}
"""


def _as_amounts(values, name):
    """Check ``values`` (list, tuple or 1-D numeric array) and return it as a float64 array.

    Raises ``BoundaryError`` naming ``name``, the first offending index and its value for:
    a container of another kind, empty input, None, strings, booleans, nested sequences,
    NaN, ±inf, negative numbers and amounts above ``AMOUNT_CEILING``.
    """
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise BoundaryError(name, f"<an array of shape {values.shape}>",
                                "a 1-D sequence of amounts (nested sequences are not accepted)")
        if values.dtype.kind == "O":
            return _as_amounts(values.tolist(), name)
        if values.dtype.kind not in "iuf" and values.size:
            check_amount(values[0].item(), f"{name}[0]")  # bool, complex, text: refused
    elif isinstance(values, (list, tuple)):
        if not set(map(type, values)) <= {float, int}:
            _first_bad_element(values, name)
    else:
        raise BoundaryError(name, f"<{type(values).__name__}>",
                            "a list, tuple or 1-D numpy array of amounts")
    if len(values) == 0:
        raise BoundaryError(name, [], "at least one amount")
    try:
        array = np.asarray(values, dtype=np.float64)
    except OverflowError:  # an int beyond the float range
        _first_bad_element(values, name)
    # min and max read the array without a temporary: a NaN makes both NaN (no comparison
    # holds), -inf and negatives lower the minimum, +inf and huge amounts raise the maximum
    if not (array.min() >= 0 and array.max() <= AMOUNT_CEILING):
        bad = ~((array >= 0) & (array <= AMOUNT_CEILING))
        index = int(np.argmax(bad))
        value = values[index]
        check_amount(value.item() if isinstance(value, np.generic) else value, f"{name}[{index}]")
    return array


def _first_bad_element(values, name):
    """Refuse the first element of a list that is not an amount (``check_amount``)."""
    for index, value in enumerate(values):
        check_amount(value, f"{name}[{index}]")


def _check_example(example):
    """Check one case of ``add()`` (``{keyword: value}``, e.g. ``prediction=``), naming each
    value by the keyword it was passed with."""
    for keyword, value in example.items():
        check_amount(value, keyword)


def _check_pair(predictions, references):
    """Validate both inputs and their lengths; return them as float64 arrays."""
    y_pred = _as_amounts(predictions, "predictions")
    y_true = _as_amounts(references, "references")
    if y_pred.size != y_true.size:
        raise BoundaryError("predictions", f"<{y_pred.size:,} values>",
                            f"one prediction per reference (references has {y_true.size:,})")
    return y_pred, y_true


def _zero_mask(amounts, zero_threshold):
    """Which amounts are zero awards: those at or below ``zero_threshold`` (EUR).

    The ECtHR-NPD authors' rule: an amount is positive when it exceeds the threshold
    (0.5 EUR by default), so exactly 0.5 EUR is a zero award.
    """
    return amounts <= zero_threshold


def _check_threshold(zero_threshold):
    """``zero_threshold`` as a float: an amount in EUR, > 0 and at most ``AMOUNT_CEILING``."""
    return check_number(zero_threshold, "zero_threshold", low=0.0, low_open=True,
                        high=AMOUNT_CEILING, what="an amount in EUR")


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
