"""``courtbench generate slds``: headnotes from any model Inspect AI runs, as the SLDS paper ran it.

The run is the Inspect task of :mod:`slds.inspect_task` (what ``inspect eval courtbench/slds``
runs), through :func:`courtbench.inspect_glue.runner.run_task`: Inspect's providers, retries,
concurrency and response cache (``--cache``, default ``NAME.inspect/cache`` beside ``--out``:
a rerun sends nothing, a killed run sends only the remainder) and its log (``--log-dir``,
default ``NAME.inspect/logs``; ``inspect view``). Prompts and presets: :mod:`slds.prompting`
(``--preset courtbench``, the default, or ``published``; an explicit option such as
``--temperature`` or ``--top-k`` overrides the preset; top-k and the repetition penalty are
dropped for model families whose APIs refuse them, and the manifest says so).

Output: ``--out preds.jsonl``, one line per sample (``sample_id``, ``config``, ``prediction``,
``finish_reason``, ``usage``, ``error``, ``decision_cut``, ``reasoning``), failed and empty
generations included and counted, plus ``preds.jsonl.manifest.json`` (model, endpoint host,
parameters, template sha256, counts, usage, ``llm_run`` — failures by kind, truncated
answers, ``complete`` — the Inspect log's name and courtbench version). The file (or the
Inspect log) goes straight into ``courtbench evaluate slds --predictions``. Exit status 1 when
the share of failed samples exceeds ``--max-failure-share`` (default 0: any failure).

``--limit N`` generates for the first N samples only; ``--tokenizer PATH --max-input-tokens N``
cuts decisions by the model's own tokens (at a paragraph boundary inside the first N tokens).
``--local-model PATH`` generates with transformers instead, into the same file and manifest
(:mod:`slds.local_generation`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from courtbench import __version__, option_checks
from courtbench.errors import CourtbenchError
from courtbench.output_files import check_output_file, write_output_file
from slds.prompting import (  # noqa: F401 - re-exported (training, tests)
    CONFIG_NAMES,
    LANGUAGE_NAMES,
    PRESETS,
    InputCut,
    Prompts,
    build_messages,
    cut_decision,
    decoding,
    headnote_items,
    load_prompts,
    render_user,
)

OUTPUT_KIND = "slds-generation"
REQUEST_FAILED, TOO_LARGE = "request_failed", "too_large"
#: Inspect's stop reasons in the OpenAI vocabulary of the output file.
FINISH_REASONS = {"max_tokens": "length", "model_length": "length", "tool_calls": "tool_calls",
                  "content_filter": "content_filter"}


@dataclass(frozen=True)
class Generation:
    """One sample's generation: the answer (None: failed), reasoning, finish reason
    (``stop`` / ``length`` …), token usage, error and failure kind."""

    answer: str | None
    reasoning: str | None
    finish_reason: str | None
    usage: dict[str, int]
    error: str | None = None
    kind: str | None = None


def generation_of(outcome, max_answer_chars: int | None = None) -> Generation:
    """The :class:`Generation` of an Inspect sample outcome (reasoning split off the answer;
    a longer answer than ``max_answer_chars`` is a failure, ``too_large``)."""
    from courtbench.inspect_glue.reasoning import split_reasoning

    finish = FINISH_REASONS.get(outcome.stop_reason, outcome.stop_reason)
    if outcome.error is not None or outcome.answer is None:
        return Generation(None, None, None, outcome.usage,
                          outcome.error or "no answer", REQUEST_FAILED)
    answer, reasoning, _ = split_reasoning(outcome.answer)
    reasoning = "\n\n".join(p for p in (outcome.reasoning, reasoning) if p) or None
    size = len(answer or "") + len(reasoning or "")
    if max_answer_chars is not None and size > max_answer_chars:
        return Generation(None, None, finish, outcome.usage, f"answer of {size:,} characters "
                          f"over --max-answer-chars {max_answer_chars:,}", TOO_LARGE)
    return Generation(answer, reasoning, finish, outcome.usage)


def output_lines(items: list[dict], generations: list[Generation]) -> tuple[bytes, dict]:
    """The JSONL bytes and the counts ``ok`` / ``empty`` / ``failed`` (+ the failed ids and
    failures by kind)."""
    lines, counts, failed_ids, kinds = [], {"ok": 0, "empty": 0, "failed": 0}, [], {}
    for item, result in zip(items, generations, strict=True):
        prediction = None if result.error is not None else (result.answer or "")
        if prediction is None:
            counts["failed"] += 1
            failed_ids.append(item["id"])
            kinds[result.kind] = kinds.get(result.kind, 0) + 1
        else:
            counts["empty" if not prediction.strip() else "ok"] += 1
        record = {"sample_id": item["id"], "config": item["config"], "prediction": prediction,
                  "finish_reason": result.finish_reason, "usage": result.usage,
                  "error": result.error, "decision_cut": item["cut"],
                  "reasoning": result.reasoning}
        lines.append(json.dumps(record, ensure_ascii=False, allow_nan=False))
    counts["failed_sample_ids"] = failed_ids[:100]
    counts["failures_by_kind"] = dict(sorted(kinds.items()))
    return ("\n".join(lines) + "\n").encode("utf-8") if lines else b"", counts


def summed_usage(generations: list[Generation]) -> dict[str, int]:
    keys = ("prompt_tokens", "completion_tokens", "total_tokens")
    return {key: sum(g.usage.get(key, 0) for g in generations) for key in keys}


# --------------------------------------------------------------------------------------------
# Options


def _check_limits(args: argparse.Namespace) -> None:
    """--config, the length limits and --data, each in one line when wrong."""
    if args.config != "all" and args.config not in CONFIG_NAMES:
        raise CourtbenchError(f"--config {args.config!r}: expected one of "
                              f"{', '.join(CONFIG_NAMES)} or all")
    if (args.tokenizer is None) != (args.max_input_tokens is None):
        raise CourtbenchError("--tokenizer and --max-input-tokens go together: give both to cut "
                              "decisions by tokens, or neither")
    if not args.data.is_dir():
        raise CourtbenchError(f"--data {args.data}: not a folder")


def check_options(args: argparse.Namespace):
    """Everything that can be checked before loading data: ``(configs, prompts, model
    options)`` — the options ``None`` with ``--local-model``."""
    _check_limits(args)
    if not args.dry_run:
        check_output_file(args.out, kind=OUTPUT_KIND, overwrite=args.overwrite,
                          suffixes=(".jsonl",))
    prompts = load_prompts(args.system_prompt, args.user_prompt)
    configs = list(CONFIG_NAMES) if args.config == "all" else [args.config]
    if args.local_model is not None:
        if args.base_url is not None or args.model is not None:
            raise CourtbenchError("--local-model runs the model here: give it without "
                                  "--base-url / --model (those name an endpoint)")
        return configs, prompts, None
    from courtbench.inspect_glue.options import ModelOptions

    if args.model is None:
        raise CourtbenchError("--model is required (a model name at --base-url, or an Inspect "
                              "model such as openai/gpt-4o-mini), or --local-model PATH")
    options = ModelOptions.from_args(args, default_dir=args.out.with_name(args.out.stem + ".inspect"))
    return configs, prompts, options


def chosen_decoding(args: argparse.Namespace) -> dict[str, Any]:
    """The ``--preset``'s decoding, each value replaced by an explicit option."""
    return decoding(args.preset, args.reasoning, temperature=args.temperature,
                    top_p=args.top_p, seed=args.seed, max_tokens=args.max_tokens,
                    top_k=getattr(args, "sampling_top_k", None),
                    repetition_penalty=getattr(args, "repetition_penalty", None),
                    stop=getattr(args, "stop", None))


