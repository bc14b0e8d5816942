"""``courtbench metrics``: where the installed ``evaluate`` metric modules are.

    courtbench metrics list                 name, dataset and folder of every module
    courtbench metrics path NAME            the folder, for ``evaluate.load(<folder>)``
    courtbench metrics export NAME DIR      copy the folder to DIR/NAME (e.g. to edit it)

The folders ship inside the installed dataset packages, so ``evaluate.load`` of the printed
path works from any working directory.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from courtbench.errors import CourtbenchError
from courtbench.metric_modules import metric_dir
from courtbench.plugins import load_plugins
from courtbench.resources import package_path


def _list(args: argparse.Namespace) -> int:
    for plugin in load_plugins().values():
        for name in plugin.metric_modules:
            print(f"{name}\t{plugin.name}\t{package_path(plugin.package, 'metrics', name)}")
    return 0


def _path(args: argparse.Namespace) -> int:
    print(metric_dir(args.name))
    return 0


def _export(args: argparse.Namespace) -> int:
    source = metric_dir(args.name)
    target = Path(args.dir) / args.name
    if target.exists():
        raise CourtbenchError(f"{target}: already exists; choose another DIR (nothing was "
                              "overwritten)")
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    print(target)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "metrics", help="list, locate or export the installed metric modules",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="metrics_command", metavar="ACTION", required=True)
    sub.add_parser("list", help="every metric module: name, dataset, folder").set_defaults(
        func=_list)
    path = sub.add_parser("path", help="print the folder of metric module NAME")
    path.add_argument("name", metavar="NAME")
    path.set_defaults(func=_path)
    export = sub.add_parser("export", help="copy metric module NAME into DIR/NAME")
    export.add_argument("name", metavar="NAME")
    export.add_argument("dir", type=Path, metavar="DIR")
    export.set_defaults(func=_export)
