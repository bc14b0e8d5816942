"""``courtbench predict ecthr_npd --prompt react``: the knowledge-augmented ReAct agent.

::

    courtbench predict ecthr_npd --data DIR --out preds/agent.csv --base-url URL --model NAME
        --prompt react [--max-steps 12] [--top-k 5] [--knowledge-base KB_DIR]
        [--actions tools|json] [--min-prior-count 5] [--splits validation,test]
        [--temperature 0 --seed 42 --max-tokens 4096] [--fallback train_median|none]
        [--concurrency 8] [--cache FILE] [--dry-run] [--overwrite]

One conversation per case of ``--splits`` (:mod:`ecthr_npd.agent.controller`), on the same
LLM client as the prompted runner. Outputs: ``NAME.csv`` (``case_id,prediction``, what
``courtbench evaluate ecthr_npd`` reads), ``NAME.responses.jsonl`` (one result per case),
``NAME.traces.jsonl`` (:mod:`ecthr_npd.agent.traces`) and ``NAME.csv.manifest.json``.

Failed cases — the endpoint gave no answer (``request_failed``), the step budget ran out
without an accepted ``final_predict`` (``budget``), the leakage gate found a withheld value
(``leakage``) — are counted and listed; ``--fallback`` fills them as the prompted runner does.
Exit status 1 when a request failed, a case is left out (``--fallback none``), or the leakage
gate found anything; else 0.

The leakage gate reads the target's audit-side values from the folder's ``audit`` and
``applicants`` configs (``data/audit/*.parquet``, ``data/applicants/*.parquet``) when present;
they never enter a conversation.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq

from courtbench import __version__, option_checks
from courtbench.errors import CourtbenchError
from courtbench.llm import (
    dry_run_text,
    endpoint_from_args,
    endpoint_host,
    manifest_endpoint,
    run_chat,
)
from ecthr_npd import schema
from ecthr_npd.agent.actions import CaseContext, Resources, tools
from ecthr_npd.agent.controller import (
    FINAL_STATUS,
    LEAKAGE,
    REQUEST_FAILED,
    Episode,
    run_episodes,
    step_requests,
)
from ecthr_npd.agent.knowledge import KnowledgeBase
from ecthr_npd.agent.leakage import LeakageScanner
from ecthr_npd.agent.priors import DEFAULT_MIN_COUNT, EmpiricalPriors
from ecthr_npd.agent.protocol import MODES, first_messages
from ecthr_npd.agent.references import TrainPool
from ecthr_npd.agent.traces import (
    case_record,
    check_traces_replaceable,
    trace_lines,
    traces_path,
    write_traces,
)
from ecthr_npd.data import BenchmarkData, load_benchmark
from ecthr_npd.prompting.outputs import (
    OutputPaths,
    check_replaceable,
    jsonl,
    predictions_csv,
    write_outputs,
)
from ecthr_npd.versions import package_versions

DEFAULT_MAX_STEPS = 12
DEFAULT_TOP_K = 5
#: Most model turns per case (--max-steps) and references per retrieval (--top-k).
MAX_AGENT_STEPS = 100
MAX_AGENT_TOP_K = 100
MAX_LISTED = 20
RECORD_COLUMNS = (schema.ID_COLUMN, *schema.INPUT_COLUMNS)


def add_agent_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``--prompt react`` (added to ``courtbench predict ecthr_npd``)."""
    group = parser.add_argument_group("react agent (--prompt react)")
    group.add_argument("--max-steps", type=option_checks.count(MAX_AGENT_STEPS, what="a number of turns"), default=DEFAULT_MAX_STEPS, metavar="N",
                       help=f"model turns per case, final_predict included (default "
                            f"{DEFAULT_MAX_STEPS})")
    group.add_argument("--top-k", type=option_checks.count(MAX_AGENT_TOP_K, what="a number of references"), default=DEFAULT_TOP_K, metavar="K",
                       help=f"most training references per retrieval (default {DEFAULT_TOP_K})")
    group.add_argument("--knowledge-base", type=Path, metavar="DIR",
                       help="folder of Markdown modules with a YAML header (family, articles)")
    group.add_argument("--actions", choices=MODES, default="tools",
                       help="tools: OpenAI tool calls (default); json: JSON action objects in "
                            "plain text, for endpoints without tool calling")
    group.add_argument("--min-prior-count", type=option_checks.ROWS, default=DEFAULT_MIN_COUNT, metavar="N",
                       help="fewest training cases of a prior cell before falling back "
                            f"(default {DEFAULT_MIN_COUNT})")