def sampling_params(args: argparse.Namespace) -> dict[str, Any]:
    """temperature, top_p, seed and max_tokens (the endpoint and ``--local-model`` alike)."""
    chosen = chosen_decoding(args)
    return {name: chosen[name] for name in ("temperature", "top_p", "seed", "max_tokens")}


def run_options(args: argparse.Namespace, options):
    """``(options with the preset's server settings and stop, request settings)``."""
    chosen = chosen_decoding(args)
    options = dataclasses.replace(options, top_k=chosen["top_k"],
                                  repetition_penalty=chosen["repetition_penalty"],
                                  stop=tuple(chosen["stop"] or ()))
    options.check_decoding()
    return options, {name: chosen[name] for name in ("temperature", "top_p", "seed",
                                                     "max_tokens")}


def input_cut(args: argparse.Namespace) -> InputCut:
    from courtbench.inspect_glue.tokens import load_tokenizer

    tokenizer = load_tokenizer(args.tokenizer) if args.tokenizer is not None else None
    return InputCut(args.max_input_chars, tokenizer, args.max_input_tokens)


def prepared_items(args: argparse.Namespace, configs: list[str], prompts: Prompts,
                   cut: InputCut | None = None) -> tuple[list[dict], dict]:
    """The items (the first ``--limit`` only) and their counts; CourtbenchError for none.
    ``cut``: :func:`input_cut` of ``args`` when not given."""
    items, counts = headnote_items(args.data, configs, args.split, args.shots, prompts,
                                   input_cut(args) if cut is None else cut)
    if args.limit is not None:
        items = items[:args.limit]
    if not items:
        raise CourtbenchError(f"--data {args.data}: split {args.split!r} has no sample in "
                              f"{', '.join(configs)}")
    return items, counts


