"""``courtbench predict ecthr_npd``: prompted award prediction (any model Inspect AI runs).

::

    courtbench predict ecthr_npd --data DIR --out preds/llm.csv --base-url URL --model NAME
        --prompt zero_shot|cot|few_shot|react [--input serialised|facts|both]
        [--max-input-words N] [--tokenizer PATH --max-input-tokens N]
        [--splits validation,test] [--k 5]
        [--temperature 0 --seed 42 --max-tokens 4096] [--fallback train_median|none]
        [--api-key-env VAR] [--concurrency 8] [--cache DIR] [--dry-run] [--overwrite]

The run is the Inspect task :func:`ecthr_npd.inspect_task.build_task` (the task ``inspect
eval courtbench/ecthr_npd`` runs), through :func:`courtbench.inspect_glue.runner.run_task`:
Inspect's providers, retries, concurrency and response cache (``--cache``, default
``NAME.inspect/cache`` beside ``--out``: a rerun sends nothing, a killed run sends only the
remainder) and its log (``--log-dir``, default ``NAME.inspect/logs``; ``inspect view``).
``--prompt react`` runs the agent of :mod:`ecthr_npd.agent` (its own options: ``--max-steps
--top-k --knowledge-base --actions``).

One chat request per case of ``--splits`` (default ``validation,test``, what
``courtbench evaluate ecthr_npd --splits validation,test`` scores): the case serialised from
the model-input config (:mod:`ecthr_npd.prompting.serialise`) in the ``--prompt`` template
(:mod:`ecthr_npd.prompting.prompts`), with ``few_shot`` references retrieved from ``train``
(:mod:`ecthr_npd.prompting.few_shot_retrieval`); answers are parsed by
:mod:`ecthr_npd.prompting.parsing` in the task's scorer.

``--input facts`` shows the case metadata, the violated articles, the macro covariates and
the reviewed Facts text of the folder's ``facts`` config instead of the serialised features
(:mod:`ecthr_npd.prompting.facts_input`; ``--max-input-words N`` cuts longer Facts at a
paragraph boundary and counts the cut cases; ``--tokenizer PATH --max-input-tokens N`` keeps
at most the first N tokens of the Facts text by the model's own tokenizer, cut at a token
boundary, and records the tokenizer's name and sha256, the budget and the cut cases);
``--input both`` runs both and writes
``NAME-serialised.csv`` and ``NAME-facts.csv`` (each with its responses and manifest). The
manifest records the input kind and the input length in words (mean, median, p95, max).

Failed cases are counted and listed (stdout and manifest): a request that could not be
completed, an answer without a finite, non-negative award, and an answer cut at
``--max-tokens`` (finish reason ``length``) before any JSON object, where only a figure from
unfinished reasoning could be read. ``--fallback train_median`` (the default) predicts the
training median for them; ``--fallback none`` leaves them out of the CSV. The run is
``complete`` (manifest) with exit status 0 only when the share of failed cases (request or
answer) is at most ``--max-failure-share`` (default 0) and every case is in the file; the
files are written either way (:mod:`ecthr_npd.prompting.outputs`). The manifest's
``llm_run`` records the failure and fallback shares, failures by kind and truncated answers.
``--limit N`` predicts the first N cases only.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from courtbench import __version__, option_checks
from courtbench.errors import CourtbenchError
from courtbench.extras import install_command
from courtbench.inspect_glue.tokens import load_model_tokenizer, tokenizer_fingerprint
from ecthr_npd.facts_report import facts_findings_notice
from ecthr_npd.prompting.facts_input import INPUT_KINDS, TokenBudget
from ecthr_npd.prompting.outputs import (
    OutputPaths,
    check_replaceable,
    jsonl,
    predictions_csv,
    write_outputs,
)
from ecthr_npd.prompting.parsing import parse_award
from ecthr_npd.prompting.prompts import PROMPT_KINDS, template_hashes
from ecthr_npd.prompting.samples import SPLITS as PREDICTABLE_SPLITS  # noqa: F401 - re-exported
from ecthr_npd.prompting.samples import parse_splits as _parse_splits
from ecthr_npd.versions import package_versions

DEFAULT_SPLITS = "validation,test"
FALLBACKS = ("train_median", "none")
DEFAULT_K = 5
#: Most few-shot references per prompt (--k).
MAX_REFERENCES = 100
DEFAULT_TEMPERATURE = 0.0
DEFAULT_SEED = 42
DEFAULT_MAX_TOKENS = 4096
MAX_LISTED = 20
REACT = "react"  # the agent's prompt kind: ecthr_npd.agent
TOKENIZER_INSTALL = (f"the embeddings extra: {install_command('embeddings')}, or only "
                     "pip install transformers")
REQUEST_FAILED = "request_failed"


def parse_splits(text: str) -> tuple[str, ...]:
    """``--splits`` → tuple in canonical order (validation, test); CourtbenchError otherwise."""
    try:
        return _parse_splits(text)
    except ValueError as error:
        raise CourtbenchError(f"--{error}") from None


def add_predict_arguments(parser: argparse.ArgumentParser) -> None:
    """``courtbench predict ecthr_npd`` options (``--data``, ``--out``, ``--overwrite`` and
    the model options come from the CLI)."""
    parser.add_argument("--prompt", choices=(*PROMPT_KINDS, REACT), required=True,
                        help="zero_shot: JSON answer only; cot: five reasoning steps, rationale, "
                             "JSON; few_shot: cot with retrieved earlier training references; "
                             "react: the tool-using agent (ecthr_npd.agent)")
    parser.add_argument("--input", choices=(*INPUT_KINDS, "both"), default="serialised",
                        dest="input_kind",
                        help="serialised: the case's features as text (default); facts: "
                             "metadata, violated articles, GDP and the reviewed Facts text of "
                             "the folder's facts config; both: one run each (NAME-serialised."
                             "csv, NAME-facts.csv)")
    parser.add_argument("--max-input-words", type=option_checks.LENGTH, default=None, metavar="N",
                        help="--input facts: cut longer Facts at a paragraph boundary (the cut "
                             "cases are counted and recorded)")
    parser.add_argument("--tokenizer", type=Path, metavar="PATH",
                        help="--input facts/both, with --max-input-tokens: the model's local "
                             "Hugging Face tokenizer folder (local files only; the embeddings "
                             "extra), to cut the Facts text by the model's own tokens")
    parser.add_argument("--max-input-tokens", type=option_checks.LENGTH, metavar="N",
                        help="with --tokenizer: keep the first N tokens of the Facts text, cut "
                             "at a token boundary (after --max-input-words, if given); the "
                             "manifest records the tokenizer, N and the cut cases")
    parser.add_argument("--splits", default=DEFAULT_SPLITS,
                        help=f"comma-separated splits to predict (default {DEFAULT_SPLITS}); "
                             "`courtbench evaluate ecthr_npd` scores whichever the file covers")
    parser.add_argument("--k", type=option_checks.count(
                            MAX_REFERENCES, what="a number of references"), default=DEFAULT_K,
                        help=f"few_shot: at most this many references (default {DEFAULT_K})")
    parser.add_argument("--temperature", type=option_checks.TEMPERATURE, default=DEFAULT_TEMPERATURE,
                        help=f"sampling temperature (default {DEFAULT_TEMPERATURE:g})")
    parser.add_argument("--seed", type=option_checks.SEED, default=DEFAULT_SEED,
                        help=f"sampling seed sent with every request (default {DEFAULT_SEED})")
    parser.add_argument("--max-tokens", type=option_checks.LENGTH, default=DEFAULT_MAX_TOKENS,
                        help=f"most output tokens per answer (default {DEFAULT_MAX_TOKENS})")
    parser.add_argument("--fallback", choices=FALLBACKS, default="train_median",
                        help="failed cases: predict the training median (default, reported) or "
                             "leave them out of the file (incomplete; exit status 1)")
    from ecthr_npd.agent.run import add_agent_arguments

    add_agent_arguments(parser)


def _check_arguments(args: argparse.Namespace) -> tuple[str, ...]:
    from courtbench.boundary import BoundaryError, check_number, check_seed

    if args.k < 1:
        raise CourtbenchError(f"--k {args.k}: expected an integer >= 1")
    if getattr(args, "max_input_words", None) is not None and args.max_input_words < 1:
        raise CourtbenchError(f"--max-input-words {args.max_input_words}: expected an integer "
                              ">= 1")
    if args.max_tokens < 1:
        raise CourtbenchError(f"--max-tokens {args.max_tokens}: expected an integer >= 1")
    try:
        check_number(args.temperature, "--temperature", low=0, high=100, what="a temperature")
        check_seed(getattr(args, "seed", DEFAULT_SEED), "--seed")
    except BoundaryError as error:
        raise CourtbenchError(str(error)) from None
    _check_token_options(args)
    if args.prompt == REACT:
        from ecthr_npd.agent.run import check_agent_options

        check_agent_options(args)
    return parse_splits(args.splits)


def _check_token_options(args: argparse.Namespace) -> None:
    """``--tokenizer`` and ``--max-input-tokens``: both or neither, N >= 1, a Facts input."""
    tokenizer, max_tokens = getattr(args, "tokenizer", None), getattr(args, "max_input_tokens", None)
    if (tokenizer is None) != (max_tokens is None):
        raise CourtbenchError("--tokenizer and --max-input-tokens go together: give both to cut "
                              "the Facts text by tokens, or neither")
    if max_tokens is None:
        return
    if max_tokens < 1:
        raise CourtbenchError(f"--max-input-tokens {max_tokens}: expected an integer >= 1")
    input_kind = getattr(args, "input_kind", "serialised")
    if input_kind == "serialised" or getattr(args, "prompt", None) == REACT:
        raise CourtbenchError(f"--max-input-tokens {max_tokens}: cuts the Facts text; expected "
                              f"--input facts or both (got --input {input_kind}"
                              + (", --prompt react)" if getattr(args, "prompt", None) == REACT
                                 else ")"))


def token_budget(args: argparse.Namespace) -> TokenBudget | None:
    """The ``--tokenizer`` / ``--max-input-tokens`` budget (None without them); the tokenizer
    is loaded here: CourtbenchError (one line) for a bad folder or without transformers."""
    if getattr(args, "tokenizer", None) is None:
        return None
    tokenizer = load_model_tokenizer(Path(args.tokenizer), install=TOKENIZER_INSTALL)
    return TokenBudget(tokenizer, int(args.max_input_tokens))


def generation_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The published settings sent with every request: temperature, seed, max_tokens."""
    return {"temperature": float(args.temperature), "seed": int(args.seed),
            "max_tokens": int(args.max_tokens)}


