"""The SLDS LLM judge from the command line: ``courtbench judge slds`` and the judge of
``courtbench evaluate slds --judge-*``, with one set of defaults.

Shared defaults of both entry points: the API key from ``OPENAI_API_KEY`` when set (an
explicitly named ``--api-key-env`` must be set), the response cache beside the output
(:func:`default_cache`), failed samples excluded from the means unless ``--failed-as-zero``
(the excluded count is printed beside the score), ``--parse strict`` (``published``: the
published SLDS judge's parsing and aggregation, named in the output), decoding options
(``--temperature``, ``--seed``, ``--max-tokens``), ``--limit`` and the run controls of
:mod:`courtbench.llm.cli`. Exit status 1 when any judge request could not be completed, no
sample was scored, or the share of failed samples exceeds ``--max-failure-share`` (default 0).
``judge slds --config X`` reads the rows of X from a file that may also cover other pairs.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from courtbench import __version__, option_checks
from courtbench.errors import CourtbenchError
from courtbench.hub.files import sha256_file
from courtbench.llm import EndpointConfig, endpoint_from_args
from courtbench.llm.cli import RETRIES, TIMEOUT, add_run_control_arguments, failure_share
from courtbench.llm.core import ResponseCache
from courtbench.metric_modules import load_metric_module
from courtbench.output_files import check_output_file, write_output_file
from courtbench.predictions import read_predictions
from slds.data import read_split
from slds.schema import LANGUAGES, PAIRS, pair_name

OUTPUT_KIND = "slds-judge"
PARSE_MODES = ("strict", "published")
PAIR_CONFIGS = tuple(pair_name(d, h) for d, h in PAIRS)
REQUIRED_COLUMNS = ("sample_id", "headnote", "headnote_language", "decision_language")


def default_cache(out: Path) -> Path:
    """The judge's response cache when none is given: beside ``out``
    (``judge.json`` -> ``judge.judge-cache.sqlite``; report folder ``r`` -> ``r.judge-cache.sqlite``)."""
    return out.with_suffix(".judge-cache.sqlite")


@dataclass(frozen=True)
class JudgeSettings:
    """How the judge runs: the endpoint (with cache) and the judge's own options."""

    endpoint: EndpointConfig
    failed_as_zero: bool = False
    max_tokens: int = 2048
    seed: int | None = 0
    system_template: Path | None = None
    user_template: Path | None = None
    demonstrations: dict = field(default_factory=dict)
    progress: bool = True
    parse: str = "strict"
    temperature: float = 0.0
    max_failure_share: float = 0.0
    limit: int | None = None


def check_cache(path: Path | None, option: str = "--cache") -> None:
    """Refuse a cache file that is not an SQLite cache, before any slow work."""
    if path is None:
        return
    try:
        ResponseCache(path).close()
    except (ValueError, OSError) as error:
        raise CourtbenchError(f"{option}: {error}") from None


def judge_rows(headnotes: list[str], headnote_languages: list[str], decision_languages: list[str],
               sample_ids: list, predictions: list[str], settings: JudgeSettings) -> dict:
    """Run the ``headnote_judge`` metric module; returns its result dict."""
    endpoint = settings.endpoint
    judge = load_metric_module("headnote_judge").headnote_judge
    try:
        return judge(predictions, headnotes, headnote_languages, decision_languages,
                     sample_ids=sample_ids, base_url=endpoint.base_url, model=endpoint.model,
                     api_key=endpoint.api_key(), system_template=settings.system_template,
                     user_template=settings.user_template,
                     demonstrations=settings.demonstrations, max_tokens=settings.max_tokens,
                     seed=settings.seed, timeout=endpoint.timeout,
                     max_retries=endpoint.max_retries, concurrency=endpoint.concurrency,
                     cache_path=endpoint.cache_path, failed_as_zero=settings.failed_as_zero,
                     progress=settings.progress, parse=settings.parse,
                     temperature=settings.temperature,
                     max_answer_chars=endpoint.max_answer_chars, headers=endpoint.headers,
                     follow_redirects=endpoint.follow_redirects,
                     max_auth_failures=endpoint.max_auth_failures)
    except (ValueError, OSError) as error:  # OSError: the cache could not store an answer
        raise CourtbenchError(f"headnote_judge: {error}") from None


def settings_from_evaluate_args(args: argparse.Namespace) -> JudgeSettings | None:
    """The judge of ``courtbench evaluate slds`` (``--judge-*`` options, same defaults as
    ``courtbench judge slds``); ``None`` when no judge was asked for. Checked before any
    slow loading."""
    if not args.judge_base_url and not args.judge_model:
        return None
    if not (args.judge_base_url and args.judge_model):
        raise CourtbenchError("--judge-base-url and --judge-model go together: give both to run "
                              "the LLM judge, or neither")
    endpoint = endpoint_from_args(args, default_cache=default_cache(args.out), prefix="judge_")
    check_cache(endpoint.cache_path, "--judge-cache")
    return JudgeSettings(endpoint, failed_as_zero=args.judge_failed_as_zero, progress=False,
                         max_tokens=args.judge_max_tokens, seed=args.judge_seed,
                         parse=args.judge_parse, temperature=args.judge_temperature,
                         max_failure_share=args.judge_max_failure_share, limit=args.judge_limit)


