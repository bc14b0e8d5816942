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

from courtbench import option_checks
from courtbench.errors import CourtbenchError
from courtbench.plugins import DatasetPlugin, deferred

#: Fewest synthetic cases ecthr_npd.synthetic.generate accepts (one per split).
MIN_SYNTHETIC_ROWS = 3


#: Most synthetic cases (--n): about seventy times the release's 14,575.
MAX_SYNTHETIC_ROWS = 1_000_000


def _split_sizes(text: str) -> tuple[int, int]:
    parts = text.split(",")
    try:
        if len(parts) != 2:
            raise argparse.ArgumentTypeError(f"got {len(parts)} value(s)")
        train, validation = (option_checks.ROWS(part) for part in parts)
    except argparse.ArgumentTypeError as error:
        raise argparse.ArgumentTypeError(
            f"--split-sizes {text!r}: expected TRAIN,VALIDATION row counts such as 10217,1461 "
            f"({error})") from None
    return train, validation


def add_build_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``courtbench build ecthr_npd`` options (``--out`` is added by the CLI)."""
    from ecthr_npd.defaults import DEFAULT_ROWS, ID_SIZE, SCREEN_MODES

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
    parser.add_argument("--id-size", type=option_checks.ROWS, metavar="N",
                        help=f"size of the ID view (default {ID_SIZE:,}): with --recompute the "
                             "size to assign; otherwise the size the locked ID view must have "
                             "(not checked when the test split holds fewer than N cases); "
                             f"with --synthetic the stand-in's (default {ID_SIZE:,} scaled to "
                             "--n)")
    parser.add_argument("--facts", type=Path, metavar="REVIEWED_FACTS_JSONL",
                        help="the reviewed Facts text, one JSON object per case (case_id, "
                             "facts_text, review_status, source_document_sha256, "
                             "source_anchor): adds the 'facts' configs")
    parser.add_argument("--facts-screen", choices=SCREEN_MODES, default="refuse",
                        help="what the text leakage screen does with award passages: refuse "
                             "(default: nothing is written; the findings go beside --out), "
                             "warn (write the text as it is) or mask (replace each passage); "
                             "the findings are listed in the folder")
    parser.add_argument("--n", type=option_checks.count(MAX_SYNTHETIC_ROWS,
                                                         what="a number of cases"),
                        default=DEFAULT_ROWS,
                        help=f"with --synthetic: number of cases (default {DEFAULT_ROWS:,})")
    parser.add_argument("--seed", type=option_checks.SEED, default=0,
                        help="with --synthetic: generator seed")


def build(args: argparse.Namespace) -> int:
    """Build the Hub folder ``args.out``; prints the build report; returns 0."""
    from ecthr_npd.build import build_folder, build_synthetic, format_report
    from ecthr_npd.defaults import ID_SIZE

    _check_build_arguments(args)
    if args.synthetic:
        result = build_synthetic(args.out, n=args.n, seed=args.seed, id_size=args.id_size)
    else:
        result = build_folder(args.out, args.source, applicants_path=args.applicants,
                              recompute=args.recompute,
                              id_size=ID_SIZE if args.id_size is None else args.id_size,
                              split_sizes=args.split_sizes, facts_path=args.facts,
                              facts_screen=args.facts_screen)
    print(format_report(result))
    return 0


def _check_build_arguments(args: argparse.Namespace) -> None:
    """Refuse (CourtbenchError) option combinations ``courtbench build ecthr_npd`` cannot
    honour, before anything starts."""
    if args.id_size is not None and args.id_size < 1:
        raise CourtbenchError(f"--id-size {args.id_size}: expected at least 1")
    if args.synthetic:
        if (args.applicants is not None or args.recompute or args.split_sizes is not None
                or args.facts is not None):
            raise CourtbenchError("--synthetic takes only --n, --seed and --id-size (its split "
                                  "and view tags are already assigned as --recompute does, and "
                                  "it brings its own SYNTHETIC facts)")
        if args.n < MIN_SYNTHETIC_ROWS:
            raise CourtbenchError(f"--n {args.n}: expected at least {MIN_SYNTHETIC_ROWS} cases "
                                  "(every split and test view needs one; a few hundred give a "
                                  "meaningful stand-in)")
    elif args.split_sizes is not None and not args.recompute:
        raise CourtbenchError("--split-sizes needs --recompute")


PLUGIN = DatasetPlugin(
    name="ecthr_npd",
    summary="ECtHR-NPD: non-pecuniary damage awards of the European Court of Human Rights",
    add_build_arguments=add_build_arguments,
    build=build,
    audit_folder=deferred("ecthr_npd.audit:audit_folder"),
    add_baseline_arguments=deferred("ecthr_npd.baselines.run:add_baseline_arguments"),
    run_baselines=deferred("ecthr_npd.baselines.run:run_baselines"),
    add_evaluate_arguments=deferred("ecthr_npd.evaluation:add_evaluate_arguments"),
    evaluate=deferred("ecthr_npd.evaluation:evaluate"),
    demo=deferred("ecthr_npd.demo:run_demo"),
    metric_example=deferred("ecthr_npd.metric_example:run_metric_example"),
    add_predict_arguments=deferred("ecthr_npd.prompting.run:add_predict_arguments"),
    predict=deferred("ecthr_npd.prompting.run:predict"),
    inspect_task=deferred("ecthr_npd.inspect_task:ecthr_npd"),
    add_train_arguments=deferred("ecthr_npd.training.run:add_train_arguments"),
    train=deferred("ecthr_npd.training.run:train"),
    package="ecthr_npd",
    rescore_report=deferred("ecthr_npd.leaderboard:rescore_report"),
    leaderboard_records=deferred("ecthr_npd.leaderboard:leaderboard_records"),
    leaderboard_protocol=deferred("ecthr_npd.leaderboard:leaderboard_protocol"),
    leaderboard_verifier=deferred("ecthr_npd.leaderboard:verifier_spec"),
    eval_results=deferred("ecthr_npd.hub_eval:hub_benchmark"),
    metric_modules=("npd_regression", "zero_f1", "bootstrap_mae"),
)
