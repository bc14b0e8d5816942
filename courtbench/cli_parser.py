"""The argument parser every courtbench command uses.

- no abbreviations (``allow_abbrev=False``): ``--split`` never silently becomes ``--splits``;
- an unknown flag is one usage error naming it and, when one is close, the option meant
  (``--prediction: unknown option; did you mean --predictions?``), chosen with
  :func:`difflib.get_close_matches` over the options of the (sub-)command that got it;
- an option documented "with --X: …" given without --X is refused (one line, exit 1): it
  would be ignored;
- one flag name per concept across commands: an option registered under an old spelling of
  :data:`RENAMED_OPTIONS` is registered under the new one, and the old one still works with
  a one-line deprecation notice on stderr;
- a usage error (unknown flag, missing or bad value — a number outside its range included,
  see :mod:`courtbench.option_checks`) is one line on stderr, exit status 2, with no usage
  block burying it;
- ``--help`` shows the range every numeric option accepts;
- a description or epilog taken from a docstring is shown as plain text: the docstring's
  markup (double-backquoted code, Sphinx roles) is removed, not printed.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys

from courtbench.errors import CourtbenchError, shorten_message
from courtbench.option_checks import allowed_range

#: An option whose help starts "with --X:" only has an effect together with --X.
_ONLY_WITH = re.compile(r"^with (--[a-z][a-z0-9-]*)\b")

#: ``code`` in a docstring.
_LITERAL = re.compile(r"``(.+?)``", re.S)
#: A Sphinx cross-reference: ``:mod:`a.b```, ``:attr:`~a.b.c``` (``~``: the last name only).
_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`(~?)([^`<]*?)(?:\s*<([^`>]+)>)?`")

#: old spelling → the spelling used by every command.
RENAMED_OPTIONS = {"--split": "--splits", "--system": "--systems"}


class _DeprecatedSpelling(argparse.Action):
    """Stores like ``store`` (or ``append``) and prints a notice when the old spelling was
    used."""

    def __init__(self, option_strings, dest, *, old: str, new: str, append: bool = False,
                 **kwargs):
        super().__init__(option_strings, dest, **kwargs)
        self.old, self.new, self.append = old, new, append

    def __call__(self, parser, namespace, values, option_string=None):
        if option_string == self.old:
            print(f"courtbench: {self.old} is deprecated; use {self.new} (same meaning)",
                  file=sys.stderr)
        if self.append:
            values = [*(getattr(namespace, self.dest, None) or []), values]
        setattr(namespace, self.dest, values)


def _renamed(args: tuple[str, ...], kwargs: dict) -> tuple[tuple[str, ...], dict]:
    """``args``/``kwargs`` of ``add_argument`` with an old spelling moved behind the new one."""
    old = next((a for a in args if a in RENAMED_OPTIONS), None)
    action = kwargs.get("action")
    if old is None or RENAMED_OPTIONS[old] in args or action not in (None, "store", "append"):
        return args, kwargs
    new = RENAMED_OPTIONS[old]
    kwargs = {"dest": old.lstrip("-").replace("-", "_"), **kwargs,
              "action": _DeprecatedSpelling, "old": old, "new": new,
              "append": action == "append"}
    return (new, *(a for a in args if a != old), old), kwargs


def plain_text(text: str) -> str:
    """``text`` (a docstring) without its markup, as a terminal shows help: ````code```` →
    ``code``, ``:mod:`a.b``` → ``a.b``, ``:attr:`~a.b.c``` → ``c``; nothing else changes."""
    def _reference(match: re.Match) -> str:
        short, title, target = match.groups()
        name = (title or target or "").strip()
        return name.rsplit(".", 1)[-1] if short else name

    return _LITERAL.sub(r"\1", _ROLE.sub(_reference, text))


class CourtbenchParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` without abbreviations, with "did you mean" for unknown
    flags and renamed spellings (see the module docstring). Sub-parsers inherit the class."""

    def __init__(self, *args, **kwargs):
        kwargs["allow_abbrev"] = False
        for key in ("description", "epilog"):
            if isinstance(kwargs.get(key), str):
                kwargs[key] = plain_text(kwargs[key])
        super().__init__(*args, **kwargs)

    def add_argument(self, *args, **kwargs):
        args, kwargs = _renamed(args, kwargs)
        return super().add_argument(*args, **kwargs)

    def error(self, message: str):
        """A usage error as one line, ``PROG: error: MESSAGE; see PROG --help`` (exit 2)."""
        text = " ".join(str(message).splitlines())
        self.exit(2, f"{self.prog}: error: {shorten_message(text)}; see {self.prog} --help\n")

    def format_help(self) -> str:
        for action in self._actions:
            allowed = allowed_range(action)
            if allowed and action.help is not argparse.SUPPRESS \
                    and "(allowed: " not in (action.help or ""):
                note = f"(allowed: {allowed})".replace("%", "%%")
                action.help = f"{action.help} {note}" if action.help else note
        return super().format_help()

    def _known_options(self) -> list[str]:
        return sorted({o for action in self._actions for o in action.option_strings})

    def parse_known_args(self, args=None, namespace=None):
        if self._subparsers is None:  # a leaf command: every flag must be one of its own
            strings = list(sys.argv[1:] if args is None else args)
            strings = strings[:strings.index("--")] if "--" in strings else strings
            known = self._known_options()
            unknown = [s.split("=", 1)[0] for s in strings if s.startswith("--")
                       and s.split("=", 1)[0] not in known]
            if unknown:
                self.error(unknown_option_message(unknown[0], known))
            parsed = super().parse_known_args(args, namespace)  # bad values: usage errors first
            self._refuse_ignored_options({s.split("=", 1)[0] for s in strings})
            return parsed
        return super().parse_known_args(args, namespace)

    def _refuse_ignored_options(self, given: set[str]) -> None:
        """An option documented "with --X: …" given without --X would be ignored: refuse."""
        for action in self._actions:
            needed = _ONLY_WITH.match(action.help or "")
            used = given & set(action.option_strings)
            if needed and used and needed.group(1) not in given:
                raise CourtbenchError(f"{sorted(used)[0]}: only has an effect with "
                                      f"{needed.group(1)}, which was not given; it would be "
                                      "ignored (leave it out)")


def unknown_option_message(option: str, known: list[str]) -> str:
    """``--prediction: unknown option; did you mean --predictions?`` (or the known list)."""
    close = difflib.get_close_matches(option, known, n=1, cutoff=0.75)
    if close:
        return f"{option}: unknown option; did you mean {close[0]}?"
    return f"{option}: unknown option; this command takes {', '.join(known)}"
