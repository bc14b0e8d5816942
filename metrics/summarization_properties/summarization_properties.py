"""Summarization properties of decision–headnote pairs: compression, extractive fragment
coverage and density (Grusky et al., 2018), n-gram novelty, coverage increment and
formulaicness, for German, French and Italian.

The computation is the plain function :func:`summarization_properties`; the ``evaluate``
measurement class at the bottom is a thin wrapper. The module imports only the PyPI packages
listed in ``requirements.txt`` so that it also runs from a Hub Space.
"""

from __future__ import annotations

import re
import unicodedata
import zlib
from bisect import bisect_left
from collections.abc import Hashable, Sequence
from functools import cache
from itertools import chain, combinations

import datasets
import evaluate
import numpy as np
import spacy

from .boundary import BoundaryError, check_count, check_seed, check_text
from .checked_wrapper import CheckedWrapper
from .slds_languages import LANGUAGES, check_language

N_SEGMENTS = 10
MAX_NOVELTY_N = 4
DEFAULT_SUBSET_SIZE = 100
DEFAULT_SUBSETS = 10
DEFAULT_SEED = 0
#: Caps of the work parameters: headnotes per subset, subsets per language, and headnote
#: pairs compared (ROUGE-L) per language, subsets x size x (size - 1) / 2: 2,000,000 take
#: about a minute. Without them 1e9 subsets grew the memory by gigabytes.
MAX_SUBSET_SIZE = 1_000
MAX_SUBSETS = 1_000
MAX_FORMULAICNESS_PAIRS = 2_000_000
#: Longest text (characters): a decision of 5 million characters is far above any in SLDS.
MAX_TEXT_CHARACTERS = 5_000_000

#: Per-pair properties, in the order of the SLDS paper's properties table.
PROPERTY_NAMES = (
    "compression_ratio",
    "coverage",
    "density",
    *(f"novelty_{n}" for n in range(1, MAX_NOVELTY_N + 1)),
    *(f"coverage_increment_{k:02d}" for k in range(1, N_SEGMENTS + 1)),
)

_WORD_RE = re.compile(r"\w+")
_NO_TOKEN = object()  # a sentinel that equals no token

_CITATION = """\
@inproceedings{grusky-etal-2018-newsroom,
  title = {Newsroom: A Dataset of 1.3 Million Summaries with Diverse Extractive Strategies},
  author = {Grusky, Max and Naaman, Mor and Artzi, Yoav},
  booktitle = {Proceedings of NAACL-HLT 2018},
  pages = {708--719},
  year = {2018},
  url = {https://aclanthology.org/N18-1065},
}
"""

_DESCRIPTION = """\
Describes decision–headnote pairs (German, French, Italian) with the summarization properties
of the SLDS paper: compression ratio, extractive fragment coverage and density (the greedy
algorithm of Grusky et al., 2018, reproduced exactly), n-gram novelty (n = 1..4), coverage
increment over 10 equal source segments, and formulaicness (mean ROUGE-L F1 between the
headnotes of random subsets, per headnote language). Tokens come from spaCy's blank
tokenizers (no model download), lowercased. Fragment, novelty and coverage-increment values
are null for cross-lingual pairs.
"""

_KWARGS_DESCRIPTION = """\
Args:
    sources (list of str): the source documents (decisions).
    summaries (list of str): the summaries (headnotes), one per source.
    source_languages (list of str): "de", "fr" or "it" for each source.
    summary_languages (list of str): "de", "fr" or "it" for each summary.
    formulaicness_subset_size (int): headnotes per random subset (default 100).
    formulaicness_subsets (int): random subsets per summary language (default 10).
    seed (int): seed of the subset sampling (default 0).
    return_per_pair (bool): also return every pair's values under "per_pair".
Returns:
    aggregates (dict): property -> {"mean", "std", "min", "median", "max", "n"}.
    formulaicness (dict): summary language -> {"mean", "std", "n_headnotes", "subset_size",
        "subsets"}.
    n_pairs, n_same_language (int) and options (dict): what makes the result reproducible.
Examples:
    >>> measurement = evaluate.load("metrics/summarization_properties")  # doctest: +SKIP
    >>> result = summarization_properties(
    ...     ["Das Gericht weist die Beschwerde ab, soweit es darauf eintritt."],
    ...     ["Das Gericht weist die Beschwerde ab."],
    ...     ["de"], ["de"])
    >>> aggregates = result["aggregates"]
    >>> aggregates["coverage"]["mean"], round(aggregates["density"]["mean"], 3)
    (1.0, 5.286)
"""


