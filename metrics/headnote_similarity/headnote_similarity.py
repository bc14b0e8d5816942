"""Lexical and semantic similarity of generated headnotes to gold headnotes (German, French,
Italian): ROUGE-1/2/L, corpus BLEU and, optionally, rescaled BERTScore, per language pair and
macro-averaged over pairs, each with a bootstrap standard error.

The computation is the plain function :func:`headnote_similarity`; the ``evaluate`` metric
class at the bottom is a thin wrapper. The module imports only the PyPI packages listed in
``requirements.txt``; BERTScore needs ``bert-score``, ``torch`` and ``transformers`` on top
(``pip install 'courtbench[bertscore]'``) and imports them only when asked for.
"""

from __future__ import annotations

import csv
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

import datasets
import evaluate
import numpy as np
from rouge_score import tokenize as rouge_score_tokenize
from sacrebleu.metrics import BLEU

from .boundary import (
    BoundaryError,
    check_choice,
    check_count,
    check_integer,
    check_seed,
    check_text,
)
from .checked_wrapper import CheckedWrapper
from .slds_languages import LANGUAGES, check_languages

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")
ROUGE_TOKENIZERS = ("unicode", "rouge_score")
EMPTY_POLICIES = ("zero", "raw")
DEFAULT_BERTSCORE_MODEL = "xlm-roberta-large"
DEFAULT_BERTSCORE_LAYERS = 24
INSTALL_HINT = ("BERTScore needs the optional packages bert-score, torch and transformers: "
                "pip install 'courtbench[bertscore]' (or pip install bert-score torch "
                "transformers)")

_CITATION = """\
@inproceedings{lin-2004-rouge,
  title = {{ROUGE}: A Package for Automatic Evaluation of Summaries},
  author = {Lin, Chin-Yew},
  booktitle = {Text Summarization Branches Out},
  year = {2004},
  url = {https://aclanthology.org/W04-1013},
}
@inproceedings{post-2018-call,
  title = {A Call for Clarity in Reporting {BLEU} Scores},
  author = {Post, Matt},
  booktitle = {Proceedings of the Third Conference on Machine Translation},
  year = {2018},
  url = {https://aclanthology.org/W18-6319},
}
@inproceedings{zhang-2020-bertscore,
  title = {{BERTScore}: Evaluating Text Generation with {BERT}},
  author = {Zhang, Tianyi and Kishore, Varsha and Wu, Felix and Weinberger, Kilian Q. and
            Artzi, Yoav},
  booktitle = {International Conference on Learning Representations},
  year = {2020},
  url = {https://openreview.net/forum?id=SkeHuCVFDr},
}
"""

_DESCRIPTION = """\
Scores generated headnotes against gold headnotes in German, French and Italian, as the SLDS
benchmark reports them: ROUGE-1/2/L F1 (rouge_score, with a Unicode-aware tokenizer by
default), corpus BLEU (sacrebleu, with its signature) and, when the bertscore extra is
installed and asked for, BERTScore F1 (bert_score, xlm-roberta-large layer 24, rescaled with
the headnote language's baseline). Scores are on the 0–100 scale, per language pair and
macro-averaged over pairs, each with a bootstrap standard error.
"""

_KWARGS_DESCRIPTION = """\
Args:
    predictions (list of str): generated headnotes (empty strings are valid).
    references (list of str): gold headnotes, one per prediction.
    prediction_languages (list of str): "de", "fr" or "it" (the headnote language).
    source_languages (list of str, optional): decision languages; groups become
        "<source>_<headnote>" pairs such as "de_fr" (default: group by headnote language).
        With evaluate, pass it to compute() as a keyword (not a declared feature).
    rouge_tokenizer (str): "unicode" (default) or "rouge_score" (its ASCII-only default).
    use_stemmer (bool): Porter stemming, only with rouge_tokenizer="rouge_score".
    bleu_tokenize (str): sacrebleu tokenizer, "13a" (default) or "intl" (recommended here).
    bertscore (bool): also compute BERTScore (needs the bertscore extra).
    bertscore_model_type, bertscore_num_layers, bertscore_model_path,
    bertscore_rescale_with_baseline, bertscore_empty, bertscore_batch_size, bertscore_device:
        BERTScore options (see the card).
    bootstrap_resamples (int): bootstrap replicates for standard errors (default 1000).
    seed (int): bootstrap seed (default 0).
    return_per_item (bool): also return each item's ROUGE and BERTScore values.
Returns:
    rouge1, rouge2, rougeL, bleu (and bertscore_f1): macro-averages over groups, 0-100,
    each with "<name>_se"; "groups": per-group scores; counts and reproducibility keys.
Examples:
    >>> result = headnote_similarity(["Art. 6 VG; Genugtuung für den Ehemann."],
    ...                              ["Art. 6 VG; Genugtuungsanspruch des Ehemanns."], ["de"])
    >>> round(result["rouge1"], 2), result["groups"]["de"]["n"]
    (46.15, 1)
"""


