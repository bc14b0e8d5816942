"""Start-up of the command line: ``courtbench --help`` and ``courtbench metrics list`` as
processes, against a bare interpreter start and against the old start-up that imported every
command module (``build_parser(every_command=True)``), in the same run.

Target (issue: start-up and scale): ``courtbench --help`` under 1 s.
"""

from __future__ import annotations

import subprocess
import sys

from benchmarks.timing import best_time


def _process(*code_or_args: str) -> float:
    return best_time(lambda: subprocess.run([sys.executable, *code_or_args],
                                            capture_output=True, check=True), repeat=3)


def main() -> dict:
    bare = _process("-c", "pass")
    help_s = _process("-m", "courtbench", "--help")
    metrics_list = _process("-m", "courtbench", "metrics", "list")
    every_command = _process("-c", "from courtbench.cli import build_parser; "
                                   "build_parser(every_command=True)")
    return {"bare_interpreter_s": bare, "help_s": help_s, "metrics_list_s": metrics_list,
            "all_commands_imported_s": every_command,
            "help_speedup_vs_all_commands": every_command / help_s,
            "target_help_s": 1.0, "help_meets_target": help_s < 1.0}