def _prediction(outcome, fallback: str, fallback_value: float,
                max_answer_chars: int | None = None) -> dict[str, Any]:
    """Status, prediction, source, reason and parse method of one sample."""
    size = len(outcome.answer or "") + len(outcome.reasoning or "")
    if max_answer_chars is not None and size > max_answer_chars:
        status = "too_large"
        reason = f"answer of {size:,} characters over --max-answer-chars {max_answer_chars:,}"
    elif outcome.error is not None or outcome.score is None:
        status, reason = REQUEST_FAILED, outcome.error or "the sample was not scored"
    else:
        data = outcome.score["metadata"]
        status, reason = data["status"], data["reason"]
        if status == "ok":
            return {"status": status, "reason": None, "prediction": data["prediction"],
                    "source": "model", "method": data["parse_method"]}
    filled = fallback == "train_median"
    return {"status": status, "reason": reason, "prediction": fallback_value if filled else None,
            "source": "fallback_train_median" if filled else None, "method": None}


def collect(outcomes: list, *, fallback: str, fallback_value: float,
            max_answer_chars: int | None = None
            ) -> tuple[list[tuple[str, float]], list[dict], list[dict], Counter]:
    """CSV rows, one responses record per case, the failures and the counts of a run (an
    answer longer than ``max_answer_chars`` is a failed case, ``too_large``)."""
    rows, records, failures = [], [], []
    counts: Counter = Counter()
    for outcome in outcomes:
        found = _prediction(outcome, fallback, fallback_value, max_answer_chars)
        split = outcome.metadata.get("split")
        counts[found["status"]] += 1
        if found["status"] == "ok":
            counts[f"parsed_{found['method']}"] += 1
        else:
            failures.append({"case_id": outcome.id, "split": split, "failure": found["status"],
                             "reason": found["reason"]})
            counts["filled"] += found["prediction"] is not None
        if found["prediction"] is not None:
            rows.append((outcome.id, found["prediction"]))
        parsed = parse_award(outcome.answer) if outcome.answer else None
        records.append({
            "case_id": outcome.id, "split": split, "status": found["status"],
            "prediction": found["prediction"], "prediction_source": found["source"],
            "parse_method": found["method"], "failure_reason": found["reason"],
            "answer": outcome.answer, "rationale": parsed.rationale if parsed else None,
            "reasoning": outcome.reasoning, "finish_reason": outcome.stop_reason,
            "usage": outcome.usage, "error": outcome.error,
            "references": outcome.metadata.get("references", [])})
    counts["written"] = len(rows)
    return rows, records, failures, counts