# --------------------------------------------------------------------------------------------
# Run


def manifest_document(args, configs, prompts, model: dict, params, counts, usage, *,
                      llm_run: dict | None = None) -> dict:
    """The manifest beside a generation file; ``model`` says what generated (the model
    options' record, or the local model folder and its hash); ``llm_run`` what an Inspect
    run records of its failures (:func:`courtbench.inspect_glue.manifest.run_record`)."""
    document = {
        "courtbench_version": __version__,
        "dataset": "slds", "data": str(args.data), "split": args.split, "configs": configs,
        "shots": args.shots, **model, "parameters": params,
        "max_input_chars": args.max_input_chars, "max_input_tokens": args.max_input_tokens,
        "tokenizer": str(args.tokenizer) if args.tokenizer else None,
        "prompts": {**prompts.hashes(),
                    "system_prompt_file": str(args.system_prompt) if args.system_prompt else "packaged",
                    "user_prompt_file": str(args.user_prompt) if args.user_prompt else "packaged"},
        "counts": counts, "usage": usage, "preset": args.preset, "reasoning": args.reasoning,
    }
    if llm_run is not None:
        document["llm_run"] = llm_run
    return document


def _dry_run(task, options, config: dict) -> int:
    from courtbench.inspect_glue.options import dumps

    samples = list(task.dataset)
    first = {"model": options.inspect_model, "id": samples[0].id, "parameters": config,
             "messages": [{"role": m.role, "content": m.text} for m in samples[0].input]}
    print(dumps(first))
    print(f"dry run: {len(samples):,} request(s), model {options.inspect_model}; nothing sent")
    return 0


def generate(args: argparse.Namespace) -> int:
    """CLI entry point (endpoint / Inspect model); 0 when the run is complete, 1 otherwise."""
    from courtbench.inspect_glue import require_inspect

    require_inspect()
    from courtbench.inspect_glue.runner import preflight, run_task
    from slds.inspect_task import build_task

    configs, prompts, options = check_options(args)
    if options is None:  # the plugin sends --local-model runs to slds.local_generation
        raise CourtbenchError("--local-model: run through `courtbench generate slds`")
    options, settings = run_options(args, options)
    cut = input_cut(args)  # a bad --tokenizer is said before the server is asked
    if options.base_url and not options.dry_run:
        preflight(options.base_url)
    dropped = options.dropped_parameters()
    if dropped:
        print(f"courtbench generate: {options.model}'s API refuses {', '.join(dropped)}: not "
              "sent (recorded in the manifest)", file=sys.stderr)
    items, cut_counts = prepared_items(args, configs, prompts, cut)
    task = build_task(items, settings)
    config = options.generate_config(settings)
    if options.dry_run:
        return _dry_run(task, options, config)
    result = run_task(task, options, config, desc=f"slds generate ({args.config})")
    return _write_run(args, configs, prompts, options, items, cut_counts, result, config)


def _write_run(args, configs, prompts, options, items, cut_counts, result, config) -> int:
    """The output file and manifest of an Inspect run; the exit status."""
    from courtbench.inspect_glue.manifest import run_record

    by_id = {outcome.id: outcome for outcome in result.outcomes}
    generations = [generation_of(by_id[str(item["id"])], options.max_answer_chars)
                   for item in items]
    data, counts = output_lines(items, generations)
    kinds = counts.pop("failures_by_kind")
    llm_run = run_record(result.counts, options, failed=counts["failed"], filled=0,
                         written=len(items), failures_by_kind=kinds,
                         log=result.log_path.name, interrupted=result.interrupted)
    counts.update(cut_counts, samples=len(items), sent=result.counts.sent,
                  cached=result.counts.cached)
    document = {**manifest_document(args, configs, prompts, options.record(),
                                    {k: v for k, v in config.items()
                                     if k not in ("max_connections", "timeout", "max_retries")},
                                    counts, result.counts.usage, llm_run=llm_run),
                "parameters_dropped": options.dropped_parameters(), "inspect": result.eval_spec}
    manifest = write_output_file(args.out, data, document, kind=OUTPUT_KIND)
    _report(args, counts, result.counts.usage, manifest, llm_run)
    return 0 if llm_run["complete"] else 1


