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
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

import datasets
import evaluate
import numpy as np
from rouge_score import rouge_scorer
from sacrebleu.metrics import BLEU

LANGUAGES = ("de", "fr", "it")
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


def _rouge_scorer(tokenizer: str, use_stemmer: bool) -> rouge_scorer.RougeScorer:
    if tokenizer == "rouge_score":
        return rouge_scorer.RougeScorer(list(ROUGE_TYPES), use_stemmer=use_stemmer)
    return rouge_scorer.RougeScorer(list(ROUGE_TYPES), tokenizer=UnicodeTokenizer())


# --------------------------------------------------------------------------- validation


def _check_texts(values, argument: str, n: int | None, allow_empty: bool) -> int:
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise ValueError(f"{argument}: expected a list of strings, got {type(values).__name__}")
    if n is not None and len(values) != n:
        raise ValueError(f"{argument} has {len(values)} items, predictions has {n}")
    for i, value in enumerate(values):
        if not isinstance(value, str):
            raise ValueError(f"{argument}[{i}] = {value!r}: expected a string")
        if not allow_empty and not value.strip():
            raise ValueError(f"{argument}[{i}] is empty: expected a non-empty headnote")
    return len(values)


def _check_languages(values, argument: str, n: int) -> None:
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise ValueError(f"{argument}: expected a list of language codes, got "
                         f"{type(values).__name__}")
    if len(values) != n:
        raise ValueError(f"{argument} has {len(values)} items, predictions has {n}")
    for i, value in enumerate(values):
        if value not in LANGUAGES:
            raise ValueError(f"{argument}[{i}] = {value!r}: expected one of {', '.join(LANGUAGES)}")


def _check_choice(value, argument: str, choices: Sequence[str]) -> None:
    if value not in choices:
        raise ValueError(f"{argument} = {value!r}: expected one of {', '.join(choices)}")


