"""The ``courtbench`` command line.

Subcommands live in :mod:`courtbench.commands`, one module each, and are discovered at
start-up; dataset-specific arguments come from the dataset plugins
(:mod:`courtbench.plugins`).
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from courtbench import __version__, commands
from courtbench.errors import CourtbenchError


def build_parser() -> argparse.ArgumentParser:
    """Return the top-level parser with every discovered subcommand registered."""
    parser = argparse.ArgumentParser(
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


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit code (0 success, 1 failure, 2 usage error)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except CourtbenchError as error:
        print(f"courtbench {args.command}: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