def input_record(input_kind: str, max_input_words: int | None, cases: list[dict[str, Any]],
                 budget: TokenBudget | None = None) -> dict[str, Any]:
    """The manifest's ``prompt.input``: kind, cut limit and count (cases cut by either
    budget), words per case block; with a token ``budget`` also ``max_input_tokens``,
    ``tokenizer`` (:func:`courtbench.inspect_glue.tokens.tokenizer_fingerprint`) and
    ``token_cut_cases``."""
    words = np.array([c.get("input_words", 0) for c in cases], dtype=np.float64)
    lengths = ({"mean": float(words.mean()), "median": float(np.median(words)),
                "p95": float(np.percentile(words, 95)), "max": float(words.max())}
               if words.size else {})
    record = {"kind": input_kind, "max_input_words": max_input_words,
              "cut_cases": sum(bool(c.get("cut")) for c in cases), "words": lengths}
    if budget is not None:
        record.update(max_input_tokens=budget.max_tokens,
                      tokenizer=tokenizer_fingerprint(budget.tokenizer.path),
                      token_cut_cases=sum(bool(c.get("cut_by_tokens")) for c in cases))
    return record


def _prompt_record(args: argparse.Namespace, input_info: dict[str, Any],
                   task_info: dict[str, Any]) -> dict[str, Any]:
    if args.prompt == REACT:
        return {"kind": REACT, "actions": args.actions, "max_steps": args.max_steps,
                "top_k": args.top_k, "reference_pool": "train",
                "min_prior_count": args.min_prior_count, "priors": task_info.get("priors"),
                "knowledge_base": task_info.get("knowledge_base")}
    prompt = {"kind": args.prompt, "templates": template_hashes(args.prompt), "input": input_info}
    if args.prompt == "few_shot":
        prompt.update(k=args.k, reference_pool="train",
                      selection="Appendix C.6: ranked similarity, k-1 positive + one zero")
    return prompt


