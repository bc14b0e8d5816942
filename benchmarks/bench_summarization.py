"""Summarization metrics: greedy fragments against the plain published algorithm,
summarization_properties over SLDS-sized synthetic corpora, and headnote_similarity's ROUGE
against plain rouge_score.

Figures (all on this machine, shared with other processes, so take ratios over absolutes):

- ``fragments_*``: 10,000 source / 250 summary tokens; indexed vs plain time, identical output.
- ``properties_*``: pairs/s and memory of ``summarization_properties`` on synthetic pairs
  (decision median ≈ 3,000 tokens, headnote median ≈ 150): an SLDS-shaped corpus (each
  decision with a de, fr and it headnote, so a third of the pairs share a language) and a
  worst case (every pair a distinct decision with a same-language headnote). Set
  ``COURTBENCH_BENCH_PAIRS`` (default 60000) for the SLDS-shaped run; the worst case is
  measured on min(6,000, that) pairs and extrapolated linearly to 60,000.
- ``rouge_*``: ROUGE-1/2/L of 1,000 headnote pairs: headnote_similarity (with 1,000
  bootstrap resamples and BLEU) vs a plain rouge_score loop.
"""

from __future__ import annotations

import importlib.util
import os
import time
from pathlib import Path

import numpy as np
from rouge_score import rouge_scorer

from benchmarks.timing import best_time, max_rss_bytes, peak_python_memory
from courtbench.metric_modules import load_metric_module

REPO = Path(__file__).resolve().parent.parent
LANGUAGES = ("de", "fr", "it")
PUNCTUATION = [".", ",", ";", ":", "(", ")", "Art.", "Abs.", "E.", "al.", "consid.", "cpv."]