# --------------------------------------------------------------------------- tokenization


class UnicodeTokenizer:
    """ROUGE tokenizer for German, French and Italian: lowercase, split on runs of non-word
    characters (``\\W+``, Unicode-aware, so ä, é, à, ß stay inside their words), drop empty
    strings; no stemming. rouge_score's default tokenizer instead replaces every character
    outside ``[a-z0-9]`` with a space ("für" becomes "f", "r")."""

    _split = re.compile(r"\W+")

    def tokenize(self, text: str) -> list[str]:
        return [token for token in self._split.split(text.lower()) if token]


class AsciiTokenizer:
    """rouge_score's default tokenizer without stemming (``rouge_score.tokenize.tokenize``,
    which ``DefaultTokenizer(use_stemmer=False)`` calls): lowercase, every character outside
    ``[a-z0-9]`` becomes a space."""

    def tokenize(self, text: str) -> list[str]:
        return rouge_score_tokenize.tokenize(text, None)


def rouge_tokenizer_for(name: str, use_stemmer: bool = False):
    """The tokenizer ``rouge_tokenizer=name`` stands for: :class:`UnicodeTokenizer` for
    ``"unicode"``, rouge_score's default tokenizer for ``"rouge_score"`` (its
    ``DefaultTokenizer`` when Porter-stemming). Either has ``tokenize(text) -> list[str]``."""
    if name != "rouge_score":
        return UnicodeTokenizer()
    if not use_stemmer:
        return AsciiTokenizer()
    # imported only here: rouge_score.tokenizers imports nltk (with scipy, scikit-learn and
    # pandas), about 170 MB of memory that no other path needs
    from rouge_score import tokenizers

    return tokenizers.DefaultTokenizer(use_stemmer=True)


# --------------------------------------------------------------------------- ROUGE

#: Bits per word block of the bit-parallel LCS. Memory of one block's match masks is at most
#: (distinct tokens in the block) x LCS_BLOCK_BITS / 8 bytes <= 32 MiB, whatever the length.
LCS_BLOCK_BITS = 1 << 14


def lcs_length(first: Sequence, second: Sequence, *, block_bits: int = LCS_BLOCK_BITS) -> int:
    """Length of a longest common subsequence of two token sequences (hashable items).

    Bit-parallel (Allison & Dix 1986; Hyyrö 2004): the longer sequence is a bit vector ``V``
    (1 = unmatched), and every token of the shorter one updates it with
    ``V = (V + (V & M)) | (V & ~M)``, ``M`` being the positions where the token occurs; the
    LCS is the number of 0 bits at the end. The long side is cut into blocks of
    ``block_bits`` bits, processed one after the other with the addition's carry kept per
    step, so memory is O(block_bits² / 8 + len(shorter)) bytes and time
    O(len(first) · len(second) / 64) machine-word operations — rouge_score's dynamic
    programming table needs len(first) · len(second) Python integers instead.
    """
    if len(first) < len(second):
        first, second = second, first
    if not second:
        return 0
    carries = None
    common = 0
    for start in range(0, len(first), block_bits):
        block = first[start:start + block_bits]
        masks: dict = {}
        for bit, token in enumerate(block):
            masks[token] = masks.get(token, 0) | (1 << bit)
        if carries is None and start + block_bits >= len(first):
            unmatched = _unmatched_in_block(masks, second, len(block))
        else:
            if carries is None:
                carries = bytearray(len(second))  # carry into the first block: none
            unmatched = _unmatched_in_carried_block(masks, second, len(block), carries)
        common += len(block) - unmatched
    return common