def _manifest(args, data, splits, options, settings, result, counts: Counter,
              failures: list[dict], fallback_value: float, input_info: dict,
              task_info: dict) -> dict[str, Any]:
    """The run's manifest: what was run (data, model, prompt, settings) and what came of it
    (counts, ``llm_run``, failures, usage, versions)."""
    from courtbench.inspect_glue.manifest import run_record

    failed = sum(n for status, n in counts.items() if status not in ("ok", "filled", "written")
                 and not status.startswith("parsed_"))
    kinds = {status: n for status, n in counts.items() if status not in ("ok", "filled", "written")
             and not status.startswith("parsed_")}
    record = run_record(result.counts, options, failed=failed, filled=counts["filled"],
                        written=counts["written"], failures_by_kind=kinds,
                        log=result.log_path.name, interrupted=result.interrupted)
    n_cases = result.counts.samples
    return {
        "courtbench_version": __version__, "dataset": "ecthr_npd",
        "data": {"source": data.source, "fingerprint": data.fingerprint},
        "splits": list(splits), **options.record(),
        "prompt": _prompt_record(args, input_info, task_info),
        "parameters": {**settings, **({"stop": list(options.stop)} if options.stop else {}),
                       **({"extra_body": options.extra_body} if options.extra_body else {})},
        "parameters_dropped": options.dropped_parameters(),
        "fallback": {"policy": args.fallback, "train_median_eur": fallback_value},
        "counts": {"cases": n_cases, "sent": result.counts.sent, "cached": result.counts.cached,
                   "failed": failed, "request_failed": counts[REQUEST_FAILED],
                   "answer_failed": failed - counts[REQUEST_FAILED], "parsed": counts["ok"],
                   "parsed_by_method": {m.removeprefix("parsed_"): n
                                        for m, n in sorted(counts.items())
                                        if m.startswith("parsed_")},
                   "filled": counts["filled"], "written": counts["written"],
                   **({"final": counts["ok"], **kinds} if args.prompt == REACT else {})},
        "complete": record["complete"], "llm_run": record, "failures": failures,
        "usage": result.counts.usage, "inspect": result.eval_spec,
        "versions": {**package_versions(), "inspect_ai": _inspect_version()},
    }


