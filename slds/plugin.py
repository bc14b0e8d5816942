"""The SLDS dataset plugin (entry point ``courtbench.datasets: slds``).

``courtbench build slds --source PATH [--format slds|wide|entscheidsuche] --out DIR`` or
``courtbench build slds --synthetic [--decisions N --seed S] --out DIR``; split years are
options (``--last-train-year``, ``--last-validation-year``, ``--last-test-year``).
``courtbench verify DIR`` runs :func:`slds.audit.audit_folder`; ``courtbench generate slds``
(:mod:`slds.generate`) and ``courtbench judge slds`` (:mod:`slds.judge`) run language models
through Inspect AI; ``inspect eval courtbench/slds`` runs the task of :mod:`slds.inspect_task`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from courtbench import option_checks
from courtbench.errors import CourtbenchError
from courtbench.plugins import DatasetPlugin, deferred
from slds.defaults import DEFAULT_SYNTHETIC_DECISIONS, SLDS_LICENSE, SOURCE_FORMATS

#: Fewest synthetic decisions that fill every split (see slds.synthetic.generate_wide_rows).
MIN_SYNTHETIC_DECISIONS = 7
#: Most synthetic decisions (--decisions): ten times the real collection's ~20,000.
MAX_SYNTHETIC_DECISIONS = 200_000
#: A split boundary year: the BGE volumes start in 1875.
YEAR = option_checks.integer(1875, 2200, what="a year")


def add_build_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``courtbench build slds`` options (``--out`` is added by the CLI)."""
    from courtbench.compat import available_cores
    from slds.splits import SplitBoundaries

    defaults = SplitBoundaries()
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--source", type=Path,
                        help="source file or folder (SLDS rows, wide rows, or entscheidsuche.ch "
                             "search responses)")
    source.add_argument("--synthetic", action="store_true",
                        help="build the built-in SYNTHETIC stand-in instead of a source")
    parser.add_argument("--format", choices=SOURCE_FORMATS, dest="source_format",
                        help="with --source: the source shape (guessed when omitted)")
    parser.add_argument("--decisions", type=option_checks.count(
                            MAX_SYNTHETIC_DECISIONS, what="a number of decisions"), default=DEFAULT_SYNTHETIC_DECISIONS,
                        help="with --synthetic: number of decisions, 3 rows each "
                             f"(default {DEFAULT_SYNTHETIC_DECISIONS:,})")
    parser.add_argument("--seed", type=option_checks.SEED, default=0,
                        help="with --synthetic: generator seed")
    parser.add_argument("--license", default=SLDS_LICENSE, dest="license_id",
                        help=f"with --source: the licence the source states "
                             f"(default {SLDS_LICENSE}, as SLDS)")
    parser.add_argument("--num-proc", type=option_checks.PARALLEL, default=None,
                        help="processes for the card's summarization properties (default: the "
                             f"available cores, here {available_cores()}); the result is the "
                             "same for any value")
    parser.add_argument("--last-train-year", type=YEAR, default=defaults.last_train_year)
    parser.add_argument("--last-validation-year", type=YEAR,
                        default=defaults.last_validation_year)
    parser.add_argument("--last-test-year", type=YEAR, default=defaults.last_test_year,
                        help="later years go to their own split test_<year>")


def build(args: argparse.Namespace) -> int:
    """Build the Hub folder ``args.out``; prints the build report; returns 0."""
    from slds.build import build_folder, build_synthetic, format_report
    from slds.splits import SplitBoundaries

    boundaries = SplitBoundaries(args.last_train_year, args.last_validation_year,
                                 args.last_test_year)
    if args.synthetic:
        if args.source_format is not None:
            raise CourtbenchError("--format applies to --source only")
        if args.decisions < MIN_SYNTHETIC_DECISIONS:
            raise CourtbenchError(f"--decisions {args.decisions}: expected at least "
                                  f"{MIN_SYNTHETIC_DECISIONS} (train plus 3 validation and 3 "
                                  "test decisions)")
        result = build_synthetic(args.out, decisions=args.decisions, seed=args.seed,
                                 boundaries=boundaries, num_proc=args.num_proc)
    else:
        result = build_folder(args.out, args.source, source_format=args.source_format,
                              boundaries=boundaries, license_id=args.license_id,
                              num_proc=args.num_proc)
    print(format_report(result))
    return 0


PLUGIN = DatasetPlugin(
    name="slds",
    summary="SLDS: Swiss landmark decisions → headnotes in de/fr/it (nine language pairs)",
    add_build_arguments=add_build_arguments,
    build=build,
    audit_folder=deferred("slds.audit:audit_folder"),
    add_baseline_arguments=deferred("slds.baselines.run:add_baseline_arguments"),
    run_baselines=deferred("slds.baselines.run:run_baselines"),
    add_evaluate_arguments=deferred("slds.evaluation:add_evaluate_arguments"),
    evaluate=deferred("slds.evaluation:evaluate"),
    add_generate_arguments=deferred("slds.generate:add_generate_arguments"),
    generate=deferred("slds.local_generation:generate"),
    add_judge_arguments=deferred("slds.judge:add_judge_arguments"),
    judge=deferred("slds.judge:judge"),
    inspect_task=deferred("slds.inspect_task:slds"),
    demo=deferred("slds.demo:run_demo"),
    add_train_arguments=deferred("slds.training.run:add_train_arguments"),
    train=deferred("slds.training.run:train"),
    package="slds",
    rescore_report=deferred("slds.leaderboard:rescore_report"),
    leaderboard_records=deferred("slds.leaderboard:leaderboard_records"),
    leaderboard_protocol=deferred("slds.leaderboard:leaderboard_protocol"),
    leaderboard_verifier=deferred("slds.leaderboard:verifier_spec"),
    eval_results=deferred("slds.hub_eval:hub_benchmark"),
    metric_modules=("summarization_properties", "headnote_similarity", "headnote_judge"),
)
