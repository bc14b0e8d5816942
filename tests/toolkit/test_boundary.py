"""The shared boundary validator (metrics/_shared/boundary.py, linked as courtbench.boundary):
one rule for every number and text that enters from outside."""

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from courtbench import boundary
from courtbench.boundary import BoundaryError

ROOT = Path(__file__).resolve().parents[2]


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_amount_accepts_exactly_the_finite_range(value):
    inside = math.isfinite(value) and 0 <= value <= boundary.AMOUNT_CEILING
    if inside:
        assert boundary.check_amount(value, "x") == value
    else:
        with pytest.raises(BoundaryError, match=r"^x = .*: expected "):
            boundary.check_amount(value, "x")


@given(st.integers(min_value=-(2**70), max_value=2**70))
def test_integer_is_64_bit(value):
    if boundary.INT64_MIN <= value <= boundary.INT64_MAX:
        assert boundary.check_integer(value, "n") == value
    else:
        with pytest.raises(BoundaryError):
            boundary.check_integer(value, "n")


@pytest.mark.parametrize("value", [1.5, -1, 2**32, True, "3", None, math.nan, 10**400])
def test_seed_refusals_name_argument_and_value(value):
    with pytest.raises(BoundaryError) as caught:
        boundary.check_seed(value, "--seed")
    message = str(caught.value)
    assert message.startswith("--seed = ")
    assert "\n" not in message
    assert len(message) < 300


def test_seed_accepts_integral_float_and_numpy_integers():
    assert boundary.check_seed(2.0, "s") == 2
    assert boundary.check_seed(np.int64(7), "s") == 7
    assert boundary.check_seed(np.float64(3.0), "s") == 3


def test_numpy_bool_is_not_a_number():
    with pytest.raises(BoundaryError, match="got bool"):
        boundary.check_number(np.bool_(True), "flag")


def test_count_caps_work_parameters():
    assert boundary.check_count(1000, "resamples", high=100_000) == 1000
    with pytest.raises(BoundaryError, match=r"in \[1, 100,000\]"):
        boundary.check_count(10**9, "resamples", high=100_000)


@pytest.mark.parametrize("text, problem", [
    ("", "visible"), (" \t\n", "visible"), ("\u00a0\u202f\u2009", "visible"),
    ("\u200b\u2060\ufeff", "visible"), ("a\x00b", "NUL"), ("ok\ud800", "surrogate"),
])
def test_invalid_texts(text, problem):
    with pytest.raises(BoundaryError, match=problem):
        boundary.check_text(text, "facts_text", max_chars=100)


@given(st.text(max_size=50))
def test_text_rule_matches_plain_definition(text):
    """The regex-based rule equals a character-by-character reading of the definition."""
    def plain(value):
        if "\x00" in value or any(0xD800 <= ord(c) <= 0xDFFF for c in value):
            return False
        import unicodedata
        return any(not c.isspace() and c not in boundary.INVISIBLE
                   and unicodedata.category(c) not in ("Cf", "Zs", "Zl", "Zp", "Cc")
                   for c in value)
    assert (boundary.text_problem(text) is None) == plain(text)


def test_text_size_bound():
    with pytest.raises(BoundaryError, match="at most 10 characters"):
        boundary.check_text("x" * 11, "answer", max_chars=10)


def test_choice_is_exact():
    assert boundary.check_choice("de", "language", ("de", "fr", "it")) == "de"
    with pytest.raises(BoundaryError, match="one of 'de', 'fr', 'it'"):
        boundary.check_choice("DE", "language", ("de", "fr", "it"))


def test_name_key_collides_case_and_width():
    assert boundary.name_key("GBT") == boundary.name_key("gbt") == boundary.name_key("ｇｂｔ")
    assert boundary.name_key("gbt") != boundary.name_key("gbt2")


@pytest.mark.parametrize("text, expected", [
    ('{"award_eur": NaN}', "NaN"), ('{"award_eur": Infinity}', "Infinity"),
    ('{"award_eur": 1e400}', "overflows"), ('{"award_eur": 1' + "0" * 400 + "}", "digits"),
    ('{"a": "\\ud800"}', "valid Unicode"), ('{"a": "\\u0000"}', "NUL"), ("{", "valid JSON"),
])
def test_loads_bounded_refuses(text, expected):
    with pytest.raises(BoundaryError, match=expected):
        boundary.loads_bounded(text, "answer", max_chars=10_000)


def test_loads_bounded_size():
    with pytest.raises(BoundaryError, match="at most 5 characters"):
        boundary.loads_bounded('{"a": 1}', "answer", max_chars=5)
    assert boundary.loads_bounded('{"a": [1, 2.5]}', "answer", max_chars=100) == {"a": [1, 2.5]}


def test_deeply_nested_json_is_a_refusal_not_a_crash():
    with pytest.raises(BoundaryError, match="valid JSON"):
        boundary.loads_bounded("[" * 100_000 + "]" * 100_000, "answer", max_chars=10**6)


def test_shown_never_prints_a_huge_integer():
    assert "digits" in boundary.shown(10**5000)


def test_validator_needs_only_the_standard_library():
    """The file travels into metric folders and the leaderboard Space: stdlib only."""
    code = ("import sys, runpy; runpy.run_path(sys.argv[1]); "
            "assert 'numpy' not in sys.modules, 'numpy imported'")
    subprocess.run([sys.executable, "-c", code, str(ROOT / "metrics/_shared/boundary.py")],
                   check=True)
