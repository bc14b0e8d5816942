"""The ``courtbench`` command line.

Subcommands live in :mod:`courtbench.commands`, one module each, and are discovered at
start-up; dataset-specific arguments come from the dataset plugins
(:mod:`courtbench.plugins`).
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from courtbench import __version__, commands
from courtbench.cli_parser import CourtbenchParser
from courtbench.errors import CourtbenchError, shorten_message


def build_parser() -> argparse.ArgumentParser:
    """Return the top-level parser with every discovered subcommand registered."""
    parser = CourtbenchParser(
        prog="courtbench",
        description=(
            "Build, verify, evaluate and publish court-decision benchmarks (one per installed "
            "dataset plugin) as Hugging Face dataset repositories and evaluate metric modules."
        ),
    )
    parser.add_argument("--version", action="version", version=f"courtbench {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{module_info.name}")
        module.register(subparsers)
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


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit code.

    0 success; 1 a user or environment error, printed as one line (``courtbench CMD: error:
    ...``); 2 a usage error (argparse); 130 interrupted by Ctrl-C; 143 terminated by SIGTERM.
    An interrupted or failed run leaves every output as it was before the run.
    """
    prefix = "courtbench"
    tolerate_any_output_encoding()
    try:
        with sigterm_raises():
            parser = build_parser()
            args = parser.parse_args(argv)
            if not getattr(args, "func", None):
                parser.print_help()
                return 2
            prefix = f"courtbench {args.command}"
            return int(args.func(args) or 0)
    except CourtbenchError as error:
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
        print(f"{prefix}: interrupted (Ctrl-C); outputs were left as they were before the run",
              file=sys.stderr)
        return 130
    except Terminated:
        print(f"{prefix}: terminated (SIGTERM); outputs were left as they were before the run",
              file=sys.stderr)
        return 143


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
