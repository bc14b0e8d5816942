"""The SLDS LLM judge from the command line: ``courtbench judge slds`` and the judge of
``courtbench evaluate slds --judge-*``, with one set of defaults.

Shared defaults of both entry points: the API key from ``OPENAI_API_KEY`` when set (an
explicitly named ``--api-key-env`` must be set), the response cache beside the output
(:func:`default_cache`), failed samples excluded from the means unless ``--failed-as-zero``,
and exit status 1 when any judge request could not be completed after retries or no sample was
scored. Answers the judge model formats badly are failures of the judge model: counted and
reported per sample, not an error of the run.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from courtbench import __version__
from courtbench.errors import CourtbenchError
from courtbench.hub.files import sha256_file
from courtbench.llm import EndpointConfig, endpoint_from_args
from courtbench.llm.core import ResponseCache
from courtbench.metric_modules import load_metric_module
from courtbench.output_files import check_output_file, write_output_file
from courtbench.predictions import read_predictions
from slds.data import read_split

OUTPUT_KIND = "slds-judge"
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


def check_cache(path: Path | None, option: str = "--cache") -> None:
    """Refuse a cache file that is not an SQLite cache, before any slow work."""
    if path is None:
        return
    try:
        ResponseCache(path).close()
    except ValueError as error:
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
                     progress=settings.progress)
    except ValueError as error:
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
    return JudgeSettings(endpoint, failed_as_zero=args.judge_failed_as_zero, progress=False)


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
    group.add_argument("--judge-concurrency", type=int, default=8, metavar="N",
                       help="requests in flight (default 8)")
    group.add_argument("--judge-timeout", type=float, default=120.0, metavar="SECONDS",
                       help="seconds per request attempt (default 120)")
    group.add_argument("--judge-max-retries", type=int, default=6, metavar="N",
                       help="retries on 429 / 5xx / timeouts (default 6)")
    group.add_argument("--judge-failed-as-zero", action="store_true",
                       help="count failed judge samples as 0 instead of excluding them")


def run_failure(result: dict) -> str | None:
    """Why a judge run must exit non-zero, or None: requests that failed after retries, or
    no sample scored."""
    if result["n_request_failed"]:
        return (f"{result['n_request_failed']} judge request(s) could not be completed after "
                "retries")
    if result["n_scored"] == 0:
        return "no sample was scored"
    return None


def _demonstrations(items: list[str]) -> dict[str, Path]:
    demos: dict[str, Path] = {}
    for item in items:
        language, sep, file = item.partition("=")
        if not sep or not language or not file:
            raise CourtbenchError(f"--demonstration {item!r}: expected LANG=FILE, e.g. de=demo_de.txt")
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
    demonstrations = _demonstrations(args.demonstration)
    if not args.dry_run:
        check_output_file(args.out, kind=OUTPUT_KIND, overwrite=args.overwrite, suffixes=(".json",))
    endpoint = endpoint_from_args(args, default_cache=default_cache(args.out))
    if not args.dry_run:
        check_cache(endpoint.cache_path)
    return JudgeSettings(endpoint, failed_as_zero=args.failed_as_zero, max_tokens=args.max_tokens,
                         seed=args.seed, system_template=args.system_template,
                         user_template=args.user_template, demonstrations=demonstrations,
                         progress=not args.no_progress)


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
                          module.judge_params(settings.max_tokens, settings.seed))
    print(dry_run_text([request] * dataset.num_rows, settings.endpoint))
    return 0


def _report(args: argparse.Namespace, result: dict) -> None:
    def show(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.2f}"

    print(f"{args.config}/{args.split}: judge score {show(result['score'])} (0-100), macro over "
          f"{result['n_language_pairs']} pair(s) {show(result['macro_score'])}; "
          f"{result['n_scored']} scored, {result['n_failed']} failed "
          f"({'counted as 0' if args.failed_as_zero else 'excluded'}); results in {args.out}")
    if result["n_failed"]:
        print(f"courtbench judge: {result['n_failed']} sample(s) failed "
              f"({result['n_unparsed']} unparsed, {result['n_request_failed']} request errors); "
              f"reasons per sample in {args.out}", file=sys.stderr)


def _other_pair_ids(folder: Path, split: str, ids: list) -> set:
    """Sample ids of ``split`` in the folder's other pairs (its ``default`` config), skipped
    in a predictions file; none when the folder has no ``default`` config."""
    try:
        everything = read_split(folder, split)["sample_id"]
    except CourtbenchError:
        return set()
    return set(everything) - set(ids)


def judge(args: argparse.Namespace) -> int:
    """CLI entry point ``courtbench judge slds``; 1 when a request failed or nothing scored."""
    settings = _settings(args)
    dataset = read_split(args.data, args.split, config=args.config, columns=REQUIRED_COLUMNS)
    ids = list(dataset["sample_id"])
    # a file covering other pairs too (e.g. of `baselines slds` or `generate --config all`):
    # the rows of the other pairs are skipped, those of --config must all be there
    others = _other_pair_ids(args.data, args.split, ids)
    predictions = read_predictions(args.predictions, "sample_id", "prediction", ids,
                                   _text_prediction, ignored_ids=others)
    if args.dry_run:
        return _dry_run(settings, dataset, predictions)
    result = judge_rows(list(dataset["headnote"]), list(dataset["headnote_language"]),
                        list(dataset["decision_language"]), ids, [predictions[i] for i in ids],
                        settings)
    run = {"data": str(args.data), "config": args.config, "split": args.split,
           "predictions": str(args.predictions),
           "predictions_sha256": sha256_file(args.predictions),
           "cache": str(settings.endpoint.cache_path), "courtbench_version": __version__}
    document = {**{k: v for k, v in result.items() if k != "samples"}, "run": run,
                "samples": result["samples"]}
    data = (json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode()
    summary = {k: v for k, v in result.items() if k not in ("samples", "by_language_pair")}
    write_output_file(args.out, data, {"run": run, "summary": summary}, kind=OUTPUT_KIND)
    _report(args, result)
    failure = run_failure(result)
    if failure:
        print(f"courtbench judge: {failure}; exit status 1", file=sys.stderr)
        return 1
    return 0


def add_judge_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``courtbench judge slds`` options (data, predictions, out and endpoint options are
    added by the command)."""
    parser.add_argument("--config", required=True, help="language-pair config, e.g. de_fr")
    parser.add_argument("--split", default="test", help="split to judge (default: test)")
    parser.add_argument("--max-tokens", type=int, default=2048, help="answer budget (default: 2048)")
    parser.add_argument("--seed", type=int, default=0, help="sampling seed sent to the endpoint")
    parser.add_argument("--failed-as-zero", action="store_true",
                        help="count failed samples as 0 instead of excluding them")
    parser.add_argument("--system-template", type=Path, metavar="FILE",
                        help="replace the system prompt (string.Template placeholders)")
    parser.add_argument("--user-template", type=Path, metavar="FILE", help="replace the user prompt")
    parser.add_argument("--demonstration", action="append", default=[], metavar="LANG=FILE",
                        help="a judged example for headnotes in LANG (repeatable)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
