"""ECtHR-NPD prompted prediction, everything but the model: prompts for every held-out case.

Source: the real release (``../shared/data/ecthr_npd/case_level.csv``, 14,575 cases) when
present, else the synthetic stand-in at the same size; the Hub folder is built and loaded
first (not timed). Timed, over validation + test (4,358 cases on the release):

- preparing the samples of each prompt kind (serialisation, few-shot retrieval by the
  paper's Appendix C.6 ranking, rendering);
- parsing one answer per case (a CoT answer with a rationale and the JSON object);

Reference run in the same process: the ``knn`` baseline fitted on train and predicting the
same cases (the same neighbour search the few-shot retrieval uses, with k = 20). The figure
``few_shot_over_knn`` is few-shot preparation time ÷ that reference. Prompt sizes (characters)
are reported per kind.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.sources import ecthr_release_or_synthetic
from ecthr_npd.baselines.knn import KNNBaseline
from ecthr_npd.build import build_folder
from ecthr_npd.data import inputs_only, load_benchmark
from ecthr_npd.prompting.parsing import parse_award
from ecthr_npd.prompting.prompts import PROMPT_KINDS
from ecthr_npd.prompting.samples import prompted_cases

SPLITS = ("validation", "test")


def main() -> dict:
    """Figures: seconds to prepare each kind's requests, few-shot preparation ÷ k-NN baseline
    predict, prompt characters (median, max) per kind, parse seconds per 1,000 answers."""
    with tempfile.TemporaryDirectory(prefix="bench-ecthr-predict-") as tmp:
        source, kind = ecthr_release_or_synthetic(Path(tmp))
        folder = Path(tmp) / "ecthr_npd"
        build_folder(folder, source)
        data = load_benchmark(folder)
    n_cases = sum(data.splits[s].num_rows for s in SPLITS)

    start = time.perf_counter()
    knn = KNNBaseline(k=20).fit(data.splits["train"])
    for split in SPLITS:
        knn.predict(inputs_only(data.splits[split]))
    knn_seconds = time.perf_counter() - start

    prompted_cases(data, ("validation",), "cot", k=5)  # warm-up: templates
    prepare, sizes = {}, {}
    for prompt in PROMPT_KINDS:
        start = time.perf_counter()
        cases = prompted_cases(data, SPLITS, prompt, k=5)
        prepare[prompt] = time.perf_counter() - start
        lengths = np.array([sum(len(m["content"]) for m in c["messages"]) for c in cases])
        sizes[prompt] = {"median": int(np.median(lengths)), "max": int(lengths.max())}

    answers = [f"Step 1: the case concerns Article 6.\n... EUR {i:,} would be usual.\n"
               f"Rationale: length of proceedings.\n{json.dumps({'award_eur': 100.0 * i})}"
               for i in range(n_cases)]
    start = time.perf_counter()
    parsed = [parse_award(answer) for answer in answers]
    parse_seconds = time.perf_counter() - start
    assert all(p.method == "json" for p in parsed)
    return {
        "source": kind,
        "held_out_cases": n_cases,
        "prepare_seconds": {k: round(v, 3) for k, v in prepare.items()},
        "knn_reference_seconds": round(knn_seconds, 3),
        "few_shot_over_knn": round(prepare["few_shot"] / knn_seconds, 3),
        "prompt_characters": sizes,
        "parse_seconds_per_1000": round(parse_seconds / n_cases * 1000, 4),
    }
