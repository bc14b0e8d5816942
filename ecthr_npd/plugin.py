"""The ECtHR-NPD dataset plugin (entry point ``courtbench.datasets: ecthr_npd``).

``courtbench build ecthr_npd --source case_level.csv [--applicants applicant_level.csv]
[--recompute] [--id-size N] --out DIR`` or ``courtbench build ecthr_npd --synthetic
[--n N --seed S --id-size N] --out DIR`` (``--id-size``: the ID view size to assign with
``--recompute``, else the size the locked ID view is verified against); ``courtbench verify DIR`` runs
:func:`ecthr_npd.audit.audit_folder`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from courtbench.errors import CourtbenchError
from courtbench.plugins import DatasetPlugin
from ecthr_npd.audit import audit_folder
from ecthr_npd.baselines.run import add_baseline_arguments, run_baselines
from ecthr_npd.build import build_folder, build_synthetic, format_report
from ecthr_npd.demo import run_demo
from ecthr_npd.evaluation import add_evaluate_arguments, evaluate
from ecthr_npd.leaderboard import leaderboard_protocol, leaderboard_records, rescore_report
from ecthr_npd.metric_example import run_metric_example
from ecthr_npd.prompting.run import add_predict_arguments, predict
from ecthr_npd.synthetic import DEFAULT_ROWS
from ecthr_npd.views import ID_SIZE

#: Fewest synthetic cases ecthr_npd.synthetic.generate accepts (one per split).
MIN_SYNTHETIC_ROWS = 3


def _split_sizes(text: str) -> tuple[int, int]:
    try:
        train, validation = (int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--split-sizes {text!r}: expected TRAIN,VALIDATION row counts such as 10217,1461"
        ) from None
    return train, validation


def add_build_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``courtbench build ecthr_npd`` options (``--out`` is added by the CLI)."""
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--source", type=Path, help="the release's case_level.csv")
    source.add_argument("--synthetic", action="store_true",
                        help="build the built-in SYNTHETIC stand-in instead of the release")
    parser.add_argument("--applicants", type=Path,
                        help="the release's applicant_level.csv (adds the 'applicants' config)")
    parser.add_argument("--recompute", action="store_true",
                        help="assign splits (70/10/20 by date, case_id) and views from scratch "
                             "instead of verifying and keeping the release's tags")
    parser.add_argument("--split-sizes", type=_split_sizes, metavar="TRAIN,VALIDATION",
                        help="with --recompute: explicit train and validation counts")
    parser.add_argument("--id-size", type=int, metavar="N",
                        help=f"size of the ID view (default {ID_SIZE:,}): with --recompute the "
                             "size to assign; otherwise the size the locked ID view must have "
                             "(not checked when the test split holds fewer than N cases); "
                             f"with --synthetic the stand-in's (default {ID_SIZE:,} scaled to "
                             "--n)")
    parser.add_argument("--n", type=int, default=DEFAULT_ROWS,
                        help=f"with --synthetic: number of cases (default {DEFAULT_ROWS:,})")
    parser.add_argument("--seed", type=int, default=0, help="with --synthetic: generator seed")


def build(args: argparse.Namespace) -> int:
    """Build the Hub folder ``args.out``; prints the build report; returns 0."""
    if args.id_size is not None and args.id_size < 1:
        raise CourtbenchError(f"--id-size {args.id_size}: expected at least 1")
    if args.synthetic:
        if args.applicants is not None or args.recompute or args.split_sizes is not None:
            raise CourtbenchError("--synthetic takes only --n, --seed and --id-size (its split "
                                  "and view tags are already assigned as --recompute does)")
        if args.n < MIN_SYNTHETIC_ROWS:
            raise CourtbenchError(f"--n {args.n}: expected at least {MIN_SYNTHETIC_ROWS} cases "
                                  "(every split and test view needs one; a few hundred give a "
                                  "meaningful stand-in)")
        result = build_synthetic(args.out, n=args.n, seed=args.seed, id_size=args.id_size)
    else:
        if args.split_sizes is not None and not args.recompute:
            raise CourtbenchError("--split-sizes needs --recompute")
        result = build_folder(args.out, args.source, applicants_path=args.applicants,
                              recompute=args.recompute,
                              id_size=ID_SIZE if args.id_size is None else args.id_size,
                              split_sizes=args.split_sizes)
    print(format_report(result))
    return 0


PLUGIN = DatasetPlugin(
    name="ecthr_npd",
    summary="ECtHR-NPD: non-pecuniary damage awards of the European Court of Human Rights",
    add_build_arguments=add_build_arguments,
    build=build,
    audit_folder=audit_folder,
    add_baseline_arguments=add_baseline_arguments,
    run_baselines=run_baselines,
    add_evaluate_arguments=add_evaluate_arguments,
    evaluate=evaluate,
    demo=run_demo,
    metric_example=run_metric_example,
    add_predict_arguments=add_predict_arguments,
    predict=predict,
    package="ecthr_npd",
    rescore_report=rescore_report,
    leaderboard_records=leaderboard_records,
    leaderboard_protocol=leaderboard_protocol,
    metric_modules=("npd_regression", "zero_f1", "bootstrap_mae"),
)
