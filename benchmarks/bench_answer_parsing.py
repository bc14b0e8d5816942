"""Answer parsing is linear in the answer's length: :func:`courtbench.inspect_glue.reasoning.split_reasoning`
and ``parse_award`` on adversarial answers (100 KB of unclosed ``<think>`` tags, 500 KB of
``{``, unterminated JSON strings, repeated keys and amounts).

Each input is timed at a small size and at the full size in the same process; the figure is
the ratio of the time per character (full over small). Linear parsing keeps it near 1; the
quadratic parsing of before gave hundreds (``split_reasoning`` 100 KB: 36 s, ``parse_award``
500 KB: 3.2 s, ``{`` x 500 KB: ~50 s). Target: every ratio <= 5.
"""

from __future__ import annotations

import time

from courtbench.inspect_glue.reasoning import split_reasoning
from ecthr_npd.prompting.parsing import parse_award

SMALL = 5_000


def _seconds(function, text: str, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        function(text)
        best = min(best, time.perf_counter() - started)
    return best


def _case(function, unit: str, size: int) -> dict:
    small = unit * max(1, SMALL // len(unit))
    full = unit * max(1, size // len(unit))
    small_s, full_s = _seconds(function, small, 5), _seconds(function, full)
    per_char = (full_s / len(full)) / (small_s / len(small)) if small_s > 0 else 0.0
    return {"chars": len(full), "seconds": full_s, "per_char_ratio_full_over_small": per_char}


CASES = {
    "split_reasoning_unclosed_think_100k": (split_reasoning, "<think>", 100_000),
    "split_reasoning_blocks_100k": (split_reasoning, "<think>a</think>b", 100_000),
    "parse_award_braces_500k": (parse_award, "{", 500_000),
    "parse_award_open_strings_500k": (parse_award, '{"a": "', 500_000),
    "parse_award_keys_500k": (parse_award, '{"award_eur": ', 500_000),
    "parse_award_amounts_500k": (parse_award, "EUR 12,000 and ", 500_000),
}


def main() -> dict:
    figures = {name: _case(function, unit, size) for name, (function, unit, size) in CASES.items()}
    figures["target_ratio_max"] = 5
    figures["worst_ratio"] = max(v["per_char_ratio_full_over_small"] for k, v in figures.items()
                                 if isinstance(v, dict))
    return figures


if __name__ == "__main__":
    import json

    print(json.dumps(main(), indent=2))
