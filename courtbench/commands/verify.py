"""``courtbench verify DIR``: check a built Hub folder offline, print sha256 per file."""

from __future__ import annotations

import argparse
from pathlib import Path

from courtbench.errors import CourtbenchError
from courtbench.hub import read_card_metadata, verify_folder
from courtbench.plugins import load_plugins


def _audit_of(folder: Path):
    """The plugin and audit of a built folder; CourtbenchError when the card names no dataset
    or its plugin is not installed (a verify without the dataset's audit is no verify)."""
    if not folder.is_dir():
        raise CourtbenchError(f"{folder}: {'not a folder' if folder.exists() else 'not found'}; "
                              "expected a folder written by `courtbench build`")
    name = read_card_metadata(folder).get("courtbench_dataset")
    if not name:
        raise CourtbenchError(f"{folder}: its card names no courtbench_dataset, so no dataset "
                              "audit can run; expected a folder written by `courtbench build`")
    plugins = load_plugins()
    plugin = plugins.get(name)
    if plugin is None:
        raise CourtbenchError(f"{folder}: built for dataset {name!r}, whose plugin is not "
                              f"installed (installed: {', '.join(sorted(plugins)) or 'none'}); "
                              "its audit cannot run, so the folder is not verified")
    return plugin, plugin.audit_folder


def run(args: argparse.Namespace) -> int:
    plugin, audit = _audit_of(args.folder)
    report = verify_folder(args.folder, audit=audit)
    print(f"{args.folder}: every config loads offline and matches its card"
          + (f"; {plugin.name} audit passed" if audit else f"; {plugin.name} has no audit"))
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