def _unmatched_in_block(masks: dict, sequence: Sequence, width: int) -> int:
    """Run the bit-vector recurrence of one block that nothing carries into or out of;
    return the number of still-unmatched positions (1 bits)."""
    full = vector = (1 << width) - 1
    get = masks.get
    for token in sequence:
        mask = get(token)
        if mask is not None:
            matched = vector & mask
            vector = ((vector + matched) & full) | (vector - matched)
    return vector.bit_count()


def _unmatched_in_carried_block(masks: dict, sequence: Sequence, width: int,
                                carries: bytearray) -> int:
    """The recurrence of one block of a multi-block vector: ``carries[j]`` holds the carry
    of step ``j``'s addition out of the previous block and is replaced by this block's."""
    full = vector = (1 << width) - 1
    get = masks.get
    for step, token in enumerate(sequence):
        mask = get(token, 0)
        carry = carries[step]
        if mask or carry:
            matched = vector & mask
            total = vector + matched + carry
            carries[step] = total >> width
            vector = (total & full) | (vector - matched)
    return vector.bit_count()


def _fmeasure(overlap: int, target_count: int, prediction_count: int) -> float:
    """F1 exactly as rouge_score computes it (same operations, same order)."""
    precision = overlap / max(prediction_count, 1)
    recall = overlap / max(target_count, 1)
    if precision + recall > 0:
        return 2 * precision * recall / (precision + recall)
    return 0.0


def _ngram_counts(tokens: Sequence[str], n: int) -> Counter:
    """How often each n-gram (a tuple of n tokens) occurs in ``tokens``."""
    # zip of the sequence shifted by 0..n-1 ends with the shortest shift: the last n-gram
    return Counter(zip(*(tokens[i:] for i in range(n)), strict=False))


def rouge_f1(target_tokens: Sequence[str], prediction_tokens: Sequence[str]) -> tuple:
    """ROUGE-1, ROUGE-2 and ROUGE-L F1 (0–1) of one pair of token lists, identical to
    rouge_score's ``RougeScorer(["rouge1", "rouge2", "rougeL"])`` on the same tokens:
    n-gram overlaps are clipped counts, the LCS is :func:`lcs_length`."""
    scores = []
    for n in (1, 2):
        target = _ngram_counts(target_tokens, n)
        prediction = _ngram_counts(prediction_tokens, n)
        overlap = sum((target & prediction).values())  # clipped counts
        scores.append(_fmeasure(overlap, max(len(target_tokens) - n + 1, 0),
                                max(len(prediction_tokens) - n + 1, 0)))
    scores.append(_fmeasure(lcs_length(target_tokens, prediction_tokens), len(target_tokens),
                            len(prediction_tokens)))
    return tuple(scores)


def _rouge_per_item(predictions, references, tokenizer) -> dict[str, np.ndarray]:
    """Per-item ROUGE-1/2/L F1 × 100 (``{name: float64 array}``); each text tokenized once."""
    per_item = {name: np.empty(len(predictions)) for name in ROUGE_TYPES}
    for i, (prediction, reference) in enumerate(zip(predictions, references, strict=True)):
        scores = rouge_f1(tokenizer.tokenize(reference), tokenizer.tokenize(prediction))
        for name, score in zip(ROUGE_TYPES, scores, strict=True):
            per_item[name][i] = 100.0 * score
    return per_item


# --------------------------------------------------------------------------- validation

