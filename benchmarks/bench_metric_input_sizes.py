"""What a 1 MB and a 100 MB input cost in each metric module (issue #14 item 4).

Each case runs in a fresh interpreter with an address-space limit of 6 GiB (so that a
runaway case fails there instead of hurting the machine) and reports wall seconds, the peak
RSS, the RSS after imports and inputs (the difference is what the metric itself needs), or
the one-line error it refused the input with. "1 MB" / "100 MB" is the size of the
predictions: float64 amounts for the ECtHR-NPD modules (131,072 / 13,107,200 cases, given
as numpy arrays), text for the SLDS modules.

- npd_regression, zero_f1: the whole input at both sizes.
- bootstrap_mae: 1 MB with the default 1,000 resamples; 100 MB with 10 resamples, the
  time extrapolated linearly to 1,000 (memory does not grow with resamples: chunks of at
  most 4 Mi indices). The module itself now refuses more than 2e9 resampled cases (at 100 MB,
  more than 152 resamples): the extrapolation says why.
- headnote_similarity: one 1 MB pair (BLEU alone, as the issue asks for every metric other
  than ROUGE-L; the whole module is in bench_rouge_lcs); a 100 MB text is refused; 2,000
  headnote pairs of 1 KB (2 MB), extrapolated linearly to 100 MB.
- summarization_properties: one 1 MB decision with a 1 KB headnote, and 10 MB (100 MB
  extrapolated, if the 10 MB case finishes within the limit).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from benchmarks.sources import REPO_ROOT
from courtbench.metric_modules import metric_dir

MEMORY_LIMIT = 6 * 2**30
MB_AMOUNTS = 2**20 // 8

PRELUDE = """
import json, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
sys.path.insert(0, {folder!r})
import numpy as np
def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
def finish(call):
    base = rss()
    start = time.perf_counter()
    try:
        call()
        error = None
    except (ValueError, MemoryError) as exc:
        error = f"{{type(exc).__name__}}: {{str(exc)[:300]}}"
    print(json.dumps({{"seconds": time.perf_counter() - start, "peak_rss": rss(),
                      "rss_before": base, "error": error}}))
"""

AMOUNTS = """
rng = np.random.default_rng(0)
n = {n}
references = np.round(rng.lognormal(8, 2, n) * (rng.random(n) > 0.33), 2)
predictions = np.round(rng.lognormal(8, 1.5, n), 2)
other = np.full(n, 3200.0)
"""

CASES = {
    "npd_regression_1MB": ("npd_regression", AMOUNTS.format(n=MB_AMOUNTS) + """
import npd_regression as m
finish(lambda: m.npd_regression(predictions=predictions, references=references))"""),
    "npd_regression_100MB": ("npd_regression", AMOUNTS.format(n=100 * MB_AMOUNTS) + """
import npd_regression as m
finish(lambda: m.npd_regression(predictions=predictions, references=references))"""),
    "zero_f1_1MB": ("zero_f1", AMOUNTS.format(n=MB_AMOUNTS) + """
import zero_f1 as m
finish(lambda: m.zero_f1(predictions=predictions, references=references))"""),
    "zero_f1_100MB": ("zero_f1", AMOUNTS.format(n=100 * MB_AMOUNTS) + """
import zero_f1 as m
finish(lambda: m.zero_f1(predictions=predictions, references=references))"""),
    "bootstrap_mae_1MB": ("bootstrap_mae", AMOUNTS.format(n=MB_AMOUNTS) + """
import bootstrap_mae as m
finish(lambda: m.bootstrap_mae(predictions1=predictions, predictions2=other,
                               references=references))"""),
    "bootstrap_mae_100MB_10_resamples": ("bootstrap_mae", AMOUNTS.format(n=100 * MB_AMOUNTS) + """
import bootstrap_mae as m
finish(lambda: m.bootstrap_mae(predictions1=predictions, predictions2=other,
                               references=references, n_resamples=10))"""),
    "headnote_similarity_bleu_1MB_pair": ("headnote_similarity", """
