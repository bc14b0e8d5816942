"""The one validation every value crossing into courtbench passes.

Numbers and texts enter from outside at a few places: source files and reviewed Facts,
prediction files and Inspect logs, leaderboard records, metric inputs, model answers (text,
tool calls), page inputs, CLI options. Each of them is checked here, by the same rules:

- a number is finite and lies within its quantity's range (:data:`QUANTITIES`): amounts and
  absolute errors are >= 0 with a documented ceiling (:data:`AMOUNT_CEILING`), an integer
  fits in 64 bits, a seed is an integer in ``[0, 2**32 - 1]``, a work parameter (resamples,
  subsets, steps) has a cap;
- a size is bounded (characters of a text, items of a list, bytes of a file or answer);
- a text is valid Unicode: no lone surrogate, no NUL, and not made only of whitespace (every
  Unicode space, the zero-width and no-break ones included).

A refusal is a :class:`BoundaryError` (a ``ValueError``) whose one-line message names where
the value was (file, row, field or argument), the value (cut short) and what was expected.
Nothing is coerced or clipped: a float seed 1.5 is refused, not rounded; a bool is not a
number.

One source, linked wherever it must travel: ``courtbench/boundary.py``, the metric module
folders and the leaderboard Space import this file. It needs the standard library only
(numpy scalars are accepted through :mod:`numbers`, which numpy registers with).
"""

import json
import math
import numbers
import re
import unicodedata

#: Largest sum of money (or error in one) a prediction, record or model answer may state:
#: 1e12, five orders of magnitude above the largest sum any benchmark here holds (about 1e7
#: EUR). A value beyond it is a broken system or a hostile input, never a prediction.
AMOUNT_CEILING = 1e12
#: Integers that become machine integers (sizes, counts, ids) fit in a signed 64-bit integer.
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
#: Seeds are what numpy's and Python's generators accept everywhere: ``[0, 2**32 - 1]``.
SEED_MAX = 2**32 - 1
#: Longest quoted value a message repeats.
MAX_SHOWN_CHARS = 120
#: Characters that render as nothing or as a space but that ``str.isspace`` does not count:
#: a text made of them and whitespace is empty to a reader.
INVISIBLE = frozenset("\u200b\u200c\u200d\u2060\ufeff\u180e\u2800\u3164\u115f\u1160\uffa0")

#: quantity → (lowest, highest, what it is). The ranges every boundary uses; each is
#: documented here once and named in refusals.
QUANTITIES = {
    "amount": (0.0, AMOUNT_CEILING, "an amount of money"),
    "absolute_error": (0.0, AMOUNT_CEILING, "an absolute error"),
    "probability": (0.0, 1.0, "a probability"),
    "score_0_100": (0.0, 100.0, "a score from 0 to 100"),
}


class BoundaryError(ValueError):
    """A value from outside refused: ``where`` (file, row, field or argument), the
    ``value`` and what was ``expected``; the message is one line."""

    def __init__(self, where, value, expected):
        self.where = where
        self.value = value
        self.expected = expected
        super().__init__(f"{where} = {shown(value)}: expected {expected}")


