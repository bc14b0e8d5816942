"""``courtbench predict ecthr_npd``: prompted award prediction over an OpenAI-compatible endpoint.

::

    courtbench predict ecthr_npd --data DIR --out preds/llm.csv --base-url URL --model NAME
        --prompt zero_shot|cot|few_shot|react [--input serialised|facts|both]
        [--max-input-words N] [--tokenizer PATH --max-input-tokens N]
        [--splits validation,test] [--k 5]
        [--temperature 0 --seed 42 --max-tokens 4096] [--fallback train_median|none]
        [--api-key-env VAR] [--concurrency 8] [--cache FILE] [--dry-run] [--overwrite]

``--cache`` defaults to ``NAME.cache.sqlite`` beside ``--out``: a rerun sends nothing, a
killed or failed run resumes with the remainder. ``--prompt react`` runs the agent of
:mod:`ecthr_npd.agent` (its own options: ``--max-steps --top-k --knowledge-base --actions``).

One chat request per case of ``--splits`` (default ``validation,test``, what
``courtbench evaluate ecthr_npd --splits validation,test`` scores): the case serialised from
the model-input config (:mod:`ecthr_npd.prompting.serialise`) in the ``--prompt`` template
(:mod:`ecthr_npd.prompting.prompts`), with ``few_shot`` references retrieved from ``train``
(:mod:`ecthr_npd.prompting.few_shot_retrieval`). Requests go through :mod:`courtbench.llm` (cache,
retries, bounded concurrency); answers are parsed by :mod:`ecthr_npd.prompting.parsing`.

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
from courtbench.llm import (
    ChatRequest,
    decoding_from_args,
    dry_run_text,
    endpoint_from_args,
    endpoint_host,
    manifest_endpoint,
    run_chat,
    run_record,
    run_summary_line,
)
from courtbench.llm.core import ResponseCache
from courtbench.llm.tokens import load_model_tokenizer, tokenizer_fingerprint
from ecthr_npd.data import BenchmarkData, load_benchmark
from ecthr_npd.facts import word_count
from ecthr_npd.facts_report import facts_findings_notice
from ecthr_npd.prompting.facts_input import INPUT_KINDS, FactsCut, TokenBudget, facts_block
from ecthr_npd.prompting.few_shot_retrieval import ReferenceIndex
from ecthr_npd.prompting.outputs import (
    OutputPaths,
    check_replaceable,
    jsonl,
    predictions_csv,
    write_outputs,
)
from ecthr_npd.prompting.parsing import parse_award
from ecthr_npd.prompting.prompts import (
    PROMPT_KINDS,
    ReferenceCase,
    render_messages,
    template_hashes,
)
from ecthr_npd.prompting.serialise import case_records, serialise_case
from ecthr_npd.versions import package_versions

PREDICTABLE_SPLITS = ("validation", "test")
DEFAULT_SPLITS = "validation,test"
FALLBACKS = ("train_median", "none")
DEFAULT_K = 5
#: Most few-shot references per prompt (--k).
MAX_REFERENCES = 100
DEFAULT_TEMPERATURE = 0.0
DEFAULT_SEED = 42
DEFAULT_MAX_TOKENS = 4096
MAX_LISTED = 20
REACT = "react"  # the agent's prompt kind: ecthr_npd.agent.run
TOKENIZER_INSTALL = ("the embeddings extra: pip install 'courtbench[embeddings]', or only "
                     "pip install transformers")


def parse_splits(text: str) -> tuple[str, ...]:
    """``--splits`` → tuple in canonical order (validation, test); CourtbenchError otherwise."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [n for n in names if n not in PREDICTABLE_SPLITS]
    if unknown or not names:
        raise CourtbenchError(f"--splits {text!r}: expected a comma-separated subset of "
                              f"{', '.join(PREDICTABLE_SPLITS)} (train is the reference pool)")
    return tuple(s for s in PREDICTABLE_SPLITS if s in names)