import headnote_similarity as m
rng = np.random.default_rng(0)
words = ["der", "die", "das", "Beschwerde", "Art.", "Abs.", "Genugtuung", "für", "E.", "BGE"]
words += ["".join(rng.choice(list("abcdefghilmnoprstuvzäöüß"), 7)) for _ in range(20000)]
p = 1.0 / np.arange(1, len(words) + 1)
def text(seed):
    r = np.random.default_rng(seed)
    return " ".join(r.choice(words, size=150_000, p=p / p.sum()))[:1_000_000]
prediction, reference = text(1), text(2)
def bleu():
    statistics = m.bleu_statistics([prediction], [reference], "13a")
    m._bleu("13a").corpus_score([prediction], [[reference]])
finish(bleu)"""),
    "headnote_similarity_100MB_text": ("headnote_similarity", """
import headnote_similarity as m
text = "Genugtuung " * 10_000_000
finish(lambda: m.headnote_similarity([text], ["Genugtuung"], ["de"]))"""),
    "headnote_similarity_2000_pairs_2MB": ("headnote_similarity", """
import headnote_similarity as m
rng = np.random.default_rng(0)
words = ["".join(rng.choice(list("abcdefghilmnoprstuvzäöüß"), 6)) for _ in range(20000)]
p = 1.0 / np.arange(1, len(words) + 1)
def text():
    return " ".join(rng.choice(words, size=150, p=p / p.sum()))[:1000]
predictions = [text() for _ in range(2000)]
references = [text() for _ in range(2000)]
languages = ["de", "fr", "it"] * 666 + ["de", "fr"]
finish(lambda: m.headnote_similarity(predictions, references, languages))"""),
    "summarization_properties_1MB_decision": ("summarization_properties", """
import summarization_properties as m
rng = np.random.default_rng(0)
words = ["".join(rng.choice(list("abcdefghilmnoprstuvzäöüß"), 6)) for _ in range(20000)]
decision = " ".join(rng.choice(words, size=150_000))[:1_000_000]
headnote = decision[:1000]
finish(lambda: m.summarization_properties([decision], [headnote], ["de"], ["de"]))"""),
    "summarization_properties_10MB_decision": ("summarization_properties", """
import summarization_properties as m
rng = np.random.default_rng(0)
words = ["".join(rng.choice(list("abcdefghilmnoprstuvzäöüß"), 6)) for _ in range(20000)]
decision = " ".join(rng.choice(words, size=1_500_000))[:10_000_000]
headnote = decision[:1000]
finish(lambda: m.summarization_properties([decision], [headnote], ["de"], ["de"]))"""),
}


def run_case(module: str, body: str) -> dict:
    script = PRELUDE.format(limit=MEMORY_LIMIT, folder=str(metric_dir(module))) + \
        textwrap.dedent(body)
    process = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                             cwd=REPO_ROOT, timeout=3600)
    if process.returncode != 0:
        return {"crashed": process.stderr.strip().splitlines()[-1][:300]}
    got = json.loads(process.stdout.strip().splitlines()[-1])
    got["metric_rss_bytes"] = got["peak_rss"] - got["rss_before"]
    return got


def main(names: list[str] | None = None) -> dict:
    figures = {}
    for name, (module, body) in CASES.items():
        if names and name not in names:
            continue
        print(f"   {name}", flush=True)
        figures[name] = run_case(module, body)
    boot = figures.get("bootstrap_mae_100MB_10_resamples", {})
    if "seconds" in boot:
        boot["seconds_extrapolated_to_1000_resamples"] = boot["seconds"] * 100
    pairs = figures.get("headnote_similarity_2000_pairs_2MB", {})
    if "seconds" in pairs:
        pairs["seconds_extrapolated_to_100MB"] = pairs["seconds"] * 50
    ten = figures.get("summarization_properties_10MB_decision", {})
    if "seconds" in ten:
        ten["seconds_extrapolated_to_100MB"] = ten["seconds"] * 10
    return figures


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:]), indent=2))
