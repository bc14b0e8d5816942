"""Run every benchmarks/bench_*.py (or those whose name contains one of the words given)
and write <name>.json with the figures each returns.

A plain run writes into benchmarks/out/ (git-ignored), so that trying a benchmark never
changes the tracked record. --update-results writes into benchmarks/results/ instead:
the figures the documentation's performance page shows, committed on purpose.

    python -m benchmarks                         # all, into benchmarks/out/
    python -m benchmarks ecthr_build llm         # those whose name contains a word
    python -m benchmarks --out /tmp/bench llm    # another folder
    python -m benchmarks --update-results llm    # refresh the tracked record
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import platform
import sys
from pathlib import Path

import benchmarks

HERE = Path(__file__).resolve().parent
RESULTS_DIR = HERE / "results"  # the tracked record (docs: performance page)
OUT_DIR = HERE / "out"  # a plain run's output, git-ignored


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", metavar="WORD",
                        help="run only the benchmarks whose name contains one of these words")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--out", type=Path, default=OUT_DIR,
                       help="folder of the <name>.json files (default: benchmarks/out/, "
                            "git-ignored)")
    where.add_argument("--update-results", action="store_true",
                       help="write into benchmarks/results/, the tracked record the "
                            "documentation shows")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    out_dir = RESULTS_DIR if args.update_results else args.out
    names = [m.name for m in pkgutil.iter_modules(benchmarks.__path__) if m.name.startswith("bench_")]
    if args.names:
        names = [n for n in names if any(a in n for a in args.names)]
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in sorted(names):
        print(f"== {name}", flush=True)
        figures = importlib.import_module(f"benchmarks.{name}").main()
        figures["_machine"] = {"python": platform.python_version(), "processor": platform.machine()}
        out = out_dir / f"{name.removeprefix('bench_')}.json"
        out.write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n")
        print(json.dumps(figures, indent=2, sort_keys=True))
        print(f"== wrote {out}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