#: Longest text accepted (characters): about 1,000 headnotes. Every score is linear in memory
#: and time except ROUGE-L, whose time grows with the product of the two lengths (a 1 MB pair
#: takes seconds); longer texts are refused rather than left to run for hours.
MAX_TEXT_CHARACTERS = 2_000_000
#: Caps of the work parameters: bootstrap replicates (each recomputes every group's BLEU in
#: Python: 100,000 take tens of seconds) and BERTScore's batch size.
MAX_BOOTSTRAP_RESAMPLES = 100_000
MAX_BERTSCORE_BATCH_SIZE = 1024
MAX_BERTSCORE_LAYER = 1000
FLAGS = ("use_stemmer", "bertscore", "bertscore_rescale_with_baseline", "return_per_item")
#: The headnote languages this module takes, the SLDS languages (the page's choices).
HEADNOTE_LANGUAGES = LANGUAGES
INPUTS = ("predictions", "references", "prediction_languages", "source_languages")


def _check_texts(values, argument: str, n: int | None, allow_blank: bool) -> int:
    """Texts of valid Unicode (no lone surrogate, no NUL), at most MAX_TEXT_CHARACTERS each,
    with visible text unless ``allow_blank``; ``n`` of them when given."""
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise BoundaryError(argument, f"<{type(values).__name__}>", "a list of strings")
    if n is not None and len(values) != n:
        raise BoundaryError(argument, f"<{len(values):,} items>", f"one per prediction ({n:,})")
    for i, value in enumerate(values):
        check_text(value, f"{argument}[{i}]", max_chars=MAX_TEXT_CHARACTERS,
                   allow_blank=allow_blank, what="a headnote")
    return len(values)


def _check_inputs(predictions, references, prediction_languages, source_languages) -> int:
    """Validate the four per-item lists; return their length n >= 1."""
    n = _check_texts(predictions, "predictions", None, allow_blank=True)
    if n == 0:
        raise BoundaryError("predictions", [], "at least one headnote")
    _check_texts(references, "references", n, allow_blank=False)
    check_languages(prediction_languages, "prediction_languages", n)
    if source_languages is not None:
        check_languages(source_languages, "source_languages", n)
    return n


def _check_options(options: dict) -> dict:
    """The keyword options of :func:`headnote_similarity` (by their names), checked by the
    boundary validator; returns them with the integers as ints (2.0 -> 2)."""
    check_choice(options["rouge_tokenizer"], "rouge_tokenizer", ROUGE_TOKENIZERS)
    check_choice(options["bertscore_empty"], "bertscore_empty", EMPTY_POLICIES)
    for name in FLAGS:
        if not isinstance(options[name], bool):
            raise BoundaryError(name, options[name], "True or False")
    if options["use_stemmer"] and options["rouge_tokenizer"] != "rouge_score":
        raise BoundaryError("use_stemmer", True, "False unless rouge_tokenizer='rouge_score' "
                            "(rouge_score's Porter stemmer is English)")
    checked = dict(options)
    checked["bootstrap_resamples"] = check_count(
        options["bootstrap_resamples"], "bootstrap_resamples", low=1,
        high=MAX_BOOTSTRAP_RESAMPLES, what="a number of bootstrap resamples")
    checked["seed"] = check_seed(options["seed"], "seed")
    checked["bertscore_num_layers"] = check_integer(
        options["bertscore_num_layers"], "bertscore_num_layers", low=0, high=MAX_BERTSCORE_LAYER,
        what="a layer index")
    checked["bertscore_batch_size"] = check_count(
        options["bertscore_batch_size"], "bertscore_batch_size", low=1,
        high=MAX_BERTSCORE_BATCH_SIZE, what="a batch size")
    return checked


# --------------------------------------------------------------------------- BLEU


def _bleu(tokenize: str, **options) -> BLEU:
    check_choice(tokenize, "bleu_tokenize", tuple(BLEU.TOKENIZERS))
    return BLEU(tokenize=tokenize, **options)


def bleu_statistics(predictions: Sequence[str], references: Sequence[str],
                    tokenize: str) -> np.ndarray:
    """Per-item BLEU sufficient statistics, an int64 array of shape (n, 2 + 2 · 4): system
    length, reference length, matching n-gram counts (n = 1..4), n-gram totals (n = 1..4),
    as sacrebleu sums them into corpus BLEU (public API: ``BLEU.sentence_score``; effective
    order only silences its sentence-level warning and leaves the counts unchanged)."""
    scorer = _bleu(tokenize, effective_order=True)
    rows = []
    for prediction, reference in zip(predictions, references, strict=True):
        score = scorer.sentence_score(prediction, [reference])
        rows.append([score.sys_len, score.ref_len, *score.counts, *score.totals])
    return np.array(rows, dtype=np.int64)