def _report(args, counts, usage, manifest, record) -> None:
    from courtbench.inspect_glue.manifest import summary_line

    print(f"{counts['samples']} headnotes → {args.out} ({counts['ok']} ok, {counts['empty']} "
          f"empty, {counts['failed']} failed; {counts['cached']} from cache, {counts['sent']} "
          f"sent; {counts['cut_decisions']} decisions cut"
          + (f" at {args.max_input_chars} characters" if args.max_input_chars else "")
          + (f" at {args.max_input_tokens} tokens" if args.max_input_tokens else "") + "; "
          f"{usage['total_tokens']:,} tokens); manifest {manifest}")
    print(f"courtbench generate: {summary_line(record)}", file=sys.stderr)
    if counts["configs_without_one_shot"]:
        print(f"courtbench generate: no one_shot_examples row for "
              f"{', '.join(counts['configs_without_one_shot'])}: those ran zero-shot",
              file=sys.stderr)
    if counts["one_shot_withheld"]:
        print(f"courtbench generate: {len(counts['one_shot_withheld'])} sample(s) are their "
              "pair's one-shot example: they ran zero-shot", file=sys.stderr)
    if not record["complete"]:
        print(f"courtbench generate: incomplete: {counts['failed']} sample(s) failed "
              f"({record['failure_share']:.1%} > --max-failure-share "
              f"{record['max_failure_share']:g}); their rows have \"error\" set and prediction "
              f"null in {args.out}; a rerun with the same --cache sends only those",
              file=sys.stderr)


def add_generate_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``courtbench generate slds`` options (``--data``, ``--out`` and the model options
    are added by the command)."""
    parser.add_argument("--config", required=True, metavar="PAIR|all",
                        help=f"language pair ({', '.join(CONFIG_NAMES)}) or all (nine pairs, "
                             "one run, one cache)")
    parser.add_argument("--split", default="test", help="split to generate for (default test)")
    parser.add_argument("--shots", type=int, choices=(0, 1), default=1,
                        help="1 (default): the pair's one_shot_examples row first, as the "
                             "published evaluation (a sample that is itself the example runs "
                             "zero-shot); 0: zero-shot")
    parser.add_argument("--preset", choices=tuple(PRESETS), default="courtbench",
                        help="decoding: courtbench (default: temperature 0.7, top-p 0.8, seed "
                             "2025, 1024 new tokens) or published (the published evaluation: "
                             "temperature 0.7, top-p 0.8, top-k 20, repetition penalty 1.05, "
                             "seed 2025, 512 new tokens, stop </s>); options below override it")
    parser.add_argument("--reasoning", action="store_true",
                        help="a reasoning model: the preset's new-token budget x 10")
    parser.add_argument("--temperature", type=option_checks.TEMPERATURE, help="default: the preset's (0.7)")
    parser.add_argument("--top-p", type=option_checks.TOP_P, help="default: the preset's (0.8)")
    parser.add_argument("--seed", type=option_checks.SEED, help="default: the preset's (2025)")
    parser.add_argument("--max-tokens", type=option_checks.LENGTH,
                        help="new tokens (default: the preset's, 1024 or 512, x 10 with "
                             "--reasoning)")
    parser.add_argument("--max-input-chars", type=option_checks.LENGTH, metavar="N",
                        help="cut longer decisions at a paragraph boundary (counted and "
                             "reported); default: never cut")
    parser.add_argument("--tokenizer", type=Path, metavar="PATH",
                        help="a local tokenizer (tokenizer.json or model folder) to cut "
                             "decisions by tokens (with --max-input-tokens)")
    parser.add_argument("--max-input-tokens", type=option_checks.LENGTH, metavar="N",
                        help="cut longer decisions at a paragraph boundary within the first N "
                             "tokens of --tokenizer (counted and reported)")
    parser.add_argument("--system-prompt", type=Path, metavar="FILE",
                        help="replace the packaged system prompt (courtbench's own wording) "
                             "with this file, sent byte for byte, e.g. the published one")
    parser.add_argument("--user-prompt", type=Path, metavar="FILE",
                        help="replace the packaged user template ({decision}, {language})")
    local = parser.add_argument_group("local model (instead of an endpoint; train extra)")
    local.add_argument("--local-model", type=Path, metavar="PATH",
                       help="generate with transformers from a local model folder (e.g. the "
                            "model/ of `courtbench train slds`) on CPU or GPU, no server")
    local.add_argument("--max-model-len", type=option_checks.LENGTH, default=8192, metavar="N",
                       help="--local-model: prompt + new tokens (default 8,192); longer "
                            "decisions are cut in tokens")
