"""``courtbench judge``: score generated headnotes with an LLM judge (metric module headnote_judge).

Loads one config/split of an SLDS-like Hub folder offline, reads the predictions (JSON Lines
or CSV with ``sample_id`` and ``prediction``), sends every pair (gold, generated) to the judge
model at ``--base-url`` and writes the scores, failures and provenance to ``--out``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path

from courtbench import __version__
from courtbench.errors import CourtbenchError
from courtbench.hub.offline import hub_offline
from courtbench.metric_modules import load_metric_module
from courtbench.predictions import read_predictions

REQUIRED_COLUMNS = ("sample_id", "headnote", "headnote_language", "decision_language")


def load_split(folder: Path, config: str, split: str):
    """``datasets.load_dataset(folder, config, split=split)`` offline, with the columns the
    judge needs; raises CourtbenchError naming the folder, config, split or missing columns."""
    import datasets

    if not folder.is_dir():
        raise CourtbenchError(f"--data {folder}: not a folder")
    try:
        with hub_offline():
            dataset = datasets.load_dataset(str(folder), config, split=split)
    except (ValueError, FileNotFoundError, KeyError) as error:
        raise CourtbenchError(f"--data {folder}: cannot load config {config!r}, split {split!r}: "
                              f"{error}") from None
    missing = [c for c in REQUIRED_COLUMNS if c not in dataset.column_names]
    if missing:
        raise CourtbenchError(f"--data {folder}, config {config!r}, split {split!r}: columns "
                              f"{', '.join(missing)} missing (has {', '.join(dataset.column_names)})")
    return dataset


def _text_prediction(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


def _demonstrations(items: list[str]) -> dict[str, Path]:
    demos: dict[str, Path] = {}
    for item in items:
        language, sep, file = item.partition("=")
        if not sep or not language or not file:
            raise CourtbenchError(f"--demonstration {item!r}: expected LANG=FILE, e.g. de=demo_de.txt")
        if language in demos:
            raise CourtbenchError(f"--demonstration: language {language!r} given twice")
        demos[language] = Path(file)
    return demos


def _api_key(variable: str | None) -> str | None:
    if variable is None:
        return None
    key = os.environ.get(variable)
    if not key:
        raise CourtbenchError(f"--api-key-env {variable}: the environment variable is not set or empty")
    return key


def _sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run(args: argparse.Namespace) -> int:
    api_key = _api_key(args.api_key_env)
    demonstrations = _demonstrations(args.demonstration)
    dataset = load_split(args.data, args.config, args.split)
    ids = list(dataset["sample_id"])
    predictions = read_predictions(args.predictions, "sample_id", "prediction", ids, _text_prediction)
    cache = args.cache if args.cache is not None else args.out.with_suffix(".judge-cache.sqlite")
    judge = load_metric_module("headnote_judge")
    try:
        result = judge.headnote_judge(
            [predictions[i] for i in ids], list(dataset["headnote"]),
            list(dataset["headnote_language"]), list(dataset["decision_language"]), sample_ids=ids, base_url=args.base_url,
            model=args.model, api_key=api_key, system_template=args.system_template,
            user_template=args.user_template, demonstrations=demonstrations,
            max_tokens=args.max_tokens, seed=args.seed, timeout=args.timeout,
            max_retries=args.max_retries, concurrency=args.concurrency, cache_path=cache,
            failed_as_zero=args.failed_as_zero, progress=not args.no_progress)
    except ValueError as error:
        raise CourtbenchError(str(error)) from None
    document = {
        **{k: v for k, v in result.items() if k != "samples"},
        "run": {"data": str(args.data), "config": args.config, "split": args.split,
                "predictions": str(args.predictions),
                "predictions_sha256": _sha256_file(args.predictions),
                "cache": str(cache), "courtbench_version": __version__},
        "samples": result["samples"],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    partial = args.out.with_name(args.out.name + ".partial")
    partial.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(partial, args.out)

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
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "judge", help="score generated headnotes with an LLM judge (OpenAI-compatible endpoint)",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, metavar="DIR",
                        help="Hub folder of the SLDS benchmark (as written by `courtbench build`)")
    parser.add_argument("--config", required=True, help="language-pair config, e.g. de_fr")
    parser.add_argument("--split", default="test", help="split to judge (default: test)")
    parser.add_argument("--predictions", type=Path, required=True, metavar="FILE",
                        help="JSON Lines or CSV with columns sample_id and prediction")
    parser.add_argument("--base-url", required=True, metavar="URL",
                        help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1")
    parser.add_argument("--model", required=True, metavar="NAME", help="judge model name")
    parser.add_argument("--api-key-env", metavar="VAR",
                        help="environment variable holding the API key (default: send no key)")
    parser.add_argument("--concurrency", type=int, default=8, metavar="N",
                        help="requests in flight at once (default: 8)")
    parser.add_argument("--cache", type=Path, metavar="PATH",
                        help="SQLite response cache (default: OUT with suffix .judge-cache.sqlite)")
    parser.add_argument("--out", type=Path, required=True, metavar="FILE", help="results JSON")
    parser.add_argument("--max-tokens", type=int, default=2048, help="answer budget (default: 2048)")
    parser.add_argument("--seed", type=int, default=0, help="sampling seed sent to the endpoint")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per request")
    parser.add_argument("--max-retries", type=int, default=5, help="retries per request")
    parser.add_argument("--failed-as-zero", action="store_true",
                        help="count failed samples as 0 instead of excluding them")
    parser.add_argument("--system-template", type=Path, metavar="FILE",
                        help="replace the system prompt (string.Template placeholders)")
    parser.add_argument("--user-template", type=Path, metavar="FILE", help="replace the user prompt")
    parser.add_argument("--demonstration", action="append", default=[], metavar="LANG=FILE",
                        help="a judged example for headnotes in LANG (repeatable)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(func=run)
