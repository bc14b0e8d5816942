"""``courtbench publish``: send a built dataset folder to a Hub dataset repo, a metric to a Space.

    courtbench publish DIR --repo-id ORG/NAME [--private] [--revision BRANCH] [--dry-run]
    courtbench publish --all --org ORG --datasets-dir DIR [--metrics-dir DIR] [--dry-run]

Every folder is checked offline first (see :mod:`courtbench.publish.checks`); with ``--all``
all folders are checked before anything is sent, and one failure stops the whole run.
``--all`` publishes each ``<name>/`` folder of ``--datasets-dir`` (built beforehand with
``courtbench build NAME --out DIR/NAME``; every installed dataset plugin must have one) to
``ORG/<name>`` and every metric module the plugins ship (or every folder of ``--metrics-dir``)
to the Space ``ORG/<name>``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from huggingface_hub import HfApi

from courtbench.errors import CourtbenchError
from courtbench.metric_modules import metric_folders
from courtbench.plugins import load_plugins
from courtbench.publish import (
    DATASET,
    METRIC,
    PublishPlan,
    detect_kind,
    format_plan,
    make_plan,
    publish,
    resolve_token,
)


def _subfolders(parent: Path) -> list[Path]:
    """Non-hidden subfolders of ``parent`` (``__pycache__`` and ``.x`` left out), sorted."""
    if not parent.is_dir():
        raise CourtbenchError(f"{parent}: not a folder")
    return sorted(p for p in parent.iterdir()
                  if p.is_dir() and not p.name.startswith((".", "_")))


def all_targets(org: str, datasets_dir: Path,
                metrics_dir: Path | None = None) -> list[tuple[Path, str]]:
    """``(folder, repo_id)`` for every dataset folder and metric folder, datasets first.

    Metric folders are those of ``metrics_dir`` when given, else the installed plugins'.

    Raises:
        CourtbenchError: a subfolder of the wrong kind, or an installed dataset plugin
            without a built folder in ``datasets_dir``.
    """
    problems = []
    targets = []
    metric_parent = metrics_dir if metrics_dir is not None else Path("<installed metric modules>")
    for parent, kind in ((datasets_dir, DATASET), (metric_parent, METRIC)):
        folders = (list(metric_folders().values()) if kind == METRIC and metrics_dir is None
                   else _subfolders(parent))
        for folder in folders:
            try:
                found = detect_kind(folder)
            except CourtbenchError as error:
                problems.append(str(error))
                continue
            if found != kind:
                problems.append(f"{folder}: a {found} folder inside {parent}; expected a {kind} folder")
            else:
                targets.append((folder, f"{org}/{folder.name}"))
    built = {folder.name for folder, _ in targets}
    problems += [f"dataset {name!r} has no built folder {datasets_dir / name}; run "
                 f"`courtbench build {name} --out {datasets_dir / name}` first"
                 for name in load_plugins() if name not in built]
    if problems:
        raise CourtbenchError("publish --all: " + "; ".join(problems))
    return targets


def _plans(args: argparse.Namespace) -> list[PublishPlan]:
    if args.all:
        targets = all_targets(args.org, args.datasets_dir, args.metrics_dir)
    else:
        targets = [(args.folder, args.repo_id)]
    plans, refusals = [], []
    for folder, repo_id in targets:
        try:
            plans.append(make_plan(folder, repo_id, private=args.private, revision=args.revision,
                                   allow_unlicensed=args.allow_unlicensed))
        except CourtbenchError as error:
            refusals.append(str(error))
    if refusals:
        separator = "\n" if len(refusals) > 1 else " "  # one refusal: one line
        raise CourtbenchError("nothing was published:" + separator + "\n".join(refusals))
    return plans


def run(args: argparse.Namespace) -> int:
    plans = _plans(args)
    if args.dry_run:
        print(f"courtbench publish: dry run, {len(plans)} plan(s); nothing is sent")
        for plan in plans:
            print()
            print(format_plan(plan))
        return 0
    token = resolve_token()
    api = HfApi(token=token)
    for plan in plans:
        print(f"publishing {plan.folder} -> {plan.repo_id} ({plan.repo_type}, "
              f"{len(plan.files)} files, {plan.total_bytes:,} bytes)")
        result = publish(plan, api=api, token=token)
        print(f"  repo:   {result.repo_url}")
        print(f"  commit: {result.commit_id} {result.commit_url}")
        if result.deleted:
            print(f"  deleted stale remote files: {', '.join(result.deleted)}")
    return 0


def _check_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.all:
        if args.folder or args.repo_id:
            parser.error("--all publishes every folder: give no DIR and no --repo-id")
        if not args.org or not args.datasets_dir:
            parser.error("--all needs --org ORG and --datasets-dir DIR")
    else:
        if not args.folder or not args.repo_id:
            parser.error("give DIR and --repo-id ORG/NAME (or --all --org ORG --datasets-dir DIR)")
        if args.org or args.datasets_dir:
            parser.error("--org and --datasets-dir go with --all")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "publish", help="publish a dataset folder or metric module to the Hub",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path, nargs="?", metavar="DIR",
                        help="a dataset folder from `courtbench build`, or a metric folder "
                             "(`courtbench metrics path NAME`)")
    parser.add_argument("--repo-id", metavar="ORG/NAME", help="target repository (with DIR)")
    parser.add_argument("--all", action="store_true",
                        help="publish every dataset folder in --datasets-dir and every metric")
    parser.add_argument("--org", metavar="ORG", help="Hub user or organisation (with --all)")
    parser.add_argument("--datasets-dir", type=Path, metavar="DIR",
                        help="folder holding <name>/ dataset folders built by `courtbench build`")
    parser.add_argument("--metrics-dir", type=Path, default=None, metavar="DIR",
                        help="folder of metric modules (default: those the installed dataset "
                             "plugins ship; see `courtbench metrics list`)")
    parser.add_argument("--private", action="store_true",
                        help="create new repositories private (existing ones keep theirs)")
    parser.add_argument("--revision", metavar="BRANCH",
                        help="commit to this branch (created from main if missing)")
    parser.add_argument("--allow-unlicensed", action="store_true",
                        help="publish a dataset whose source grants no licence (card "
                             "license_name: no-license-granted); only for whoever holds the "
                             "right to share it")
    parser.add_argument("--dry-run", action="store_true",
                        help="check and print the plan; send nothing")

    def run_checked(args: argparse.Namespace) -> int:
        _check_arguments(parser, args)
        return run(args)

    parser.set_defaults(func=run_checked)