# --------------------------------------------------------------------------- fragments


def extractive_fragments(
    summary: Sequence[Hashable], source: Sequence[Hashable]
) -> list[tuple[int, int, int]]:
    """Greedy extractive fragments of ``summary`` in ``source`` (Grusky et al., 2018).

    Returns exactly what the published greedy procedure returns (Newsroom's
    ``Fragments._match``): for each summary position ``i`` the source is scanned left to
    right; at a source position that starts a match, the match is extended as far as it goes
    and the scan *resumes after the matched span* (so matches starting inside it are never
    tried, and the globally longest match may be missed); the first strictly longest match
    wins; ``i`` then advances by its length, or by 1 when nothing matched.

    This version visits only the candidates that can matter: when some source position
    matches the summary bigram at ``i``, the scan's outcome is decided by the positions of
    that bigram (single-token matches neither win nor move the scan), otherwise by the first
    occurrence of the summary token.

    Args:
        summary, source: token sequences (any hashable, compared with ``==``).

    Returns:
        ``[(summary_start, source_start, length), ...]`` in summary order.
    """
    a = list(summary)
    b = list(source)
    if not a or not b:
        return []
    wanted = set(a)
    wanted_bigrams = set(zip(a, a[1:], strict=False))
    first: dict = {}
    starts: dict = {}
    previous = _NO_TOKEN
    for p, x in enumerate(b):
        if x in wanted:
            if x not in first:
                first[x] = p
            bigram = (previous, x)
            if bigram in wanted_bigrams:
                starts.setdefault(bigram, []).append(p - 1)
            previous = x
        else:
            previous = _NO_TOKEN
    return _greedy_fragments(a, b, first, lambda i: starts.get((a[i], a[i + 1])))


def _greedy_fragments(a: list, b: list, first: dict, bigram_starts) -> list[tuple[int, int, int]]:
    """The greedy scan over an index: ``first[t]`` is the first source position of token
    ``t``; ``bigram_starts(i)`` the sorted source positions where ``a[i], a[i + 1]`` occur
    (or None)."""
    n, m = len(a), len(b)
    fragments = []
    i = 0
    while i < n:
        candidates = bigram_starts(i) if i + 1 < n else None
        if candidates:
            best_start, best_length = -1, 0
            k = 0
            while k < len(candidates):
                p = candidates[k]
                length = 2
                while i + length < n and p + length < m and a[i + length] == b[p + length]:
                    length += 1
                if length > best_length:
                    best_start, best_length = p, length
                # the scan resumes after the matched span
                k = bisect_left(candidates, p + length, k + 1)
            fragments.append((i, best_start, best_length))
            i += best_length
        else:
            p = first.get(a[i])
            if p is not None:
                fragments.append((i, p, 1))
            i += 1
    return fragments


def _local_fragments(s_local: np.ndarray, b_local: np.ndarray, k: int) -> list[tuple[int, int, int]]:
    """:func:`extractive_fragments` of local-id sequences (see :func:`_local_ids`), with the
    index built by numpy."""
    if len(b_local) == 0:
        return []
    a = s_local.tolist()
    values, positions = np.unique(b_local, return_index=True)
    first = dict(zip(values.tolist(), positions.tolist(), strict=True))
    first.pop(0, None)
    base = k + 1
    wanted = np.unique(s_local[:-1] * base + s_local[1:])
    codes = b_local[:-1] * base + b_local[1:]
    at = np.flatnonzero(np.isin(codes, wanted))
    starts: dict[int, list[int]] = {}
    for code, p in zip(codes[at].tolist(), at.tolist(), strict=True):
        starts.setdefault(code, []).append(p)
    return _greedy_fragments(a, b_local.tolist(), first,
                             lambda i: starts.get(a[i] * base + a[i + 1]))


