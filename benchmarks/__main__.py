"""Run every ``benchmarks/bench_*.py`` (or those named on the command line) and write
``benchmarks/results/<name>.json`` with the figures each returns."""

from __future__ import annotations

import importlib
import json
import pkgutil
import platform
import sys
from pathlib import Path

import benchmarks

RESULTS_DIR = Path(__file__).resolve().parent / "results"


def main(argv: list[str]) -> int:
    names = [m.name for m in pkgutil.iter_modules(benchmarks.__path__) if m.name.startswith("bench_")]
    if argv:
        names = [n for n in names if any(a in n for a in argv)]
    RESULTS_DIR.mkdir(exist_ok=True)
    for name in sorted(names):
        print(f"== {name}", flush=True)
        figures = importlib.import_module(f"benchmarks.{name}").main()
        figures["_machine"] = {"python": platform.python_version(), "processor": platform.machine()}
        out = RESULTS_DIR / f"{name.removeprefix('bench_')}.json"
        out.write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n")
        print(json.dumps(figures, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
