"""``courtbench demo``: the whole pipeline on the synthetic stand-ins.

For every installed dataset plugin: build its synthetic stand-in into a Hub folder, verify
it, run every baseline, evaluate, and write the report; the main tables and paths are
printed. Then every dataset that ships metric modules scores a generated example prediction
set with them through ``evaluate.load`` (the plugin's ``metric_example`` hook),
deterministically from ``--seed``, writes the results as JSON under ``--out`` and prints a
compact summary.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from courtbench import option_checks
from courtbench.errors import CourtbenchError
from courtbench.plugins import load_plugins


def run(args: argparse.Namespace) -> int:
    plugins = load_plugins()
    chosen = args.datasets if args.datasets is not None else sorted(plugins)
    unknown = [name for name in chosen if name not in plugins or plugins[name].demo is None]
    if unknown:
        raise CourtbenchError(f"--datasets: no demo for {unknown}; available: "
                              f"{sorted(n for n, p in plugins.items() if p.demo)}")
    args.out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    for name in chosen:
        print(f"\n=== {name} ===\n", flush=True)
        print(plugins[name].demo(args.out, args.scale), flush=True)
    examples = [plugin.metric_example for plugin in plugins.values() if plugin.metric_example]
    if examples and not args.skip_metric_example:
        print("\n=== metric modules through evaluate.load ===\n", flush=True)
        for metric_example in examples:
            print(metric_example(args.out, args.seed), flush=True)
    print(f"\ncourtbench demo finished in {time.perf_counter() - start:.0f} s; "
          f"everything is under {args.out}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("demo", help="the whole pipeline on the synthetic stand-ins",
                                   description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("demo_out"),
                        help="output folder (default: demo_out)")
    parser.add_argument("--scale", type=option_checks.number(0.0, 1.0, low_open=True,
                                                                 what="a scale"), default=1.0,
                        help="size of the synthetic builds relative to the demo defaults, "
                             "in (0, 1] (default 1)")
    parser.add_argument("--datasets", nargs="*", metavar="NAME",
                        help="only these datasets (default: every installed plugin with a demo; "
                             "none when given without names)")
    parser.add_argument("--skip-metric-example", action="store_true",
                        help="skip the evaluate.load run of the metric modules")
    parser.add_argument("--seed", type=option_checks.SEED, default=0,
                        help="seed of the example prediction set (default: 0)")
    parser.set_defaults(func=run)