def fragment_coverage_density(
    summary: Sequence[Hashable], source: Sequence[Hashable]
) -> tuple[float | None, float | None]:
    """Coverage Σ|f| / |summary| (in [0, 1]) and density Σ|f|² / |summary| (in [0, |summary|])
    of the greedy fragments; ``(None, None)`` for an empty summary."""
    if len(summary) == 0:
        return None, None
    lengths = [length for _, _, length in extractive_fragments(summary, source)]
    return sum(lengths) / len(summary), sum(x * x for x in lengths) / len(summary)


# --------------------------------------------------------------------------- tokenization


@cache
def _tokenizer(language: str):
    """spaCy's rule-based tokenizer for ``language`` (``spacy.blank``; cached)."""
    return spacy.blank(language).tokenizer


class _Tokens:
    """Lowercased spaCy tokens as integer ids, memoised per whitespace-delimited chunk.

    spaCy splits text on whitespace first and tokenizes each chunk on its own (its tokenizer
    cache is keyed by chunk), so each distinct chunk is tokenized once, in batches of unseen
    chunks joined by newlines (a newline is a token of its own, which keeps spaCy's special
    cases from matching across chunks), and whitespace tokens are dropped. The result equals
    :func:`tokenize`; it equals tokenizing the whole text except where spaCy lets a special
    case span a single space (an emoticon such as ``:)`` directly followed by `` )``).
    Ids are shared across languages (same string, same id).
    """

    def __init__(self) -> None:
        self.vocab: dict[str, int] = {}
        self.memo: dict[str, dict[str, tuple[int, ...]]] = {lang: {} for lang in LANGUAGES}

    def ids(self, text: str, language: str) -> np.ndarray:
        memo = self.memo[language]
        chunks = text.split()
        try:
            ids = list(chain.from_iterable(map(memo.__getitem__, chunks)))
        except KeyError:
            missing = set(chunks).difference(memo)
            self._learn([c for c in dict.fromkeys(chunks) if c in missing], language)
            ids = list(chain.from_iterable(map(memo.__getitem__, chunks)))
        return np.array(ids, dtype=np.int64)

    def _learn(self, chunks: list[str], language: str) -> None:
        memo = self.memo[language]
        vocab = self.vocab
        groups: list[tuple[int, ...]] = []
        current: list[int] = []
        for token in _tokenizer(language)("\n".join(chunks)):
            if token.is_space:
                groups.append(tuple(current))
                current = []
            else:
                current.append(vocab.setdefault(token.lower_, len(vocab)))
        groups.append(tuple(current))
        if len(groups) != len(chunks):  # pragma: no cover - spaCy splits on whitespace only
            raise RuntimeError(f"spaCy returned {len(groups)} chunks for {len(chunks)}")
        memo.update(zip(chunks, groups, strict=True))


def tokenize(text: str, language: str) -> list[str]:
    """The tokens every property uses: each whitespace-delimited chunk of ``text`` through
    ``spacy.blank(language)``'s tokenizer, lowercased (whitespace is never a token)."""
    check_language(language, "language")
    tokenizer = _tokenizer(language)
    return [t.lower_ for chunk in text.split() for t in tokenizer(chunk)]


# --------------------------------------------------------------------------- per pair


