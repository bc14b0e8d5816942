"""``courtbench metrics``: where the installed ``evaluate`` metric modules are.

    courtbench metrics list                 name, dataset and folder of every module
    courtbench metrics path NAME            the folder, for ``evaluate.load(<folder>)``
    courtbench metrics export NAME DIR      copy the folder to DIR/NAME (e.g. to edit it)

The folders are the repository's ``metrics/<name>/`` (package resources of an installed
courtbench), so ``evaluate.load`` of the printed path works from any working directory. An
export is assembled: files linked from the shared sources become real files, as in a Space.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from courtbench.errors import CourtbenchError
from courtbench.metric_modules import assemble_metric_folder, metric_dir, metric_owners


def _list(args: argparse.Namespace) -> int:
    for name, dataset in metric_owners().items():
        print(f"{name}\t{dataset}\t{metric_dir(name)}")
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
    assemble_metric_folder(source, target)
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
