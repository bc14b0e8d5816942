"""Build the SLDS Hub folder from a source (or the synthetic stand-in) and report on it.

The build streams: ``read → validate → blocks on disk + card counts + summarization
properties (in worker processes), batch by batch → write every config/split from the blocks
→ card``. Memory holds one batch, one block and one row group per open parquet file, plus
small per-row facts — not the dataset (``python -m benchmarks slds_build`` measures it). The
write is all-or-nothing (:func:`courtbench.hub.streaming.write_streamed_hub_folder` builds
in a temporary folder and renames it into place; the scratch blocks live in a sub-folder of
it that is removed before the rename), so a failed or interrupted build leaves nothing.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from courtbench.errors import SourceError
from courtbench.hub import HubFolderReport
from courtbench.hub.streaming import StreamedFolder, write_streamed_hub_folder
from courtbench.resources import card_template
from slds.assemble import (
    DEFAULT_CONFIG,
    ONE_SHOT_SPLIT,
    PAIR_RANK,
    OneShotChooser,
    RowBlocks,
    write_configs,
)
from slds.card import (
    CARD_PROPERTIES,
    CardStatistics,
    language_table,
    law_area_table,
    length_figure,
    load_properties_module,
    properties_rows,
)
from slds.card_properties import PropertiesRunner
from slds.defaults import DEFAULT_SYNTHETIC_DECISIONS, SLDS_LICENSE
from slds.language import DETECTOR_NAME
from slds.law_areas import LAW_AREAS
from slds.readers import SourceRead, guess_format, stream_source
from slds.readers.base import RawRow
from slds.readers.wide import iter_melted
from slds.schema import FIELD_DESCRIPTIONS, pair_name, row_key
from slds.splits import SplitBoundaries, split_order
from slds.synthetic import iter_wide_rows
from slds.validate import DetectedLanguage, RowValidator

CARD_TEMPLATE = card_template("slds")
FIGURE_NAME = "length_distribution.png"
BATCH_ROWS = 600
"""Rows per streamed batch (cut at a decision boundary): one properties task, one append
to the scratch blocks."""
SCRATCH_FOLDER = ".build-scratch"


@dataclass
class BuildResult:
    """What a build read, filled in, skipped and wrote, with phase timings (seconds)."""

    source: str
    source_format: str
    records: int
    skipped: dict[str, int]
    rows: int
    decisions: int
    detected_languages: list[Any]
    law_areas_derived: int
    split_sizes: dict[str, dict[str, int]]
    properties_note: str
    report: HubFolderReport
    timings: dict[str, float] = field(default_factory=dict)
    synthetic: bool = False


def _size_category(rows: int) -> str:
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                        (1_000_000, "100K<n<1M")):
        if rows < limit:
            return name
    return "1M<n<10M"


def card_metadata(rows: int, *, synthetic: bool, license_id: str) -> dict[str, Any]:
    """The card's YAML keys besides ``configs`` and ``dataset_info``."""
    tags = ["legal", "swiss-law", "headnote-generation", "cross-lingual"]
    return {
        "pretty_name": "SLDS: Swiss Landmark Decisions Summarization"
                       + (" (SYNTHETIC stand-in)" if synthetic else ""),
        "license": license_id,
        "language": ["de", "fr", "it"],
        "multilinguality": ["multilingual", "translation"],
        "task_categories": ["summarization"],
        "tags": tags + (["synthetic"] if synthetic else []),
        "size_categories": [_size_category(rows)],
        "courtbench_dataset": "slds",
    }