def add_evaluate_judge_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``--judge-*`` options of ``courtbench evaluate slds``."""
    group = parser.add_argument_group("LLM judge (runs when --judge-base-url and --judge-model "
                                      "are given; defaults as `courtbench judge slds`)")
    group.add_argument("--judge-base-url", metavar="URL",
                       help="OpenAI-compatible endpoint of the judge model")
    group.add_argument("--judge-model", metavar="NAME", help="judge model name at that endpoint")
    group.add_argument("--judge-api-key-env", metavar="VAR",
                       help="environment variable holding the API key (default OPENAI_API_KEY "
                            "if set, else no key)")
    group.add_argument("--judge-cache", type=Path, metavar="FILE",
                       help="SQLite cache of judge responses (default: OUT.judge-cache.sqlite "
                            "beside the report folder)")
    group.add_argument("--judge-concurrency", type=option_checks.PARALLEL, default=8, metavar="N",
                       help="requests in flight (default 8)")
    group.add_argument("--judge-timeout", type=TIMEOUT, default=120.0, metavar="SECONDS",
                       help="seconds per request attempt (default 120)")
    group.add_argument("--judge-max-retries", type=RETRIES, default=6, metavar="N",
                       help="retries on 429 / 5xx / timeouts (default 6)")
    group.add_argument("--judge-failed-as-zero", action="store_true",
                       help="count failed judge samples as 0 instead of excluding them")
    add_judge_decoding_arguments(group, prefix="--judge-")
    add_run_control_arguments(group, prefix="judge_")


def add_judge_decoding_arguments(parser, prefix: str = "--") -> None:
    """``--temperature --seed --max-tokens --parse`` of the judge (``prefix`` ``--judge-`` in
    ``courtbench evaluate slds``)."""
    parser.add_argument(f"{prefix}temperature", type=option_checks.TEMPERATURE, default=0.0,
                        help="judge sampling temperature (default 0)")
    parser.add_argument(f"{prefix}seed", type=option_checks.SEED, default=0,
                        help="sampling seed sent to the endpoint (default 0)")
    parser.add_argument(f"{prefix}max-tokens", type=option_checks.LENGTH, default=2048,
                        help="answer budget of the judge (default 2048)")
    parser.add_argument(f"{prefix}parse", choices=PARSE_MODES, default="strict",
                        help="strict (default): five score lines, integers 1-3, failed samples "
                             "excluded (or 0 with failed-as-zero); published: the published "
                             "SLDS judge's parsing (line regex, missing category 1, no range "
                             "check, repeats summed, empty answer 0), every sample scored")


def run_failure(result: dict, max_failure_share: float = 0.0) -> str | None:
    """Why a judge run must exit non-zero, or None: requests that could not be completed,
    no sample scored, or more failed samples than ``max_failure_share`` allows."""
    if result["n_request_failed"]:
        kinds = ", ".join(f"{k} {n}" for k, n in result.get("failures_by_kind", {}).items())
        return (f"{result['n_request_failed']} judge request(s) could not be completed"
                + (f" ({kinds})" if kinds else ""))
    if result["n_scored"] == 0 and result.get("parse", "strict") == "strict":
        return "no sample was scored"
    share = failure_share(result["n_failed"], result["n_samples"])
    if share > max_failure_share:
        return (f"{result['n_failed']} of {result['n_samples']} sample(s) failed ({share:.1%} > "
                f"--max-failure-share {max_failure_share:g})")
    return None


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
    if not args.data.is_dir():
        raise CourtbenchError(f"--data {args.data}: not a folder")
    if not args.predictions.is_file():
        raise CourtbenchError(f"--predictions {args.predictions}: not a file")
    for option, path in (("--system-template", args.system_template),
                         ("--user-template", args.user_template)):
        if path is not None and not path.is_file():
            raise CourtbenchError(f"{option} {path}: not a file")
    if args.max_tokens < 1:
        raise CourtbenchError(f"--max-tokens {args.max_tokens}: expected a positive integer")
    if args.temperature < 0:
        raise CourtbenchError(f"--temperature {args.temperature}: expected a number >= 0")
    demonstrations = _demonstrations(args.demonstration)
    if not args.dry_run:
        check_output_file(args.out, kind=OUTPUT_KIND, overwrite=args.overwrite, suffixes=(".json",))
    endpoint = endpoint_from_args(args, default_cache=default_cache(args.out))
    if not args.dry_run:
        check_cache(endpoint.cache_path)
    return JudgeSettings(endpoint, failed_as_zero=args.failed_as_zero, max_tokens=args.max_tokens,
                         seed=args.seed, system_template=args.system_template,
                         user_template=args.user_template, demonstrations=demonstrations,
                         progress=not args.no_progress, parse=args.parse,
                         temperature=args.temperature,
                         max_failure_share=args.max_failure_share, limit=args.limit)


def _text_prediction(value: object) -> str:
    if value is None:  # a failed generation (courtbench generate): judged as an empty headnote
        return ""
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


def _dry_run(settings: JudgeSettings, dataset, predictions: dict) -> int:
    from courtbench.llm import ChatRequest, dry_run_text

    module = load_metric_module("headnote_judge")
    templates = module.load_templates(settings.system_template, settings.user_template,
                                      settings.demonstrations)
    first = dataset[0]
    messages = module.render_messages(templates, first["headnote"], predictions[first["sample_id"]],
                                      first["headnote_language"])
    request = ChatRequest(str(first["sample_id"]), tuple(messages),
                          module.judge_params(settings.max_tokens, settings.seed,
                                              settings.temperature))
    print(dry_run_text([request] * dataset.num_rows, settings.endpoint))
    return 0


def _report(args: argparse.Namespace, result: dict) -> None:
    def show(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.2f}"

    excluded = result["n_excluded"]
    print(f"{args.config}/{args.split}: judge score {show(result['score'])} (0-100; "
          f"{result['n_samples'] - excluded} of {result['n_samples']} samples, {excluded} "
          f"excluded; parse {result['parse']}), macro over {result['n_language_pairs']} pair(s) "
          f"{show(result['macro_score'])}; {result['n_scored']} scored, {result['n_failed']} "
          f"failed ({'counted as 0' if args.failed_as_zero else 'excluded'}); "
          f"{result['n_truncated']} answer(s) cut at max_tokens; results in {args.out}")
    if result["n_failed"]:
        print(f"courtbench judge: {result['n_failed']} sample(s) failed "
              f"({result['n_unparsed']} unparsed, {result['n_request_failed']} request errors); "
              f"reasons per sample in {args.out}", file=sys.stderr)


def _rows_and_predictions(args: argparse.Namespace, limit: int | None) -> tuple:
    """The split's rows of ``--config`` (the first ``limit``) and their predictions; a file
    that also covers other pairs of the split is accepted (those rows are skipped)."""
    dataset = read_split(args.data, args.split, config=args.config, columns=REQUIRED_COLUMNS)
    if limit is not None:
        dataset = dataset.select(range(min(limit, dataset.num_rows)))
    ids = list(dataset["sample_id"])
    wanted = set(ids)
    others = [i for i in _split_ids(args.data, args.split, args.config) if i not in wanted]
    predictions = read_predictions(args.predictions, "sample_id", "prediction", ids,
                                   _text_prediction, ignored_ids=others)
    return dataset, ids, predictions


def _split_ids(data: Path, split: str, config: str) -> list:
    """Every sample id of ``split`` over all pairs: the ``default`` config's, else the union
    of the pair configs the folder has."""
    try:
        return list(read_split(data, split, config="default")["sample_id"])
    except CourtbenchError:
        pass
    ids: list = []
    for name in PAIR_CONFIGS:
        try:
            ids += list(read_split(data, split, config=name)["sample_id"])
        except CourtbenchError:
            continue
    return ids


def judge(args: argparse.Namespace) -> int:
    """CLI entry point ``courtbench judge slds``; 1 when a request failed, nothing was scored
    or the failed share exceeds ``--max-failure-share``."""
    settings = _settings(args)
    dataset, ids, predictions = _rows_and_predictions(args, settings.limit)
    if args.dry_run:
        return _dry_run(settings, dataset, predictions)
    result = judge_rows(list(dataset["headnote"]), list(dataset["headnote_language"]),
                        list(dataset["decision_language"]), ids, [predictions[i] for i in ids],
                        settings)
    run = {"data": str(args.data), "config": args.config, "split": args.split,
           "predictions": str(args.predictions),
           "predictions_sha256": sha256_file(args.predictions), "parse": settings.parse,
           "limit": settings.limit, "max_failure_share": settings.max_failure_share,
           "cache": str(settings.endpoint.cache_path), "courtbench_version": __version__}
    document = {**{k: v for k, v in result.items() if k != "samples"}, "run": run,
                "samples": result["samples"]}
    data = (json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode()
    summary = {k: v for k, v in result.items() if k not in ("samples", "by_language_pair")}
    failure = run_failure(result, settings.max_failure_share)
    write_output_file(args.out, data, {"run": run, "summary": summary,
                                       "complete": failure is None}, kind=OUTPUT_KIND)
    _report(args, result)
    if failure:
        print(f"courtbench judge: {failure}; exit status 1", file=sys.stderr)
        return 1
    return 0


def add_judge_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``courtbench judge slds`` options (data, predictions, out and endpoint options are
    added by the command)."""
    parser.add_argument("--config", required=True, help="language-pair config, e.g. de_fr")
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
