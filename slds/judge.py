"""The SLDS LLM judge from the command line: ``courtbench judge slds`` and the judge of
``courtbench evaluate slds --judge-*``, one judge through Inspect AI with one set of defaults.

The judge is the task's model (:func:`slds.inspect_task.judge_task`: one sample per row, its
input the ``headnote_judge`` module's chat for the prediction, never the decision) run by
:func:`courtbench.inspect_glue.runner.run_task` — any Inspect model, an OpenAI-compatible
server with ``--base-url``; Inspect's cache (default beside the output, ``NAME.judge-inspect/``:
a rerun sends nothing, a killed run sends only the rest), retries and log. The answers are
parsed by the module's own functions, ``--parse strict`` (default) or ``published`` (the
published SLDS judge's parsing and aggregation, named in the output); failed samples are
excluded from the means unless ``--failed-as-zero`` (the excluded count is printed beside the
score). Exit status 1 when any judge request could not be completed, no sample was scored, or
the share of failed samples exceeds ``--max-failure-share`` (default 0). ``--config X`` reads
the rows of X from a file that may also cover other pairs; ``--config all`` judges every pair.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from courtbench import __version__, option_checks
from courtbench.errors import CourtbenchError
from courtbench.hub.files import sha256_file
from courtbench.inspect_glue.options import RETRIES, TIMEOUT, ModelOptions, endpoint_host
from courtbench.metric_modules import load_metric_module
from courtbench.output_files import check_output_file, write_output_file
from courtbench.predictions import read_predictions
from slds.data import read_split
from slds.schema import LANGUAGES, PAIRS, pair_name

OUTPUT_KIND = "slds-judge"
PARSE_MODES = ("strict", "published")
PAIR_CONFIGS = tuple(pair_name(d, h) for d, h in PAIRS)
REQUIRED_COLUMNS = ("sample_id", "headnote", "headnote_language", "decision_language")


def default_dir(out: Path) -> Path:
    """The judge's Inspect folder (cache, logs) when none is given: beside ``out``
    (``judge.json`` -> ``judge.judge-inspect/``; report folder ``r`` -> ``r.judge-inspect/``)."""
    return out.with_suffix(".judge-inspect")


@dataclass(frozen=True)
class JudgeSettings:
    """How the judge runs: the model options and the judge's own options."""

    options: ModelOptions
    failed_as_zero: bool = False
    max_tokens: int = 2048
    seed: int | None = 0
    system_template: Path | None = None
    user_template: Path | None = None
    demonstrations: dict = field(default_factory=dict)
    progress: bool = True
    parse: str = "strict"
    temperature: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """The settings as JSON values (header names only: their values are never written)."""
        options = {f.name: getattr(self.options, f.name) for f in fields(self.options)}
        options.update(headers=[[name, ""] for name, _ in self.options.headers],
                       cache_dir=str(self.options.cache_dir), log_dir=str(self.options.log_dir))
        return {"options": options, "failed_as_zero": self.failed_as_zero,
                "max_tokens": self.max_tokens, "seed": self.seed, "parse": self.parse,
                "temperature": self.temperature,
                "system_template": _text(self.system_template),
                "user_template": _text(self.user_template),
                "demonstrations": {k: str(v) for k, v in self.demonstrations.items()}}

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> JudgeSettings:
        """What :meth:`to_json` recorded (re-scoring a report); sends no header."""
        options = dict(value["options"])
        options.update(cache_dir=Path(options["cache_dir"]), log_dir=Path(options["log_dir"]),
                       headers=(), stop=tuple(options["stop"]))
        return cls(ModelOptions(**options), progress=False,
                   **{k: value[k] for k in ("failed_as_zero", "max_tokens", "seed", "parse",
                                            "temperature")},
                   system_template=_path(value["system_template"]),
                   user_template=_path(value["user_template"]),
                   demonstrations={k: Path(v) for k, v in value["demonstrations"].items()})


