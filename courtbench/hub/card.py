"""Dataset cards: YAML front matter + a Markdown body rendered from a jinja2 template."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jinja2
import yaml

from courtbench import tables
from courtbench.errors import VerificationError

CARD_FILE = "README.md"


def _environment(template_dir: Path) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir)),
        undefined=jinja2.StrictUndefined,  # a missing statistic is an error, not an empty cell
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters.update(thousands=tables.thousands, fixed=tables.fixed, percent=tables.percent)
    env.globals.update(markdown_table=tables.markdown_table)
    return env


def dump_yaml(metadata: Mapping[str, Any]) -> str:
    """Deterministic YAML (key order kept, no aliases, unicode as is)."""

    class _NoAliasDumper(yaml.SafeDumper):
        def ignore_aliases(self, data: Any) -> bool:
            return True

    return yaml.dump(dict(metadata), Dumper=_NoAliasDumper, sort_keys=False, allow_unicode=True,
                     default_flow_style=False, width=100)


def render_card(template: Path, context: Mapping[str, Any], metadata: Mapping[str, Any]) -> str:
    """Render a card: ``---`` YAML ``metadata`` ``---`` then ``template`` rendered with ``context``.

    Args:
        template: jinja2 file holding the Markdown body only. Filters ``thousands``, ``fixed``,
            ``percent`` and the global ``markdown_table(headers, rows)`` are available;
            undefined variables raise.
        context: template variables.
        metadata: the YAML front matter, in the order to write it.

    Returns:
        The card text (``README.md`` content).
    """
    template = Path(template)
    body = _environment(template.parent).get_template(template.name).render(**context)
    return f"---\n{dump_yaml(metadata)}---\n\n{body.lstrip()}"


def split_card(text: str, *, source: str = CARD_FILE) -> tuple[dict[str, Any], str]:
    """Split card text into (YAML metadata, body). ``source`` names the file in errors."""
    if not text.startswith("---\n"):
        raise VerificationError(f"{source}: expected YAML front matter starting with '---' on line 1")
    end = text.find("\n---\n", 4)
    if end < 0:
        raise VerificationError(f"{source}: YAML front matter is not closed by a '---' line")
    try:
        metadata = yaml.safe_load(text[4:end]) or {}
    except yaml.YAMLError as error:
        raise VerificationError(f"{source}: YAML front matter does not parse: {error}") from error
    if not isinstance(metadata, dict):
        raise VerificationError(f"{source}: YAML front matter is a {type(metadata).__name__}, "
                                "expected a mapping")
    return metadata, text[end + 5:]


def read_card_metadata(folder: Path) -> dict[str, Any]:
    """The YAML front matter of ``folder/README.md``."""
    path = Path(folder) / CARD_FILE
    if not path.is_file():
        raise VerificationError(f"{path}: no dataset card (README.md) in the folder")
    return split_card(path.read_text(encoding="utf-8"), source=str(path))[0]
