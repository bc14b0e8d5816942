"""Numeric command-line options: every one has a range, checked by the shared validator while
parsing (courtbench.option_checks), refused in one line naming the flag, the value and the
range before any work. Properties against plain re-implementations (exact integers,
``fractions.Fraction`` for decimal texts)."""

from __future__ import annotations

import argparse
import math
import re
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from courtbench import option_checks
from courtbench.cli import build_parser, main
from courtbench.option_checks import ListOption, OptionType, integer, number

#: Types of numeric options that are not OptionType / ListOption, and why that is fine: each
#: checks its parts with an option type (tested below).
COMPOSITE = {"_split_sizes": "two option_checks.ROWS", "_configs": "ListOption of pairs, or all"}


def _leaves(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _leaves(child, (*path, name))
    yield path, parser


def _numeric(action: argparse.Action) -> bool:
    """Whether an option takes numbers: an option type of numbers (or a list of them), int /
    float, or a numeric default."""
    kind, default = action.type, action.default
    if isinstance(kind, OptionType):
        return True
    if isinstance(kind, ListOption):
        return isinstance(kind.item, OptionType)
    return kind in (int, float) or (isinstance(default, (int, float))
                                    and not isinstance(default, bool))


@pytest.fixture(scope="module")
def every_option():
    found = []
    for path, parser in _leaves(build_parser(every_command=True)):
        for action in parser._actions:
            if action.option_strings and _numeric(action):
                found.append((path, parser, action))
    return found


def test_every_numeric_option_of_every_command_has_a_range(every_option):
    unchecked = [f"{' '.join(path)} {action.option_strings[0]}" for path, _, action
                 in every_option if not isinstance(action.type, (OptionType, ListOption))
                 and action.choices is None
                 and getattr(action.type, "__name__", "") not in COMPOSITE]
    assert unchecked == []
    assert len(every_option) > 100  # the walk saw the commands' options


def test_every_numeric_option_refuses_nan_in_one_line_while_parsing(every_option, capsys):
    for path, parser, action in every_option:
        if action.choices is not None:
            continue
        flag = action.option_strings[0]
        with pytest.raises(SystemExit) as exit_info:
            parser.parse_args([flag, "nan"])
        err = capsys.readouterr().err
        assert exit_info.value.code == 2, (path, flag)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and flag in lines[0] and "'nan'" in lines[0], err
        assert "expected" in lines[0], err


def test_a_refusal_through_main_names_flag_value_and_range(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["evaluate", "ecthr_npd", "--data", str(tmp_path / "d"), "--predictions",
              str(tmp_path / "p"), "--out", str(tmp_path / "o"), "--resamples", str(10**12)])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and len(err.strip().splitlines()) == 1
    assert ("argument --resamples: expected a number of resamples in [1, 100,000], got "
            "'1000000000000'") in err
    assert list(tmp_path.iterdir()) == []


def test_help_shows_every_range(capsys):
    with pytest.raises(SystemExit):
        main(["train", "slds", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "(allowed: -1 or [1, 1,000,000])" in out
    assert "(allowed: distinct learning rates, each > 0 and <= 1; at most 20; or none)" in out
    assert "(allowed: [0, 4,294,967,295])" in out


# --- properties of the option types -------------------------------------------------------

BOUNDS = st.integers(min_value=-(2**40), max_value=2**40)


@given(st.integers(min_value=-(2**80), max_value=2**80), BOUNDS, BOUNDS,
       st.sampled_from(["{}", " {}", "+{}", "{}\t"]))
def test_integer_options_accept_exactly_their_range(value, low, high, layout):
    low, high = min(low, high), max(low, high)
    kind = integer(low, high, what="a count")
    text = layout.format(value) if value >= 0 or "+" not in layout else str(value)
    if low <= value <= high:
        parsed = kind(text)
        assert parsed == value and type(parsed) is int
    else:
        with pytest.raises(argparse.ArgumentTypeError, match=r"^expected a count in \["):
            kind(text)


@given(st.sampled_from(["1.5", "2.0", "1e3", "1.0000000000000000001", "0x10", "1_000",
                        "\u0661\u0662", "", " ", "nan", "inf", "-inf", "seven", "1 2"]))
def test_integer_options_never_round_or_guess(text):
    with pytest.raises(argparse.ArgumentTypeError) as caught:
        option_checks.SEED(text)
    assert "integer seed" in str(caught.value) and "\n" not in str(caught.value)


DECIMAL = st.from_regex(r"\A[+-]?([0-9]{1,25}(\.[0-9]{0,25})?|\.[0-9]{1,25})([eE][+-]?[0-9]{1,3})?\Z")


@given(DECIMAL, st.floats(-1e6, 1e6), st.floats(0, 1e6), st.booleans(), st.booleans())
def test_number_options_match_an_exact_decimal_reference(text, low, width, low_open, high_open):
    high = low + width
    kind = number(low, high, low_open=low_open, high_open=high_open, what="a rate")
    exact = Fraction(text)
    try:
        rounded = float(exact)  # correctly rounded, as float(text) is
    except OverflowError:
        rounded = math.inf
    inside = (math.isfinite(rounded) and (low < rounded if low_open else low <= rounded)
              and (rounded < high if high_open else rounded <= high))
    if inside:
        assert kind(text) == rounded
    else:
        with pytest.raises(argparse.ArgumentTypeError, match=r"^expected a (finite )?rate"):
            kind(text)


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_number_options_take_the_repr_of_any_float(value):
    kind = number(0.0, 1.0, low_open=True, what="a top-p")
    if math.isfinite(value) and 0 < value <= 1:
        assert kind(repr(value)) == value
    else:
        with pytest.raises(argparse.ArgumentTypeError):
            kind(repr(value))


@given(st.text(max_size=40))
def test_any_text_is_a_value_or_one_line_refusal(text):
    for kind in (option_checks.SEED, option_checks.TOP_P, option_checks.RESAMPLES,
                 option_checks.SHARE, option_checks.ListOption(option_checks.SEED, what="seeds")):
        try:
            kind(text)
        except argparse.ArgumentTypeError as error:
            message = str(error)
            assert "\n" not in message and message.count("expected") >= 1
            assert len(message) < 600


@given(st.lists(st.integers(min_value=-5, max_value=30), max_size=8))
def test_list_options_refuse_empty_duplicate_and_out_of_range_items(values):
    kind = ListOption(integer(0, 20, what="a k"), what="neighbour counts", max_items=6)
    text = ",".join(map(str, values))
    ok = (values and len(values) <= 6 and len(set(values)) == len(values)
          and all(0 <= v <= 20 for v in values))
    if ok:
        assert kind(text) == tuple(values)
    else:
        with pytest.raises(argparse.ArgumentTypeError):
            kind(text)


@pytest.mark.parametrize("text, message", [
    ("", "expected learning rates separated by commas, or none, got ''"),
    (" , ", "expected learning rates separated by commas, or none, got ' , '"),
    ("1e-4,", "(item 2 is empty)"),
    ("1e-4,0.0001", "got '1e-4' and '0.0001', the same value, in"),
    ("1e-4,1e-4", "got '1e-4' twice in"),
    ("1e-4,nan", "item 2 of '1e-4,nan': expected a finite learning rate (> 0 and <= 1), "
                 "got 'nan'"),
    (",".join(["1e-4"] * 21), "expected at most 20 learning rates, got 21"),
])
def test_the_sweep_option_refuses_what_would_silently_change_a_sweep(text, message):
    from slds.training.run import RATES

    with pytest.raises(argparse.ArgumentTypeError) as caught:
        RATES(text)
    assert message in str(caught.value)
    assert RATES("none") == () and RATES(" NONE ") == ()
    assert RATES("1e-5,5e-5,1e-4") == (1e-5, 5e-5, 1e-4)


def test_composite_option_types_use_option_types():
    from ecthr_npd.plugin import _split_sizes
    from slds.training.run import _configs

    assert _split_sizes("10217,1461") == (10217, 1461)
    for bad in ("a,b", "0,5", "1,2,3", "1.5,2", f"{10**9},1"):
        with pytest.raises(argparse.ArgumentTypeError, match=re.escape(f"--split-sizes {bad!r}")):
            _split_sizes(bad)
    assert len(_configs("all")) == 9 and _configs("de_fr,it_it") == ("de_fr", "it_it")
    for bad in ("", "de_xx", "de_de,de_de"):
        with pytest.raises(argparse.ArgumentTypeError):
            _configs(bad)