def _text(path: Path | None) -> str | None:
    return None if path is None else str(path)


def _path(text: str | None) -> Path | None:
    return None if text is None else Path(text)


# --------------------------------------------------------------------------------------------
# Running the judge


def judge_rows(rows: list[dict[str, Any]], predictions: list[str],
               settings: JudgeSettings) -> dict[str, Any]:
    """Judge ``predictions`` of ``rows`` (``id``, ``config``, ``headnote``, languages) with
    ``settings``; returns the module's aggregate, the counts, ``reproducibility``, ``llm_run``
    and the per-sample records (``samples``)."""
    from courtbench.inspect_glue import require_inspect

    require_inspect()
    from courtbench.inspect_glue.runner import run_task
    from slds.inspect_task import judge_task

    module, templates = _module_and_templates(settings)
    chats = [module.render_messages(templates, row["headnote"], prediction,
                                    row["headnote_language"])
             for row, prediction in zip(rows, predictions, strict=True)]
    task = judge_task(rows, chats, settings.parse, settings.failed_as_zero,
                      settings.max_tokens, settings.options.max_answer_chars)
    result = run_task(task, settings.options, settings.options.generate_config(_params(
        module, settings)), desc="slds judge", progress=settings.progress)
    records = [_record(module, outcome, settings) for outcome in result.outcomes]
    judged = summary(module, records, settings)
    judged.update(reproducibility=reproducibility(module, templates, settings),
                  usage=result.counts.usage, n_truncated=result.counts.truncated,
                  llm_run=_llm_run(result, settings, judged), samples=records)
    return judged


def _module_and_templates(settings: JudgeSettings):
    module = load_metric_module("headnote_judge")
    try:
        templates = module.load_templates(settings.system_template, settings.user_template,
                                          settings.demonstrations)
    except ValueError as error:
        raise CourtbenchError(f"headnote_judge: {error}") from None
    return module, templates


def _params(module, settings: JudgeSettings) -> dict[str, Any]:
    return module.judge_params(settings.max_tokens, settings.seed, settings.temperature)


def _record(module, outcome, settings: JudgeSettings) -> dict[str, Any]:
    """The judge record of one sample: its scorer's, or a failed request's (with the row's
    own sample id: Inspect's outcomes carry it as text)."""
    from slds.scorers import judge_record

    sample_id = outcome.metadata["sample_id"]
    if outcome.score is not None and outcome.error is None:
        record = dict(outcome.score["metadata"])
    else:
        record = judge_record(module, sample_id, outcome.metadata["config"], None,
                              outcome.error or "the sample was not scored",
                              parse=settings.parse, max_tokens=settings.max_tokens)
    record["sample_id"] = sample_id
    record["cached"] = outcome.cached > 0 and outcome.sent == 0
    return record


def summary(module, records: list[dict], settings: JudgeSettings) -> dict[str, Any]:
    """The module's aggregate and the counts of a run's records."""
    result = module.aggregate(records, failed_as_zero=settings.failed_as_zero)
    n = len(records)
    request_failed = sum(r["status"] == "request_failed" for r in records)
    unparsed = sum(r["status"] == "unparsed" for r in records)
    cached = sum(r["cached"] for r in records)
    result.update(n_samples=n, n_scored=n - request_failed - unparsed,
                  n_failed=request_failed + unparsed, n_unparsed=unparsed,
                  n_request_failed=request_failed, n_cached=cached, n_requested=n - cached,
                  n_excluded=0 if settings.failed_as_zero else sum(r["scores"] is None
                                                                    for r in records),
                  failed_as_zero=settings.failed_as_zero, parse=settings.parse)
    return result