def _check(args: argparse.Namespace) -> None:
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


def _own_numbers(record: dict[str, Any]) -> set[float]:
    return {round(float(v), 2) for v in record.values()
            if isinstance(v, (int, float)) and not isinstance(v, bool)}


def build_episodes(data: BenchmarkData, splits: tuple[str, ...], resources: Resources, *,
                   mode: str, max_steps: int, audit: dict, applicant_awards: dict
                   ) -> list[tuple[str, Episode]]:
    """``(split, episode)`` per case of ``splits`` (split order, table order), each with its
    first messages and its leakage scanner. Only permitted columns of a case are read."""
    train_ids = frozenset(data.ids("train"))
    benign = frozenset(round(float(a), 2) for a in data.target("train")) \
        | resources.priors.benign_amounts()
    policy = [m for m in resources.knowledge.modules.values() if m.source == "policy"]
    episodes = []
    for split in splits:
        table = data.splits[split]
        records = table.select(list(RECORD_COLUMNS)).to_pylist()
        days = table.column("judgment_date").cast("int32").to_pylist()
        for record, award, day in zip(records, data.target(split), days, strict=True):
            case_id = record[schema.ID_COLUMN]
            scanner = LeakageScanner(float(award), audit.get(case_id, {}),
                                     applicant_awards.get(case_id, ()),
                                     benign | _own_numbers(record))
            context = CaseContext(case_id, split, record, day, resources, scanner,
                                  messages=first_messages(mode, policy, max_steps))
            episodes.append((split, Episode(context, max_steps, train_ids)))
    return episodes


def collect(episodes: list[tuple[str, Episode]], *, fallback: str, fallback_value: float
            ) -> tuple[list, list[dict], list[dict], list[dict], Counter]:
    """CSV rows, per-case records, trace lines, failures and status counts."""
    rows, cases, lines, failures = [], [], [], []
    counts: Counter = Counter()
    for split, episode in episodes:
        counts[episode.status] += 1
        prediction, source = None, None
        if episode.status == FINAL_STATUS:
            prediction, source = episode.final["award_eur"], "model"
        else:
            failures.append({"case_id": episode.context.case_id, "split": split,
                             "failure": episode.status, "reason": episode.failure,
                             "leakage_hits": episode.gate["hits"] if episode.gate else []})
            if fallback == "train_median":
                prediction, source = fallback_value, "fallback_train_median"
                counts["filled"] += 1
        if prediction is not None:
            rows.append((episode.context.case_id, prediction))
        case = case_record(episode, split=split, prediction=prediction, source=source)
        cases.append(case)
        lines += trace_lines(episode, case)
    counts["written"] = len(rows)
    return rows, cases, lines, failures, counts


def _usage(cases: list[dict]) -> dict[str, int]:
    return {k: sum(c["usage"][k] for c in cases)
            for k in ("prompt_tokens", "completion_tokens", "total_tokens")}


def _manifest(args: argparse.Namespace, data: BenchmarkData, splits, config, params,
              resources: Resources, sent: Counter, counts: Counter, failures, cases,
              fallback_value: float) -> dict[str, Any]:
    params = {k: v for k, v in params.items() if k not in ("tools", "tool_choice")}
    leak_free = counts[LEAKAGE] == 0 and not any(f["leakage_hits"] for f in failures)
    return {
        "courtbench_version": __version__, "dataset": "ecthr_npd",
        "data": {"source": data.source, "fingerprint": data.fingerprint},
        "splits": list(splits), **manifest_endpoint(config),
        "prompt": {"kind": "react", "actions": args.actions, "max_steps": args.max_steps,
                   "top_k": args.top_k, "reference_pool": "train",
                   "min_prior_count": args.min_prior_count,
                   "priors": resources.priors.binding(),
                   "knowledge_base": resources.knowledge.manifest()},
        "parameters": params,
        "fallback": {"policy": args.fallback, "train_median_eur": fallback_value},
        "counts": {"cases": len(cases), "requests": sent["requests"], "sent": sent["sent"],
                   "cached": sent["cached"], "attempts": sent["attempts"],
                   "request_failed": counts[REQUEST_FAILED], "budget": counts["budget"],
                   "leakage": counts[LEAKAGE], "final": counts[FINAL_STATUS],
                   "filled": counts["filled"], "written": counts["written"]},
        "complete": sent["failed"] == 0 and counts["written"] == len(cases),
        "leakage_free": leak_free, "failures": failures, "usage": _usage(cases),
        "versions": package_versions(),
    }