def add_predict_arguments(parser: argparse.ArgumentParser) -> None:
    """``courtbench predict ecthr_npd`` options (``--data``, ``--out``, ``--overwrite`` and
    the endpoint options come from the CLI)."""
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
                             "Hugging Face tokenizer folder (read with transformers, local "
                             "files only; the embeddings extra), to cut the Facts text by the "
                             "model's own tokens")
    parser.add_argument("--max-input-tokens", type=option_checks.LENGTH, metavar="N",
                        help="with --tokenizer: keep the first N tokens of the Facts text, cut "
                             "at a token boundary (after --max-input-words, if given). N counts "
                             "the Facts text only: the system message, template, metadata "
                             "lines and references come on top, so for a context of C tokens "
                             "take N below C - --max-tokens - those. The manifest records the "
                             "tokenizer (name, sha256 of its files), N and the cut cases")
    parser.add_argument("--splits", default=DEFAULT_SPLITS,
                        help=f"comma-separated splits to predict (default {DEFAULT_SPLITS}); "
                             "`courtbench evaluate ecthr_npd` scores whichever the file covers")
    parser.add_argument("--k", type=option_checks.count(MAX_REFERENCES, what="a number of references"), default=DEFAULT_K,
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
    if args.k < 1:
        raise CourtbenchError(f"--k {args.k}: expected an integer >= 1")
    if getattr(args, "max_input_words", None) is not None and args.max_input_words < 1:
        raise CourtbenchError(f"--max-input-words {args.max_input_words}: expected an integer "
                              ">= 1")
    if args.max_tokens < 1:
        raise CourtbenchError(f"--max-tokens {args.max_tokens}: expected an integer >= 1")
    if not np.isfinite(args.temperature) or args.temperature < 0:
        raise CourtbenchError(f"--temperature {args.temperature}: expected a number >= 0")
    _check_token_options(args)
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


def generation_params(args: argparse.Namespace) -> dict[str, Any]:
    """The parameters sent with every request (and recorded in the manifest): temperature,
    seed, max_tokens and the shared decoding options (``--stop``, ``--top-k``,
    ``--repetition-penalty``, ``--extra-body``; see :func:`courtbench.llm.decoding_params`)."""
    params, _ = decoding_from_args(args, {"temperature": float(args.temperature),
                                          "seed": int(args.seed),
                                          "max_tokens": int(args.max_tokens)})
    return params


def case_block(record: dict[str, Any], case_id: str, input_kind: str,
               facts: dict[str, str] | None, max_words: int | None,
               budget: TokenBudget | None = None) -> FactsCut:
    """The case as the prompt shows it for ``input_kind`` and which budget cut its Facts
    (``max_words`` and ``budget`` apply to the Facts text only)."""
    if input_kind == "serialised":
        return FactsCut(serialise_case(record))
    if facts is None or case_id not in facts:
        raise CourtbenchError(f"--input facts: case {case_id} has no facts text; expected a "
                              "folder built with --facts (or --synthetic)")
    return facts_block(record, facts[case_id], max_words, budget)


def build_requests(data: BenchmarkData, splits: tuple[str, ...], kind: str, *, k: int,
                   params: dict[str, Any], input_kind: str = "serialised",
                   max_input_words: int | None = None,
                   budget: TokenBudget | None = None) -> tuple[list, list[dict[str, Any]]]:
    """One :class:`courtbench.llm.ChatRequest` per case of ``splits`` (split order, table
    order), and per case its bookkeeping (``case_id``, ``split``, reference case ids,
    ``input_words``: words of the case block, ``cut``: its Facts were cut, ``cut_by_words``
    / ``cut_by_tokens``: by ``max_input_words`` / by the token ``budget``)."""
    train = data.splits["train"]
    index = ReferenceIndex(train, k) if kind == "few_shot" else None
    train_records = case_records(train) if index else []
    requests, cases = [], []
    for split in splits:
        table = data.splits[split]
        records = case_records(table)
        references = index.references(table) if index else [[] for _ in records]
        for case_id, record, chosen in zip(data.ids(split), records, references, strict=True):
            shown = [ReferenceCase(train_records[r.row], r.award_eur) for r in chosen]
            block = case_block(record, case_id, input_kind, data.facts, max_input_words,
                               budget)
            messages = render_messages(kind, record, shown, case_text=block.text)
            requests.append(ChatRequest(id=case_id, messages=messages, params=dict(params)))
            cases.append({"case_id": case_id, "split": split,
                          "references": [r.case_id for r in chosen],
                          "input_words": word_count(block.text), "cut": block.cut,
                          "cut_by_words": block.by_words, "cut_by_tokens": block.by_tokens})
    return requests, cases


def collect(cases: list[dict[str, Any]], results: list, *, fallback: str,
            fallback_value: float) -> tuple[list[tuple[str, float]], list[dict], list[dict],
                                            Counter]:
    """Parse every answer and apply the fallback.

    Returns:
        (CSV rows (case_id, EUR), one responses record per case, the failures, counts).
    """
    rows, records, failures = [], [], []
    counts: Counter = Counter()
    for case, result in zip(cases, results, strict=True):
        if result.error is not None:
            parsed, status, reason = None, "request_failed", result.error
        else:
            parsed = parse_award(result.answer)
            if parsed.value is None:
                status, reason = "answer_failed", parsed.error
            elif parsed.method != "json" and result.finish_reason == "length":
                # cut off before its JSON object: a figure in unfinished reasoning is no answer
                status = "answer_failed"
                reason = (f"answer cut at --max-tokens (finish_reason length) before the JSON "
                          f"object; the {parsed.method} rule would have read {parsed.value:g}")
            else:
                status, reason = "ok", None
                counts[f"parsed_{parsed.method}"] += 1
        counts[status] += 1
        prediction, source = None, None
        if status == "ok":
            prediction, source = parsed.value, "model"
        else:
            failures.append({"case_id": case["case_id"], "split": case["split"],
                             "failure": status, "reason": reason})
            if fallback == "train_median":
                prediction, source = fallback_value, "fallback_train_median"
                counts["filled"] += 1
        if prediction is not None:
            rows.append((case["case_id"], prediction))
        records.append({
            "case_id": case["case_id"], "split": case["split"], "status": status,
            "prediction": prediction, "prediction_source": source,
            "parse_method": parsed.method if parsed else None, "failure_reason": reason,
            "answer": result.answer, "rationale": parsed.rationale if parsed else None,
            "reasoning": result.reasoning, "finish_reason": result.finish_reason,
            "usage": result.usage, "error": result.error,
            "references": case["references"]})
    counts["written"] = len(rows)
    return rows, records, failures, counts


def _summary_lines(counts: Counter, failures: list[dict], *, n_cases: int, fallback: str,
                   fallback_value: float, summary) -> list[str]:
    methods = ", ".join(f"{m.removeprefix('parsed_')} {n:,}" for m, n in sorted(counts.items())
                        if m.startswith("parsed_"))
    lines = [f"  requests: {n_cases:,} (sent {summary.sent:,}, from cache {summary.cached:,}, "
             f"failed {summary.failed:,}); tokens: "
             + ", ".join(f"{k} {v:,}" for k, v in sorted(summary.usage.items())),
             f"  parsed awards: {counts['ok']:,} ({methods or 'none'})"]
    if failures:
        action = (f"filled with the training median EUR {fallback_value:,.2f}"
                  if fallback == "train_median" else "left out of the file (--fallback none)")
        lines.append(f"  failed cases: {len(failures):,} (request {counts['request_failed']:,}, "
                     f"answer {counts['answer_failed']:,}), {action}:")
        lines += [f"    {f['case_id']} ({f['split']}, {f['failure']}): {f['reason']}"
                  for f in failures[:MAX_LISTED]]
        if len(failures) > MAX_LISTED:
            lines.append(f"    ... {len(failures) - MAX_LISTED:,} more in the manifest")
    return lines


def input_record(input_kind: str, max_input_words: int | None, cases: list[dict[str, Any]],
                 budget: TokenBudget | None = None) -> dict[str, Any]:
    """The manifest's ``prompt.input``: kind, cut limit and count (cases cut by either
    budget), words per case block; with a token ``budget`` also ``max_input_tokens``,
    ``tokenizer`` (:func:`courtbench.llm.tokens.tokenizer_fingerprint`) and
    ``token_cut_cases``."""
    words = np.array([c["input_words"] for c in cases], dtype=np.float64)
    lengths = ({"mean": float(words.mean()), "median": float(np.median(words)),
                "p95": float(np.percentile(words, 95)), "max": float(words.max())}
               if words.size else {})
    record = {"kind": input_kind, "max_input_words": max_input_words,
              "cut_cases": sum(c["cut"] for c in cases), "words": lengths}
    if budget is not None:
        record.update(max_input_tokens=budget.max_tokens,
                      tokenizer=tokenizer_fingerprint(budget.tokenizer.path),
                      token_cut_cases=sum(c["cut_by_tokens"] for c in cases))
    return record


def _manifest(args: argparse.Namespace, data: BenchmarkData, splits: tuple[str, ...],
              config, params: dict[str, Any], summary, counts: Counter, failures: list[dict],
              fallback_value: float, input_info: dict[str, Any]) -> dict[str, Any]:
    """The run's manifest: what was run (data, endpoint, prompt, parameters) and what came
    of it (counts, failures, usage, versions)."""
    prompt = {"kind": args.prompt, "templates": template_hashes(args.prompt),
              "input": input_info}
    if args.prompt == "few_shot":
        prompt.update(k=args.k, reference_pool="train")
    n_cases = len(summary.results)
    record = run_record(summary, failed=counts["request_failed"] + counts["answer_failed"],
                        total=n_cases, max_failure_share=args.max_failure_share,
                        limit=args.limit, config=config)
    record.update(fallback_share=counts["filled"] / n_cases if n_cases else 0.0,
                  filled_with_fallback=counts["filled"],
                  complete=record["complete"] and counts["written"] == n_cases)
    return {
        "courtbench_version": __version__,
        "dataset": "ecthr_npd",
        "data": {"source": data.source, "fingerprint": data.fingerprint},
        "splits": list(splits),
        **manifest_endpoint(config),
        "prompt": prompt,
        "parameters": params,
        "fallback": {"policy": args.fallback, "train_median_eur": fallback_value},
        "counts": {"cases": len(summary.results), "sent": summary.sent,
                   "cached": summary.cached, "attempts": summary.attempts,
                   "request_failed": counts["request_failed"],
                   "answer_failed": counts["answer_failed"], "parsed": counts["ok"],
                   "parsed_by_method": {m.removeprefix("parsed_"): n
                                        for m, n in sorted(counts.items())
                                        if m.startswith("parsed_")},
                   "filled": counts["filled"], "written": counts["written"]},
        "complete": record["complete"],
        "llm_run": record,
        "failures": failures,
        "usage": summary.usage,
        "versions": package_versions(),
    }


def predict(args: argparse.Namespace) -> int:
    """CLI entry of ``courtbench predict ecthr_npd`` (see the module docstring); ``--input
    both`` runs the serialised and the facts input one after the other."""
    input_kind = getattr(args, "input_kind", "serialised")
    if input_kind != "both":
        return _predict_one(args, input_kind, Path(args.out))
    status = 0
    for kind in INPUT_KINDS:
        out = Path(args.out).with_name(f"{Path(args.out).stem}-{kind}{Path(args.out).suffix}")
        status = max(status, _predict_one(args, kind, out))
    return status


def _check_cache(config, args: argparse.Namespace) -> None:
    """A ``--cache`` file courtbench did not create is refused before any work."""
    if config.cache_path is None or getattr(args, "dry_run", False):
        return
    try:
        ResponseCache(config.cache_path).close()
    except (ValueError, OSError) as error:
        raise CourtbenchError(f"--cache: {error}") from None


def _announce_cuts(cases: list[dict[str, Any]], max_words: int | None,
                   budget: TokenBudget | None) -> None:
    """One stderr line per budget that cut any Facts text."""
    by_words = sum(c["cut_by_words"] for c in cases)
    if by_words:
        print(f"--max-input-words {max_words}: the Facts of {by_words:,} case(s) were cut at a "
              "paragraph boundary", file=sys.stderr)
    by_tokens = sum(c["cut_by_tokens"] for c in cases)
    if by_tokens:
        print(f"--max-input-tokens {budget.max_tokens}: the Facts of {by_tokens:,} case(s) were "
              f"cut at a token boundary of {budget.tokenizer.path.name}", file=sys.stderr)


def _report_run(args: argparse.Namespace, splits: tuple[str, ...], paths: OutputPaths,
                manifest: dict[str, Any], summary, counts: Counter, failures: list[dict],
                n_cases: int, fallback_value: float) -> int:
    """What a finished run prints (stdout: summary and files; stderr: scope, the run line,
    why it is incomplete); returns the exit status (0 only when complete)."""
    for line in _summary_lines(counts, failures, n_cases=n_cases, fallback=args.fallback,
                               fallback_value=fallback_value, summary=summary):
        print(line)
    print(f"wrote {paths.predictions} ({counts['written']:,} of {n_cases:,} cases), "
          f"{paths.responses.name}, {paths.manifest.name}")
    if set(splits) != set(PREDICTABLE_SPLITS):
        print(f"note: the file covers {', '.join(splits)} only; `courtbench evaluate ecthr_npd` "
              f"scores it on {', '.join(splits)} and says so in the report", file=sys.stderr)
    record = manifest["llm_run"]
    print(f"courtbench predict: {run_summary_line(record)}; {record['fallback_share']:.1%} "
          "of the cases filled with the fallback", file=sys.stderr)
    if manifest["complete"]:
        return 0
    print(f"courtbench predict: incomplete: {record['failed']:,} failed case(s) "
          f"({record['failure_share']:.1%} > --max-failure-share {record['max_failure_share']:g})"
          + (f"; {summary.failed:,} request(s) failed: rerun with the same --cache to send only "
             "those" if summary.failed else "")
          + (f"; {n_cases - counts['written']:,} case(s) have no prediction (--fallback none)"
             if counts["written"] < n_cases else ""), file=sys.stderr)
    return 1


def _predict_one(args: argparse.Namespace, input_kind: str, out: Path) -> int:
    """One run of ``courtbench predict ecthr_npd`` with ``input_kind`` into ``out``."""
    splits = _check_arguments(args)
    if args.prompt == REACT:
        from ecthr_npd.agent.run import predict_react

        return predict_react(args, splits, generation_params(args))
    max_words = getattr(args, "max_input_words", None)
    paths = OutputPaths.for_out(out)
    config = endpoint_from_args(args, default_cache=paths.default_cache)
    check_replaceable(paths, overwrite=getattr(args, "overwrite", False),
                      inputs=[config.cache_path, args.data])
    _check_cache(config, args)
    budget = token_budget(args) if input_kind == "facts" else None
    data = load_benchmark(args.data, facts=input_kind == "facts")
    notice = facts_findings_notice(args.data) if input_kind == "facts" else None
    if notice:
        print(f"warning: {notice}", file=sys.stderr)
    params = generation_params(args)
    requests, cases = build_requests(data, splits, args.prompt, k=args.k, params=params,
                                     input_kind=input_kind, max_input_words=max_words,
                                     budget=budget)
    if args.limit is not None:
        requests, cases = requests[:args.limit], cases[:args.limit]
    input_info = input_record(input_kind, max_words, cases, budget)
    _announce_cuts(cases, max_words, budget)
    if getattr(args, "dry_run", False):
        print(dry_run_text(requests, config))
        return 0
    fallback_value = float(np.median(data.target("train")))
    print(f"ecthr_npd predict: {len(requests):,} cases ("
          + ", ".join(f"{s} {data.splits[s].num_rows:,}" for s in splits)
          + f"), prompt {args.prompt}, input {input_kind}, model {config.model} at {endpoint_host(config.base_url)}",
          file=sys.stderr)
    summary = run_chat(requests, config, desc=f"ecthr_npd {args.prompt}")
    rows, records, failures, counts = collect(cases, summary.results, fallback=args.fallback,
                                              fallback_value=fallback_value)
    manifest = _manifest(args, data, splits, config, params, summary, counts, failures,
                         fallback_value, input_info)
    manifest["parameters_dropped"] = decoding_from_args(args, {})[1]
    manifest["facts_screen_notice"] = notice
    write_outputs(paths, predictions=predictions_csv(rows), responses=jsonl(records),
                  manifest=manifest)
    return _report_run(args, splits, paths, manifest, summary, counts, failures, len(cases),
                       fallback_value)
