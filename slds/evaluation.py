"""``courtbench evaluate slds``: ROUGE, BLEU, BERTScore and the LLM judge per language pair.

For every predictions file (a system, named after the file stem) the report holds the
macro-average over the language pairs present and one column per pair, for each metric, with
bootstrap standard errors; and one 3×3 heatmap PNG per metric (decision language ×
headnote language, one panel per system). Scores are on the 0–100 scale, higher is better.
BERTScore runs only with ``--bertscore`` (the ``bertscore`` extra); the judge only with
``--judge-base-url`` and ``--judge-model`` (:mod:`slds.judge`, the defaults of
``courtbench judge slds``; exit status 1 when a judge request failed or nothing was scored).

Predictions files may be the output of ``courtbench generate slds``: a row whose generation
failed (``"prediction": null``) is scored as an empty prediction, and the failed and empty
rows of each system are counted in the report.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, fields, is_dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import datasets

from courtbench import __version__
from courtbench.errors import CourtbenchError
from courtbench.hub.files import fingerprint, list_files, sha256_file
from courtbench.leaderboard.rerun import rerun_block
from courtbench.llm import EndpointConfig
from courtbench.metric_modules import load_metric_module
from courtbench.predictions import read_predictions
from courtbench.report import Report, Table, write_report
from slds.data import read_split
from slds.judge import (
    JudgeSettings,
    add_evaluate_judge_arguments,
    judge_rows,
    run_failure,
    settings_from_evaluate_args,
)
from slds.schema import LANGUAGES, PAIRS, pair_name, parse_sample_id

METRIC_TITLES = {"rouge1": "ROUGE-1 F1", "rouge2": "ROUGE-2 F1", "rougeL": "ROUGE-L F1",
                 "bleu": "BLEU", "bertscore_f1": "BERTScore F1", "judge": "LLM judge"}


@dataclass(frozen=True)
class EvaluationSettings:
    """How systems are scored (defaults as the CLI's). The LLM judge runs when ``judge`` is
    set; BERTScore when ``bertscore`` is true."""

    split: str = "test"
    rouge_tokenizer: str = "unicode"
    bleu_tokenize: str = "13a"
    bertscore: bool = False
    bertscore_model_path: str | None = None
    resamples: int = 1000
    seed: int = 0
    judge: JudgeSettings | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> EvaluationSettings:
        own = {f.name: getattr(args, f.name) for f in fields(cls) if f.name != "judge"}
        return cls(**own, judge=settings_from_evaluate_args(args))


def _json_value(value: Any) -> Any:
    """Dataclasses as dicts, paths as text: the JSON form of evaluation settings."""
    if is_dataclass(value):
        return {f.name: _json_value(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, dict):
        return {key: _json_value(item) for key, item in value.items()}
    return value


def rerun_options(settings: EvaluationSettings) -> dict[str, Any]:
    """The evaluation settings as JSON values (the judge's endpoint and paths included)."""
    return _json_value(settings)


def _path(value: str | None) -> Path | None:
    return None if value is None else Path(value)


def settings_from_options(options: dict[str, Any]) -> EvaluationSettings:
    """The :class:`EvaluationSettings` that :func:`rerun_options` recorded."""
    judge = options.get("judge")
    if judge is not None:
        endpoint = EndpointConfig(**{**judge["endpoint"],
                                     "cache_path": _path(judge["endpoint"]["cache_path"])})
        judge = JudgeSettings(**{**judge, "endpoint": endpoint, "progress": False,
                                 "system_template": _path(judge["system_template"]),
                                 "user_template": _path(judge["user_template"]),
                                 "demonstrations": {k: Path(v) for k, v in
                                                    judge["demonstrations"].items()}})
    return EvaluationSettings(**{**options, "judge": judge})


def prediction_text(value: Any) -> str | None:
    """A headnote, or ``None`` for a failed generation (``"prediction": null``)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"expected a string headnote (or null for a failed generation), got "
                        f"{type(value).__name__}")
    return value


def score_system(rows: datasets.Dataset, predictions: list[str],
                 args: EvaluationSettings) -> dict[str, dict[str, Any]]:
    """Every requested metric for one system: ``{metric: {"macro", "macro_se", pairs...}}``
    plus ``"_settings"`` with what makes the numbers reproducible."""
    similarity = load_metric_module("headnote_similarity").headnote_similarity
    try:
        result = similarity(
            predictions, rows["headnote"], rows["headnote_language"], rows["decision_language"],
            rouge_tokenizer=args.rouge_tokenizer, bleu_tokenize=args.bleu_tokenize,
            bertscore=args.bertscore, bertscore_model_path=args.bertscore_model_path,
            bootstrap_resamples=args.resamples, seed=args.seed)
    except ValueError as error:
        raise CourtbenchError(f"headnote_similarity: {error}") from None
    metrics = ["rouge1", "rouge2", "rougeL", "bleu"] + (["bertscore_f1"] if args.bertscore else [])
    scores = {m: {"macro": result[m], "macro_se": result[f"{m}_se"],
                  **{pair: group[m] for pair, group in result["groups"].items()}}
              for m in metrics}
    settings = {k: v for k, v in result.items()
                if k not in {"groups", *metrics, *(f"{m}_se" for m in metrics)}}
    if args.judge is not None:
        n = args.judge.limit  # --judge-limit: the first N rows only (None: all)
        judged = judge_rows(*(list(rows[c])[:n] for c in ("headnote", "headnote_language",
                                                            "decision_language", "sample_id")),
                            list(predictions)[:n], args.judge)
        scores["judge"] = {"macro": judged["macro_score"], "macro_se": None,
                           **{pair: group["score"]
                              for pair, group in judged["by_language_pair"].items()}}
        settings["judge"] = {**judged["reproducibility"], "n_failed": judged["n_failed"],
                             "n_scored": judged["n_scored"], "n_unparsed": judged["n_unparsed"],
                             "n_request_failed": judged["n_request_failed"],
                             "failed_as_zero": judged["failed_as_zero"],
                             "n_excluded": judged["n_excluded"], "n_samples": judged["n_samples"],
                             "n_truncated": judged["n_truncated"], "limit": n,
                             "run_failure": run_failure(judged, args.judge.max_failure_share)}
    scores["_settings"] = settings
    return scores


def pair_table(metric: str, results: dict[str, dict]) -> Table:
    """One metric: a row per system, the macro-average with its SE, then the nine pairs."""
    pairs = [pair_name(d, h) for d, h in PAIRS]
    rows = [[system, scores[metric]["macro"], scores[metric]["macro_se"],
             *[scores[metric].get(pair) for pair in pairs]]
            for system, scores in results.items()]
    return Table(metric, f"{METRIC_TITLES[metric]} by language pair", ["system", "macro", "SE",
                 *pairs], rows, note="0–100, higher is better; macro = unweighted mean over the "
                 "pairs present; SE = bootstrap standard error; pair = decision_headnote language; "
                 "— = pair absent.")


def heatmap_figure(metric: str, results: dict[str, dict]):
    """A function drawing one 3×3 heatmap per system for ``metric`` (matplotlib)."""

    def draw(path: Path) -> None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import numpy as np

        systems = list(results)
        fig, axes = plt.subplots(1, len(systems), figsize=(3.4 * len(systems), 3.2),
                                 squeeze=False)
        for axis, system in zip(axes[0], systems, strict=True):
            grid = np.array([[results[system][metric].get(pair_name(d, h), np.nan)
                              for h in LANGUAGES] for d in LANGUAGES], dtype=float)
            top = max(1.0, float(np.nanmax(grid))) if np.isfinite(grid).any() else 1.0
            axis.imshow(grid, cmap="viridis", vmin=0, vmax=top)
            for i in range(3):
                for j in range(3):
                    text = "—" if np.isnan(grid[i, j]) else f"{grid[i, j]:.1f}"
                    light_cell = not np.isnan(grid[i, j]) and grid[i, j] > 0.6 * top
                    axis.text(j, i, text, ha="center", va="center", fontsize=9,
                              color="black" if light_cell else "white")
            axis.set_xticks(range(3), LANGUAGES)
            axis.set_yticks(range(3), LANGUAGES)
            axis.set_xlabel("headnote language")
            axis.set_ylabel("decision language")
            axis.set_title(system, fontsize=9)
        fig.suptitle(f"{METRIC_TITLES[metric]} (0–100)")
        fig.tight_layout()
        fig.savefig(path, dpi=110, metadata={"Software": None})
        plt.close(fig)

    return draw


def evaluate_files(data_dir: Path, prediction_files: list[Path], out_dir: Path,
                   settings: EvaluationSettings = EvaluationSettings()) -> Report:
    """Score every predictions file against ``data_dir`` and write the report to ``out_dir``.

    A system is named after its file's stem; every file must hold exactly one prediction
    per sample of the split. Returns the written :class:`Report`.
    """
    rows = read_split(data_dir, settings.split,
                      columns=("headnote", "headnote_language", "decision_language"))
    ids = rows["sample_id"]
    results: dict[str, dict] = {}
    failed: dict[str, int] = {}
    empty: dict[str, int] = {}
    for path in prediction_files:
        system = path.stem
        if system in results:
            raise CourtbenchError(f"--predictions: two files are named {system!r}; systems are "
                                  "named after the file stem")
        predicted = read_predictions(path, "sample_id", "prediction", ids, prediction_text,
                                     parse_id=parse_sample_id)
        texts = [predicted[i] or "" for i in ids]
        failed[system] = sum(predicted[i] is None for i in ids)
        empty[system] = sum(not text.strip() for text in texts) - failed[system]
        results[system] = score_system(rows, texts, settings)
    metrics = [m for m in METRIC_TITLES if m in next(iter(results.values()))]
    main = Table("main", f"Macro-average over language pairs ({settings.split})",
                 ["system", *[METRIC_TITLES[m] for m in metrics]],
                 [[system, *[scores[m]["macro"] for m in metrics]]
                  for system, scores in results.items()],
                 note="0–100, higher is better. A failed generation (prediction null) is "
                 "scored as an empty prediction; failed and empty rows per system are in the "
                 "provenance (failed_predictions, empty_predictions).")
    provenance = {
        "courtbench": __version__, "split": settings.split, "n": rows.num_rows,
        "data_fingerprint": fingerprint(list_files(data_dir)),
        "predictions_sha256": {p.stem: sha256_file(p) for p in prediction_files},
        "failed_predictions": failed, "empty_predictions": empty,
        "settings": {system: scores["_settings"] for system, scores in results.items()},
        "versions": {p: metadata.version(p) for p in ("sacrebleu", "rouge-score", "numpy")},
    }
    provenance["rerun"] = rerun_block(
        "slds", data_dir, {p.stem: p for p in prediction_files}, rerun_options(settings),
        ("headnote_similarity", *(["headnote_judge"] if settings.judge else [])))
    report = Report(f"SLDS evaluation — {settings.split}", provenance,
                    [main, *[pair_table(m, results) for m in metrics]],
                    figures={f"heatmap_{m}.png": heatmap_figure(m, results) for m in metrics})
    write_report(report, out_dir)
    return report


def evaluate(args: argparse.Namespace) -> int:
    """CLI entry point: ``courtbench evaluate slds``; 1 when the judge ran and failed."""
    report = evaluate_files(args.data, args.predictions, args.out,
                            EvaluationSettings.from_args(args))
    print(report.tables[0].markdown())
    print(f"report: {args.out / 'report.md'}")
    for system, count in report.provenance["failed_predictions"].items():
        if count or report.provenance["empty_predictions"][system]:
            print(f"courtbench evaluate: {system}: {count} failed generation(s) (scored as empty "
                  f"predictions), {report.provenance['empty_predictions'][system]} empty "
                  "prediction(s)", file=sys.stderr)
    failures = {system: s["judge"]["run_failure"]
                for system, s in report.provenance["settings"].items()
                if s.get("judge", {}).get("run_failure")}
    for system, failure in failures.items():
        print(f"courtbench evaluate: judge of {system}: {failure}", file=sys.stderr)
    return 1 if failures else 0


def add_evaluate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--split", default="test", help="split of the default config (default test)")
    parser.add_argument("--rouge-tokenizer", choices=("unicode", "rouge_score"), default="unicode",
                        help="unicode (default; keeps ä, é, à) or rouge_score (ASCII-only, for "
                             "parity with published numbers)")
    parser.add_argument("--bleu-tokenize", default="13a",
                        help="sacrebleu tokenizer: 13a (default, parity) or intl (recommended)")
    parser.add_argument("--bertscore", action="store_true",
                        help="add BERTScore (needs the bertscore extra and a local model)")
    parser.add_argument("--bertscore-model-path", help="local model folder for BERTScore")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (1000)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (0)")
    add_evaluate_judge_arguments(parser)
