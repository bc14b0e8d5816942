"""SLDS's part of ``courtbench demo``: synthetic build → baselines → evaluation report.

Writes into ``out_dir``::

    slds/              Hub folder (SYNTHETIC stand-in, all ten configs)
    slds_predictions/  lead.jsonl, citation_lead.jsonl, settings.json (test split)
    slds_report/       report.md / report.json / CSV tables / heatmap PNGs

The demo builds ``DEMO_DECISIONS × scale`` decisions (a quarter of the 20,000-decision
benchmark build, so that the whole ``courtbench demo`` stays within minutes; the full-size
build is ``courtbench build slds --synthetic``).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from courtbench.hub import verify_folder
from slds.audit import audit_folder
from slds.baselines import BASELINES, DEFAULT_BUDGET
from slds.baselines.run import run_baselines_on
from slds.build import DEFAULT_SYNTHETIC_DECISIONS, build_synthetic
from slds.evaluation import EvaluationSettings, evaluate_files

DEMO_DECISIONS = 5_000


def build_demo(folder: Path, scale: float) -> str:
    """Build and verify the synthetic stand-in at ``scale`` × 20,000 decisions into
    ``folder/slds``; returns a one-line summary."""
    decisions = max(60, round(DEFAULT_SYNTHETIC_DECISIONS * scale))
    out = Path(folder) / "slds"
    result = build_synthetic(out, decisions=decisions)
    verify_folder(out, audit=audit_folder)
    return (f"slds (SYNTHETIC, {decisions:,} decisions, {result.rows:,} rows, "
            f"{len(result.split_sizes)} configs) built in {sum(result.timings.values()):.1f} s "
            f"→ {out}")


def run_demo(out_dir: Path, scale: float) -> str:
    """Run the SLDS demo into ``out_dir``; returns the main table and the paths as text."""
    if not 0 < scale <= 1:
        raise ValueError(f"scale={scale}; expected a number in (0, 1]")
    out_dir = Path(out_dir)
    start = time.perf_counter()
    print("slds demo: building the synthetic stand-in …", file=sys.stderr, flush=True)
    build_summary = build_demo(out_dir, scale * DEMO_DECISIONS / 20_000)
    folder, predictions, report_dir = (out_dir / "slds", out_dir / "slds_predictions",
                                       out_dir / "slds_report")
    print("slds demo: running the baselines …", file=sys.stderr, flush=True)
    run_baselines_on(folder, predictions, systems=sorted(BASELINES), splits=["test"],
                     budget=DEFAULT_BUDGET)
    print("slds demo: evaluating …", file=sys.stderr, flush=True)
    report = evaluate_files(folder, [predictions / f"{name}.jsonl" for name in sorted(BASELINES)],
                            report_dir, EvaluationSettings())
    seconds = time.perf_counter() - start
    return "\n".join([build_summary, "", "SLDS (SYNTHETIC) — " + report.tables[0].title, "",
                      report.tables[0].markdown(), "", f"predictions: {predictions}",
                      f"report: {report_dir / 'report.md'}", f"slds demo took {seconds:.1f} s"])