def reproducibility(module, templates, settings: JudgeSettings) -> dict[str, Any]:
    """Model, endpoint host, parameters, template hashes, parse mode and a signature."""
    options = settings.options
    host = endpoint_host(options.base_url) if options.base_url else None
    params = _params(module, settings)
    hashes = templates.hashes()
    demos = ",".join(f"{k}:{v[:8]}" for k, v in hashes["demonstration_sha256"].items())
    signature = "|".join([
        f"headnote_judge:{module.__version__}", f"model:{options.inspect_model}",
        f"host:{host}", f"temperature:{params['temperature']}",
        f"max_tokens:{params['max_tokens']}", f"seed:{params.get('seed', 'none')}",
        f"system:{hashes['system_template_sha256'][:8]}",
        f"user:{hashes['user_template_sha256'][:8]}", f"demos:{demos or 'none'}",
        f"failed:{'zero' if settings.failed_as_zero else 'excluded'}", f"parse:{settings.parse}"])
    return {"model": options.model, "inspect_model": options.inspect_model,
            "base_url_host": host, **params, "seed": params.get("seed"),
            "timeout_seconds": options.timeout, "max_retries": options.max_retries, **hashes,
            "parse": settings.parse, "headnote_judge_version": module.__version__,
            "signature": signature}


def _llm_run(result, settings: JudgeSettings, judged: dict[str, Any]) -> dict[str, Any]:
    from courtbench.inspect_glue.manifest import run_record

    kinds = {"request_failed": judged["n_request_failed"], "unparsed": judged["n_unparsed"]}
    return run_record(result.counts, settings.options, failed=judged["n_failed"], filled=0,
                      written=judged["n_samples"], log=result.log_path.name,
                      failures_by_kind={k: n for k, n in kinds.items() if n},
                      interrupted=result.interrupted)


def run_failure(result: dict, max_failure_share: float = 0.0) -> str | None:
    """Why a judge run must exit non-zero, or None: requests that could not be completed,
    no sample scored, or more failed samples than ``max_failure_share`` allows."""
    if result["n_request_failed"]:
        return f"{result['n_request_failed']} judge request(s) could not be completed"
    if result["n_scored"] == 0 and result.get("parse", "strict") == "strict":
        return "no sample was scored"
    share = result["n_failed"] / result["n_samples"] if result["n_samples"] else 0.0
    if share > max_failure_share:
        return (f"{result['n_failed']} of {result['n_samples']} sample(s) failed ({share:.1%} > "
                f"--max-failure-share {max_failure_share:g})")
    return None


# --------------------------------------------------------------------------------------------
# courtbench evaluate slds --judge-*


def settings_from_evaluate_args(args: argparse.Namespace) -> JudgeSettings | None:
    """The judge of ``courtbench evaluate slds`` (``--judge-*`` options, same defaults as
    ``courtbench judge slds``); ``None`` when no judge was asked for. Checked before any
    slow loading."""
    if not args.judge_base_url and not args.judge_model:
        return None
    if not args.judge_model:
        raise CourtbenchError("--judge-base-url goes with --judge-model: give the judge model's "
                              "name at that server")
    values = {name: getattr(args, f"judge_{name}") for name in (
        "model", "base_url", "api_key_env", "concurrency", "timeout", "max_retries", "cache",
        "limit", "header", "max_failure_share", "max_answer_chars")}
    try:
        options = ModelOptions.from_values(values, default_dir=default_dir(args.out))
    except CourtbenchError as error:
        raise CourtbenchError(str(error).replace("--", "--judge-", 1)) from None
    return JudgeSettings(options, failed_as_zero=args.judge_failed_as_zero, progress=False,
                         max_tokens=args.judge_max_tokens, seed=args.judge_seed,
                         parse=args.judge_parse, temperature=args.judge_temperature)


