"""``courtbench evaluate slds``: ROUGE, BLEU, BERTScore and the LLM judge per language pair.

For every predictions file (a system, named after the file stem) the report holds the
macro-average over the language pairs present and one column per pair, for each metric, with
bootstrap standard errors; and one 3×3 heatmap PNG per metric (decision language ×
headnote language, one panel per system). Scores are on the 0–100 scale, higher is better.
BERTScore runs only with ``--bertscore`` (the ``bertscore`` extra); the judge only with
``--judge-base-url`` and ``--judge-model``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
from dataclasses import dataclass, fields
from importlib import metadata
from pathlib import Path
from typing import Any

import datasets

from courtbench import __version__
from courtbench.errors import CourtbenchError
from courtbench.hub.files import fingerprint, list_files
from courtbench.hub.offline import hub_offline
from courtbench.metric_modules import load_metric_module
from courtbench.predictions import read_predictions
from courtbench.report import Report, Table, write_report
from slds.schema import LANGUAGES, PAIRS, pair_name, parse_sample_id

METRIC_TITLES = {"rouge1": "ROUGE-1 F1", "rouge2": "ROUGE-2 F1", "rougeL": "ROUGE-L F1",
                 "bleu": "BLEU", "bertscore_f1": "BERTScore F1", "judge": "LLM judge"}


def load_split(data_dir: Path, split: str) -> datasets.Dataset:
    """The ``split`` of a built SLDS folder's ``default`` config, sorted by sample_id."""
    with hub_offline():
        loaded = datasets.load_dataset(str(data_dir), "default")
    if split not in loaded:
        raise CourtbenchError(f"--split {split!r}: not in {data_dir} (splits: {sorted(loaded)})")
    rows = loaded[split]
    ids = rows["sample_id"]
    return rows.select(sorted(range(rows.num_rows), key=ids.__getitem__))


@dataclass(frozen=True)
class EvaluationSettings:
    """How systems are scored (defaults as the CLI's). Judge runs when ``judge_base_url`` and
    ``judge_model`` are set; BERTScore when ``bertscore`` is true."""

    split: str = "test"
    rouge_tokenizer: str = "unicode"
    bleu_tokenize: str = "13a"
    bertscore: bool = False
    bertscore_model_path: str | None = None
    resamples: int = 1000
    seed: int = 0
    judge_base_url: str | None = None
    judge_model: str | None = None
    judge_api_key_env: str | None = None
    judge_cache: Path | None = None
    judge_concurrency: int = 8

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> EvaluationSettings:
        return cls(**{f.name: getattr(args, f.name) for f in fields(cls)})


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string headnote, got {type(value).__name__}")
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
    if args.judge_base_url:
        judge = load_metric_module("headnote_judge").headnote_judge
        api_key = os.environ.get(args.judge_api_key_env) if args.judge_api_key_env else None
        judged = judge(predictions, rows["headnote"], rows["headnote_language"],
                       rows["decision_language"], sample_ids=rows["sample_id"],
                       base_url=args.judge_base_url, model=args.judge_model, api_key=api_key,
                       concurrency=args.judge_concurrency, cache_path=args.judge_cache)
        scores["judge"] = {"macro": judged["macro_score"], "macro_se": None,
                           **{pair: group["score"]
                              for pair, group in judged["by_language_pair"].items()}}
        settings["judge"] = {**judged["reproducibility"], "n_failed": judged["n_failed"],
                             "n_scored": judged["n_scored"]}
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


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def evaluate_files(data_dir: Path, prediction_files: list[Path], out_dir: Path,
                   settings: EvaluationSettings = EvaluationSettings()) -> Report:
    """Score every predictions file against ``data_dir`` and write the report to ``out_dir``.

    A system is named after its file's stem; every file must hold exactly one prediction
    per sample of the split. Returns the written :class:`Report`.
    """
    if bool(settings.judge_base_url) != bool(settings.judge_model):
        raise CourtbenchError("--judge-base-url and --judge-model go together: give both to run "
                              "the LLM judge, or neither")
    rows = load_split(data_dir, settings.split)
    ids = rows["sample_id"]
    results: dict[str, dict] = {}
    for path in prediction_files:
        system = path.stem
        if system in results:
            raise CourtbenchError(f"--predictions: two files are named {system!r}; systems are "
                                  "named after the file stem")
        predicted = read_predictions(path, "sample_id", "prediction", ids, _text,
                                     parse_id=parse_sample_id)
        results[system] = score_system(rows, [predicted[i] for i in ids], settings)
    metrics = [m for m in METRIC_TITLES if m in next(iter(results.values()))]
    main = Table("main", f"Macro-average over language pairs ({settings.split})",
                 ["system", *[METRIC_TITLES[m] for m in metrics]],
                 [[system, *[scores[m]["macro"] for m in metrics]]
                  for system, scores in results.items()],
                 note="0–100, higher is better.")
    provenance = {
        "courtbench": __version__, "split": settings.split, "n": rows.num_rows,
        "data_fingerprint": fingerprint(list_files(data_dir)),
        "predictions_sha256": {p.stem: _sha256(p) for p in prediction_files},
        "settings": {system: scores["_settings"] for system, scores in results.items()},
        "versions": {p: metadata.version(p) for p in ("sacrebleu", "rouge-score", "numpy")},
    }
    report = Report(f"SLDS evaluation — {settings.split}", provenance,
                    [main, *[pair_table(m, results) for m in metrics]],
                    figures={f"heatmap_{m}.png": heatmap_figure(m, results) for m in metrics})
    write_report(report, out_dir)
    return report


def evaluate(args: argparse.Namespace) -> int:
    """CLI entry point: ``courtbench evaluate slds``."""
    report = evaluate_files(args.data, args.predictions, args.out,
                            EvaluationSettings.from_args(args))
    print(report.tables[0].markdown())
    print(f"report: {args.out / 'report.md'}")
    return 0


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
    parser.add_argument("--judge-base-url", help="OpenAI-compatible endpoint for the LLM judge")
    parser.add_argument("--judge-model", help="judge model name at that endpoint")
    parser.add_argument("--judge-api-key-env", help="environment variable holding the API key")
    parser.add_argument("--judge-cache", type=Path, help="SQLite cache of judge responses")
    parser.add_argument("--judge-concurrency", type=int, default=8, help="requests in flight (8)")