def _inspect_version() -> str:
    from importlib.metadata import version

    return version("inspect_ai")


def predict(args: argparse.Namespace) -> int:
    """CLI entry of ``courtbench predict ecthr_npd`` (see the module docstring); ``--input
    both`` runs the serialised and the facts input one after the other."""
    from courtbench.inspect_glue import require_inspect

    require_inspect()
    input_kind = getattr(args, "input_kind", "serialised")
    if input_kind != "both":
        return _predict_one(args, input_kind, Path(args.out))
    status = 0
    for kind in INPUT_KINDS:
        out = Path(args.out).with_name(f"{Path(args.out).stem}-{kind}{Path(args.out).suffix}")
        status = max(status, _predict_one(args, kind, out))
    return status


def _announce_cuts(cases: list[dict[str, Any]], max_words: int | None,
                   budget: TokenBudget | None) -> None:
    """One stderr line per budget that cut any Facts text."""
    by_words = sum(bool(c.get("cut_by_words")) for c in cases)
    if by_words:
        print(f"--max-input-words {max_words}: the Facts of {by_words:,} case(s) were cut at a "
              "paragraph boundary", file=sys.stderr)
    by_tokens = sum(bool(c.get("cut_by_tokens")) for c in cases)
    if by_tokens:
        print(f"--max-input-tokens {budget.max_tokens}: the Facts of {by_tokens:,} case(s) were "
              f"cut at a token boundary of {budget.tokenizer.path.name}", file=sys.stderr)


def _dry_run(task, options, tools: list[str] | None = None, steps: int | None = None) -> int:
    """Print the first sample's messages (and the tools offered) and the count; send nothing."""
    from courtbench.inspect_glue.options import dumps

    samples = list(task.dataset)[:options.limit] if options.limit else list(task.dataset)
    if samples:
        first = {"model": options.inspect_model, "id": samples[0].id,
                 "messages": [{"role": m.role, "content": m.text} for m in samples[0].input]}
        if tools:
            first["tools"] = tools
        print(dumps(first))
    print(f"dry run: {len(samples):,} sample(s), model {options.inspect_model}; nothing sent")
    if steps:
        print(f"dry run: step 1 of up to {steps} per case shown")
    return 0