class PublishedShots:
    """Rows a source marks as its pairs' published one-shot examples (``split`` column
    ``one_shot_examples``): taken out of the data rows (they repeat a validation row) and
    kept, one per pair, as the pair's ``one_shot_examples`` row."""

    def __init__(self) -> None:
        self.raw: list[RawRow] = []
        self.rows: dict[str, dict[str, Any]] = {}

    def data_rows(self, raw_rows: Iterable[RawRow]) -> Iterator[RawRow]:
        for raw in raw_rows:
            if raw.source_split == ONE_SHOT_SPLIT:
                self.raw.append(raw)
            else:
                yield raw

    def validate(self) -> dict[str, dict[str, Any]]:
        """Validate the kept rows (each on its own: it repeats a data row); SourceError for
        a second published example of one pair."""
        for raw in self.raw:
            row = RowValidator().validate(raw)
            pair = pair_name(row["decision_language"], row["headnote_language"])
            if pair in self.rows:
                raise SourceError(raw.source, f"a second one_shot_examples row for pair {pair}; "
                                  "expected at most one per pair", line=raw.line,
                                  column=raw.column("sample_id"))
            self.rows[pair] = row
        return self.rows


def validated_batches(validator: RowValidator, raw_rows: Iterable[RawRow], *,
                      batch_rows: int = BATCH_ROWS) -> Iterator[list[dict[str, Any]]]:
    """Canonical rows in batches of about ``batch_rows``, each cut where the decision
    changes (so the rows of a decision given together stay in one batch)."""
    batch: list[dict[str, Any]] = []
    for raw in raw_rows:
        row = validator.validate(raw)
        if len(batch) >= batch_rows and row["decision_id"] != batch[-1]["decision_id"]:
            yield batch
            batch = []
        batch.append(row)
    if batch:
        yield batch


@dataclass
class _Streamed:
    """What the streaming pass collected besides the blocks."""

    stats: CardStatistics
    detected: list[DetectedLanguage]
    law_areas_derived: int
    properties: dict[str, dict[str, dict[str, Any]]] | None


@dataclass
class _BuildPlan:
    """What one build's phases share: the source, split years, properties module and
    options, and the phase timings (seconds) they fill in."""

    source: SourceRead
    bounds: SplitBoundaries
    module: Any
    num_proc: int | None
    progress: bool | None
    published: PublishedShots = field(default_factory=PublishedShots)
    timings: dict[str, float] = field(default_factory=dict)


def _submit_properties(runner: PropertiesRunner, batch: list[dict[str, Any]],
                       splits: list[str]) -> None:
    """Hand one batch's texts to the properties workers, with each row's sort key."""
    order = [(PAIR_RANK[pair_name(r["decision_language"], r["headnote_language"])],
              r["year"], row_key(r["decision_id"], r["headnote_language"]))
             for r in batch]
    runner.submit(splits, order, tuple(
        [r[name] for r in batch] for name in
        ("decision", "headnote", "decision_language", "headnote_language")))


def _stream_batches(plan: _BuildPlan, runner: PropertiesRunner | None, blocks: RowBlocks,
                    shots: OneShotChooser, stats: CardStatistics,
                    validator: RowValidator) -> None:
    """Validate the source's rows batch by batch into the blocks, counts and properties."""
    bounds = plan.bounds
    bar = tqdm(desc="slds: reading rows", unit="row",
               disable=None if plan.progress is None else not plan.progress)
    for batch in validated_batches(validator, plan.published.data_rows(plan.source.rows)):
        splits = [bounds.split_of(row["year"]) for row in batch]
        for row, split in zip(batch, splits, strict=True):
            stats.add(row, split)
            shots.add(row, split)
        blocks.add(batch)
        if runner is not None:
            _submit_properties(runner, batch, splits)
        bar.update(len(batch))
    bar.close()


def _stream(plan: _BuildPlan, scratch: Path) -> tuple[RowBlocks, OneShotChooser, _Streamed]:
    """The streaming pass: blocks in ``scratch``, one-shot choices, card facts, properties.

    Raises:
        SourceError: an invalid row, or a source without rows.
    """
    runner = (PropertiesRunner(plan.module, [name for name, _ in CARD_PROPERTIES],
                               num_proc=plan.num_proc) if plan.module is not None else None)
    try:
        blocks, shots, stats = RowBlocks(scratch, plan.bounds), OneShotChooser(), CardStatistics()
        validator = RowValidator()
        start = time.perf_counter()
        _stream_batches(plan, runner, blocks, shots, stats, validator)
        plan.timings["stream"] = time.perf_counter() - start
        if stats.n_rows == 0:
            raise SourceError(Path(plan.source.path), "no rows; expected at least one row")
        start = time.perf_counter()
        tables = runner.finish() if runner is not None else None
        plan.timings["properties_finish"] = time.perf_counter() - start
    finally:
        if runner is not None:
            runner.close()
    properties = ({split: tables[split] for split in split_order(tables)}
                  if tables is not None else None)
    return blocks, shots, _Streamed(stats, validator.detected_languages(),
                                    validator.law_areas_derived, properties)


