"""The ``facts`` configs of a build: screen the reviewed text, lay it out like the other configs.

``facts`` holds ``case_id``, ``facts_text``, ``source_document_sha256`` and ``source_anchor``
with the ``train`` / ``validation`` / ``test`` splits of ``default`` (same rows, same order);
``facts_id``, ``facts_ood`` and ``facts_challenging`` hold the test views (split ``test``), as
``id`` / ``ood`` / ``challenging`` do for the model inputs. Every config joins to every
model-input config on ``case_id``.

:func:`run_screen` runs the leakage screen (:mod:`ecthr_npd.facts_screen`) before anything is
written, in one of three modes: ``refuse`` raises (its findings report is written beside the
output, :mod:`ecthr_npd.facts_report`); ``warn`` writes the text as it is; ``mask`` replaces
every flagged passage with :data:`~ecthr_npd.facts_screen.MARKER`. The findings report goes
into the built folder (:func:`report_files`) and the card lists the findings per kind.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pyarrow as pa

from courtbench.errors import CourtbenchError
from courtbench.hub import ConfigSpec
from courtbench.hub.features import TableFeatures, value
from ecthr_npd import schema
from ecthr_npd.defaults import SCREEN_MODES
from ecthr_npd.facts import CONFIG_COLUMNS, FactsInput, word_count
from ecthr_npd.facts_report import REPORT_FILE, report_bytes, write_refusal_report
from ecthr_npd.facts_screen import KINDS, Finding, describe, mask_text, screen_texts

FACTS_CONFIGS = ("facts", "facts_id", "facts_ood", "facts_challenging")
FEATURES = TableFeatures({name: value("string") for name in CONFIG_COLUMNS})


class FactsLeakageError(CourtbenchError):
    """The text leakage screen found award passages and the mode is ``refuse``."""


@dataclass
class ScreenResult:
    """What the screen found: the mode, texts screened, findings (see facts_screen) and, in
    mask mode, where each masked passage's marker starts in the masked text (by finding)."""

    mode: str
    screened: int
    findings: list[Finding]
    masked_at: list[int] = field(default_factory=list)

    def by_kind(self) -> dict[str, int]:
        """Findings per kind, every kind listed."""
        counts = Counter(f.kind for f in self.findings)
        return {kind: counts.get(kind, 0) for kind in KINDS}

    def records(self) -> list[dict]:
        """The findings report's records (:mod:`ecthr_npd.facts_report`)."""
        records = [f.as_record() for f in self.findings]
        for record, at in zip(records, self.masked_at, strict=False):
            record["masked_at"] = at
        return records


