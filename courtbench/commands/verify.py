"""``courtbench verify DIR``: check a built Hub folder offline, print sha256 per file."""

from __future__ import annotations

import argparse
from pathlib import Path

from courtbench.hub import verify_folder
from courtbench.plugins import plugin_for_folder


def run(args: argparse.Namespace) -> int:
    plugin = plugin_for_folder(args.folder)
    audit = plugin.audit_folder if plugin else None
    report = verify_folder(args.folder, audit=audit)
    print(f"{args.folder}: every config loads offline and matches its card"
          + (f"; {plugin.name} audit passed" if audit else "; no dataset audit (plugin unknown)"))
    for config, sizes in report.split_sizes.items():
        print(f"  {config}: " + ", ".join(f"{split} {n:,}" for split, n in sizes.items()))
    for entry in report.files:
        print(f"  {entry.sha256}  {entry.size:>12,}  {entry.path}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("verify", help="verify a built Hub folder offline",
                                   description=__doc__)
    parser.add_argument("folder", type=Path, metavar="DIR", help="a folder written by `courtbench build`")
    parser.set_defaults(func=run)