def add_evaluate_judge_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``--judge-*`` options of ``courtbench evaluate slds``."""
    group = parser.add_argument_group("LLM judge (runs when --judge-model is given, through "
                                      "Inspect AI; defaults as `courtbench judge slds`)")
    group.add_argument("--judge-model", metavar="NAME",
                       help="the judge: its name at --judge-base-url, or (no "
                            "--judge-base-url) an Inspect model (openai/gpt-4o-mini, ...)")
    group.add_argument("--judge-base-url", metavar="URL",
                       help="an OpenAI-compatible server of the judge model")
    group.add_argument("--judge-api-key-env", metavar="VAR",
                       help="with --judge-base-url: the variable holding the key (default "
                            "OPENAI_API_KEY if set, else no key)")
    group.add_argument("--judge-cache", type=Path, metavar="DIR",
                       help="Inspect's response cache of the judge (default: "
                            "OUT.judge-inspect/cache beside the report folder)")
    group.add_argument("--judge-concurrency", type=option_checks.PARALLEL, default=8, metavar="N",
                       help="requests in flight (default 8)")
    group.add_argument("--judge-timeout", type=TIMEOUT, default=120.0, metavar="SECONDS",
                       help="seconds per request (default 120)")
    group.add_argument("--judge-max-retries", type=RETRIES, default=6, metavar="N",
                       help="retries of a failed request (Inspect's backoff; default 6)")
    group.add_argument("--judge-failed-as-zero", action="store_true",
                       help="count failed judge samples as 0 instead of excluding them")
    group.add_argument("--judge-limit", type=option_checks.count(
                           option_checks.MAX_ROWS, what="a number of samples"), metavar="N",
                       help="judge the first N samples only")
    group.add_argument("--judge-header", type=_header, action="append", default=[],
                       metavar="'NAME: VALUE'",
                       help="extra HTTP header (repeatable; values never written)")
    group.add_argument("--judge-max-failure-share", type=option_checks.SHARE, default=0.0,
                       metavar="SHARE", help="largest share of failed judge samples for exit "
                                             "status 0 (default 0)")
    group.add_argument("--judge-max-answer-chars", type=option_checks.count(
                           option_checks.MAX_ANSWER_CHARS, what="a number of characters"),
                       default=1_000_000, metavar="N",
                       help="longer judge answers are failed samples (default 1,000,000)")
    add_judge_decoding_arguments(group, prefix="--judge-")


def _header(text: str):
    from courtbench.inspect_glue.options import _header as header

    return header(text)


def add_judge_decoding_arguments(parser, prefix: str = "--") -> None:
    """``--temperature --seed --max-tokens --parse`` of the judge (``prefix`` ``--judge-`` in
    ``courtbench evaluate slds``)."""
    parser.add_argument(f"{prefix}temperature", type=option_checks.TEMPERATURE, default=0.0,
                        help="judge sampling temperature (default 0)")
    parser.add_argument(f"{prefix}seed", type=option_checks.SEED, default=0,
                        help="sampling seed sent with every request (default 0)")
    parser.add_argument(f"{prefix}max-tokens", type=option_checks.LENGTH, default=2048,
                        help="answer budget of the judge (default 2048)")
    parser.add_argument(f"{prefix}parse", choices=PARSE_MODES, default="strict",
                        help="strict (default): five score lines, integers 1-3, failed samples "
                             "excluded (or 0 with failed-as-zero); published: the published "
                             "SLDS judge's parsing (line regex, missing category 1, no range "
                             "check, a repeated line counted once, empty answer 0), every "
                             "sample scored")


# --------------------------------------------------------------------------------------------
# courtbench judge slds


def _demonstrations(items: list[str]) -> dict[str, Path]:
    """``--demonstration LANG=FILE`` items as headnote language -> file; CourtbenchError for
    a malformed item, a language that is no SLDS headnote language, a repeated language or
    a missing file."""
    demos: dict[str, Path] = {}
    for item in items:
        language, sep, file = item.partition("=")
        if not sep or not language or not file:
            raise CourtbenchError(f"--demonstration {item!r}: expected LANG=FILE, e.g. de=demo_de.txt")
        if language not in LANGUAGES:
            raise CourtbenchError(f"--demonstration {item!r}: language {language!r} is not a "
                                  f"headnote language of SLDS; expected one of "
                                  f"{', '.join(LANGUAGES)}")
        if language in demos:
            raise CourtbenchError(f"--demonstration: language {language!r} given twice")
        if not Path(file).is_file():
            raise CourtbenchError(f"--demonstration {item!r}: {file} is not a file")
        demos[language] = Path(file)
    return demos


def _settings(args: argparse.Namespace) -> JudgeSettings:
    """Every option checked (and --out claimed) before any slow loading."""
    if args.config != "all" and args.config not in PAIR_CONFIGS:
        raise CourtbenchError(f"--config {args.config!r}: expected one of "
                              f"{', '.join(PAIR_CONFIGS)} or all")
    if not args.data.is_dir():
        raise CourtbenchError(f"--data {args.data}: not a folder")
    if not args.predictions.is_file():
        raise CourtbenchError(f"--predictions {args.predictions}: not a file")
    for option, path in (("--system-template", args.system_template),
                         ("--user-template", args.user_template)):
        if path is not None and not path.is_file():
            raise CourtbenchError(f"{option} {path}: not a file")
    demonstrations = _demonstrations(args.demonstration)
    if not args.dry_run:
        check_output_file(args.out, kind=OUTPUT_KIND, overwrite=args.overwrite, suffixes=(".json",))
    options = ModelOptions.from_args(args, default_dir=default_dir(args.out))
    return JudgeSettings(options, failed_as_zero=args.failed_as_zero, max_tokens=args.max_tokens,
                         seed=args.seed, system_template=args.system_template,
                         user_template=args.user_template, demonstrations=demonstrations,
                         progress=not args.no_progress, parse=args.parse,
                         temperature=args.temperature)


def _text_prediction(value: object) -> str:
    if value is None:  # a failed generation (courtbench generate): judged as an empty headnote
        return ""
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


def _split_rows(data: Path, split: str, config: str) -> list[dict[str, Any]]:
    """The split's rows of ``config`` (``all``: the ``default`` config's, else every pair
    config's), sorted by sample id."""
    configs = [config] if config != "all" else ["default"]
    try:
        tables = [read_split(data, split, config=name, columns=REQUIRED_COLUMNS)
                  for name in configs]
    except CourtbenchError:
        if config != "all":
            raise
        tables = [t for t in (_pair_rows(data, split, name) for name in PAIR_CONFIGS) if t]
        if not tables:
            raise
    rows = [{"id": row["sample_id"], "headnote": row["headnote"],
             "headnote_language": row["headnote_language"],
             "decision_language": row["decision_language"],
             "config": pair_name(row["decision_language"], row["headnote_language"])}
            for table in tables for row in table]
    return sorted(rows, key=lambda row: row["id"])