def bleu_from_statistics(bleu: BLEU, statistics: Sequence[int]) -> float:
    """Corpus BLEU (0–100) of summed :func:`bleu_statistics` with ``bleu``'s settings
    (``BLEU.compute_bleu``, sacrebleu's public static method)."""
    values = [int(value) for value in statistics]
    order = bleu.max_ngram_order
    return BLEU.compute_bleu(values[2:2 + order], values[2 + order:], values[0], values[1],
                             smooth_method=bleu.smooth_method, smooth_value=bleu.smooth_value,
                             effective_order=bleu.effective_order,
                             max_ngram_order=order).score


# --------------------------------------------------------------------------- BERTScore


def _baseline(model_type: str, language: str, num_layers: int, bert_score_dir: Path,
              column: str = "F") -> float:
    """The baseline (``column`` P, R or F) bert_score ships for ``model_type`` and
    ``language`` at layer ``num_layers`` (row ``num_layers`` of
    ``rescale_baseline/<language>/<model_type>.tsv``)."""
    path = bert_score_dir / "rescale_baseline" / language / f"{model_type}.tsv"
    if not path.is_file():
        raise ValueError(f"bertscore_model_type = {model_type!r}: bert_score ships no rescaling "
                         f"baseline for language {language!r} ({path} is missing)")
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    if num_layers >= len(rows):
        raise ValueError(f"bertscore_num_layers = {num_layers}: {path} has rows for layers "
                         f"0..{len(rows) - 1}")
    return float(rows[num_layers][column])


def _rescaled(values: np.ndarray, column: str, languages: Sequence[str], empty_mask: np.ndarray,
              folder: Path, *, model_type: str, num_layers: int, rescale: bool,
              empty: str) -> np.ndarray:
    """One BERTScore column (P, R or F) × 100: rescaled with its own baseline per language
    when ``rescale``, empty predictions 0 when ``empty == "zero"``."""
    if rescale:
        baselines = {lang: _baseline(model_type, lang, num_layers, folder, column)
                     for lang in sorted(set(languages))}
        b = np.array([baselines[lang] for lang in languages])
        values = (values - b) / (1 - b)
    if empty == "zero":
        values = np.where(empty_mask, 0.0, values)
    return 100.0 * values


def bertscore_f1(predictions: Sequence[str], references: Sequence[str],
                 languages: Sequence[str], **options) -> tuple[np.ndarray, dict]:
    """Per-item BERTScore F1 × 100 and its settings (:func:`bertscore_prf`'s F1)."""
    scores, settings = bertscore_prf(predictions, references, languages, **options)
    return scores["bertscore_f1"], settings


