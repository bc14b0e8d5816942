"""``courtbench evaluate slds``: ROUGE, BLEU, BERTScore and the LLM judge per language pair.

For every predictions file (a system, named after the file stem) the report holds the
macro-average over the language pairs present and one column per pair, for each metric, with
bootstrap standard errors; and one 3×3 heatmap PNG per metric (decision language ×
headnote language, one panel per system). Scores are on the 0–100 scale, higher is better.
BERTScore runs only with ``--bertscore`` (the ``bertscore`` extra); the judge only with
``--judge-model`` (:mod:`slds.judge`, through Inspect AI with the defaults of ``courtbench judge
slds``; exit status 1 when a judge request failed or nothing was scored).

Predictions files may be the output of ``courtbench generate slds``: a row whose generation
failed (``"prediction": null``) is scored as an empty prediction, and the failed and empty
rows of each system are counted in the report. An Inspect log (``.eval``) of the
``courtbench/slds`` task is a predictions file too (each scored sample's answer; a sample that
errored has no prediction, so its pair counts as covered in part).

Scope: a file may cover one, some or all language pairs of the split. With ``--configs
de_fr,fr_fr`` each file must cover exactly those pairs (rows of other pairs are skipped);
without it the pairs are inferred per file from its sample ids. A pair covered in part is
refused naming the missing ids. Macro-averages are over the pairs a system covers, and every
table states them (``pairs`` column, report.json ``provenance.scope``). A runner's manifest
beside a file gives its failure share (a column, and a banner above
:data:`FAILURE_BANNER_SHARE`).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, fields, is_dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import Any

import datasets

from courtbench import __version__, option_checks
from courtbench.errors import CourtbenchError
from courtbench.hub.files import fingerprint, list_files, sha256_file
from courtbench.leaderboard.rerun import rerun_block
from courtbench.metric_modules import load_metric_module
from courtbench.output_files import read_manifest, run_status
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

#: Above this share of failed generations a banner warns above the main table.
FAILURE_BANNER_SHARE = 0.05
METRIC_TITLES = {"rouge1": "ROUGE-1 F1", "rouge2": "ROUGE-2 F1", "rougeL": "ROUGE-L F1",
                 "bleu": "BLEU", "bertscore_precision": "BERTScore P",
                 "bertscore_recall": "BERTScore R", "bertscore_f1": "BERTScore F1",
                 "judge": "LLM judge"}
BERTSCORE_METRICS = ("bertscore_precision", "bertscore_recall", "bertscore_f1")
#: Extractiveness of a headnote against its decision (summarization_properties), defined for
#: same-language pairs only.
EXTRACTIVENESS = (("coverage", "coverage"), ("density", "density"),
                  ("compression_ratio", "compression"))
SAME_LANGUAGE_PAIRS = tuple(pair_name(language, language) for language in LANGUAGES)


@dataclass(frozen=True)
class EvaluationSettings:
    """How systems are scored (defaults as the CLI's). The LLM judge runs when ``judge`` is
    set; BERTScore when ``bertscore`` is true."""

    split: str = "test"
    configs: tuple[str, ...] | None = None
    rouge_tokenizer: str = "unicode"
    bleu_tokenize: str = "13a"
    bertscore: bool = False
    bertscore_model_path: str | None = None
    resamples: int = 1000
    seed: int = 0
    judge: JudgeSettings | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> EvaluationSettings:
        own = {f.name: getattr(args, f.name) for f in fields(cls)
               if f.name not in ("judge", "configs")}
        return cls(**own, configs=parse_configs(args.configs),
                   judge=settings_from_evaluate_args(args))


def _json_value(value: Any) -> Any:
    """Dataclasses as dicts, paths as text: the JSON form of evaluation settings."""
    if is_dataclass(value):
        return {f.name: _json_value(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, dict):
        return {key: _json_value(item) for key, item in value.items()}
    if isinstance(value, tuple):
        return [_json_value(item) for item in value]
    return value


def rerun_options(settings: EvaluationSettings) -> dict[str, Any]:
    """The evaluation settings as JSON values (the judge's model options and paths included,
    never a header value)."""
    judge = settings.judge
    return {**_json_value(replace(settings, judge=None)),
            "judge": None if judge is None else judge.to_json()}


def settings_from_options(options: dict[str, Any]) -> EvaluationSettings:
    """The :class:`EvaluationSettings` that :func:`rerun_options` recorded."""
    judge = options.get("judge")
    if judge is not None:
        judge = JudgeSettings.from_json(judge)
    configs = options.get("configs")
    return EvaluationSettings(**{**options, "judge": judge,
                                 "configs": None if configs is None else tuple(configs)})


def parse_configs(text: str | None) -> tuple[str, ...] | None:
    """``--configs de_fr,fr_fr`` → pairs in config order; ``None`` (infer per file)."""
    if text is None:
        return None
    names = [part.strip() for part in text.split(",") if part.strip()]
    known = [pair_name(d, h) for d, h in PAIRS]
    unknown = [name for name in names if name not in known]
    if unknown or not names:
        raise CourtbenchError(f"--configs {text!r}: expected a comma-separated subset of "
                              f"{', '.join(known)}")
    return tuple(name for name in known if name in names)


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
    metrics = ["rouge1", "rouge2", "rougeL", "bleu"] + (list(BERTSCORE_METRICS)
                                                        if args.bertscore else [])
    scores = {m: {"macro": result[m], "macro_se": result[f"{m}_se"],
                  **{pair: group[m] for pair, group in result["groups"].items()}}
              for m in metrics}
    settings = {k: v for k, v in result.items()
                if k not in {"groups", *metrics, *(f"{m}_se" for m in metrics)}}
    if args.judge is not None:
        n = args.judge.options.limit  # --judge-limit: the first N rows only (None: all)
        judged = judge_rows(judged_rows(rows, n), list(predictions)[:n], args.judge)
        scores["judge"] = {"macro": judged["macro_score"], "macro_se": None,
                           **{pair: group["score"]
                              for pair, group in judged["by_language_pair"].items()}}
        settings["judge"] = {**judged["reproducibility"], "n_failed": judged["n_failed"],
                             "n_scored": judged["n_scored"], "n_unparsed": judged["n_unparsed"],
                             "n_request_failed": judged["n_request_failed"],
                             "failed_as_zero": judged["failed_as_zero"],
                             "n_excluded": judged["n_excluded"], "n_samples": judged["n_samples"],
                             "n_truncated": judged["n_truncated"], "limit": n,
                             "run_failure": run_failure(judged,
                                                        args.judge.options.max_failure_share)}
    scores["_settings"] = settings
    return scores


def judged_rows(rows: datasets.Dataset, limit: int | None) -> list[dict[str, Any]]:
    """The first ``limit`` rows as the judge takes them (id, pair, gold headnote, languages)."""
    columns = {c: list(rows[c])[:limit] for c in ("sample_id", "headnote", "headnote_language",
                                                  "decision_language")}
    return [{"id": i, "headnote": h, "headnote_language": hl, "decision_language": dl,
             "config": pair_name(dl, hl)}
            for i, h, hl, dl in zip(*columns.values(), strict=True)]


def _se_cell(scores: dict[str, Any], metric: str) -> Any:
    """The macro SE, or "n/a" when it is undefined (no pair has two items to resample)."""
    se = scores[metric]["macro_se"]
    if se is None or max(scores["_n"].values(), default=0) < 2:
        return "n/a"
    return se


def pair_table(metric: str, results: dict[str, dict]) -> Table:
    """One metric: a row per system, its pairs and n, the macro-average with its SE, then the
    nine pairs; a last row gives each pair's n."""
    pairs = [pair_name(d, h) for d, h in PAIRS]
    rows = [[system, "+".join(scores["_n"]), sum(scores["_n"].values()),
             scores[metric]["macro"], _se_cell(scores, metric),
             *[scores[metric].get(pair) for pair in pairs]]
            for system, scores in results.items()]
    counts: dict[str, int] = {}
    for scores in results.values():
        counts.update(scores["_n"])
    rows.append(["n (samples)", None, None, None, None, *[counts.get(pair) for pair in pairs]])
    return Table(metric, f"{METRIC_TITLES[metric]} by language pair",
                 ["system", "pairs", "n", "macro", "SE", *pairs], rows,
                 note="0–100, higher is better; macro = unweighted mean over the pairs the "
                 "system covers (column pairs); SE = bootstrap standard error (n/a: undefined, "
                 "one item per pair); pair = decision_headnote language; — = pair absent.")


def heatmap_figure(metric: str, results: dict[str, dict]):
    """A function drawing one 3×3 heatmap per system for ``metric`` (matplotlib)."""

    def draw(path: Path) -> None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import numpy as np

        systems = list(results)
        fig, axes = plt.subplots(1, len(systems), figsize=(3.4 * len(systems) + 0.8, 3.2),
                                 squeeze=False)
        grids = {system: np.array([[results[system][metric].get(pair_name(d, h), np.nan)
                                    for h in LANGUAGES] for d in LANGUAGES], dtype=float)
                 for system in systems}
        finite = [float(np.nanmax(g)) for g in grids.values() if np.isfinite(g).any()]
        top = max([1.0, *finite])  # one colour scale per metric, shared by every system
        image = None
        for axis, system in zip(axes[0], systems, strict=True):
            grid = grids[system]
            image = axis.imshow(grid, cmap="viridis", vmin=0, vmax=top)
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
        fig.suptitle(f"{METRIC_TITLES[metric]} (0–100; one colour scale for all systems)")
        fig.tight_layout()
        fig.colorbar(image, ax=list(axes[0]), fraction=0.04, pad=0.02)
        fig.savefig(path, dpi=110, metadata={"Software": None})
        plt.close(fig)

    return draw


def _pair_of_rows(rows: datasets.Dataset) -> list[str]:
    return [pair_name(d, h) for d, h in zip(rows["decision_language"], rows["headnote_language"],
                                            strict=True)]


def _covered_pairs(ids: list, pairs: list[str], configs: tuple[str, ...] | None,
                   predicted: dict) -> list[str]:
    """The pairs a file covers, in config order: ``configs`` when given, else every pair of
    which it predicts at least one id."""
    named = configs or {p for i, p in zip(ids, pairs, strict=True) if i in predicted}
    return [pair_name(d, h) for d, h in PAIRS if pair_name(d, h) in named]


def _check_pair_complete(path: Path, pair: str, ids: list, pairs: list[str],
                         predicted: dict, configs: tuple[str, ...] | None) -> None:
    """CourtbenchError unless every sample of ``pair`` has a prediction in ``predicted``."""
    missing = [i for i, p in zip(ids, pairs, strict=True) if p == pair and i not in predicted]
    if configs and len(missing) == pairs.count(pair):
        raise CourtbenchError(f"{path}: no prediction for pair {pair} named by --configs; "
                              "expected every sample of each pair of --configs")
    if missing:
        raise CourtbenchError(
            f"{path}: covers pair {pair} in part: {len(missing):,} sample id(s) of the pair "
            f"have no prediction: {', '.join(map(str, missing[:20]))}"
            + (f", ... ({len(missing) - 20:,} more)" if len(missing) > 20 else "")
            + "; a pair is scored only when every sample of it has a prediction")


def read_system(path: Path, ids: list, pairs: list[str], configs: tuple[str, ...] | None
                ) -> tuple[dict, list[str]]:
    """A file's predictions and the pairs it covers (``configs`` when given, else those it
    holds ids of). CourtbenchError for a pair covered in part (missing ids listed), an id of
    no pair of the split, or a file covering nothing."""
    wanted = set(configs) if configs else set(pairs)
    expected = [i for i, pair in zip(ids, pairs, strict=True) if pair in wanted]
    others = [i for i, pair in zip(ids, pairs, strict=True) if pair not in wanted]
    predicted = read_predictions(path, "sample_id", "prediction", expected, prediction_text,
                                 parse_id=parse_sample_id, ignored_ids=others,
                                 allow_missing=True)
    covered = _covered_pairs(ids, pairs, configs, predicted)
    for pair in covered:
        _check_pair_complete(path, pair, ids, pairs, predicted, configs)
    if not covered:
        raise CourtbenchError(f"{path}: no prediction for any sample of the split "
                              f"{'in ' + ', '.join(configs) if configs else ''}".rstrip())
    return predicted, covered


def _extractiveness(columns: dict[str, list], index: list[int], summaries: list[str],
                    module) -> dict[str, float | None]:
    """Mean coverage, density and compression ratio of ``summaries`` (rows ``index``)."""
    result = module.summarization_properties(
        [columns["decision"][k] for k in index], summaries,
        [columns["decision_language"][k] for k in index],
        [columns["headnote_language"][k] for k in index],
        formulaicness_subset_size=2, formulaicness_subsets=1)
    return {key: result["aggregates"][key]["mean"] for key, _ in EXTRACTIVENESS}


def _system_extractiveness(system: str, own: list[str], pairs: list[str], texts: list[str],
                           columns: dict[str, list], gold: dict[str, dict], module) -> list[list]:
    """One system's table rows: each of its same-language pairs ``own``, then their macro
    average when there are several; ``gold`` caches the gold values per pair."""
    values = {}
    table_rows = []
    for pair in own:
        index = [k for k, p in enumerate(pairs) if p == pair]
        if pair not in gold:
            gold[pair] = _extractiveness(columns, index,
                                         [columns["headnote"][k] for k in index], module)
        values[pair] = _extractiveness(columns, index, [texts[k] for k in index], module)
        table_rows.append(_extractiveness_row(system, pair, len(index), values[pair],
                                              gold[pair]))
    if len(own) > 1:
        table_rows.append(_extractiveness_row(
            system, "macro", sum(pairs.count(p) for p in own),
            _macro([values[p] for p in own]), _macro([gold[p] for p in own])))
    return table_rows


def extractiveness_table(rows: datasets.Dataset, pairs: list[str], texts: dict[str, list[str]],
                         scope: dict[str, list[str]]) -> Table:
    """Coverage, density and compression ratio of each system's headnotes beside the gold
    headnotes', per same-language pair the system covers and macro-averaged over them."""
    module = load_metric_module("summarization_properties")
    columns = {name: rows[name] for name in ("decision", "decision_language",
                                             "headnote_language", "headnote")}
    gold: dict[str, dict] = {}
    table_rows = []
    for system, covered in scope.items():
        own = [pair for pair in SAME_LANGUAGE_PAIRS if pair in covered]
        table_rows += _system_extractiveness(system, own, pairs, texts[system], columns, gold,
                                             module)
    return Table("extractiveness", "Extractiveness of the predictions against the decision",
                 ["system", "pair", "n", *[f"{t} {who}" for _, t in EXTRACTIVENESS
                                           for who in ("(system)", "(gold)")]], table_rows,
                 note="Same-language pairs only (fragments are undefined across languages): "
                 "fragment coverage (share of headnote tokens in extractive fragments, 0–1) and "
                 "density (Σ fragment length² / headnote tokens) of Grusky et al. (2018), and "
                 "compression ratio (decision tokens / headnote tokens), means over the pair "
                 "(empty predictions have no compression ratio and are left out of it); gold = "
                 "the reference headnotes, as the dataset card reports them. A system above the "
                 "gold values copies more of the decision than the official headnotes do.",
                 digits=3)


def _extractiveness_row(system: str, pair: str, n: int, own: dict, gold: dict) -> list:
    return [system, pair, n, *[value for key, _ in EXTRACTIVENESS
                               for value in (own[key], gold[key])]]


def _macro(values: list[dict]) -> dict:
    return {key: (None if any(v[key] is None for v in values)
                  else sum(v[key] for v in values) / len(values)) for key, _ in EXTRACTIVENESS}


def failure_share(path: Path) -> float | None:
    """Share of failed generations of a ``courtbench generate`` run (its validated manifest;
    None without one)."""
    return run_status(read_manifest(path))["failure_share"]


def evaluate_files(data_dir: Path, prediction_files: list[Path], out_dir: Path,
                   settings: EvaluationSettings = EvaluationSettings()) -> Report:
    """Score every predictions file against ``data_dir`` and write the report to ``out_dir``.

    A system is named after its file's stem; a file covers one, some or all language pairs
    of the split completely (see the module docstring). Returns the written :class:`Report`.
    """
    rows = read_split(data_dir, settings.split,
                      columns=("headnote", "headnote_language", "decision_language", "decision"))
    ids, pairs = rows["sample_id"], _pair_of_rows(rows)
    texts_of: dict[str, list[str]] = {}
    results: dict[str, dict] = {}
    counts: dict[str, dict] = {"failed": {}, "empty": {}, "scope": {}, "failure_share": {},
                               "complete": {}}
    for path in prediction_files:
        system = path.stem
        if system in results:
            raise CourtbenchError(f"--predictions: two files are named {system!r}; systems are "
                                  "named after the file stem")
        predicted, covered = read_system(path, ids, pairs, settings.configs)
        index = [k for k, pair in enumerate(pairs) if pair in covered]
        texts = [predicted[ids[k]] or "" for k in index]
        counts["failed"][system] = sum(predicted[ids[k]] is None for k in index)
        counts["empty"][system] = sum(not t.strip() for t in texts) - counts["failed"][system]
        counts["scope"][system] = covered
        counts["failure_share"][system] = failure_share(path)
        counts["complete"][system] = run_status(read_manifest(path))["complete"]
        results[system] = score_system(rows.select(index), texts, settings)
        results[system]["_n"] = {pair: pairs.count(pair) for pair in covered}
        texts_of[system] = [predicted.get(i) or "" for i in ids]
    report = _report(data_dir, prediction_files, settings, rows, results, counts)
    report.tables.append(extractiveness_table(rows, pairs, texts_of, counts["scope"]))
    write_report(report, out_dir)
    return report


def _main_table(settings: EvaluationSettings, results: dict, counts: dict,
                metrics: list[str]) -> Table:
    bertscore = (" BERTScore P / R / F1: xlm-roberta-large layer 24 unless set otherwise, "
                 "each rescaled with the headnote language's baseline; an empty prediction "
                 "scores 0 (headnote_similarity's bertscore_empty='zero')."
                 if settings.bertscore else "")
    return Table("main", f"Macro-average over language pairs ({settings.split})",
                 ["system", "pairs", "n", *[METRIC_TITLES[m] for m in metrics], "failed %"],
                 [[system, "+".join(scores["_n"]), sum(scores["_n"].values()),
                   *[scores[m]["macro"] for m in metrics],
                   None if counts["failure_share"][system] is None
                   else 100.0 * counts["failure_share"][system]]
                  for system, scores in results.items()],
                 note="0–100, higher is better; macro over the pairs the system covers (column "
                 "pairs). A failed generation (prediction null) is scored as an empty "
                 "prediction; failed %: the runner's failed requests (its manifest; — without "
                 "one); failed and empty rows per system are in the provenance "
                 "(failed_predictions, empty_predictions)." + bertscore)


def _banner(counts: dict) -> str:
    high = {s: v for s, v in counts["failure_share"].items()
            if v is not None and v > FAILURE_BANNER_SHARE}
    incomplete = sorted(s for s, complete in counts["complete"].items() if complete is False)
    lines = []
    if high:
        lines.append("> **Warning: high failure share** (above "
                     f"{100 * FAILURE_BANNER_SHARE:.0f}% of the run's samples): "
                     + ", ".join(f"{s} {100 * v:.1f}%" for s, v in sorted(high.items()))
                     + ". Their failed rows are scored as empty predictions.")
    if incomplete:
        lines.append("> **Warning: incomplete run(s)** (their manifest says complete: false): "
                     + ", ".join(incomplete) + ".")
    return "\n\n".join(lines)


def _report(data_dir: Path, prediction_files: list[Path], settings: EvaluationSettings,
            rows: datasets.Dataset, results: dict, counts: dict) -> Report:
    metrics = [m for m in METRIC_TITLES if m in next(iter(results.values()))]
    data_fingerprint = fingerprint(list_files(data_dir))  # hashes every file: once per run
    provenance = {
        "courtbench": __version__, "split": settings.split, "n": rows.num_rows,
        "configs": list(settings.configs) if settings.configs else "inferred per file",
        "scope": counts["scope"], "failure_share": counts["failure_share"],
        "run_complete": counts["complete"],
        "data_fingerprint": data_fingerprint,
        "predictions_sha256": {p.stem: sha256_file(p) for p in prediction_files},
        "failed_predictions": counts["failed"], "empty_predictions": counts["empty"],
        "settings": {system: scores["_settings"] for system, scores in results.items()},
        "versions": {p: metadata.version(p) for p in ("sacrebleu", "rouge-score", "numpy")},
    }
    provenance["rerun"] = rerun_block(
        "slds", data_dir, {p.stem: p for p in prediction_files}, rerun_options(settings),
        ("headnote_similarity", *(["headnote_judge"] if settings.judge else [])),
        data_fingerprint=data_fingerprint)
    scope = "; ".join(f"{s}: {', '.join(c)}" for s, c in counts["scope"].items())
    return Report(f"SLDS evaluation — {settings.split}", provenance,
                  [_main_table(settings, results, counts, metrics),
                   *[pair_table(m, results) for m in metrics]],
                  figures={f"heatmap_{m}.png": heatmap_figure(m, results) for m in metrics},
                  intro=f"Pairs scored per system (macro-averages over these only): {scope}."
                  + ("\n\n" + _banner(counts) if _banner(counts) else ""))


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
    parser.add_argument("--configs", metavar="PAIRS",
                        help="comma-separated language pairs every file must cover, e.g. "
                             "de_fr,fr_fr (rows of other pairs are skipped); default: inferred "
                             "per file from its sample ids")
    parser.add_argument("--rouge-tokenizer", choices=("unicode", "rouge_score"), default="unicode",
                        help="unicode (default; keeps ä, é, à) or rouge_score (ASCII-only, for "
                             "parity with published numbers)")
    parser.add_argument("--bleu-tokenize", default="13a",
                        help="sacrebleu tokenizer: 13a (default, parity) or intl (recommended)")
    parser.add_argument("--bertscore", action="store_true",
                        help="add BERTScore (needs the bertscore extra and a local model)")
    parser.add_argument("--bertscore-model-path", help="local model folder for BERTScore")
    parser.add_argument("--resamples", type=option_checks.RESAMPLES, default=1000, help="bootstrap resamples (1000)")
    parser.add_argument("--seed", type=option_checks.SEED, default=0, help="bootstrap seed (0)")
    add_evaluate_judge_arguments(parser)
