"""Build the SLDS Hub folder from a source (or the synthetic stand-in) and report on it.

``read → validate → assemble (splits, one-shot, configs) → card statistics → write``; the
write is all-or-nothing (:func:`courtbench.hub.write_hub_folder` builds in a temporary
folder and renames it into place), so a failed or interrupted build leaves nothing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from courtbench.hub import HubFolderReport, write_hub_folder
from courtbench.resources import package_path
from slds.assemble import ONE_SHOT_SPLIT, assemble, make_configs
from slds.card import (
    language_table,
    law_area_table,
    length_figure,
    properties_by_split,
    properties_rows,
)
from slds.language import DETECTOR_NAME
from slds.readers import SourceRead, guess_format, read_source
from slds.readers.wide import melt_wide_records
from slds.schema import FIELD_DESCRIPTIONS
from slds.splits import SplitBoundaries
from slds.synthetic import generate_wide_rows
from slds.validate import ValidatedRows, validate_rows

CARD_TEMPLATE = package_path("slds", "card_template.md")
FIGURE_NAME = "length_distribution.png"
DEFAULT_SYNTHETIC_DECISIONS = 20_000
SLDS_LICENSE = "cc-by-4.0"


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


def build_from_rows(out_dir: Path, source: SourceRead, *, source_format: str,
                    boundaries: SplitBoundaries | None = None, synthetic: dict | None = None,
                    license_id: str = SLDS_LICENSE, properties_loader=None) -> BuildResult:
    """Validate ``source``'s rows, assemble the configs and write the Hub folder ``out_dir``.

    Args:
        out_dir: the Hub folder (replaced only when everything succeeded).
        source: rows from a reader (or the melted synthetic rows).
        source_format: ``slds``, ``wide``, ``entscheidsuche`` or ``synthetic`` (for the card).
        boundaries: split years (default: train ≤ 2021, validation 2022, test 2023–2024).
        synthetic: ``{"decisions", "seed"}`` when the rows are synthetic (labels the card).
        license_id: the card's licence.
        properties_loader: replaces :func:`courtbench.metric_modules.load_metric_module`
            (tests).
    """
    bounds = boundaries or SplitBoundaries()
    timings: dict[str, float] = {}
    start = time.perf_counter()
    validated: ValidatedRows = validate_rows(source.rows)
    timings["validate"] = time.perf_counter() - start

    start = time.perf_counter()
    assembled = assemble(validated.rows, bounds)
    configs = make_configs(assembled)
    timings["assemble"] = time.perf_counter() - start

    loader_kwargs = {"loader": properties_loader} if properties_loader else {}
    properties, properties_note, timings["card_statistics"] = properties_by_split(
        assembled, **loader_kwargs)
    decisions = len(set(assembled.columns["decision_id"]))
    context = {
        "synthetic": synthetic,
        "source_format": source_format,
        "n_rows": assembled.dataset.num_rows,
        "n_decisions": decisions,
        "fields": FIELD_DESCRIPTIONS,
        "boundaries": bounds,
        "split_names": list(assembled.splits),
        "language_rows": language_table(assembled),
        "law_area_rows": law_area_table(assembled),
        "one_shot_split": ONE_SHOT_SPLIT,
        "one_shot_pairs": sorted(assembled.one_shot),
        "properties": properties_rows(properties) if properties else None,
        "properties_note": properties_note,
        "detected": validated.detected,
        "detector": DETECTOR_NAME,
        "law_areas_derived": validated.law_areas_derived,
        "skipped": dict(source.skipped),
        "figure": FIGURE_NAME,
        "license": license_id,
    }
    start = time.perf_counter()
    report = write_hub_folder(
        Path(out_dir), configs, card_template=CARD_TEMPLATE, card_context=context,
        card_metadata=card_metadata(assembled.dataset.num_rows, synthetic=bool(synthetic),
                                    license_id=license_id),
        figures={FIGURE_NAME: length_figure(assembled)})
    timings["write"] = time.perf_counter() - start
    return BuildResult(
        source=str(source.path), source_format=source_format, records=source.records,
        skipped=dict(source.skipped), rows=assembled.dataset.num_rows, decisions=decisions,
        detected_languages=validated.detected, law_areas_derived=validated.law_areas_derived,
        split_sizes=report.split_sizes, properties_note=properties_note, report=report,
        timings=timings, synthetic=bool(synthetic))


def build_folder(out_dir: Path, source_path: Path, *, source_format: str | None = None,
                 boundaries: SplitBoundaries | None = None, license_id: str = SLDS_LICENSE,
                 properties_loader=None) -> BuildResult:
    """Read a source file (or directory) and build the Hub folder; see :func:`build_from_rows`."""
    start = time.perf_counter()
    fmt = source_format or guess_format(Path(source_path))
    source = read_source(Path(source_path), fmt)
    read_seconds = time.perf_counter() - start
    result = build_from_rows(out_dir, source, source_format=fmt, boundaries=boundaries,
                             license_id=license_id, properties_loader=properties_loader)
    result.timings = {"read": read_seconds, **result.timings}
    return result


def build_synthetic(out_dir: Path, *, decisions: int = DEFAULT_SYNTHETIC_DECISIONS,
                    seed: int = 0, boundaries: SplitBoundaries | None = None,
                    properties_loader=None) -> BuildResult:
    """Generate ``decisions`` synthetic decisions (3 rows each) and build the Hub folder."""
    bounds = boundaries or SplitBoundaries()
    start = time.perf_counter()
    wide = generate_wide_rows(decisions, seed=seed, boundaries=bounds)
    label = Path(f"<synthetic decisions={decisions} seed={seed}>")
    rows = melt_wide_records(enumerate(wide, start=1), label)
    source = SourceRead(path=label, rows=rows, records=len(wide))
    generate_seconds = time.perf_counter() - start
    result = build_from_rows(out_dir, source, source_format="synthetic", boundaries=bounds,
                             synthetic={"decisions": decisions, "seed": seed},
                             properties_loader=properties_loader)
    result.timings = {"generate": generate_seconds, **result.timings}
    return result


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
