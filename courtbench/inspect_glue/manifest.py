"""The ``llm_run`` block of a runner's manifest: what a run's truth is.

``complete`` is true only when the share of failed samples is within ``--max-failure-share``
and every sample has a prediction in the file; ``failure_share`` and ``fallback_share`` say how
much of the file is the model's. ``courtbench evaluate`` shows them and ``courtbench submit``
refuses an incomplete or fallback-filled run as an official record.
"""

from __future__ import annotations

from typing import Any

from courtbench.inspect_glue.options import ModelOptions
from courtbench.inspect_glue.outcomes import RunCounts


def share(part: int, total: int) -> float:
    """``part / total`` (0 for an empty run)."""
    return part / total if total else 0.0


def run_record(counts: RunCounts, options: ModelOptions, *, failed: int, filled: int,
               written: int, failures_by_kind: dict[str, int], log: str,
               interrupted: bool = False) -> dict[str, Any]:
    """The ``llm_run`` block: ``samples``, ``failed``, ``failure_share``,
    ``max_failure_share``, ``filled_with_fallback``, ``fallback_share``, ``written``,
    ``complete``, ``failures_by_kind``, ``truncated_answers`` (stop reason max_tokens),
    ``requests_sent`` / ``requests_cached``, ``limit``, ``header_names``, ``max_answer_chars``,
    ``inspect_log`` (file name)."""
    failure_share = share(failed, counts.samples)
    complete = (not interrupted and failure_share <= options.max_failure_share
                and written == counts.samples)
    return {"samples": counts.samples, "failed": failed, "failure_share": failure_share,
            "max_failure_share": options.max_failure_share, "filled_with_fallback": filled,
            "fallback_share": share(filled, counts.samples), "written": written,
            "complete": complete, "failures_by_kind": dict(sorted(failures_by_kind.items())),
            "truncated_answers": counts.truncated, "requests_sent": counts.sent,
            "requests_cached": counts.cached, "limit": options.limit,
            "header_names": [name for name, _ in options.headers],
            "max_answer_chars": options.max_answer_chars, "inspect_log": log}


def summary_line(record: dict[str, Any]) -> str:
    """One stderr line of a run's truth."""
    kinds = ", ".join(f"{k} {n:,}" for k, n in record["failures_by_kind"].items()) or "none"
    return (f"{record['failed']:,} of {record['samples']:,} failed ({record['failure_share']:.1%};"
            f" allowed {record['max_failure_share']:.1%}; by kind: {kinds}); "
            f"{record['fallback_share']:.1%} filled with the fallback; "
            f"{record['truncated_answers']:,} answer(s) cut at the token limit; requests sent "
            f"{record['requests_sent']:,}, from the cache {record['requests_cached']:,}")
