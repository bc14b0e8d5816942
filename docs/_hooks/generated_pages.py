"""MkDocs hooks: the pages (or parts of pages) that are generated, never written by hand.

- one page per metric module, ``metrics/<name>.md``, from its card ``metrics/<name>/README.md``
  (the card's Space front matter removed), added to the nav under "Metrics";
- ``<!-- generated: metric-modules -->``: the table of metric modules (name, dataset,
  description from the card's front matter);
- ``<!-- generated: cli-reference -->``: every command and option, from the parsers
  (:func:`courtbench.cli_reference.reference_markdown`);
- ``<!-- generated: benchmark-results -->``: every ``benchmarks/results/<name>.json`` as a
  table, introduced by its benchmark module's docstring.

Everything is read at build time from the repository the site is built from, so a page cannot
drift from the cards, the parsers or the measured results.
"""

from __future__ import annotations

import ast
import json
import math
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
METRICS = ROOT / "metrics"
RESULTS = ROOT / "benchmarks" / "results"
MARKERS = {
    "<!-- generated: metric-modules -->": lambda: metric_table(),
    "<!-- generated: cli-reference -->": lambda: cli_reference(),
    "<!-- generated: benchmark-results -->": lambda: benchmark_results(),
}


# ----------------------------------------------------------------------------- metric pages


def metric_cards() -> dict[str, Path]:
    """``name → card`` of every metric module folder of the repository, sorted by name."""
    return {card.parent.name: card for card in sorted(METRICS.glob("*/README.md"))
            if not card.parent.name.startswith("_")}


def split_front_matter(text: str) -> tuple[dict, str]:
    """``(front matter, body)`` of a card whose YAML front matter sits between ``---`` lines."""
    match = re.match(r"---\n(.*?)\n---\n", text, re.S)
    if not match:
        return {}, text
    return yaml.safe_load(match.group(1)) or {}, text[match.end():]


def metric_page(name: str, card: Path) -> str:
    """The page of one metric module: its card's body, then where the card lives."""
    _, body = split_front_matter(card.read_text(encoding="utf-8"))
    return (body.strip() + "\n\n---\n\n*This page is the module's card, "
            f"`metrics/{name}/README.md`, the same text its Hub Space shows. Load the module "
            f'with `evaluate.load("metrics/{name}")` from a clone\'s root, or with the folder '
            f"`courtbench metrics path {name}` prints.*\n")


def on_config(config):
    """Add one nav entry per metric module under the "Metrics" section."""
    for section in config["nav"] or []:
        if isinstance(section, dict) and "Metrics" in section:
            section["Metrics"].extend({name: f"metrics/{name}.md"} for name in metric_cards())
    return config


def on_files(files, config):
    """Add the generated metric pages to the site's files."""
    # MkDocs only here: the page builders above and below are tested without the docs extra
    from mkdocs.structure.files import File

    for name, card in metric_cards().items():
        files.append(File.generated(config, f"metrics/{name}.md",
                                    content=metric_page(name, card)))
    return files


def metric_table() -> str:
    """Name (linked to its page), dataset and description of every metric module."""
    from courtbench.metric_modules import metric_owners

    owners = metric_owners()
    rows = ["| module | dataset | what it computes |", "|---|---|---|"]
    for name, card in metric_cards().items():
        meta, _ = split_front_matter(card.read_text(encoding="utf-8"))
        description = " ".join(str(meta.get("description", "")).split())
        rows.append(f"| [`{name}`]({name}.md) | {owners.get(name, '')} | {description} |")
    return "\n".join(rows)


# ----------------------------------------------------------------------------- CLI reference


def cli_reference() -> str:
    from courtbench.cli import build_parser
    from courtbench.cli_reference import reference_markdown

    return reference_markdown(build_parser(every_command=True))


# ----------------------------------------------------------------------------- benchmarks


def docstring_markdown(text: str) -> str:
    """A benchmark module's docstring as Markdown: Sphinx roles become code spans (double
    backquotes already are)."""
    return re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", text)


def number_text(value) -> str:
    """A figure as the table shows it: integers with separators, other numbers to four
    significant digits (trailing zeros dropped), booleans as yes / no."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if not math.isfinite(value) or value == 0:
            return str(value)
        decimals = max(0, 3 - math.floor(math.log10(abs(value))))
        text = f"{value:,.{decimals}f}"
        return text.rstrip("0").rstrip(".") if "." in text else text
    if value is None:
        return "—"
    return str(value)


def flattened(figures: dict, prefix: str = "") -> list[tuple[str, str]]:
    """``(dotted key, shown value)`` of every leaf of ``figures``; a list of plain values is
    one row; keys starting with ``_`` are left out."""
    rows = []
    for key, value in figures.items():
        if key.startswith("_"):
            continue
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            rows += flattened(value, name + ".")
        elif isinstance(value, list) and all(not isinstance(v, (dict, list)) for v in value):
            rows.append((name, ", ".join(number_text(v) for v in value)))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                rows += flattened(item, f"{name}[{index}].") if isinstance(item, dict) else [
                    (f"{name}[{index}]", number_text(item))]
        else:
            rows.append((name, number_text(value)))
    return rows


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;").replace("\n", " ")


def benchmark_section(result: Path) -> str:
    """One benchmark: heading, the module's docstring, how to rerun it, its figures."""
    name = result.stem
    module = ROOT / "benchmarks" / f"bench_{name}.py"
    doc = ast.get_docstring(ast.parse(module.read_text(encoding="utf-8"))) if module.exists() \
        else None
    figures = json.loads(result.read_text(encoding="utf-8"))
    machine = figures.get("_machine", {})
    parts = [f"### `{name}`", docstring_markdown(doc or "(no description)"),
             f"Rerun: `python -m benchmarks {name}` (source: `benchmarks/bench_{name}.py`; "
             f"recorded with Python {machine.get('python', '?')} on "
             f"{machine.get('processor', '?')}).",
             "| figure | value |\n|---|---|\n" + "\n".join(
                 f"| `{key}` | {_cell(value)} |" for key, value in flattened(figures))]
    return "\n\n".join(parts)


def benchmark_results() -> str:
    return "\n\n".join(benchmark_section(path) for path in sorted(RESULTS.glob("*.json")))


# ----------------------------------------------------------------------------- markers


def on_page_markdown(markdown, page, config, files):
    """Replace each generation marker of a page by what it stands for."""
    for marker, generate in MARKERS.items():
        if marker in markdown:
            markdown = markdown.replace(marker, generate())
    return markdown
