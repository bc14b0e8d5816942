"""ROUGE-L of headnote_similarity (bit-parallel LCS) against rouge_score (issue #14 item 4).

Figures (seconds unless named otherwise; the machine is shared, so take ratios):

- ``slds_*``: ROUGE-L F1 of 1,000 SLDS-length headnote pairs (about 150 tokens each, the
  generator of ``bench_summarization``), Unicode tokenizer on both sides: rouge_score's
  ``RougeScorer(["rougeL"])`` vs the module's tokenization + :func:`lcs_length`, in the same
  run, after checking that every score is identical. Also ROUGE-1/2/L together.
- ``mb_*``: one 1 MB German prediction against one 1 MB German reference (sentences of the
  real decision BGE 151 II 245 when ``../shared/data`` is there, shuffled with a seed; else
  synthetic German-like text), ``headnote_similarity`` with its defaults (ROUGE, BLEU,
  1,000 bootstrap resamples) in a fresh interpreter: wall time, peak RSS, and the RSS of the
  same interpreter after the imports only. Target: peak RSS under 300 MB.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

from rouge_score import rouge_scorer

from benchmarks.bench_summarization import LANGUAGES, TextGenerator
from benchmarks.sources import REPO_ROOT, SHARED_DATA
from benchmarks.timing import best_time
from courtbench.metric_modules import load_metric_module, metric_dir

PAIRS = 1000
MB_TARGET_BYTES = 1_000_000
BGE_ID = "CH_BGE_004_BGE-151-II-245_2025"

MB_SCRIPT = r"""
import json, random, re, resource, sys, time
sys.path.insert(0, {folder!r})
import headnote_similarity as hs
baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
source = {source!r}
sentences = [s for s in re.split(r"(?<=[.;:])\s+", source) if s.strip()]
def text(seed):
    rng, parts, size = random.Random(seed), [], 0
    while size < {target}:
        parts.append(rng.choice(sentences))
        size += len(parts[-1].encode()) + 1
    return " ".join(parts)
prediction, reference = text(1), text(2)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
start = time.perf_counter()
result = hs.headnote_similarity([prediction], [reference], ["de"], bootstrap_resamples=1000)
seconds = time.perf_counter() - start
print(json.dumps({{"seconds": seconds, "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                  "imports_rss": baseline, "inputs_rss": before,
                  "bytes": [len(prediction.encode()), len(reference.encode())],
                  "tokens": [len(hs.UnicodeTokenizer().tokenize(t)) for t in (prediction, reference)],
                  "rougeL": result["rougeL"], "bleu": result["bleu"]}}))
"""


def german_source() -> tuple[str, str]:
    """The text the 1 MB pair is cut from, and its kind ("BGE 151 II 245" or "synthetic")."""
    path = SHARED_DATA / "slds" / "search_law_1.json"
    if path.is_file():
        hits = json.loads(path.read_text(encoding="utf-8"))["hits"]["hits"]
        hit = next(h for h in hits if h["_id"] == BGE_ID)
        return hit["_source"]["attachment"]["content"], "BGE 151 II 245"
    generator = TextGenerator(7)
    return " ".join(generator.tokens("de", 5000)) + ".", "synthetic"


def bench_slds_pairs() -> dict:
    hs = load_metric_module("headnote_similarity")
    generator = TextGenerator(4)
    references = [" ".join(generator.headnote(None, LANGUAGES[k % 3])) for k in range(PAIRS)]
    predictions = [" ".join(generator.headnote(r.split(), LANGUAGES[k % 3]))
                   for k, r in enumerate(references)]
    tokenizer = hs.UnicodeTokenizer()
    rouge_l = rouge_scorer.RougeScorer(["rougeL"], tokenizer=tokenizer)
    rouge_all = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], tokenizer=tokenizer)
    pairs = list(zip(predictions, references, strict=True))

    def plain_l():
        return [rouge_l.score(r, p)["rougeL"].fmeasure for p, r in pairs]

    def module_l():
        scores = []
        for p, r in pairs:
            target, prediction = tokenizer.tokenize(r), tokenizer.tokenize(p)
            scores.append(hs._fmeasure(hs.lcs_length(target, prediction), len(target),
                                       len(prediction)))
        return scores

    def plain_all():
        return [tuple(s[k].fmeasure for k in ("rouge1", "rouge2", "rougeL"))
                for s in (rouge_all.score(r, p) for p, r in pairs)]

    def module_all():
        return [hs.rouge_f1(tokenizer.tokenize(r), tokenizer.tokenize(p)) for p, r in pairs]

    assert plain_l() == module_l(), "ROUGE-L differs from rouge_score"
    assert plain_all() == module_all(), "ROUGE-1/2/L differ from rouge_score"
    t_plain_l = best_time(plain_l, repeat=1)  # seconds each; the module side is the noisy one
    t_module_l = best_time(module_l, repeat=3)
    t_plain_all = best_time(plain_all, repeat=1)
    t_module_all = best_time(module_all, repeat=3)
    tokens = [len(tokenizer.tokenize(t)) for t in references + predictions]
    return {
        "slds_pairs": PAIRS,
        "slds_tokens_mean": sum(tokens) / len(tokens),
        "slds_scores_identical": True,
        "slds_rougeL_rouge_score_seconds": t_plain_l,
        "slds_rougeL_module_seconds": t_module_l,
        "slds_rougeL_speedup": t_plain_l / t_module_l,
        "slds_rouge123_rouge_score_seconds": t_plain_all,
        "slds_rouge123_module_seconds": t_module_all,
        "slds_rouge123_speedup": t_plain_all / t_module_all,
    }


def bench_one_megabyte_pair() -> dict:
    source, kind = german_source()
    script = MB_SCRIPT.format(folder=str(metric_dir("headnote_similarity")), source=source,
                              target=MB_TARGET_BYTES)
    start = time.perf_counter()
    process = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                             cwd=REPO_ROOT, timeout=1800)
    assert process.returncode == 0, process.stderr
    got = json.loads(process.stdout.strip().splitlines()[-1])
    return {
        "mb_source": kind,
        "mb_prediction_bytes": got["bytes"][0],
        "mb_reference_bytes": got["bytes"][1],
        "mb_prediction_tokens": got["tokens"][0],
        "mb_reference_tokens": got["tokens"][1],
        "mb_headnote_similarity_seconds": got["seconds"],
        "mb_peak_rss_bytes": got["peak_rss"],
        "mb_imports_rss_bytes": got["imports_rss"],
        "mb_inputs_rss_bytes": got["inputs_rss"],
        "mb_peak_rss_under_300MB": got["peak_rss"] < 300 * 2**20,
        "mb_rougeL": got["rougeL"],
        "mb_bleu": got["bleu"],
        "mb_subprocess_wall_seconds": time.perf_counter() - start,
    }


def main() -> dict:
    figures = bench_one_megabyte_pair()
    figures.update(bench_slds_pairs())
    return figures


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