def _pair_rows(data: Path, split: str, config: str):
    try:
        return read_split(data, split, config=config, columns=REQUIRED_COLUMNS)
    except CourtbenchError:
        return None


def _rows_and_predictions(args: argparse.Namespace, limit: int | None) -> tuple:
    """The split's rows of ``--config`` (the first ``limit``) and their predictions; a file
    that also covers other pairs of the split is accepted (those rows are skipped)."""
    rows = _split_rows(args.data, args.split, args.config)
    if limit is not None:
        rows = rows[:limit]
    ids = [row["id"] for row in rows]
    wanted = set(ids)
    others = [] if args.config == "all" else [
        row["id"] for row in _split_rows(args.data, args.split, "all") if row["id"] not in wanted]
    predictions = read_predictions(args.predictions, "sample_id", "prediction", ids,
                                   _text_prediction, ignored_ids=others)
    return rows, [predictions[i] for i in ids]


def _dry_run(settings: JudgeSettings, rows: list[dict], predictions: list[str]) -> int:
    from courtbench.inspect_glue.options import dumps

    module, templates = _module_and_templates(settings)
    messages = module.render_messages(templates, rows[0]["headnote"], predictions[0],
                                      rows[0]["headnote_language"])
    print(dumps({"model": settings.options.inspect_model, "id": rows[0]["id"],
                 "parameters": settings.options.generate_config(_params(module, settings)),
                 "messages": messages}))
    print(f"dry run: {len(rows):,} request(s), model {settings.options.inspect_model}; "
          "nothing sent")
    return 0