def _check_int(value, argument: str, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{argument} = {value!r}: expected an integer >= {minimum}")


# --------------------------------------------------------------------------- BERTScore


def _baseline(model_type: str, language: str, num_layers: int, bert_score_dir: Path) -> float:
    """The F baseline bert_score ships for ``model_type`` and ``language`` at layer
    ``num_layers`` (row ``num_layers`` of ``rescale_baseline/<language>/<model_type>.tsv``)."""
    path = bert_score_dir / "rescale_baseline" / language / f"{model_type}.tsv"
    if not path.is_file():
        raise ValueError(f"bertscore_model_type = {model_type!r}: bert_score ships no rescaling "
                         f"baseline for language {language!r} ({path} is missing)")
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    if num_layers >= len(rows):
        raise ValueError(f"bertscore_num_layers = {num_layers}: {path} has rows for layers "
                         f"0..{len(rows) - 1}")
    return float(rows[num_layers]["F"])


def bertscore_f1(
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
) -> tuple[np.ndarray, dict]:
    """Per-item BERTScore F1 × 100 and the settings that reproduce it.

    The weights come from ``model_path`` (a local directory) or else ``model_type`` (a Hub
    id); ``model_type`` also names the rescaling baseline: F is rescaled as
    (F − b) / (1 − b) with the F baseline b that bert_score ships for the item's language,
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
    raw = np.zeros(len(predictions))
    keep = np.flatnonzero(~empty_mask)
    if len(keep):
        scorer = bert_score.BERTScorer(model_type=model_path or model_type,
                                       num_layers=num_layers, batch_size=batch_size,
                                       device=device)
        _, _, f1 = scorer.score([predictions[i] for i in keep], [references[i] for i in keep])
        raw[keep] = f1.double().cpu().numpy()
    scores = raw
    if rescale_with_baseline:
        folder = Path(bert_score.__file__).resolve().parent
        baselines = {lang: _baseline(model_type, lang, num_layers, folder)
                     for lang in sorted(set(languages))}
        b = np.array([baselines[lang] for lang in languages])
        scores = (raw - b) / (1 - b)
    if empty == "zero":
        scores = np.where(empty_mask, 0.0, scores)
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
    return 100.0 * scores, settings


# --------------------------------------------------------------------------- main function


def _standard_error(replicates: np.ndarray) -> float | None:
    """Sample standard deviation of bootstrap replicates (exactly 0 when all are equal)."""
    if len(replicates) < 2:
        return None
    if np.ptp(replicates) == 0:
        return 0.0
    return float(np.std(replicates, ddof=1))


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
    """ROUGE-1/2/L F1, corpus BLEU and optional BERTScore F1 of headnotes, on the 0–100
    scale (higher = closer to the gold headnote), per group and macro-averaged.

    Groups are the language pairs ``"<source>_<headnote>"`` when ``source_languages`` is
    given, else the headnote languages. A group's ROUGE and BERTScore are means over its
    items; its BLEU is sacrebleu's corpus BLEU over its items. The top-level values are
    unweighted means over groups. Standard errors (``*_se``): each group is resampled with
    replacement to its own size ``bootstrap_resamples`` times (numpy ``default_rng(seed)``,
    groups in sorted order, the same resamples for every metric); the SE is the sample
    standard deviation of the replicates (of the group score, or of the macro-average).

    Raises:
        ValueError: an argument is not a list of strings, a text is None or not a string, a
            reference is empty, a language code is unknown, lengths differ, or an option is
            out of range — naming the argument and, for items, the first offending index.
        ImportError: ``bertscore=True`` without bert-score/torch/transformers installed.
    """
    n = _check_texts(predictions, "predictions", None, allow_empty=True)
    if n == 0:
        raise ValueError("predictions: expected at least one headnote, got an empty list")
    _check_texts(references, "references", n, allow_empty=False)
    _check_languages(prediction_languages, "prediction_languages", n)
    if source_languages is not None:
        _check_languages(source_languages, "source_languages", n)
    _check_choice(rouge_tokenizer, "rouge_tokenizer", ROUGE_TOKENIZERS)
    _check_choice(bertscore_empty, "bertscore_empty", EMPTY_POLICIES)
    if use_stemmer and rouge_tokenizer != "rouge_score":
        raise ValueError("use_stemmer = True: rouge_score's Porter stemmer is English and only "
                         "applies with rouge_tokenizer='rouge_score'")
    _check_int(bootstrap_resamples, "bootstrap_resamples", 1)
    _check_int(seed, "seed", 0)
    _check_int(bertscore_num_layers, "bertscore_num_layers", 0)
    _check_int(bertscore_batch_size, "bertscore_batch_size", 1)
    try:
        bleu = BLEU(tokenize=bleu_tokenize)
    except KeyError:
        raise ValueError(f"bleu_tokenize = {bleu_tokenize!r}: expected one of "
                         f"{', '.join(BLEU.TOKENIZERS)}") from None

    scorer = _rouge_scorer(rouge_tokenizer, use_stemmer)
    per_item: dict[str, np.ndarray] = {name: np.empty(n) for name in ROUGE_TYPES}
    for i, (prediction, reference) in enumerate(zip(predictions, references, strict=True)):
        scores = scorer.score(reference, prediction)
        for name in ROUGE_TYPES:
            per_item[name][i] = 100.0 * scores[name].fmeasure
    settings: dict = {}
    if bertscore:
        per_item["bertscore_f1"], settings = bertscore_f1(
            predictions, references, prediction_languages, model_type=bertscore_model_type,
            num_layers=bertscore_num_layers, model_path=bertscore_model_path,
            rescale_with_baseline=bertscore_rescale_with_baseline, empty=bertscore_empty,
            batch_size=bertscore_batch_size, device=bertscore_device)
    mean_metrics = list(per_item)

    if source_languages is None:
        keys = list(prediction_languages)
    else:
        keys = [f"{s}_{p}" for s, p in zip(source_languages, prediction_languages,
                                                 strict=True)]
    rng = np.random.default_rng(seed)
    groups: dict[str, dict] = {}
    replicates: dict[str, list[np.ndarray]] = {name: [] for name in [*mean_metrics, "bleu"]}
    signature = None
    for key in sorted(set(keys)):
        index = np.array([i for i, k in enumerate(keys) if k == key])
        size = len(index)
        counts = rng.multinomial(size, np.full(size, 1.0 / size), size=bootstrap_resamples)
        group: dict = {"n": size, "n_empty": int(sum(not predictions[i].strip() for i in index))}
        for name in mean_metrics:
            values = per_item[name][index]
            group[name] = float(values.mean())
            boot = counts @ values / size
            group[f"{name}_se"] = _standard_error(boot)
            replicates[name].append(boot)
        hypotheses = [predictions[i] for i in index]
        refs = [references[i] for i in index]
        group["bleu"] = float(bleu.corpus_score(hypotheses, [refs]).score)
        signature = str(bleu.get_signature())
        stats = np.array(bleu._extract_corpus_statistics(hypotheses, [refs]), dtype=np.int64)
        boot = np.array([bleu._compute_score_from_stats(row.tolist()).score
                         for row in counts @ stats])
        group["bleu_se"] = _standard_error(boot)
        replicates["bleu"].append(boot)
        groups[key] = group

    result: dict = {}
    for name in [*ROUGE_TYPES, "bleu", *mean_metrics[len(ROUGE_TYPES):]]:
        result[name] = float(np.mean([g[name] for g in groups.values()]))
        result[f"{name}_se"] = _standard_error(np.mean(replicates[name], axis=0))
    result.update({
        "groups": groups,
        "n": n,
        "n_groups": len(groups),
        "n_empty": int(sum(not p.strip() for p in predictions)),
        "scale": "0-100",
        "rouge_tokenizer": rouge_tokenizer,
        "use_stemmer": use_stemmer,
        "bleu_signature": signature,
        "bootstrap_resamples": bootstrap_resamples,
        "seed": seed,
        "rouge_score_version": metadata.version("rouge-score"),
        **settings,
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
class HeadnoteSimilarity(evaluate.Metric):
    """``evaluate`` wrapper around :func:`headnote_similarity`."""

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

    def _compute(self, predictions, references, prediction_languages, source_languages=None,
                 **options):
        return headnote_similarity(predictions, references, prediction_languages,
                                   source_languages, **options)


__all__ = ["HeadnoteSimilarity", "UnicodeTokenizer", "bertscore_f1", "headnote_similarity"]