def _masked(facts: FactsInput, findings: list[Finding]) -> tuple[FactsInput, list[int]]:
    """``facts`` with every finding's passage replaced by the marker, and each marker's
    offset in its masked text (in findings order)."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for finding in findings:
        spans.setdefault(finding.case_id, []).append((finding.start, finding.end))
    records = dict(facts.records)
    offsets: dict[str, list[int]] = {}
    for case_id, case_spans in spans.items():
        text, offsets[case_id] = mask_text(records[case_id]["facts_text"], case_spans)
        records[case_id] = {**records[case_id], "facts_text": text}
    order = {case_id: iter(at) for case_id, at in offsets.items()}
    return replace(facts, records=records), [next(order[f.case_id]) for f in findings]


def run_screen(table: pa.Table, facts: FactsInput, mode: str, progress: bool = True,
               out_dir: Path | None = None) -> tuple[FactsInput, ScreenResult]:
    """Screen every facts text against its case's ``y_amount_eur``.

    Returns:
        (the facts to write — masked in ``mask`` mode — and the screen's result).

    Raises:
        FactsLeakageError: findings and ``mode == "refuse"`` (one line: count, cases, the
            first passages cut to 200 characters, and the report written beside ``out_dir``).
    """
    if mode not in SCREEN_MODES:
        raise CourtbenchError(f"--facts-screen {mode!r}: expected one of {SCREEN_MODES}")
    amounts = dict(zip(table.column(schema.ID_COLUMN).to_pylist(),
                       table.column(schema.TARGET_COLUMN).to_pylist(), strict=True))
    rows = ((case_id, facts.lines[case_id], record["facts_text"], amounts.get(case_id))
            for case_id, record in facts.records.items())
    findings, screened = screen_texts(rows, progress=progress)
    result = ScreenResult(mode, screened, findings)
    if findings and mode == "refuse":
        raise FactsLeakageError(f"{facts.source}: the facts leakage screen refused to write: "
                                f"{describe(findings)}; {_report_note(out_dir, result)}; "
                                "remove these passages from the review, or build with "
                                "--facts-screen mask (replace them) or warn (keep them)")
    if findings and mode == "mask":
        facts, result.masked_at = _masked(facts, findings)
    return facts, result


def _report_note(out_dir: Path | None, result: ScreenResult) -> str:
    """Write a refused build's report beside ``out_dir``; say where (or why not)."""
    if out_dir is None:
        return "no findings report written (no output folder given)"
    try:
        path = write_refusal_report(out_dir, result.records())
    except CourtbenchError as error:
        return f"the findings report could not be written ({error})"
    return f"all {len(result.findings):,} finding(s) with their offsets: {path}"


def report_files(screen: ScreenResult | None) -> dict[str, bytes]:
    """The files the build adds to the folder: the findings report (empty when the screen
    found nothing)."""
    return {} if screen is None else {REPORT_FILE: report_bytes(screen.records())}


def _subset(facts: FactsInput, ids: list[str]) -> pa.Table:
    columns = {"case_id": ids}
    for name in CONFIG_COLUMNS[1:]:
        columns[name] = [facts.records[case_id][name] for case_id in ids]
    return pa.table(columns).cast(FEATURES.arrow_schema)


def facts_configs(split_ids: dict[str, list[str]], view_ids: dict[str, list[str]],
                  facts: FactsInput) -> list[ConfigSpec]:
    """The four facts configs.

    Args:
        split_ids: split → case ids in the ``default`` config's row order.
        view_ids: ``id`` / ``ood`` / ``challenging`` → test case ids in their config's order.
        facts: the validated records (every case has one).
    """
    configs = [ConfigSpec("facts", {s: _subset(facts, ids) for s, ids in split_ids.items()})]
    for view, ids in view_ids.items():
        configs.append(ConfigSpec(f"facts_{view}", {"test": _subset(facts, ids)}))
    return configs


def prepare(table: pa.Table, facts_path=None, facts=None, mode: str = "refuse",
            out_dir: Path | None = None) -> tuple[FactsInput | None, ScreenResult | None]:
    """Read (``facts_path``) or generate (``facts``: a FactsInput or a callable of the
    canonical table) the facts, validate them against the table's cohort and screen them
    (:func:`run_screen`; masked in ``mask`` mode). ``(None, None)`` when neither is given."""
    from ecthr_npd.facts import read_facts

    if facts_path is not None:
        facts = read_facts(facts_path, table.column(schema.ID_COLUMN).to_pylist())
    elif callable(facts):
        facts = facts(table)
    if facts is None:
        return None, None
    return run_screen(table, facts, mode, out_dir=out_dir)


def with_facts(configs: list[ConfigSpec], facts: FactsInput | None) -> list[ConfigSpec]:
    """``configs`` plus the facts configs, whose rows follow ``default`` and the views."""
    if facts is None:
        return configs
    by_name = {c.name: c for c in configs}
    splits = {s: d.column(schema.ID_COLUMN).to_pylist()
              for s, d in by_name["default"].splits.items()}
    views = {v: by_name[v].splits["test"].column(schema.ID_COLUMN).to_pylist()
             for v in ("id", "ood", "challenging")}
    return configs + facts_configs(splits, views, facts)


def column_problems(config: str, columns: list[str]) -> list[str]:
    """A facts config must hold exactly CONFIG_COLUMNS (never the target or audit columns)."""
    if list(columns) == list(CONFIG_COLUMNS):
        return []
    return [f"config {config!r}: columns {list(columns)}; expected exactly {list(CONFIG_COLUMNS)}"]


def length_summary(texts: list[str]) -> dict[str, float]:
    """Words per text: mean, median, p95, max (whitespace words)."""
    words = np.array([word_count(t) for t in texts], dtype=np.float64)
    if not words.size:
        return {"mean": 0.0, "median": 0.0, "p95": 0.0, "max": 0.0}
    return {"mean": float(words.mean()), "median": float(np.median(words)),
            "p95": float(np.percentile(words, 95)), "max": float(words.max())}


def provenance(facts: FactsInput, screen: ScreenResult) -> dict:
    """The card metadata's ``provenance.facts``: source, counts and the screen's result."""
    return {"source_file": facts.source, "records": len(facts.records),
            "review_status": dict(sorted(facts.status_counts.items())),
            "synthetic": facts.synthetic is not None, "screen_mode": screen.mode,
            "screen_findings": len(screen.findings), "screen_findings_by_kind": screen.by_kind(),
            "screen_masked": len(screen.masked_at), "screen_report": REPORT_FILE}


def card_context(facts: FactsInput, screen: ScreenResult) -> dict:
    """The card's ``facts`` block: provenance, fingerprint coverage, lengths, screen result."""
    fingerprinted = sum(1 for r in facts.records.values() if r["source_document_sha256"])
    lengths = length_summary([r["facts_text"] for r in facts.records.values()])
    return {"source": facts.source, "synthetic": facts.synthetic, "n": len(facts.records),
            "status_counts": sorted(facts.status_counts.items()),
            "fingerprinted": fingerprinted,
            "lengths": {k: f"{v:,.0f}" for k, v in lengths.items()},
            "screen_mode": screen.mode, "screened": screen.screened,
            "findings": len(screen.findings), "masked": len(screen.masked_at),
            "by_kind": [(kind.replace("_", " "), n) for kind, n in screen.by_kind().items()],
            "report": REPORT_FILE,
            "flagged_cases": len({f.case_id for f in screen.findings})}