def _summary_lines(counts: Counter, failures: list[dict], result, fallback: str,
                   fallback_value: float) -> list[str]:
    methods = ", ".join(f"{m.removeprefix('parsed_')} {n:,}" for m, n in sorted(counts.items())
                        if m.startswith("parsed_"))
    lines = [f"  samples: {result.counts.samples:,} (requests sent {result.counts.sent:,}, from "
             f"cache {result.counts.cached:,}); tokens: "
             + ", ".join(f"{k} {v:,}" for k, v in sorted(result.counts.usage.items())),
             f"  accepted awards: {counts['ok']:,} ({methods or 'none'})"]
    if failures:
        action = (f"filled with the training median EUR {fallback_value:,.2f}"
                  if fallback == "train_median" else "left out of the file (--fallback none)")
        lines.append(f"  failed cases: {len(failures):,}, {action}:")
        lines += [f"    {f['case_id']} ({f['split']}, {f['failure']}): {f['reason']}"
                  for f in failures[:MAX_LISTED]]
        if len(failures) > MAX_LISTED:
            lines.append(f"    ... {len(failures) - MAX_LISTED:,} more in the manifest")
    return lines


def _report_run(paths: OutputPaths, manifest: dict[str, Any], lines: list[str],
                extra: str = "") -> int:
    """Print the run's summary and files; the exit status (0 only when complete and, for
    the agent, leakage-free)."""
    from courtbench.inspect_glue.manifest import summary_line

    for line in lines:
        print(line)
    counts = manifest["counts"]
    print(f"wrote {paths.predictions} ({counts['written']:,} of {counts['cases']:,} cases), "
          f"{extra}{paths.responses.name}, {paths.manifest.name}; Inspect log "
          f"{manifest['llm_run']['inspect_log']}")
    record = manifest["llm_run"]
    print(f"courtbench predict: {summary_line(record)}", file=sys.stderr)
    if manifest["complete"] and manifest.get("leakage_free", True):
        return 0
    reason = ("the leakage gate failed some cases (listed in the manifest)"
              if not manifest.get("leakage_free", True) else
              f"incomplete: {record['failed']:,} failed case(s) ({record['failure_share']:.1%} > "
              f"--max-failure-share {record['max_failure_share']:g}), "
              f"{counts['cases'] - counts['written']:,} without a prediction; a rerun with the "
              "same --cache sends only the failed requests")
    print(f"courtbench predict: {reason}", file=sys.stderr)
    return 1


def _react_files(paths: OutputPaths, result, fallback: str, fallback_value: float,
                 records: list[dict]) -> tuple[list[dict], list[dict]]:
    """Per-case records and trace lines of an agent run, from the Inspect log's samples."""
    from ecthr_npd.agent.solver import TRACE_KEY
    from ecthr_npd.agent.traces import case_record, trace_lines
    from ecthr_npd.prompting.scorer import AGENT_KEY

    cases, lines = [], []
    for outcome, record in zip(result.outcomes, records, strict=True):
        case = case_record(outcome.store.get(AGENT_KEY) or {}, case_id=outcome.id,
                           split=record["split"], prediction=record["prediction"],
                           source=record["prediction_source"], error=outcome.error)
        cases.append(case)
        lines += trace_lines(outcome.store.get(TRACE_KEY) or [], case)
    return cases, lines


def _prepare(args: argparse.Namespace, out: Path):
    """``(splits, output paths, model options)`` of a run, every check done before any work:
    options, outputs that may be replaced, and a ``--base-url`` that answers (one line,
    before the data load)."""
    from courtbench.inspect_glue.options import ModelOptions
    from courtbench.inspect_glue.runner import preflight
    from ecthr_npd.agent.traces import check_traces_replaceable

    splits = _check_arguments(args)
    paths = OutputPaths.for_out(out)
    options = ModelOptions.from_args(args, default_dir=out.with_name(out.stem + ".inspect"))
    check_replaceable(paths, overwrite=getattr(args, "overwrite", False),
                      inputs=[options.cache_dir, options.log_dir, args.data,
                              getattr(args, "knowledge_base", None)])
    if args.prompt == REACT:
        check_traces_replaceable(paths, overwrite=getattr(args, "overwrite", False))
    if options.base_url and not options.dry_run:
        preflight(options.base_url)
    return splits, paths, options