def _card_context(plan: _BuildPlan, streamed: _Streamed, configs: dict, kept: dict, *,
                  source_format: str, synthetic: dict | None, license_id: str,
                  properties_note: str) -> dict[str, Any]:
    """What the card template is rendered with."""
    stats = streamed.stats
    return {
        "synthetic": synthetic,
        "source_format": source_format,
        "n_rows": stats.n_rows,
        "n_decisions": len(stats.decisions),
        "fields": FIELD_DESCRIPTIONS,
        "law_areas": list(LAW_AREAS),
        "boundaries": plan.bounds,
        "split_names": stats.split_names(),
        "language_rows": language_table(stats),
        "law_area_rows": law_area_table(stats),
        "one_shot_split": ONE_SHOT_SPLIT,
        "one_shot_pairs": sorted(p for p, s in configs.items() if ONE_SHOT_SPLIT in s),
        "one_shot_published": sorted(kept),
        "properties": properties_rows(streamed.properties) if streamed.properties else None,
        "properties_note": properties_note,
        "detected": streamed.detected,
        "detector": DETECTOR_NAME,
        "law_areas_derived": streamed.law_areas_derived,
        "skipped": dict(plan.source.skipped),
        "figure": FIGURE_NAME,
        "license": license_id,
    }


def build_from_rows(out_dir: Path, source: SourceRead, *, source_format: str,
                    boundaries: SplitBoundaries | None = None, synthetic: dict | None = None,
                    license_id: str = SLDS_LICENSE, properties_loader=None,
                    num_proc: int | None = None, progress: bool | None = None) -> BuildResult:
    """Validate ``source``'s rows as they stream, write the configs and the Hub folder.

    Args:
        out_dir: the Hub folder (replaced only when everything succeeded).
        source: rows from a reader (a list or a one-pass iterator) or the synthetic rows.
        source_format: ``slds``, ``wide``, ``entscheidsuche`` or ``synthetic`` (for the card).
        boundaries: split years (default: train ≤ 2021, validation 2022, test 2023–2024).
        synthetic: ``{"decisions", "seed"}`` when the rows are synthetic (labels the card).
        license_id: the card's licence.
        properties_loader: replaces :func:`courtbench.metric_modules.load_metric_module`
            (tests).
        num_proc: processes for the summarization properties (default: the available CPUs);
            the card is the same for any value.
        progress: tqdm bars (``None``: only on a terminal).

    Raises:
        SourceError: an invalid row (file, record, field, value), or a source without rows.
    """
    loader_kwargs = {"loader": properties_loader} if properties_loader else {}
    module, properties_note = load_properties_module(**loader_kwargs)
    plan = _BuildPlan(source, boundaries or SplitBoundaries(), module, num_proc, progress)

    def produce(folder: Path) -> StreamedFolder:
        scratch = folder / SCRATCH_FOLDER
        try:
            blocks, shots, streamed = _stream(plan, scratch)
            kept = plan.published.validate()
            start = time.perf_counter()
            configs = write_configs(folder, blocks, shots.sample_ids(), progress=progress,
                                    published=kept)
            plan.timings["write"] = time.perf_counter() - start
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        context = _card_context(plan, streamed, configs, kept, source_format=source_format,
                                synthetic=synthetic, license_id=license_id,
                                properties_note=properties_note)
        return StreamedFolder(
            configs=configs, default=DEFAULT_CONFIG, card_context=context,
            card_metadata={**card_metadata(streamed.stats.n_rows, synthetic=bool(synthetic),
                                           license_id=license_id),
                           **({"one_shot_published": sorted(kept)} if kept else {})},
            figures={FIGURE_NAME: length_figure(streamed.stats)}, result=streamed)

    report, streamed = write_streamed_hub_folder(Path(out_dir), produce,
                                                 card_template=CARD_TEMPLATE)
    return BuildResult(
        source=str(source.path), source_format=source_format, records=source.records,
        skipped=dict(source.skipped), rows=streamed.stats.n_rows,
        decisions=len(streamed.stats.decisions), detected_languages=streamed.detected,
        law_areas_derived=streamed.law_areas_derived, split_sizes=report.split_sizes,
        properties_note=properties_note, report=report, timings=plan.timings,
        synthetic=bool(synthetic))


