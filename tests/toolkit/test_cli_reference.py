"""The generated documentation: the command-line reference written from the parsers, help text
free of docstring markup, and the site hooks' metric pages and benchmark tables."""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from courtbench.cli import build_parser
from courtbench.cli_parser import plain_text
from courtbench.cli_reference import _escaped, commands, reference_markdown

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def parser() -> argparse.ArgumentParser:
    return build_parser(every_command=True)


@pytest.fixture(scope="module")
def page(parser) -> str:
    return reference_markdown(parser)


def _hooks():
    spec = importlib.util.spec_from_file_location(
        "generated_pages", ROOT / "docs" / "_hooks" / "generated_pages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_command_and_option_has_its_place_on_the_page(parser, page):
    found = list(commands(parser))
    assert len(found) > 20  # 13 commands, their dataset and action sub-commands
    for _words, sub in found[1:]:
        title = sub.prog
        assert f"`{title}` {{#" in page, title
        section = page.split(f"`{title}` {{#", 1)[1].split("\n#", 1)[0]
        for action in sub._actions:
            if action.help is argparse.SUPPRESS or isinstance(
                    action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            for option in action.option_strings:
                assert f"`{option}`" in section, (title, option)


def test_every_range_of_help_is_on_the_page(parser, page):
    """What ``--help`` calls (allowed: …) is the page's "allowed" column, for every option."""
    from courtbench.option_checks import allowed_range

    ranges = {allowed_range(a) for _, sub in commands(parser) for a in sub._actions} - {None}
    assert ranges
    for allowed in ranges:
        assert _escaped(allowed) in page, allowed


def test_help_text_shows_no_docstring_markup(parser, capsys):
    for words, sub in commands(parser):
        text = sub.format_help()
        assert "``" not in text, (words, text[:300])
        assert not re.search(r":[a-z]+:`", text), (words, text[:300])


def test_plain_text_strips_literals_and_roles_only():
    assert plain_text("``courtbench demo``: see :mod:`courtbench.plugins` and "
                      ":attr:`~a.b.metric_example`; *.csv stays") == (
        "courtbench demo: see courtbench.plugins and metric_example; *.csv stays")


@given(st.text())
def test_escaped_help_never_opens_markup_or_cells(text):
    escaped = _escaped(text.replace("`", ""))
    assert not re.search(r"(?<!\\)[|*_\[\]<>]", escaped)


def test_metric_pages_are_the_cards_without_front_matter():
    hooks = _hooks()
    cards = hooks.metric_cards()
    assert set(cards) == {p.parent.name for p in (ROOT / "metrics").glob("*/app.py")}
    for name, card in cards.items():
        text = hooks.metric_page(name, card)
        meta, body = hooks.split_front_matter(card.read_text(encoding="utf-8"))
        assert meta["sdk"] == "gradio" and "sdk_version" not in text.split("\n", 3)[0]
        assert text.startswith(body.strip()[:200]) and not text.startswith("---")


def test_benchmark_tables_show_every_figure_of_every_result():
    hooks = _hooks()
    for result in sorted((ROOT / "benchmarks" / "results").glob("*.json")):
        figures = json.loads(result.read_text(encoding="utf-8"))
        section = hooks.benchmark_section(result)
        rows = hooks.flattened(figures)
        leaves = _leaf_count({k: v for k, v in figures.items() if not k.startswith("_")})
        assert len(rows) == leaves, result.name
        assert section.count("\n| `") == len(rows), result.name


def _leaf_count(value) -> int:
    if isinstance(value, dict):
        return sum(_leaf_count(v) for v in value.values())
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        return sum(_leaf_count(v) for v in value)
    return 1


@pytest.mark.parametrize(("value", "shown"), [
    (True, "yes"), (14575, "14,575"), (111.221, "111.2"), (0.0009, "0.0009"),
    (65129.5, "65,130"), (2.445, "2.445"), (0.02, "0.02"), (2.0, "2"), (None, "—"),
    (0.0, "0.0")])
def test_figures_are_shown_to_four_significant_digits(value, shown):
    assert _hooks().number_text(value) == shown
