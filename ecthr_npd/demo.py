"""ECtHR-NPD's part of ``courtbench demo``: synthetic build → baselines → evaluation report.

:func:`run_demo` builds and verifies the SYNTHETIC stand-in at ``scale`` × 14,575 cases
(:func:`build_demo`), runs every baseline and writes the evaluation report::

    <out_dir>/ecthr_npd/              Hub folder (synthetic)
    <out_dir>/ecthr_npd_predictions/  one predictions file per baseline + settings.json
    <out_dir>/ecthr_npd_report/       report.md / report.json / CSV tables / PNGs
    <out_dir>/ecthr_npd_text*/        dense (+ knn, bm25) on a 400-case build, when the
                                      small model package is installed (ecthr_npd.demo_text)

``bm25`` runs with the baselines on the synthetic facts when ``bm25s`` is installed, and
``selected`` (the configuration chosen on the release's rolling-origin folds, refitted on the
stand-in's train+validation) when the tree libraries it needs are.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from courtbench.hub import verify_folder
from ecthr_npd.audit import audit_folder
from ecthr_npd.baselines import SYSTEMS
from ecthr_npd.baselines.run import run_baselines_on, selected_available
from ecthr_npd.build import build_synthetic
from ecthr_npd.data import load_benchmark
from ecthr_npd.demo_text import bm25_available, run_dense_demo
from ecthr_npd.evaluation import evaluate_files
from ecthr_npd.synthetic import DEFAULT_ROWS


def build_demo(folder: Path, scale: float) -> str:
    """Build and verify the synthetic stand-in at ``scale`` × 14,575 cases into
    ``folder/ecthr_npd``; returns a one-line summary."""
    n = max(300, round(DEFAULT_ROWS * scale))
    out = Path(folder) / "ecthr_npd"
    result = build_synthetic(out, n=n)
    verify_folder(out, audit=audit_folder)
    counts = ", ".join(f"{k} {v:,}" for k, v in result.counts.items())
    return (f"ecthr_npd (SYNTHETIC, n={n:,}): {counts}; ID mean TV "
            f"{result.tv['id']['mean']:.4f}; built in {result.timings['total']:.1f} s → {out}")


def run_demo(out_dir: Path, scale: float, *, resamples: int = 1000) -> str:
    """Run the ECtHR-NPD demo into ``out_dir``; returns the main table and the paths as text.

    Args:
        out_dir: parent folder of the three output folders.
        scale: size of the synthetic build relative to the release's 14,575 cases, in (0, 1].
        resamples: paired bootstrap resamples of the report.
    """
    if not 0 < scale <= 1:
        raise ValueError(f"scale={scale}; expected a number in (0, 1]")
    out_dir = Path(out_dir)
    start = time.perf_counter()
    print("ecthr_npd demo: building the synthetic stand-in …", file=sys.stderr, flush=True)
    build_summary = build_demo(out_dir, scale)
    folder = out_dir / "ecthr_npd"
    predictions = out_dir / "ecthr_npd_predictions"
    report_dir = out_dir / "ecthr_npd_report"
    print("ecthr_npd demo: fitting the baselines …", file=sys.stderr, flush=True)
    systems = [*SYSTEMS, *(["selected"] if selected_available() else []),
               *(["bm25"] if bm25_available() else [])]
    run_baselines_on(load_benchmark(folder, facts="bm25" in systems), predictions,
                     systems=systems)
    print("ecthr_npd demo: evaluating …", file=sys.stderr, flush=True)
    report = evaluate_files(folder, [predictions / f"{name}.csv" for name in systems],
                            report_dir, resamples=resamples)
    text_lines = run_dense_demo(out_dir, resamples, scale)
    if "bm25" not in systems:
        text_lines.insert(0, "bm25 skipped: bm25s not installed (from the clone: "
                             ".venv/bin/pip install -e '.[text]', or make demo)")
    seconds = time.perf_counter() - start
    return "\n".join([build_summary, "", "ECtHR-NPD (SYNTHETIC) — " + report.tables[0].title, "",
                      report.tables[0].markdown(), "",
                      f"predictions: {predictions}", f"report: {report_dir / 'report.md'}", "",
                      *text_lines, f"ecthr_npd demo took {seconds:.1f} s"])