def bertscore_prf(
    predictions: Sequence[str],
    references: Sequence[str],
    languages: Sequence[str],
    *,
    model_type: str = DEFAULT_BERTSCORE_MODEL,
    num_layers: int = DEFAULT_BERTSCORE_LAYERS,
    model_path: str | None = None,
    rescale_with_baseline: bool = True,
    empty: str = "zero",
    batch_size: int = 32,
    device: str | None = None,
) -> tuple[dict, dict]:
    """Per-item BERTScore precision, recall and F1 × 100 (``{"bertscore_precision",
    "bertscore_recall", "bertscore_f1"}`` arrays) and the settings that reproduce them.

    The weights come from ``model_path`` (a local directory) or else ``model_type`` (a Hub
    id); ``model_type`` also names the rescaling baseline: each of P, R, F is rescaled as
    (x − b) / (1 − b) with its own baseline b that bert_score ships for the item's language,
    model and layer, as ``bert_score`` does with ``rescale_with_baseline=True``.

    Empty (whitespace-only) predictions: ``empty="zero"`` scores them 0; ``empty="raw"``
    keeps bert_score's rule (raw F of an empty candidate is 0, so rescaled it becomes
    −b / (1 − b), about −54 × 100 for xlm-roberta-large layer 24). Either way they are not
    passed to the model (bert_score 0.3.13 fails on empty candidates under transformers 5).
    """
    try:
        import bert_score
    except ImportError as error:
        raise ImportError(INSTALL_HINT) from error
    empty_mask = np.array([not p.strip() for p in predictions], dtype=bool)
    raw = {column: np.zeros(len(predictions)) for column in "PRF"}
    keep = np.flatnonzero(~empty_mask)
    if len(keep):
        scorer = bert_score.BERTScorer(model_type=model_path or model_type,
                                       num_layers=num_layers, batch_size=batch_size,
                                       device=device)
        found = scorer.score([predictions[i] for i in keep], [references[i] for i in keep])
        for column, values in zip("PRF", found, strict=True):
            raw[column][keep] = values.double().cpu().numpy()
    folder = Path(bert_score.__file__).resolve().parent
    scores = {name: _rescaled(raw[column], column, languages, empty_mask, folder,
                              model_type=model_type, num_layers=num_layers,
                              rescale=rescale_with_baseline, empty=empty)
              for column, name in (("P", "bertscore_precision"), ("R", "bertscore_recall"),
                                   ("F", "bertscore_f1"))}
    settings = {
        "bertscore_model_type": model_type,
        "bertscore_model_path": model_path,
        "bertscore_num_layers": num_layers,
        "bertscore_rescale_with_baseline": rescale_with_baseline,
        "bertscore_empty": empty,
        "bert_score_version": metadata.version("bert-score"),
        "transformers_version": metadata.version("transformers"),
        "torch_version": metadata.version("torch"),
    }
    return scores, settings


# --------------------------------------------------------------------------- bootstrap

#: At most this many multinomial counts (int64) are drawn at once when resampling a group.
MAX_BOOTSTRAP_ELEMENTS = 1 << 22


def _standard_error(replicates: np.ndarray) -> float | None:
    """Sample standard deviation of bootstrap replicates (exactly 0 when all are equal)."""
    if len(replicates) < 2:
        return None
    if np.ptp(replicates) == 0:
        return 0.0
    return float(np.std(replicates, ddof=1))


