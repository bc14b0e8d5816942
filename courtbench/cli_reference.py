"""The command-line reference as Markdown, written from the parsers themselves.

The documentation site's CLI page is this module's output for
``courtbench.cli.build_parser(every_command=True)``: every command, every sub-command (one
per dataset plugin, or ``metrics list`` …), every option with its help, default, choices and
the range it accepts (:func:`courtbench.option_checks.allowed_range`). Nothing is written by
hand, so the page cannot drift from ``--help``.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator

from courtbench.cli_parser import RENAMED_OPTIONS
from courtbench.option_checks import allowed_range

#: Width of the usage lines on the page (a terminal's width must not change the page).
USAGE_WIDTH = 88


def commands(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()
             ) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """``(words, parser)`` of ``parser`` and of every sub-parser below it, depth first, in
    the order the sub-commands were registered; ``words`` are the sub-command names that
    lead there (``()`` for ``parser`` itself)."""
    yield words, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            seen: set[int] = set()
            for name, sub in action.choices.items():
                if id(sub) not in seen:  # an alias names the same parser again
                    seen.add(id(sub))
                    yield from commands(sub, (*words, name))


def usage(parser: argparse.ArgumentParser) -> str:
    """``parser``'s usage line(s), wrapped at :data:`USAGE_WIDTH` whatever the terminal."""
    formatter = argparse.HelpFormatter(prog=parser.prog, width=USAGE_WIDTH)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help().strip()


def _escaped(text: str) -> str:
    """``text`` as literal Markdown prose (in a table cell too): nothing it holds becomes
    markup, an HTML tag or a cell boundary; balanced backquotes stay code, as they mean in
    help text (`courtbench build`)."""
    pieces = re.split(r"(`[^`\n]+`)", text) if text.count("`") % 2 == 0 else [text]
    return "".join(piece if len(piece) > 2 and piece[0] == piece[-1] == "`"
                   else _literal(piece) for piece in pieces)


def _literal(text: str) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return re.sub(r"([\\`*_\[\]|])", r"\\\1", text)


def description_markdown(text: str | None) -> str:
    """A parser's description: prose paragraphs escaped and joined, indented paragraphs
    (command examples) as literal text blocks."""
    blocks = []
    for paragraph in re.split(r"\n\s*\n", (text or "").strip("\n")):
        lines = paragraph.splitlines()
        if lines and all(line.startswith("    ") for line in lines):
            blocks.append("```text\n" + "\n".join(line[4:] for line in lines) + "\n```")
        elif paragraph.strip():
            blocks.append(_escaped(" ".join(line.strip() for line in lines)))
    return "\n\n".join(blocks)


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """The option's help with argparse's ``%(default)s`` placeholders filled in."""
    if not action.help:
        return ""
    return parser._get_formatter()._expand_help(action)


def _names(action: argparse.Action) -> str:
    if not action.option_strings:
        return f"`{action.metavar or action.dest}`"
    names = [f"`{name}`" for name in action.option_strings if name not in RENAMED_OPTIONS]
    old = [f"`{name}` (deprecated)" for name in action.option_strings if name in RENAMED_OPTIONS]
    return ", ".join(names + old)


def _value(action: argparse.Action) -> str:
    if action.nargs == 0:
        return ""
    if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
        return " \\| ".join(f"`{choice}`" for choice in action.choices)
    metavar = action.metavar if action.metavar is not None else (
        action.dest.upper() if action.option_strings else action.dest)
    shown = " ".join(metavar) if isinstance(metavar, tuple) else str(metavar)
    many = {"*": " …", "+": " …", "?": ""}.get(action.nargs, "")
    return f"`{shown}`{many}"


def _default(action: argparse.Action) -> str:
    default = action.default
    if action.required or default is None or default is argparse.SUPPRESS or action.nargs == 0:
        return "required" if action.required and action.option_strings else ""
    if isinstance(default, (list, tuple)):
        default = ",".join(str(item) for item in default)
    return f"`{default}`"


def options_table(parser: argparse.ArgumentParser) -> str:
    """One row per argument of ``parser`` (help and sub-command choices left out): names,
    value, default, accepted range and help."""
    rows = ["| argument | value | default | allowed | help |", "|---|---|---|---|---|"]
    for action in parser._actions:
        if action.help is argparse.SUPPRESS or isinstance(
                action, (argparse._HelpAction, argparse._VersionAction,
                         argparse._SubParsersAction)):
            continue
        allowed = allowed_range(action)
        rows.append(f"| {_names(action)} | {_value(action)} | {_default(action)} | "
                    f"{_escaped(allowed) if allowed else ''} | "
                    f"{_escaped(' '.join(_help(parser, action).split()))} |")
    return "\n".join(rows) if len(rows) > 2 else ""


def _subcommand_list(parser: argparse.ArgumentParser) -> str:
    """A bullet per sub-command with its one-line help (linked to its section)."""
    lines = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                anchor = _anchor(f"{parser.prog} {choice.dest}")
                lines.append(f"- [`{choice.dest}`](#{anchor}): {_escaped(choice.help or '')}")
    return "\n".join(lines)


def _anchor(title: str) -> str:
    """The heading id the page gives ``title`` (set explicitly: stable across renderers)."""
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def command_section(words: tuple[str, ...], parser: argparse.ArgumentParser) -> str:
    """The Markdown section of one (sub-)command: heading, description, usage, options."""
    level = "#" * min(2 + max(len(words) - 1, 0), 4)
    title = parser.prog
    parts = [f"{level} `{title}` {{#{_anchor(title)}}}"]
    description = description_markdown(parser.description)
    if description:
        parts.append(description)
    parts.append("```text\n" + usage(parser) + "\n```")
    for piece in (options_table(parser), _subcommand_list(parser)):
        if piece:
            parts.append(piece)
    return "\n\n".join(parts)


def reference_markdown(parser: argparse.ArgumentParser) -> str:
    """The whole reference: the top-level command's list, then every command below it."""
    sections = [command_section(words, sub) for words, sub in commands(parser) if words]
    return "\n\n".join([_subcommand_list(parser), *sections]) + "\n"