def _report(args: argparse.Namespace, result: dict) -> None:
    from courtbench.inspect_glue.manifest import summary_line

    def show(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.2f}"

    excluded = result["n_excluded"]
    print(f"{args.config}/{args.split}: judge score {show(result['score'])} (0-100; "
          f"{result['n_samples'] - excluded} of {result['n_samples']} samples, {excluded} "
          f"excluded; parse {result['parse']}), macro over {result['n_language_pairs']} pair(s) "
          f"{show(result['macro_score'])}; {result['n_scored']} scored, {result['n_failed']} "
          f"failed ({'counted as 0' if args.failed_as_zero else 'excluded'}); "
          f"{result['n_truncated']} answer(s) cut at max_tokens; results in {args.out}")
    print(f"courtbench judge: {summary_line(result['llm_run'])}", file=sys.stderr)
    if result["n_failed"]:
        print(f"courtbench judge: {result['n_failed']} sample(s) failed "
              f"({result['n_unparsed']} unparsed, {result['n_request_failed']} request errors); "
              f"reasons per sample in {args.out}", file=sys.stderr)


def judge(args: argparse.Namespace) -> int:
    """CLI entry point ``courtbench judge slds``; 1 when a request failed, nothing was scored
    or the failed share exceeds ``--max-failure-share``."""
    from courtbench.inspect_glue import require_inspect
    from courtbench.inspect_glue.runner import preflight

    require_inspect()
    settings = _settings(args)
    options = settings.options
    rows, predictions = _rows_and_predictions(args, options.limit)
    if options.base_url and not options.dry_run:  # after the files: their errors come first
        preflight(options.base_url)
    if options.dry_run:
        return _dry_run(settings, rows, predictions)
    result = judge_rows(rows, predictions, settings)
    run = {"data": str(args.data), "config": args.config, "split": args.split,
           "predictions": str(args.predictions),
           "predictions_sha256": sha256_file(args.predictions), "parse": settings.parse,
           "limit": options.limit, "max_failure_share": options.max_failure_share,
           "cache": str(options.cache_dir), "inspect_log": result["llm_run"]["inspect_log"],
           "courtbench_version": __version__}
    document = {**{k: v for k, v in result.items() if k not in ("samples", "llm_run")},
                "run": run, "samples": result["samples"]}
    data = (json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode()
    summary_block = {k: v for k, v in result.items()
                     if k not in ("samples", "by_language_pair", "llm_run")}
    failure = run_failure(result, options.max_failure_share)
    write_output_file(args.out, data, {"run": run, "summary": summary_block,
                                       "llm_run": result["llm_run"],
                                       "complete": failure is None}, kind=OUTPUT_KIND)
    _report(args, result)
    if failure:
        print(f"courtbench judge: {failure}; exit status 1", file=sys.stderr)
        return 1
    return 0


def add_judge_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``courtbench judge slds`` options (data, predictions, out and the model options
    are added by the command)."""
    parser.add_argument("--config", required=True, metavar="PAIR|all",
                        help=f"language pair ({', '.join(PAIR_CONFIGS)}) or all")
    parser.add_argument("--split", default="test", help="split to judge (default: test)")
    add_judge_decoding_arguments(parser)
    parser.add_argument("--failed-as-zero", action="store_true",
                        help="count failed samples as 0 instead of excluding them")
    parser.add_argument("--system-template", type=Path, metavar="FILE",
                        help="replace the system prompt (string.Template placeholders)")
    parser.add_argument("--user-template", type=Path, metavar="FILE", help="replace the user prompt")
    parser.add_argument("--demonstration", action="append", default=[], metavar="LANG=FILE",
                        help="a judged example for headnotes in LANG (repeatable)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
