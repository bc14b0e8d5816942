"""The ``courtbench`` command line.

Subcommands live in :mod:`courtbench.commands`, one module each, and are discovered at
start-up; dataset-specific arguments come from the dataset plugins
(:mod:`courtbench.plugins`). Only the chosen command's module is imported (with what it
needs); the others are listed by name and one-line help read from their source, so
``courtbench --help`` and a light command start in a fraction of a second.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import pkgutil
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from courtbench import __version__, commands
from courtbench.boundary import BoundaryError
from courtbench.cli_parser import CourtbenchParser
from courtbench.errors import CourtbenchError, shorten_message


def command_names() -> list[str]:
    """Names of the subcommand modules in :mod:`courtbench.commands`, sorted."""
    return sorted(m.name for m in pkgutil.iter_modules(commands.__path__))


def command_help(name: str) -> str | None:
    """The ``help=`` text that command ``name`` registers, read from its source without
    importing it (None when it is not a plain string)."""
    spec = importlib.util.find_spec(f"{commands.__name__}.{name}")
    with open(spec.origin, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "add_parser"
                and node.args and isinstance(node.args[0], ast.Constant)
                and node.args[0].value == name):
            for keyword in node.keywords:
                if keyword.arg == "help" and isinstance(keyword.value, ast.Constant):
                    return keyword.value.value
    return None


def chosen_command(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` asks for (its first argument that is not an option)."""
    names = set(command_names())
    for argument in argv:
        if not argument.startswith("-"):
            return argument if argument in names else None
    return None


def build_parser(command: str | None = None, *, every_command: bool = False
                 ) -> argparse.ArgumentParser:
    """Return the top-level parser.

    Args:
        command: the subcommand whose module is imported and registered in full; every
            other subcommand is registered by name and help only.
        every_command: register every subcommand in full (tests, documentation).
    """
    parser = CourtbenchParser(
        prog="courtbench",
        description=(
            "Build, verify, evaluate and publish court-decision benchmarks (one per installed "
            "dataset plugin) as Hugging Face dataset repositories and evaluate metric modules."
        ),
    )
    parser.add_argument("--version", action="version", version=f"courtbench {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in command_names():
        if every_command or name == command:
            importlib.import_module(f"{commands.__name__}.{name}").register(subparsers)
        else:
            subparsers.add_parser(name, help=command_help(name), add_help=False)
    return parser


class Terminated(BaseException):
    """Raised in the main thread on SIGTERM, so that cleanup (``finally``, the atomic output
    folders' removal of their partial folder) runs as it does for Ctrl-C."""


@contextmanager
def sigterm_raises() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` instead of killing the process
    outright (only possible from the main thread; elsewhere nothing changes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def _raise(signum: int, frame: object) -> None:
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, _raise)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def tolerate_any_output_encoding() -> None:
    """Let stdout/stderr in a non-UTF-8 locale (``PYTHONIOENCODING=ascii``, a C locale) write
    what they cannot encode as escapes instead of raising UnicodeEncodeError after the work is
    done (a dash "–" in a table, an "ä" in a text)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        if reconfigure is not None and encoding != "utf8":
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a closed or detached stream: nothing to do
                pass


# What an interrupted run leaves, by command: model runs keep every answer already received
# (the response cache), training keeps its last complete checkpoint; the other commands
# publish their outputs only at the end.
_KEPT_ON_INTERRUPT = {
    "train": "the run folder keeps its last complete checkpoint: continue with --resume",
    "predict": "answers already received are kept: rerun the same command to send only the rest",
    "generate": "answers already received are kept: rerun the same command to send only the rest",
    "judge": "answers already received are kept: rerun the same command to send only the rest",
}


def interruption_note(prefix: str) -> str:
    """What an interrupted ``courtbench`` command (``prefix`` = "courtbench CMD") left behind."""
    command = prefix.removeprefix("courtbench").strip()
    return _KEPT_ON_INTERRUPT.get(command, "outputs were left as they were before the run")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit code.

    0 success; 1 a user or environment error, printed as one line (``courtbench CMD: error:
    ...``); 2 a usage error (argparse); 130 interrupted by Ctrl-C; 143 terminated by SIGTERM.
    A failed run leaves every output as it was before the run; an interrupted one says what it
    kept (:func:`interruption_note`).
    """
    prefix = "courtbench"
    tolerate_any_output_encoding()
    try:
        with sigterm_raises():
            argv = list(sys.argv[1:] if argv is None else argv)
            parser = build_parser(chosen_command(argv))
            args = parser.parse_args(argv)
            if not getattr(args, "func", None):
                parser.print_help()
                return 2
            prefix = f"courtbench {args.command}"
            return int(args.func(args) or 0)
    except (CourtbenchError, BoundaryError) as error:
        print(f"{prefix}: error: {shorten_message(str(error))}", file=sys.stderr)
        return 1
    except OSError as error:  # the environment, not a bug: a missing file, a full disk …
        print(f"{prefix}: error: {shorten_message(str(error))}", file=sys.stderr)
        return 1
    except ImportError as error:  # an optional extra that is not installed (--bertscore …)
        print(f"{prefix}: error: {shorten_message(str(error))} (an optional dependency is "
              "missing; install the extra the option needs)", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{prefix}: interrupted (Ctrl-C); {interruption_note(prefix)}", file=sys.stderr)
        return 130
    except Terminated:
        print(f"{prefix}: terminated (SIGTERM); {interruption_note(prefix)}", file=sys.stderr)
        return 143


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