def _report(paths: OutputPaths, manifest: dict, failures: list[dict]) -> None:
    counts = manifest["counts"]
    print(f"  cases: {counts['cases']:,}; requests {counts['requests']:,} (sent "
          f"{counts['sent']:,}, from cache {counts['cached']:,}); final_predict "
          f"{counts['final']:,}; tokens: " + ", ".join(
              f"{k} {v:,}" for k, v in sorted(manifest["usage"].items())))
    if failures:
        print(f"  failed cases: {len(failures):,} (request {counts['request_failed']:,}, "
              f"budget {counts['budget']:,}, leakage {counts['leakage']:,}), fallback "
              f"{manifest['fallback']['policy']}:")
        for failure in failures[:MAX_LISTED]:
            print(f"    {failure['case_id']} ({failure['split']}, {failure['failure']}): "
                  f"{failure['reason']}")
        if len(failures) > MAX_LISTED:
            print(f"    ... {len(failures) - MAX_LISTED:,} more in the manifest")
    print(f"wrote {paths.predictions} ({counts['written']:,} of {counts['cases']:,} cases), "
          f"{traces_path(paths).name}, {paths.responses.name}, {paths.manifest.name}")


def predict_react(args: argparse.Namespace, splits: tuple[str, ...], params: dict) -> int:
    """``courtbench predict ecthr_npd --prompt react`` (see the module docstring)."""
    _check(args)
    paths = OutputPaths.for_out(args.out)
    config = endpoint_from_args(args, default_cache=paths.default_cache)
    overwrite = getattr(args, "overwrite", False)
    check_replaceable(paths, overwrite=overwrite,
                      inputs=[config.cache_path, args.data, args.knowledge_base])
    check_traces_replaceable(paths, overwrite=overwrite)
    data = load_benchmark(args.data)
    resources = build_resources(data, top_k=args.top_k, min_count=args.min_prior_count,
                                knowledge_base=args.knowledge_base)
    audit, applicant_awards = read_audit_side(args.data)
    episodes = build_episodes(data, splits, resources, mode=args.actions,
                              max_steps=args.max_steps, audit=audit,
                              applicant_awards=applicant_awards)
    if args.actions == "tools":
        params = {**params, "tools": tools(), "tool_choice": "auto"}
    if getattr(args, "dry_run", False):
        print(dry_run_text(step_requests([e for _, e in episodes], 0, params), config))
        print(f"dry run: step 1 of up to {args.max_steps} per case shown")
        return 0
    print(f"ecthr_npd predict: {len(episodes):,} cases, prompt react ({args.actions}, "
          f"<= {args.max_steps} steps), model {config.model} at "
          f"{endpoint_host(config.base_url)}", file=sys.stderr)
    sent = run_episodes([e for _, e in episodes], params, lambda requests, step: run_chat(
        requests, config, desc=f"ecthr_npd react step {step + 1}"))
    fallback_value = float(np.median(data.target("train")))
    rows, cases, lines, failures, counts = collect(episodes, fallback=args.fallback,
                                                   fallback_value=fallback_value)
    manifest = _manifest(args, data, splits, config, params, resources, sent, counts,
                         failures, cases, fallback_value)
    manifest["traces"] = write_traces(paths, lines)
    write_outputs(paths, predictions=predictions_csv(rows), responses=jsonl(cases),
                  manifest=manifest)
    _report(paths, manifest, failures)
    if manifest["complete"] and manifest["leakage_free"]:
        return 0
    print("courtbench predict: " + ("the leakage gate failed some cases (listed in the "
          "manifest)" if not manifest["leakage_free"] else "incomplete: some requests failed "
          "(rerun with the same --cache to send only those)" if sent["failed"] else
          "some cases have no prediction (--fallback none)"), file=sys.stderr)
    return 1
