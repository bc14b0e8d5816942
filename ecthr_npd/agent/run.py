"""The agent's part of ``courtbench predict ecthr_npd --prompt react``: options, resources,
audit side, and the per-case records and traces taken from the Inspect log.

::

    courtbench predict ecthr_npd --data DIR --out preds/agent.csv --base-url URL --model NAME
        --prompt react [--max-steps 12] [--top-k 5] [--knowledge-base KB_DIR]
        [--actions tools|json] [--min-prior-count 5] [--splits validation,test] [--limit N]

The run is the Inspect task of :mod:`ecthr_npd.inspect_task` with the agent solver
(:mod:`ecthr_npd.agent.solver`), through :func:`courtbench.inspect_glue.runner.run_task` like
every prompt kind (:mod:`ecthr_npd.prompting.run` writes the files). Besides the CSV, the
responses (one result per case) and the manifest, it writes ``NAME.traces.jsonl``
(:mod:`ecthr_npd.agent.traces`), derived from the Inspect log: each case's step records (kept
in the sample's store) then its case record.

Failed cases — no accepted ``final_predict`` within the steps (``budget``), a non-finite or
out-of-range number in an answer (``invalid_answer``), an answer or conversation over its
byte cap (``too_large``), a withheld value in an observation (``leakage``), the endpoint gave
no answer (``request_failed``) — are counted and listed; ``--fallback`` fills them. The leakage
gate reads the target's audit-side values from the folder's ``audit`` and ``applicants``
configs when present; they never enter a conversation.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from courtbench import option_checks
from courtbench.errors import CourtbenchError
from ecthr_npd import schema
from ecthr_npd.agent.actions import Resources
from ecthr_npd.agent.knowledge import KnowledgeBase
from ecthr_npd.agent.priors import DEFAULT_MIN_COUNT, EmpiricalPriors
from ecthr_npd.agent.protocol import MODES
from ecthr_npd.agent.references import RECORD_COLUMNS, TrainPool
from ecthr_npd.data import BenchmarkData

DEFAULT_MAX_STEPS = 12
DEFAULT_TOP_K = 5
#: Most model turns per case (--max-steps) and references per retrieval (--top-k).
MAX_AGENT_STEPS = 100
MAX_AGENT_TOP_K = 100
__all__ = ["RECORD_COLUMNS", "add_agent_arguments", "build_resources", "check_agent_options",
           "read_audit_side"]


def add_agent_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``--prompt react`` (added to ``courtbench predict ecthr_npd``)."""
    group = parser.add_argument_group("react agent (--prompt react)")
    group.add_argument("--max-steps", type=option_checks.count(
                           MAX_AGENT_STEPS, what="a number of turns"), default=DEFAULT_MAX_STEPS, metavar="N",
                       help=f"model turns per case, final_predict included (default "
                            f"{DEFAULT_MAX_STEPS})")
    group.add_argument("--top-k", type=option_checks.count(
                           MAX_AGENT_TOP_K, what="a number of references"), default=DEFAULT_TOP_K, metavar="K",
                       help=f"most training references per retrieval (default {DEFAULT_TOP_K})")
    group.add_argument("--knowledge-base", type=Path, metavar="DIR",
                       help="folder of Markdown modules with a YAML header (family, articles)")
    group.add_argument("--actions", choices=MODES, default="tools",
                       help="tools: tool calls (default); json: JSON action objects in plain "
                            "text, for endpoints without tool calling")
    group.add_argument("--min-prior-count", type=option_checks.ROWS, default=DEFAULT_MIN_COUNT, metavar="N",
                       help="fewest training cases of a prior cell before falling back "
                            f"(default {DEFAULT_MIN_COUNT})")


def check_agent_options(args: argparse.Namespace) -> None:
    """CourtbenchError naming an agent option below 1."""
    for option, value in (("--max-steps", args.max_steps), ("--top-k", args.top_k),
                          ("--min-prior-count", args.min_prior_count)):
        if value < 1:
            raise CourtbenchError(f"{option} {value}: expected an integer >= 1")


def _label_name(column: str, value: Any) -> Any:
    """A ClassLabel index of an audit column → its name (what a leak would spell out)."""
    spec = schema.COLUMN_BY_NAME.get(column)
    if spec is not None and spec.kind == "label" and isinstance(value, int) \
            and 0 <= value < len(spec.values):
        return spec.values[value]
    return value


def read_audit_side(folder: Path) -> tuple[dict[str, dict], dict[str, list[float]]]:
    """``case_id → audit values`` (``audit`` config) and ``case_id → applicant-level award
    amounts`` (``applicants`` config) of a built folder; empty when a config is absent."""
    audit: dict[str, dict] = {}
    for path in sorted((Path(folder) / "data" / "audit").glob("*.parquet")):
        for row in pq.read_table(path).to_pylist():
            case_id = row.pop(schema.ID_COLUMN)
            audit[case_id] = {name: _label_name(name, value) for name, value in row.items()}
    awards: dict[str, list[float]] = {}
    for path in sorted((Path(folder) / "data" / "applicants").glob("*.parquet")):
        table = pq.read_table(path)
        if "npd_award_eur" not in table.column_names:
            continue
        for case_id, amount in zip(table.column(schema.APPLICANT_KEY).to_pylist(),
                                   table.column("npd_award_eur").to_pylist(), strict=True):
            if isinstance(amount, (int, float)):
                awards.setdefault(case_id, []).append(float(amount))
    return audit, awards


def build_resources(data: BenchmarkData, *, top_k: int, min_count: int,
                    knowledge_base: Path | None) -> Resources:
    """Priors, knowledge base and reference pool of the ``train`` split."""
    train = data.splits["train"]
    priors = EmpiricalPriors(train, data.fingerprint, min_count)
    return Resources(priors, KnowledgeBase(priors, knowledge_base), TrainPool(train),
                     train.select(list(RECORD_COLUMNS)).to_pylist(), top_k)