def build_folder(out_dir: Path, source_path: Path, *, source_format: str | None = None,
                 boundaries: SplitBoundaries | None = None, license_id: str = SLDS_LICENSE,
                 properties_loader=None, num_proc: int | None = None,
                 progress: bool | None = None) -> BuildResult:
    """Stream a source file (or directory) into the Hub folder; see :func:`build_from_rows`."""
    fmt = source_format or guess_format(Path(source_path))
    source = stream_source(Path(source_path), fmt)
    return build_from_rows(out_dir, source, source_format=fmt, boundaries=boundaries,
                           license_id=license_id, properties_loader=properties_loader,
                           num_proc=num_proc, progress=progress)


def build_synthetic(out_dir: Path, *, decisions: int = DEFAULT_SYNTHETIC_DECISIONS,
                    seed: int = 0, boundaries: SplitBoundaries | None = None,
                    properties_loader=None, num_proc: int | None = None,
                    progress: bool | None = None) -> BuildResult:
    """Generate ``decisions`` synthetic decisions (3 rows each) as the build consumes them
    and build the Hub folder (generation time is part of the ``stream`` phase)."""
    bounds = boundaries or SplitBoundaries()
    label = Path(f"<synthetic decisions={decisions} seed={seed}>")
    wide = iter_wide_rows(decisions, seed=seed, boundaries=bounds)
    rows = iter_melted(enumerate(wide, start=1), label)
    source = SourceRead(path=label, rows=rows, records=decisions)
    return build_from_rows(out_dir, source, source_format="synthetic", boundaries=bounds,
                           synthetic={"decisions": decisions, "seed": seed},
                           properties_loader=properties_loader, num_proc=num_proc,
                           progress=progress)


def format_report(result: BuildResult) -> str:
    """The build report printed by ``courtbench build slds``."""
    kind = "SYNTHETIC stand-in" if result.synthetic else result.source_format
    lines = [f"slds: built {result.report.out_dir} from {result.source} ({kind})",
             f"  records read {result.records:,}; rows {result.rows:,}; "
             f"decisions {result.decisions:,}"]
    for reason, count in sorted(result.skipped.items()):
        lines.append(f"  skipped {count:,} record(s): {reason}")
    if result.detected_languages:
        lines.append(f"  decision language DETECTED ({DETECTOR_NAME}) for "
                     f"{len(result.detected_languages):,} decision(s):")
        lines.extend(f"    {d.decision_id}: {d.language} (p = {d.probability:.3f})"
                     for d in result.detected_languages[:20])
        if len(result.detected_languages) > 20:
            lines.append(f"    … and {len(result.detected_languages) - 20:,} more (see the card)")
    if result.law_areas_derived:
        lines.append(f"  law area derived from BGE part and year for "
                     f"{result.law_areas_derived:,} row(s)")
    for config, splits in result.split_sizes.items():
        sizes = ", ".join(f"{split} {n:,}" for split, n in splits.items())
        lines.append(f"  {config}: {sizes}")
    lines.append(f"  summarization properties: {result.properties_note}")
    if result.report.figures_skipped:
        lines.append(f"  figures skipped (plots extra missing): {result.report.figures_skipped}")
    lines.append("  files:")
    lines.extend(f"    {entry.sha256}  {entry.size:>12,}  {entry.path}"
                 for entry in result.report.files)
    lines.append("  seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in result.timings.items()))
    return "\n".join(lines)