def shown(value, limit=MAX_SHOWN_CHARS):
    """``repr(value)`` for a message, cut to ``limit`` characters plus its length, never a
    huge integer converted to text in full (Python refuses above 4,300 digits)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 256:
        return f"<an integer of about {int(value.bit_length() * 0.30103):,} digits>"
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        return f"<{type(value).__name__}>"
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")  # lone surrogates shown
    if len(text) <= limit:
        return text
    size = len(value) if isinstance(value, (str, bytes, list, tuple, dict)) else len(text)
    return f"{text[:limit]}... ({size:,} {'characters' if isinstance(value, str) else 'items'})"


def _is_bool(value):
    return isinstance(value, bool) or type(value).__name__ == "bool_"


def check_number(value, where, *, low=-math.inf, high=math.inf, low_open=False,
                 high_open=False, what="a number"):
    """``value`` as a float when it is a finite real number in its range; else refuse.

    Args:
        value: int, float or numpy scalar (not a bool, not a string).
        where: the place named in a refusal (``"predictions.csv, row 12, field amount"``).
        low, high: the range; ``low_open`` / ``high_open`` exclude the bound itself.
        what: the quantity, for the message.

    Returns:
        float: the value (an int above float range is refused, never rounded to inf).

    Raises:
        BoundaryError: not a real number, NaN, infinite, or out of range.
    """
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise BoundaryError(where, value, f"{what} ({_range(low, high, low_open, high_open)}), "
                                          f"got {type(value).__name__}")
    try:
        number = float(value)
    except (OverflowError, ValueError):
        number = math.inf
    if not math.isfinite(number):
        bounds = _range(low, high, low_open, high_open)
        shown_bounds = "" if bounds == "any finite value" else f" ({bounds})"
        if what.startswith(("a ", "an ")):  # "a learning rate" → "a finite learning rate"
            raise BoundaryError(where, value, f"a finite {_bare(what)}{shown_bounds}")
        raise BoundaryError(where, value, f"a finite number: {what}{shown_bounds}")
    if number < low or number > high or (low_open and number == low) or (
            high_open and number == high):
        raise BoundaryError(where, value, f"{what} {_range(low, high, low_open, high_open)}")
    return number


def _bare(what):
    """``what`` without its article: "a finite " + "a number" must read "a finite number"."""
    for article in ("a ", "an "):
        if what.startswith(article):
            return what[len(article):]
    return what


def _range(low, high, low_open, high_open):
    parts = []
    if low > -math.inf:
        parts.append(f"{'>' if low_open else '>='} {_number_text(low)}")
    if high < math.inf:
        parts.append(f"{'<' if high_open else '<='} {_number_text(high)}")
    return " and ".join(parts) if parts else "any finite value"


def range_text(low=-math.inf, high=math.inf, low_open=False, high_open=False):
    """The range as refusals state it (``> 0 and <= 1``), for help texts and labels."""
    return _range(low, high, low_open, high_open)


def _number_text(number):
    if float(number).is_integer() and abs(number) < 1e16:
        return f"{int(number):,}"
    return f"{number:g}"


def check_quantity(value, where, quantity):
    """``value`` as a float within the range of ``quantity`` (a key of :data:`QUANTITIES`)."""
    low, high, what = QUANTITIES[quantity]
    return check_number(value, where, low=low, high=high, what=what)


def check_amount(value, where):
    """A sum of money: finite, >= 0 and <= :data:`AMOUNT_CEILING`."""
    return check_quantity(value, where, "amount")


def check_integer(value, where, *, low=INT64_MIN, high=INT64_MAX, what="an integer"):
    """``value`` as an int when it is an integer in ``[low, high]`` (64-bit by default).

    An integral float (``2.0``, as a page's number box sends) is accepted; ``1.5`` is refused,
    never rounded. Strings and bools are refused.
    """
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise BoundaryError(where, value, f"{what} in [{low:,}, {high:,}], got "
                                          f"{type(value).__name__}")
    if isinstance(value, numbers.Integral):
        number = int(value)
    else:
        try:
            as_float = float(value)
        except (OverflowError, ValueError):
            as_float = math.inf
        if not math.isfinite(as_float) or not as_float.is_integer():
            raise BoundaryError(where, value, f"{what} in [{low:,}, {high:,}] (a whole number)")
        number = int(as_float)
    if number < low or number > high:
        raise BoundaryError(where, value, f"{what} in [{low:,}, {high:,}]")
    return number


def check_seed(value, where):
    """A random seed: an integer in ``[0, 2**32 - 1]``."""
    return check_integer(value, where, low=0, high=SEED_MAX, what="an integer seed")


def check_count(value, where, *, low=1, high, what="a count"):
    """A work parameter (resamples, subsets, steps, items): an integer in ``[low, high]``.

    Every work parameter has a cap, so no input can hold a CPU or grow memory without bound.
    """
    return check_integer(value, where, low=low, high=high, what=what)


_SURROGATE = re.compile("[\ud800-\udfff]")
#: Candidates for a visible character: anything but whitespace and the known invisibles;
#: each candidate is then checked by its Unicode category (format and separator characters
#: are invisible too).
_CANDIDATE = re.compile("[^\\s" + "".join(sorted(INVISIBLE)) + "]")


def text_problem(text):
    """What makes ``text`` invalid as a text from outside, or None: a lone surrogate, a NUL,
    or nothing but whitespace / invisible characters."""
    nul = text.find("\x00")
    if nul >= 0:
        return f"no NUL character (one at character {nul:,})"
    surrogate = _SURROGATE.search(text)
    if surrogate:
        return (f"valid Unicode (a lone surrogate U+{ord(surrogate.group()):04X} at character "
                f"{surrogate.start():,})")
    if not visible(text):
        return "visible text (it has only whitespace or invisible characters)"
    return None


def visible(text):
    """Whether ``text`` has a character that is neither whitespace (any Unicode space) nor
    invisible (zero-width, word joiner, BOM, other format or separator characters)."""
    position = 0
    while True:
        found = _CANDIDATE.search(text, position)
        if found is None:
            return False
        if unicodedata.category(found.group()) not in ("Cf", "Zs", "Zl", "Zp", "Cc"):
            return True
        position = found.end()


def check_text(value, where, *, max_chars, allow_empty=False, allow_blank=False,
               what="a text"):
    """``value`` when it is a str of at most ``max_chars`` characters with valid Unicode
    (no lone surrogate, no NUL) and at least one visible character.

    Args:
        allow_empty: accept ``""`` (an empty answer that is reported as such elsewhere);
            a whitespace-only text is still refused.
        allow_blank: accept a text without a visible character too (empty or whitespace
            only: a generated text that is blank is an answer to score, not a broken input);
            NUL and lone surrogates are still refused.
    """
    if not isinstance(value, str):
        raise BoundaryError(where, value, f"{what} (a string), got {type(value).__name__}")
    if len(value) > max_chars:
        raise BoundaryError(where, value, f"{what} of at most {max_chars:,} characters")
    if value == "" and (allow_empty or allow_blank):
        return value
    problem = text_problem(value)
    if problem and not (allow_blank and problem.startswith("visible text")):
        raise BoundaryError(where, value, f"{what} with {problem}")
    return value


def check_keywords(function, given, *, accepted, required=()):
    """Refuse a call's keyword arguments the way Python refuses a wrong call: ``TypeError``.

    A wrong argument *name* (``prediction=`` for ``predictions=``) or a required input that
    was not passed is a mistake in the call, not a bad value, so it gets Python's own error
    for such calls, whichever way the function is reached (called directly, or through a
    wrapper that collects ``**kwargs``); a bad *value* (``None`` passed as an input
    included) is a :class:`BoundaryError` (a ``ValueError``).

    Args:
        function: the name of the called function, shown in the message.
        given: ``{name: value}`` of the arguments the call passed (a wrapper leaves out those
            it was not given).
        accepted: every name the function accepts, in the order to list them.
        required: names that must be among ``given``.

    Raises:
        TypeError: one line naming the first unknown keyword (and what is accepted) or the
            first missing required one.
    """
    unknown = [name for name in given if name not in accepted]
    if unknown:
        raise TypeError(f"{function}() got an unexpected keyword argument {unknown[0]!r}; it "
                        f"accepts {', '.join(accepted)}")
    missing = [name for name in required if name not in given]
    if missing:
        raise TypeError(f"{function}() missing required argument {missing[0]!r} (it needs "
                        f"{', '.join(required)})")


def check_size(value, where, *, max_items, what="items"):
    """``value`` (str, bytes, list, tuple, dict) when it holds at most ``max_items``."""
    if len(value) > max_items:
        raise BoundaryError(where, f"<{len(value):,} {what}>", f"at most {max_items:,} {what}")
    return value


def check_choice(value, where, choices):
    """``value`` when it is one of ``choices`` (compared exactly: 'DE' is not 'de')."""
    if value not in choices:
        raise BoundaryError(where, value, "one of " + ", ".join(map(repr, choices)))
    return value


def name_key(name):
    """The key under which two system names are the same name: Unicode NFKC, then casefold
    (so 'GBT', 'gbt' and 'ｇｂｔ' collide)."""
    return unicodedata.normalize("NFKC", name).casefold()


def _refuse_constant(name):
    raise ValueError(f"{name} is not a number JSON allows")


def loads_bounded(text, where, *, max_chars, max_int_digits=20, int64=False,
                  floats_checked_later=False):
    """Parse JSON text from outside: at most ``max_chars`` characters, no NaN / Infinity
    (``json.loads`` accepts them), no integer longer than ``max_int_digits`` digits (with
    ``int64``: none outside 64 bits) and no float that overflows (``1e400``), valid Unicode
    in every string.

    Strings are walked only when the text holds a ``\\u`` escape or a lone surrogate (the
    only ways a NUL or a surrogate gets into a parsed string). ``floats_checked_later``: the
    caller checks every number of the document as finite itself (a leaderboard record, whose
    schema does), so floats are parsed in C without a hook per float, which would cost more
    than the whole parse on a record of thousands of numbers.

    Returns:
        the parsed document.

    Raises:
        BoundaryError: naming ``where`` and the first problem.
    """
    if not isinstance(text, str):
        raise BoundaryError(where, text, f"JSON text (a string), got {type(text).__name__}")
    if len(text) > max_chars:
        raise BoundaryError(where, text, f"JSON text of at most {max_chars:,} characters")

    def parse_int(digits):
        if len(digits.lstrip("-")) > max_int_digits:
            raise ValueError(f"an integer of {len(digits):,} digits (at most {max_int_digits})")
        value = int(digits)
        if int64 and not INT64_MIN <= value <= INT64_MAX:
            raise ValueError(f"the integer {digits} is outside 64 bits")
        return value

    def parse_float(literal):
        number = float(literal)
        if not math.isfinite(number):
            raise ValueError(f"the number {literal[:40]} overflows a float")
        return number

    hooks = {"parse_constant": _refuse_constant, "parse_int": parse_int}
    if not floats_checked_later:
        hooks["parse_float"] = parse_float
    try:
        document = json.loads(text, **hooks)
    except (ValueError, RecursionError) as error:
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise BoundaryError(where, text, f"valid JSON ({message})") from None
    if "\\u" in text or _SURROGATE.search(text):
        _check_strings(document, where)
    return document


def _check_strings(document, where):
    """Refuse a lone surrogate or NUL in any string (key or value) of a parsed document."""
    stack = [(document, where)]
    while stack:
        item, at = stack.pop()
        if isinstance(item, str):
            if "\x00" in item or _SURROGATE.search(item):
                raise BoundaryError(at, item, "a string of valid Unicode without NUL")
        elif isinstance(item, dict):
            for key, value in item.items():
                stack.append((key, at))
                stack.append((value, f"{at}.{shown(key, 40)}"))
        elif isinstance(item, list):
            stack.extend((value, f"{at}[{index}]") for index, value in enumerate(item))