def _resample_counts(rng: np.random.Generator, size: int, resamples: int):
    """Yield the bootstrap count matrix of one group, ``rng.multinomial(size, uniform,
    size=resamples)``, in row chunks of at most :data:`MAX_BOOTSTRAP_ELEMENTS` counts. The
    rows come from the generator one after the other, so chunking changes no draw (only a
    group of over 4,000 items at 1,000 resamples is chunked; BLAS may then round the
    products differently in the last bit)."""
    uniform = np.full(size, 1.0 / size)
    rows = max(1, MAX_BOOTSTRAP_ELEMENTS // size)
    for start in range(0, resamples, rows):
        yield rng.multinomial(size, uniform, size=min(rows, resamples - start))


def _group_scores(index: np.ndarray, texts: tuple, per_item: dict, statistics: np.ndarray,
                  bleu: BLEU, rng: np.random.Generator, resamples: int) -> tuple[dict, dict]:
    """Scores of one group (items ``index`` of ``texts = (predictions, references)``) and
    their bootstrap replicates.

    Returns ``(scores, replicates)``: scores holds every per-item metric's mean, the group's
    corpus BLEU (sacrebleu's ``corpus_score``) and a ``<name>_se`` after each; replicates
    maps each name to its ``resamples`` bootstrap values (the group's items resampled with
    replacement; BLEU recomputed from the resampled sufficient statistics).
    """
    predictions, references = texts
    size = len(index)
    values = {name: per_item[name][index] for name in per_item}
    group_statistics = statistics[index]
    replicates: dict[str, list] = {name: [] for name in [*values, "bleu"]}
    for counts in _resample_counts(rng, size, resamples):
        for name, column in values.items():
            replicates[name].append(counts @ column / size)
        replicates["bleu"].append([bleu_from_statistics(bleu, row)
                                   for row in (counts @ group_statistics).tolist()])
    replicates = {name: np.concatenate(parts) for name, parts in replicates.items()}
    scores: dict = {}
    for name, column in values.items():
        scores[name] = float(column.mean())
        scores[f"{name}_se"] = _standard_error(replicates[name])
    scores["bleu"] = float(bleu.corpus_score([predictions[i] for i in index],
                                             [[references[i] for i in index]]).score)
    scores["bleu_se"] = _standard_error(replicates["bleu"])
    return scores, replicates


def _grouped(keys: list[str], texts: tuple, per_item: dict, statistics: np.ndarray,
             bleu: BLEU, resamples: int, seed: int) -> tuple[dict, dict]:
    """Per-group scores (groups in sorted order, one ``default_rng(seed)`` drawn through
    them in that order) and, per metric, the list of the groups' replicate arrays."""
    rng = np.random.default_rng(seed)
    groups: dict[str, dict] = {}
    replicates: dict[str, list] = {name: [] for name in [*per_item, "bleu"]}
    keys_array = np.array(keys)
    for key in sorted(set(keys)):
        index = np.flatnonzero(keys_array == key)
        scores, group_replicates = _group_scores(index, texts, per_item, statistics, bleu, rng,
                                                 resamples)
        n_empty = int(sum(not texts[0][i].strip() for i in index))
        groups[key] = {"n": len(index), "n_empty": n_empty, **scores}
        for name, values in group_replicates.items():
            replicates[name].append(values)
    return groups, replicates


def _per_item_scores(predictions, references, languages, options: dict) -> tuple[dict, dict]:
    """Per-item ROUGE (and, if ``options["bertscore"]``, BERTScore) × 100 as
    ``{name: float64 array}``, and the BERTScore settings (``{}`` without it)."""
    tokenizer = rouge_tokenizer_for(options["rouge_tokenizer"], options["use_stemmer"])
    per_item = _rouge_per_item(predictions, references, tokenizer)
    settings: dict = {}
    if options["bertscore"]:
        scores, settings = bertscore_prf(
            predictions, references, languages,
            **{name.removeprefix("bertscore_"): value for name, value in options.items()
               if name.startswith("bertscore_")})
        per_item.update(scores)
    return per_item, settings


def _group_keys(prediction_languages, source_languages) -> list[str]:
    """Each item's group: its headnote language, or "<source>_<headnote>" when the source
    languages are given."""
    if source_languages is None:
        return list(prediction_languages)
    return [f"{s}_{p}" for s, p in zip(source_languages, prediction_languages, strict=True)]


def _macro_averages(groups: dict, replicates: dict, per_item_names: list[str]) -> dict:
    """Unweighted means over groups of every score, each followed by its ``_se``: the
    standard error of the mean of the groups' replicates."""
    result: dict = {}
    for name in [*ROUGE_TYPES, "bleu", *per_item_names[len(ROUGE_TYPES):]]:
        result[name] = float(np.mean([g[name] for g in groups.values()]))
        result[f"{name}_se"] = _standard_error(np.mean(replicates[name], axis=0))
    return result


# --------------------------------------------------------------------------- main function


def nfc_texts(texts: Sequence[str]) -> list[str]:
    """Each text in Unicode normalization form NFC, so that a composed "ä" (U+00E4) and a
    decomposed one ("a" + U+0308) are the same characters for every score."""
    return [unicodedata.normalize("NFC", text) for text in texts]



def headnote_similarity(
    predictions: Sequence[str],
    references: Sequence[str],
    prediction_languages: Sequence[str],
    source_languages: Sequence[str] | None = None,
    *,
    rouge_tokenizer: str = "unicode",
    use_stemmer: bool = False,
    bleu_tokenize: str = "13a",
    bertscore: bool = False,
    bertscore_model_type: str = DEFAULT_BERTSCORE_MODEL,
    bertscore_num_layers: int = DEFAULT_BERTSCORE_LAYERS,
    bertscore_model_path: str | None = None,
    bertscore_rescale_with_baseline: bool = True,
    bertscore_empty: str = "zero",
    bertscore_batch_size: int = 32,
    bertscore_device: str | None = None,
    bootstrap_resamples: int = 1000,
    seed: int = 0,
    return_per_item: bool = False,
) -> dict:
    """ROUGE-1/2/L F1, corpus BLEU and optional BERTScore F1 of headnotes (texts in NFC), on
    the 0–100 scale (higher = closer to the gold headnote), per group and macro-averaged.

    Groups are the language pairs ``"<source>_<headnote>"`` when ``source_languages`` is
    given, else the headnote languages. A group's ROUGE and BERTScore are means over its
    items; its BLEU is sacrebleu's corpus BLEU over its items. The top-level values are
    unweighted means over groups. Standard errors (``*_se``): each group is resampled with
    replacement to its own size ``bootstrap_resamples`` times (numpy ``default_rng(seed)``,
    groups in sorted order, the same resamples for every metric); the SE is the sample
    standard deviation of the replicates (of the group score, or of the macro-average).
    Raises:
        ValueError: (``BoundaryError``) naming the argument and first bad index (see the card).
        TypeError: an unknown keyword argument. ImportError: ``bertscore=True`` without
            bert-score/torch/transformers installed.
    """
    options = _check_options({k: v for k, v in locals().items() if k not in INPUTS})
    n = _check_inputs(predictions, references, prediction_languages, source_languages)
    bootstrap_resamples, seed = options["bootstrap_resamples"], options["seed"]
    predictions, references = nfc_texts(predictions), nfc_texts(references)
    bleu = _bleu(bleu_tokenize)

    per_item, settings = _per_item_scores(predictions, references, prediction_languages,
                                          options)
    keys = _group_keys(prediction_languages, source_languages)
    statistics = bleu_statistics(predictions, references, bleu_tokenize)
    groups, replicates = _grouped(keys, (predictions, references), per_item, statistics, bleu,
                                  bootstrap_resamples, seed)
    result = _macro_averages(groups, replicates, list(per_item))
    result.update({
        "groups": groups, "n": n, "n_groups": len(groups),
        "n_empty": int(sum(not p.strip() for p in predictions)), "scale": "0-100",
        "rouge_tokenizer": rouge_tokenizer, "use_stemmer": use_stemmer,
        "bleu_signature": str(bleu.get_signature()), "bootstrap_resamples": bootstrap_resamples,
        "seed": seed, "rouge_score_version": metadata.version("rouge-score"), **settings,
    })
    if return_per_item:
        result["per_item"] = {name: values.tolist() for name, values in per_item.items()}
    return result


# --------------------------------------------------------------------------- evaluate wrapper

# source_languages is optional, and evaluate requires every feature, so it is passed to
# compute() as an option (it then bypasses add_batch) rather than declared as a feature.
_FEATURES = datasets.Features({
    "predictions": datasets.Value("string"),
    "references": datasets.Value("string"),
    "prediction_languages": datasets.Value("string"),
})


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class HeadnoteSimilarity(CheckedWrapper, evaluate.Metric):
    """``evaluate`` wrapper around :func:`headnote_similarity`."""

    FUNCTION = "headnote_similarity"
    OPTIONS = ("source_languages", "rouge_tokenizer", "use_stemmer", "bleu_tokenize", "bertscore",
               "bertscore_model_type", "bertscore_num_layers", "bertscore_model_path",
               "bertscore_rescale_with_baseline", "bertscore_empty", "bertscore_batch_size",
               "bertscore_device", "bootstrap_resamples", "seed", "return_per_item")

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=_FEATURES,
            reference_urls=["https://github.com/google-research/google-research/tree/master/rouge",
                            "https://github.com/mjpost/sacrebleu",
                            "https://github.com/Tiiiger/bert_score"],
        )

    def check_batch(self, batch):
        _check_inputs(batch["predictions"], batch["references"], batch["prediction_languages"],
                      None)

    def _compute(self, predictions, references, prediction_languages, source_languages=None,
                 **options):
        return headnote_similarity(predictions, references, prediction_languages,
                                   source_languages, **options)


__all__ = ["AsciiTokenizer", "HeadnoteSimilarity", "UnicodeTokenizer", "bertscore_f1",
           "bertscore_prf", "bleu_from_statistics",
           "bleu_statistics", "headnote_similarity", "lcs_length", "rouge_f1",
           "rouge_tokenizer_for"]