def _reference_fragments():
    """The plain published algorithm, as written in the tests."""
    path = REPO / "tests" / "metrics" / "test_metric_summarization_properties.py"
    spec = importlib.util.spec_from_file_location("_bench_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.reference_fragments


class TextGenerator:
    """Random legal-looking text: per language a Zipf-distributed vocabulary of 40,000
    word forms, about one token in eight punctuation or an abbreviation."""

    def __init__(self, seed: int = 0, vocabulary: int = 40_000) -> None:
        self.rng = np.random.default_rng(seed)
        letters = np.array(list("abcdefghilmnoprstuvzäéèàöüß"))
        self.words = {}
        for language in LANGUAGES:
            lengths = self.rng.integers(2, 12, size=vocabulary)
            forms = ["".join(self.rng.choice(letters, size=n)) for n in lengths]
            forms[:len(PUNCTUATION)] = PUNCTUATION
            self.words[language] = np.array(forms, dtype=object)
        weights = 1.0 / np.arange(1, vocabulary + 1)
        self.p = weights / weights.sum()

    def tokens(self, language: str, n: int) -> list[str]:
        return self.words[language][self.rng.choice(len(self.p), size=n, p=self.p)].tolist()

    def decision_length(self) -> int:
        return int(np.clip(self.rng.lognormal(np.log(3000), 0.6), 300, 30_000))

    def headnote(self, decision: list[str] | None, language: str) -> list[str]:
        """About 150 tokens: copied spans of the decision (if given) and novel tokens."""
        target = int(np.clip(self.rng.lognormal(np.log(150), 0.4), 30, 600))
        out: list[str] = []
        while len(out) < target:
            if decision is not None and self.rng.random() < 0.6:
                length = int(self.rng.integers(2, 15))
                start = int(self.rng.integers(0, max(len(decision) - length, 1)))
                out.extend(decision[start:start + length])
            else:
                out.extend(self.tokens(language, int(self.rng.integers(2, 8))))
        return out[:target]


def slds_shaped(n_pairs: int, seed: int = 1):
    """Decisions with a de, fr and it headnote each (n_pairs // 3 decisions)."""
    generator = TextGenerator(seed)
    sources, summaries, source_languages, summary_languages = [], [], [], []
    for k in range(n_pairs // 3):
        language = LANGUAGES[k % 3]
        decision = generator.tokens(language, generator.decision_length())
        text = " ".join(decision)
        for headnote_language in LANGUAGES:
            copied = decision if headnote_language == language else None
            sources.append(text)
            summaries.append(" ".join(generator.headnote(copied, headnote_language)))
            source_languages.append(language)
            summary_languages.append(headnote_language)
    return sources, summaries, source_languages, summary_languages


def worst_case(n_pairs: int, seed: int = 2):
    """Every pair a distinct decision with a same-language headnote."""
    generator = TextGenerator(seed)
    sources, summaries, languages = [], [], []
    for k in range(n_pairs):
        language = LANGUAGES[k % 3]
        decision = generator.tokens(language, generator.decision_length())
        sources.append(" ".join(decision))
        summaries.append(" ".join(generator.headnote(decision, language)))
        languages.append(language)
    return sources, summaries, languages, list(languages)


def bench_fragments() -> dict:
    sp = load_metric_module("summarization_properties")
    reference = _reference_fragments()
    generator = TextGenerator(3)
    source = [t.lower() for t in generator.tokens("de", 10_000)]
    summary = [t.lower() for t in generator.headnote(source, "de")]
    summary = (summary * 3)[:250]
    fast = sp.extractive_fragments(summary, source)
    plain = reference(summary, source)
    assert fast == plain, "indexed fragments differ from the plain algorithm"
    t_fast = best_time(lambda: sp.extractive_fragments(summary, source), repeat=5)
    t_plain = best_time(lambda: reference(summary, source), repeat=3)
    return {
        "fragments_source_tokens": len(source),
        "fragments_summary_tokens": len(summary),
        "fragments_count": len(fast),
        "fragments_identical": fast == plain,
        "fragments_indexed_seconds": t_fast,
        "fragments_plain_seconds": t_plain,
        "fragments_speedup": t_plain / t_fast,
    }


def _properties_run(corpus) -> tuple[float, dict]:
    sp = load_metric_module("summarization_properties")
    start = time.perf_counter()
    result = sp.summarization_properties(*corpus)
    return time.perf_counter() - start, result


def bench_properties() -> dict:
    figures = {}
    n_full = int(os.environ.get("COURTBENCH_BENCH_PAIRS", "60000"))
    # worst case, 6,000 pairs, Python heap peak under tracemalloc (slower; timed separately)
    n_worst = min(6000, n_full)
    corpus = worst_case(n_worst)
    seconds, result = _properties_run(corpus)
    figures.update({
        "worst_case_pairs": n_worst,
        "worst_case_source_tokens_median": float(np.median([len(s.split()) for s in corpus[0]])),
        "worst_case_seconds": seconds,
        "worst_case_pairs_per_second": n_worst / seconds,
        "worst_case_extrapolated_60000_seconds": seconds * 60000 / n_worst,
    })
    _, peak = peak_python_memory(lambda: _properties_run(corpus))
    figures["worst_case_peak_python_bytes"] = peak
    del corpus, result
    # SLDS-shaped corpus, full size, wall time and the process's peak RSS
    rss_before = max_rss_bytes()
    corpus = slds_shaped(n_full)
    input_bytes = sum(len(s.encode()) for s in set(corpus[0])) + \
        sum(len(s.encode()) for s in corpus[1])
    rss_inputs = max_rss_bytes()
    seconds, result = _properties_run(corpus)
    figures.update({
        "slds_shaped_pairs": len(corpus[0]),
        "slds_shaped_same_language_pairs": result["n_same_language"],
        "slds_shaped_source_tokens_median": float(np.median(
            [len(s.split()) for s in corpus[0][::3]])),
        "slds_shaped_input_text_bytes": input_bytes,
        "slds_shaped_seconds": seconds,
        "slds_shaped_pairs_per_second": len(corpus[0]) / seconds,
        "slds_shaped_peak_rss_bytes": max_rss_bytes(),
        "rss_before_inputs_bytes": rss_before,
        "rss_with_inputs_bytes": rss_inputs,
        "cpu_count": os.cpu_count(),
        "load_average_1min": os.getloadavg()[0],
    })
    return figures


def bench_rouge() -> dict:
    hs = load_metric_module("headnote_similarity")
    generator = TextGenerator(4)
    references = [" ".join(generator.headnote(None, LANGUAGES[k % 3])) for k in range(1000)]
    predictions = [" ".join(generator.headnote(r.split(), LANGUAGES[k % 3]))
                   for k, r in enumerate(references)]
    languages = [LANGUAGES[k % 3] for k in range(1000)]
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    unicode_scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"],
                                              tokenizer=hs.UnicodeTokenizer())

    def plain(s):
        return [s.score(r, p) for p, r in zip(predictions, references, strict=True)]

    t_plain = best_time(lambda: plain(scorer), repeat=2)
    t_plain_unicode = best_time(lambda: plain(unicode_scorer), repeat=2)
    t_module = best_time(lambda: hs.headnote_similarity(predictions, references, languages),
                         repeat=2)
    return {
        "rouge_pairs": 1000,
        "rouge_plain_rouge_score_seconds": t_plain,
        "rouge_plain_rouge_score_unicode_tokenizer_seconds": t_plain_unicode,
        "rouge_headnote_similarity_seconds_with_bleu_and_1000_bootstrap": t_module,
        "rouge_ratio_module_to_plain_unicode": t_module / t_plain_unicode,
    }


def main() -> dict:
    figures = {}
    figures.update(bench_fragments())
    figures.update(bench_rouge())
    figures.update(bench_properties())
    return figures


if __name__ == "__main__":
    import json

    print(json.dumps(main(), indent=2))