def _facts_notice(data_folder, input_kind: str) -> str | None:
    """The Facts screen's findings notice of ``data_folder`` (printed as a warning), or None
    when the run does not read the Facts or the screen found nothing."""
    notice = facts_findings_notice(data_folder) if input_kind == "facts" else None
    if notice:
        print(f"warning: {notice}", file=sys.stderr)
    return notice


def _task_for(args: argparse.Namespace, data, splits, input_kind: str, budget, limit):
    """The Inspect task of one ``predict`` run, built from its command-line options."""
    from ecthr_npd.inspect_task import build_task

    knowledge = getattr(args, "knowledge_base", None)
    return build_task(data, splits, prompt=args.prompt, input_kind=input_kind, k=args.k,
                      max_input_words=getattr(args, "max_input_words", None), budget=budget,
                      fallback=args.fallback, folder=Path(args.data), actions=args.actions,
                      max_steps=args.max_steps, top_k=args.top_k,
                      knowledge_base=str(knowledge) if knowledge else None,
                      min_prior_count=args.min_prior_count, limit=limit)


def _predict_one(args: argparse.Namespace, input_kind: str, out: Path) -> int:
    """One run of ``courtbench predict ecthr_npd`` with ``input_kind`` into ``out``."""
    from courtbench.inspect_glue.runner import run_task
    from ecthr_npd.agent.traces import write_traces
    from ecthr_npd.data import load_benchmark

    splits, paths, options = _prepare(args, out)
    react = args.prompt == REACT
    budget = token_budget(args) if input_kind == "facts" else None
    data = load_benchmark(args.data, facts=input_kind == "facts")
    notice = _facts_notice(args.data, input_kind)
    max_words = getattr(args, "max_input_words", None)
    task = _task_for(args, data, splits, input_kind, budget, options.limit)
    case_meta = [dict(sample.metadata or {}) for sample in task.dataset]
    input_info = input_record(input_kind, max_words, case_meta, budget)
    _announce_cuts(case_meta, max_words, budget)
    if options.dry_run:
        from ecthr_npd.agent.actions import ACTIONS

        tools = [a.name for a in ACTIONS] if react and args.actions == "tools" else None
        return _dry_run(task, options, tools, args.max_steps if react else None)
    fallback_value = float(np.median(data.target("train")))
    settings = generation_settings(args)
    print(f"ecthr_npd predict: {len(case_meta):,} cases ({', '.join(splits)}), prompt "
          f"{args.prompt}, input {input_kind}, model {options.inspect_model}", file=sys.stderr)
    result = run_task(task, options, options.generate_config(settings),
                      desc=f"ecthr_npd {args.prompt}")
    rows, records, failures, counts = collect(result.outcomes, fallback=args.fallback,
                                              fallback_value=fallback_value,
                                              max_answer_chars=options.max_answer_chars)
    manifest = _manifest(args, data, splits, options, settings, result, counts, failures,
                         fallback_value, input_info, dict(task.metadata or {}))
    manifest["facts_screen_notice"] = notice
    extra = ""
    if react:
        records, lines = _react_files(paths, result, args.fallback, fallback_value, records)
        manifest["leakage_free"] = not any(c["leakage_gate"] and c["leakage_gate"]["hits"]
                                           for c in records)
        manifest["traces"] = write_traces(paths, lines)
        extra = f"{Path(manifest['traces']['file']).name}, "
    write_outputs(paths, predictions=predictions_csv(rows), responses=jsonl(records),
                  manifest=manifest)
    return _report_run(paths, manifest, _summary_lines(counts, failures, result, args.fallback,
                                                       fallback_value), extra)