def _local_ids(summary: np.ndarray, source: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Re-code both sequences by the summary's distinct tokens: 1..k, 0 for any source token
    absent from the summary (0 never equals a summary token, so matching is unchanged)."""
    distinct = np.unique(summary)
    k = len(distinct)
    s_local = np.searchsorted(distinct, summary) + 1
    if len(source) == 0:
        return s_local, source.copy(), k
    pos = np.minimum(np.searchsorted(distinct, source), k - 1)
    b_local = np.where(distinct[pos] == source, pos + 1, 0)
    return s_local, b_local, k


def _novelty(s_local: np.ndarray, b_local: np.ndarray, k: int) -> list[float | None]:
    """% of the summary's distinct n-grams (n = 1..4) absent from the source's n-grams; null
    when the summary has fewer than n tokens."""
    base = k + 1
    if base ** MAX_NOVELTY_N >= 2 ** 62:  # codes would overflow int64: plain sets
        return _novelty_sets(s_local.tolist(), b_local.tolist())
    m = len(b_local)
    inside = b_local > 0
    usable = inside  # source n-grams made only of summary tokens: the only ones that can match
    out: list[float | None] = []
    cs = np.zeros(len(s_local), dtype=np.int64)
    cb = np.zeros(m, dtype=np.int64)
    for n in range(1, MAX_NOVELTY_N + 1):
        cs = cs[: max(len(s_local) - n + 1, 0)] * base + s_local[n - 1:]
        if n > 1:
            usable = usable[:-1] & inside[n - 1:]
        cb = cb[: len(usable)] * base + b_local[n - 1:]
        if len(cs) == 0:
            out.append(None)
            continue
        distinct = np.unique(cs)
        absent = int(np.count_nonzero(~np.isin(distinct, cb[usable])))
        out.append(100.0 * absent / len(distinct))
    return out


def _novelty_sets(summary: list, source: list) -> list[float | None]:
    """:func:`_novelty` with Python sets of n-gram tuples."""
    out: list[float | None] = []
    for n in range(1, MAX_NOVELTY_N + 1):
        grams = set(zip(*(summary[j:] for j in range(n)), strict=False))
        if not grams:
            out.append(None)
            continue
        source_grams = set(zip(*(source[j:] for j in range(n)), strict=False))
        out.append(100.0 * len(grams - source_grams) / len(grams))
    return out


def _coverage_increment(b_local: np.ndarray, k: int) -> list[float]:
    """For each of 10 source segments (``numpy.array_split`` sizes), the % of the summary's
    distinct unigrams that occur in that segment."""
    m = len(b_local)
    sizes = [len(part) for part in np.array_split(np.arange(m), N_SEGMENTS)]
    segment = np.repeat(np.arange(N_SEGMENTS), sizes)
    present = np.zeros((N_SEGMENTS, k + 1), dtype=bool)
    present[segment, b_local] = True
    counts = present[:, 1:].sum(axis=1)
    return [100.0 * int(c) / k for c in counts]


def _same_language_properties(summary: np.ndarray, source: np.ndarray) -> list[float | None]:
    """coverage, density, novelty_1..4, coverage_increment_01..10 of one pair (token ids)."""
    if len(summary) == 0:
        return [None] * (2 + MAX_NOVELTY_N + N_SEGMENTS)
    s_local, b_local, k = _local_ids(summary, source)
    lengths = [length for _, _, length in _local_fragments(s_local, b_local, k)]
    coverage = sum(lengths) / len(summary)
    density = sum(x * x for x in lengths) / len(summary)
    return [coverage, density, *_novelty(s_local, b_local, k), *_coverage_increment(b_local, k)]


# --------------------------------------------------------------------------- formulaicness


def _lcs_length(masks: dict[str, int], length: int, tokens: Sequence[str]) -> int:
    """LCS length by the bit-parallel algorithm (Allison & Dix 1986; Hyyrö 2004).

    ``masks[t]`` has bit j set where the other sequence holds ``t`` at position j; ``length``
    is that sequence's length."""
    full = (1 << length) - 1
    v = full
    for t in tokens:
        mask = masks.get(t)
        if mask:  # a token absent from the other sequence leaves v unchanged
            u = v & mask
            # carries above bit `length` never reach the low bits: mask once at the end
            v = (v + u) | (v - u)
    return length - (v & full).bit_count()


def _position_masks(tokens: Sequence[str]) -> dict[str, int]:
    masks: dict[str, int] = {}
    for j, t in enumerate(tokens):
        masks[t] = masks.get(t, 0) | (1 << j)
    return masks


def rouge_l_f1(a: Sequence[str], b: Sequence[str]) -> float:
    """ROUGE-L F1 of two token lists (in [0, 1]; symmetric; 0 when either is empty), as
    ``rouge_score`` computes it: F = 2PR / (P + R), P = LCS/|a|, R = LCS/|b|."""
    if not a or not b:
        return 0.0
    lcs = _lcs_length(_position_masks(b), len(b), a)
    return 2.0 * lcs / (len(a) + len(b))


def word_tokens(text: str) -> list[str]:
    """Lowercased ``\\w+`` words (Unicode-aware: keeps ä, é, à, ß) — formulaicness tokens."""
    return _WORD_RE.findall(text.lower())


def _mean_pairwise_rouge_l(headnotes: list[list[str]]) -> float:
    masks = [_position_masks(tokens) for tokens in headnotes]
    total = 0.0
    count = 0
    for x, y in combinations(range(len(headnotes)), 2):
        a, b = headnotes[x], headnotes[y]
        if a and b:
            total += 2.0 * _lcs_length(masks[y], len(b), a) / (len(a) + len(b))
        count += 1
    return total / count


def formulaicness(
    summaries: Sequence[str],
    languages: Sequence[str],
    *,
    subset_size: int = DEFAULT_SUBSET_SIZE,
    subsets: int = DEFAULT_SUBSETS,
    seed: int = DEFAULT_SEED,
) -> dict[str, dict]:
    """Mean ROUGE-L F1 (×100, 0–100, higher = more formulaic) over all pairs of headnotes
    within random subsets, per summary language.

    For each language, ``subsets`` subsets of ``subset_size`` headnotes are drawn without
    replacement (numpy ``default_rng([seed, crc32(language)])``); each subset's mean over its
    pairs is computed and the subset means are averaged ("mean") and their sample standard
    deviation reported ("std"). A language with at most ``subset_size`` headnotes is used
    whole, once. Fewer than two headnotes give null. Tokens: :func:`word_tokens`.
    """
    subset_size, subsets, seed = _check_formulaicness_options(subset_size, subsets, seed,
                                                              ("subset_size", "subsets"))
    if len(summaries) != len(languages):
        raise BoundaryError("languages", f"<{len(languages):,} items>",
                            f"one per summary ({len(summaries):,})")
    summaries = nfc_texts(summaries)
    out: dict[str, dict] = {}
    for language in sorted(set(languages)):
        indices = [i for i, lang in enumerate(languages) if lang == language]
        entry = {"n_headnotes": len(indices), "subset_size": None, "subsets": 0,
                 "mean": None, "std": None}
        if len(indices) >= 2:
            rng = np.random.default_rng([seed, zlib.crc32(language.encode())])
            if len(indices) <= subset_size:
                draws = [np.arange(len(indices))]
            else:
                draws = [rng.choice(len(indices), size=subset_size, replace=False)
                         for _ in range(subsets)]
            means = [
                100.0 * _mean_pairwise_rouge_l([word_tokens(summaries[indices[j]]) for j in draw])
                for draw in draws
            ]
            entry.update(subset_size=len(draws[0]), subsets=len(draws),
                         mean=float(np.mean(means)),
                         std=float(np.std(means, ddof=1)) if len(means) > 1 else None)
        out[language] = entry
    return out


# --------------------------------------------------------------------------- corpus level


def _validate(sources, summaries, source_languages, summary_languages) -> int:
    """The four per-pair lists: texts of valid Unicode (no lone surrogate, no NUL; blank texts
    are pairs too, with null properties where a count is 0), at most MAX_TEXT_CHARACTERS each,
    languages de, fr or it exactly, equal lengths >= 1; returns the number of pairs."""
    arguments = {"sources": sources, "summaries": summaries,
                 "source_languages": source_languages, "summary_languages": summary_languages}
    for name, values in arguments.items():
        if isinstance(values, str) or not isinstance(values, Sequence):
            raise BoundaryError(name, f"<{type(values).__name__}>", "a list of strings")
    lengths = {name: len(values) for name, values in arguments.items()}
    for name, length in lengths.items():
        if length != lengths["sources"]:
            raise BoundaryError(name, f"<{length:,} items>",
                                f"one per pair ({lengths['sources']:,} sources)")
    if lengths["sources"] == 0:
        raise BoundaryError("sources", [], "at least one pair")
    for name, what in (("sources", "a decision"), ("summaries", "a headnote")):
        for i, text in enumerate(arguments[name]):
            check_text(text, f"{name}[{i}]", max_chars=MAX_TEXT_CHARACTERS,
                       allow_blank=True, what=what)
    for name in ("source_languages", "summary_languages"):
        for i, language in enumerate(arguments[name]):
            check_language(language, f"{name}[{i}]")
    return lengths["sources"]


def _check_formulaicness_options(subset_size, subsets, seed, names) -> tuple:
    """``(subset_size, subsets, seed)`` as ints within their caps (``names``: how the first
    two are called), the headnote pairs they ask for within MAX_FORMULAICNESS_PAIRS."""
    size = check_count(subset_size, names[0], low=2, high=MAX_SUBSET_SIZE,
                       what="headnotes per subset")
    count = check_count(subsets, names[1], low=1, high=MAX_SUBSETS, what="a number of subsets")
    if count * size * (size - 1) // 2 > MAX_FORMULAICNESS_PAIRS:
        raise BoundaryError(names[1], count,
                            f"at most {MAX_FORMULAICNESS_PAIRS:,} headnote pairs per language "
                            f"(subsets x {size} x {size - 1} / 2); with {names[0]} {size} at "
                            f"most {max(1, MAX_FORMULAICNESS_PAIRS // (size * (size - 1) // 2)):,} "
                            "subsets")
    return size, count, check_seed(seed, "seed")


def _aggregate(values: list[float | None]) -> dict:
    """mean, sample std (ddof=1), min, median, max over the non-null values; n = their count."""
    defined = np.array([v for v in values if v is not None], dtype=float)
    n = len(defined)
    if n == 0:
        return {"mean": None, "std": None, "min": None, "median": None, "max": None, "n": 0}
    return {
        "mean": float(defined.mean()),
        "std": float(defined.std(ddof=1)) if n > 1 else None,
        "min": float(defined.min()),
        "median": float(np.median(defined)),
        "max": float(defined.max()),
        "n": n,
    }


def _per_pair_properties(sources, summaries, source_languages,
                         summary_languages) -> tuple[dict[str, list], int]:
    """``({property: [value or None per pair]}, number of same-language pairs)`` of validated
    inputs; see :func:`summarization_properties` for the definitions."""
    tokens = _Tokens()
    per_pair: dict[str, list] = {name: [None] * len(sources) for name in PROPERTY_NAMES}
    same_language_names = PROPERTY_NAMES[1:]
    # Pairs that share a source text are handled together so that it is tokenized once.
    by_source: dict[tuple[str, str], list[int]] = {}
    for i, (text, language) in enumerate(zip(sources, source_languages, strict=True)):
        by_source.setdefault((text, language), []).append(i)
    n_same = 0
    for (text, language), members in by_source.items():
        source_ids = tokens.ids(text, language)
        for i in members:
            summary_ids = tokens.ids(summaries[i], summary_languages[i])
            if len(summary_ids):
                per_pair["compression_ratio"][i] = len(source_ids) / len(summary_ids)
            if summary_languages[i] == language:
                n_same += 1
                values = _same_language_properties(summary_ids, source_ids)
                for name, value in zip(same_language_names, values, strict=True):
                    per_pair[name][i] = value
    return per_pair, n_same


def _options(formulaicness_subset_size: int, formulaicness_subsets: int, seed: int) -> dict:
    """What makes a result reproducible: options, tokenizers and library versions."""
    return {
        "formulaicness_subset_size": formulaicness_subset_size,
        "formulaicness_subsets": formulaicness_subsets,
        "seed": seed,
        "tokenizer": f"spacy.blank (spaCy {spacy.__version__}), lowercased, no whitespace",
        "formulaicness_tokenizer": "lowercase \\w+ words",
        "numpy_version": np.__version__,
    }


def nfc_texts(texts: Sequence[str]) -> list[str]:
    """Each text in Unicode normalization form NFC (a composed and a decomposed "ä" are the
    same token for every property)."""
    return [unicodedata.normalize("NFC", text) for text in texts]


def summarization_properties(
    sources: Sequence[str],
    summaries: Sequence[str],
    source_languages: Sequence[str],
    summary_languages: Sequence[str],
    *,
    formulaicness_subset_size: int = DEFAULT_SUBSET_SIZE,
    formulaicness_subsets: int = DEFAULT_SUBSETS,
    seed: int = DEFAULT_SEED,
    return_per_pair: bool = False,
) -> dict:
    """Summarization properties of source–summary pairs and their corpus aggregates.

    Tokens: :func:`tokenize` — each whitespace-delimited chunk through the
    ``spacy.blank(language)`` tokenizer, lowercased; the source is tokenized with its
    language, the summary with its own.

    Per pair (null where undefined, and excluded from the aggregates):

    - ``compression_ratio``: source tokens / summary tokens (every pair; null for an empty
      summary). Higher = more compressed.
    - same-language pairs only (null for cross-lingual pairs, never 0):
      ``coverage`` (share of summary tokens inside greedy extractive fragments, [0, 1]),
      ``density`` (Σ fragment length² / summary tokens, [0, summary tokens]),
      ``novelty_n`` for n = 1..4 (% of the summary's distinct n-grams absent from the
      source, [0, 100]; null when the summary has fewer than n tokens), and
      ``coverage_increment_01`` … ``_10`` (source split into 10 segments of equal token count
      as ``numpy.array_split`` does; % of the summary's distinct unigrams found in segment k,
      [0, 100]).

    Returns:
        ``{"aggregates": {property: {"mean", "std", "min", "median", "max", "n"}},
        "formulaicness": {language: {...}}`` (see :func:`formulaicness`),
        ``"n_pairs", "n_same_language", "options"}`` and, with ``return_per_pair``,
        ``"per_pair": {property: [value or None, ...]}``.
    """
    n_pairs = _validate(sources, summaries, source_languages, summary_languages)
    formulaicness_subset_size, formulaicness_subsets, seed = _check_formulaicness_options(
        formulaicness_subset_size, formulaicness_subsets, seed,
        ("formulaicness_subset_size", "formulaicness_subsets"))
    if not isinstance(return_per_pair, bool):
        raise BoundaryError("return_per_pair", return_per_pair, "True or False")
    sources, summaries = nfc_texts(sources), nfc_texts(summaries)

    per_pair, n_same = _per_pair_properties(sources, summaries, source_languages,
                                            summary_languages)
    result = {
        "aggregates": {name: _aggregate(per_pair[name]) for name in PROPERTY_NAMES},
        "formulaicness": formulaicness(
            summaries, summary_languages, subset_size=formulaicness_subset_size,
            subsets=formulaicness_subsets, seed=seed),
        "n_pairs": n_pairs,
        "n_same_language": n_same,
        "options": _options(formulaicness_subset_size, formulaicness_subsets, seed),
    }
    if return_per_pair:
        result["per_pair"] = per_pair
    return result


# --------------------------------------------------------------------------- evaluate wrapper


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class SummarizationProperties(CheckedWrapper, evaluate.Measurement):
    """``evaluate`` wrapper around :func:`summarization_properties`."""

    FUNCTION = "summarization_properties"
    OPTIONS = ("formulaicness_subset_size", "formulaicness_subsets", "seed", "return_per_pair")

    def _info(self):
        return evaluate.MeasurementInfo(
            module_type="measurement",
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({
                "sources": datasets.Value("string"),
                "summaries": datasets.Value("string"),
                "source_languages": datasets.Value("string"),
                "summary_languages": datasets.Value("string"),
            }),
            reference_urls=["https://aclanthology.org/N18-1065",
                            "https://github.com/lil-lab/newsroom"],
        )

    def check_batch(self, batch):
        _validate(batch["sources"], batch["summaries"], batch["source_languages"],
                  batch["summary_languages"])

    def _compute(self, sources, summaries, source_languages, summary_languages,
                 formulaicness_subset_size=DEFAULT_SUBSET_SIZE,
                 formulaicness_subsets=DEFAULT_SUBSETS, seed=DEFAULT_SEED,
                 return_per_pair=False):
        return summarization_properties(
            sources, summaries, source_languages, summary_languages,
            formulaicness_subset_size=formulaicness_subset_size,
            formulaicness_subsets=formulaicness_subsets, seed=seed,
            return_per_pair=return_per_pair)


__all__ = [
    "PROPERTY_NAMES",
    "SummarizationProperties",
    "extractive_fragments",
    "formulaicness",
    "fragment_coverage_density",
    "rouge_l_f1",
    "summarization_properties",
    "tokenize",
    "word_tokens",
]
