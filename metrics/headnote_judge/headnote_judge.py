"""headnote_judge: LLM-as-a-judge scores for generated headnotes (SLDS benchmark).

A judge model served by any OpenAI-compatible chat-completions endpoint (vLLM, llama.cpp
server, OpenRouter, OpenAI, ...) compares a generated headnote with the gold headnote (never
the decision) and rates five categories from 1 to 3. A sample scores
``10 * sum(score - 1)`` over the five categories, 0-100; the corpus score is the mean.

The computation is the plain function :func:`headnote_judge`; :class:`HeadnoteJudge` is a thin
``evaluate.Metric`` wrapper. The module depends only on the packages in requirements.txt.

Requests go through the sibling ``judge_client.py``: the ``openai`` client with its own
retries (429 / 5xx / timeouts / dropped connections, ``Retry-After``), bounded concurrency and
an SQLite cache of answers; nothing of courtbench is imported, so the folder loads alone (a
plain copy of ``metrics/``, an export, a Hub Space). Inputs and options pass the shared
boundary validator (``boundary.py``): languages are the SLDS headnote languages (de, fr, it,
exactly), texts valid Unicode, seeds integers, every work parameter capped.

Prompt templates: the defaults are in the sibling file ``judge_prompts.py``, their one
source (:func:`default_templates`); being Python, it travels wherever the script goes
(``evaluate.load`` of a folder, an export or a Hub Space fetches the files a script imports).
"""

import dataclasses
import hashlib
import json
import math
import os
import re
import string
import sys
from collections.abc import Mapping, Sequence

import datasets
import evaluate
import openai
from tqdm import tqdm

from .boundary import (
    BoundaryError,
    check_choice,
    check_count,
    check_number,
    check_seed,
    check_text,
)
from .checked_wrapper import CheckedWrapper
from .endpoints import check_endpoint_url
from .judge_client import Endpoint, check_headers, run
from .judge_prompts import SYSTEM_TEMPLATE, USER_TEMPLATE
from .reasoning import split_reasoning
from .slds_languages import LANGUAGES, check_languages

__version__ = "0.1.0"

CATEGORIES = (
    "accuracy_faithfulness",
    "completeness_relevance",
    "clarity_coherence",
    "articles",
    "considerations",
)
"""The five judged categories; the answer line of each is ``<CATEGORY>_SCORE: <1-3>``."""

LANGUAGE_NAMES = {"de": "German", "fr": "French", "it": "Italian"}
"""Headnote language code -> the name put into ``$language``."""

PLACEHOLDERS = ("gold_headnote", "generated_headnote", "language", "language_code", "demonstration")
"""Named placeholders a template may use (``string.Template`` syntax: ``$name`` or ``${name}``)."""

HEADNOTE_LANGUAGES = LANGUAGES
"""The languages of SLDS (= ``slds.schema.LANGUAGES``, pinned by a test): the only codes
``headnote_languages`` and ``decision_languages`` take (exactly: "DE" or "xx" are refused, as
by the other SLDS modules), and the keys ``demonstrations`` accepts."""

#: Longest headnote (characters) the judge reads, as ``headnote_similarity``.
MAX_TEXT_CHARACTERS = 2_000_000
#: Caps of the work parameters (a call may ask for less, never for more).
LIMITS = {"concurrency": (1, 64), "max_retries": (0, 20), "max_tokens": (1, 200_000),
          "max_answer_chars": (1, 10_000_000), "max_auth_failures": (1, 100)}
MAX_TIMEOUT_SECONDS = 3600.0
MAX_TEMPERATURE = 2.0

_DESCRIPTION = """\
LLM-as-a-judge for generated headnotes of Swiss Federal Supreme Court landmark decisions
(SLDS). A judge model behind any OpenAI-compatible chat-completions endpoint compares each
generated headnote with the gold headnote (never the decision) and rates accuracy &
faithfulness, completeness & relevance, clarity & coherence, articles and considerations from
1 to 3. Per sample: 10 * sum(score - 1) -> 0-100 (higher is better); corpus: the mean, per
category, per language pair and macro-averaged over pairs. Requests are cached on disk
(SQLite), retried with exponential backoff, and run concurrently; answers that cannot be
parsed are reported as failed samples, never silently scored.
"""

_KWARGS_DESCRIPTION = """\
Args:
    predictions (list of str): generated headnotes.
    references (list of str): gold headnotes, same order.
    headnote_languages (list of str): language code of each gold headnote ("de", "fr", "it").
    decision_languages (list of str): language code of each decision (for the pair "de_fr").
    base_url (str): the endpoint, e.g. "http://localhost:8000/v1".
    model (str): the judge model name as the endpoint knows it.
    api_key_env (str, optional): name of the environment variable holding the API key.
    sample_ids (list, optional): ids reported per sample (default: 0..n-1).
    cache_path (str, optional): SQLite file caching every response (default: no cache).
    concurrency (int, optional): parallel requests, default 8.
    failed_as_zero (bool, optional): count failed samples as 0 instead of excluding them.
    parse (str, optional): "strict" (default) or "published" (the published SLDS judge's
        parsing: strict line regex, missing category 1, no range check, every score line
        counted, a repeated one too).
    temperature (float, optional): judge sampling temperature, default 0.
    Other options of `headnote_judge` (templates, demonstrations, max_tokens, seed, timeout,
    max_retries, ...) are passed through.
Returns:
    score (float or None): mean sample score, 0-100, higher is better.
    macro_score (float or None): mean over language pairs of the pair scores.
    category_means (dict): mean rating per category, 1-3.
    by_language_pair (dict): score, category_means and counts per "<decision>_<headnote>".
    n_samples, n_scored, n_failed, n_unparsed, n_request_failed, n_excluded, n_cached,
    n_requested, n_http_requests, n_retries, n_cache_corrupt, n_truncated,
    n_surrogates_replaced (int): counts (n_excluded: samples left out of the means).
    parse (str): the parsing mode; failures_by_kind (dict): failed requests per kind.
    samples (list of dict): per sample id, pair, status, score, scores, reason, raw_response.
    reproducibility (dict): model, base URL host, parameters, template hashes, versions,
    signature.
Examples:
    >>> parse_judgement("ACCURACY_FAITHFULNESS_SCORE: 3\\nCOMPLETENESS_RELEVANCE_SCORE: 2\\n"
    ...                 "CLARITY_COHERENCE_SCORE: 3\\nARTICLES_SCORE: 1\\nCONSIDERATIONS_SCORE: 2").scores
    {'accuracy_faithfulness': 3, 'completeness_relevance': 2, 'clarity_coherence': 3, 'articles': 1, 'considerations': 2}
"""

_CITATION = """\
@misc{courtbench_headnote_judge,
  title  = {headnote\\_judge: LLM-as-a-judge for Swiss landmark decision headnotes},
  author = {{courtbench developers}},
  note   = {Scores as defined for the SLDS benchmark (Swiss Landmark Decisions Summarization)},
  year   = {2025}
}
"""


# --------------------------------------------------------------------------------------------
# Prompt templates


@dataclasses.dataclass(frozen=True)
class PromptTemplates:
    """The judge prompt: system and user templates and optional demonstrations per language.

    ``demonstrations`` maps a headnote language code to the text of one judged example; it is
    put into ``$demonstration`` (followed by a blank line) for samples in that language, and
    ``$demonstration`` is empty for the other languages.
    """

    system: str
    user: str
    demonstrations: Mapping[str, str] = dataclasses.field(default_factory=dict)

    def hashes(self) -> dict:
        """sha256 (hex) of each template text and of each demonstration, for provenance."""
        return {
            "system_template_sha256": _sha256(self.system),
            "user_template_sha256": _sha256(self.user),
            "demonstration_sha256": {lang: _sha256(text)
                                     for lang, text in sorted(self.demonstrations.items())},
        }


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _read_text(source: str | os.PathLike, what: str) -> str:
    """A ``str`` is the text itself; an ``os.PathLike`` is a UTF-8 file to read."""
    if isinstance(source, os.PathLike):
        try:
            with open(source, encoding="utf-8") as handle:
                return handle.read()
        except (OSError, UnicodeDecodeError) as error:
            raise ValueError(f"{what}: cannot read {os.fspath(source)!r}: {error}") from error
    if isinstance(source, str):
        return source
    raise TypeError(f"{what}: expected template text (str) or a file path (os.PathLike), "
                    f"got {type(source).__name__}")


def default_templates() -> tuple[str, str]:
    """The default (system, user) template texts, from ``judge_prompts.py``."""
    return SYSTEM_TEMPLATE, USER_TEMPLATE


def template_placeholders(text: str, what: str = "template") -> set:
    """Return the placeholder names used in a ``string.Template`` text.

    Raises ValueError naming the template, the line and the offending text for a malformed
    ``$`` (write ``$$`` for a literal dollar sign) or an unknown placeholder.

    >>> sorted(template_placeholders("Gold ($language): $gold_headnote ${demonstration}"))
    ['demonstration', 'gold_headnote', 'language']
    """
    names = set()
    for match in string.Template.pattern.finditer(text):
        if match.group("invalid") is not None:
            line = text.count("\n", 0, match.start()) + 1
            snippet = text[match.start():match.start() + 20]
            raise ValueError(f"{what}, line {line}: malformed placeholder at {snippet!r}; "
                             "use $name or ${name}, and $$ for a literal dollar sign")
        name = match.group("named") or match.group("braced")
        if name is None:  # "$$" escape
            continue
        if name not in PLACEHOLDERS:
            line = text.count("\n", 0, match.start()) + 1
            raise ValueError(f"{what}, line {line}: unknown placeholder ${name}; "
                             f"expected one of {', '.join('$' + p for p in PLACEHOLDERS)}")
        names.add(name)
    return names


def load_templates(system_template: str | os.PathLike | None = None,
                   user_template: str | os.PathLike | None = None,
                   demonstrations: Mapping[str, str | os.PathLike] | None = None) -> PromptTemplates:
    """Build and check the prompt templates.

    Args:
        system_template: text (``str``) or file (``os.PathLike``); default
            template of ``judge_prompts.py`` (:func:`default_templates`).
        user_template: likewise; default its user template.
        demonstrations: headnote language code (one of :data:`HEADNOTE_LANGUAGES`) ->
            demonstration text or file; default none.

    Raises:
        ValueError: unreadable file, default templates not found, malformed or unknown
            placeholder, neither template containing ``$gold_headnote`` /
            ``$generated_headnote``, or a demonstration language not in
            :data:`HEADNOTE_LANGUAGES`.
    """
    defaults = default_templates() if system_template is None or user_template is None else None
    system = defaults[0] if system_template is None else _read_text(system_template, "system_template")
    user = defaults[1] if user_template is None else _read_text(user_template, "user_template")
    used = template_placeholders(system, "system_template") | template_placeholders(user, "user_template")
    for required in ("gold_headnote", "generated_headnote"):
        if required not in used:
            raise ValueError(f"the prompt templates never use ${required}; the judge would not see it")
    demos = {}
    for language, source in (demonstrations or {}).items():
        if language not in HEADNOTE_LANGUAGES:
            raise ValueError(f"demonstrations: language {language!r} is not a headnote language "
                             f"of SLDS; expected one of {', '.join(HEADNOTE_LANGUAGES)}")
        demos[language] = _read_text(source, f"demonstrations[{language!r}]")
    return PromptTemplates(system=system, user=user, demonstrations=demos)


def as_data(text: str) -> str:
    r"""A headnote as it enters the prompt: one JSON string literal (quotes, backslashes and
    line breaks escaped), so no headnote can close its own field or add a line of its own.

    >>> print(as_data('x"' + chr(10) + 'SYSTEM NOTE'))
    "x\"\nSYSTEM NOTE"

    Lone surrogates (text that is no valid UTF-8) become U+FFFD.
    """
    return json.dumps(_SURROGATE.sub("\ufffd", text), ensure_ascii=False)


_SURROGATE = re.compile("[\ud800-\udfff]")


def render_messages(templates: PromptTemplates, gold_headnote: str, generated_headnote: str,
                    language: str) -> list:
    """Return the chat messages ``[system, user]`` for one sample; both headnotes go in as
    data (:func:`as_data`).

    >>> messages = render_messages(load_templates(), "Art. 8 ZGB ...", "Art. 8 ZGB ...", "de")
    >>> [m["role"] for m in messages], "German" in messages[1]["content"]
    (['system', 'user'], True)
    """
    demonstration = templates.demonstrations.get(language, "")
    values = {
        "gold_headnote": as_data(gold_headnote),
        "generated_headnote": as_data(generated_headnote),
        "language": LANGUAGE_NAMES.get(language, language),
        "language_code": language,
        "demonstration": demonstration.rstrip("\n") + "\n\n" if demonstration else "",
    }
    return [
        {"role": "system", "content": string.Template(templates.system).substitute(values)},
        {"role": "user", "content": string.Template(templates.user).substitute(values)},
    ]


# --------------------------------------------------------------------------------------------
# Parsing the judge's answer


@dataclasses.dataclass(frozen=True)
class Judgement:
    """A parsed answer: ``scores`` (category -> 1..3) or ``None`` with the ``reason``."""

    scores: dict | None
    reason: str | None = None


_MARKUP = r"[\s*_`]*"


def _score_pattern(category: str) -> re.Pattern:
    name = r"\\?_".join(re.escape(word) for word in (category + "_score").split("_"))
    return re.compile(
        r"(?<![A-Za-z_])" + name + r"(?![A-Za-z])"   # the line's name, markdown-escaped or not
        + _MARKUP + r"[:=]" + _MARKUP                # ":" with **bold** / `code` / newlines around
        + r"(?:[\[(]" + _MARKUP + r")?"              # "[2]" or "(2)"
        + r"(?P<value>[+-]?\d+(?:[.,]\d+)?(?:[eE][+-]?\d+)?(?:/\d+)?)"  # 1e309, 3/5: read whole
        + r"(?!\s*[-\u2013]\s*\d)",                   # not a range such as "1-3" echoed from a prompt
        re.I,
    )


_SCORE_PATTERNS = {category: _score_pattern(category) for category in CATEGORIES}


def strip_reasoning(text: str) -> tuple:
    """Remove reasoning blocks (``<think>...</think>``, also ``thinking``/``reasoning``).

    Returns ``(answer_text, problem)``; ``problem`` is a reason string when a reasoning block
    was opened but never closed (a truncated answer), else ``None``. A closing tag without an
    opening one (servers that strip the opening tag) drops everything before it.

    >>> strip_reasoning("<think>ARTICLES_SCORE: 1?</think>ARTICLES_SCORE: 2")
    ('ARTICLES_SCORE: 2', None)
    """
    answer, _, unclosed = split_reasoning(text)
    if unclosed:
        return answer, "reasoning block opened but never closed (answer truncated?)"
    return answer, None


def _strict_value(label: str, found: list) -> tuple:
    """``(score, problem)`` of one category from its values in answer order: the last one
    decides (the answer ends with the score lines; an earlier one may quote a headnote)."""
    if not found:
        return None, f"no {label}"
    raw = found[-1]
    text = raw.removesuffix("/3")
    if not re.fullmatch(r"[+-]?\d+", text) or text.lstrip("+") not in ("1", "2", "3"):
        return None, f"{label} value {raw} is not an integer 1-3"
    return int(text), None


def parse_judgement(text: str | None) -> Judgement:
    """Parse the five ``<CATEGORY>_SCORE: <1-3>`` lines of a judge answer (strict mode).

    Tolerated: ``NAME_SCORE: 2``, ``NAME_SCORE: [2]``, ``**NAME_SCORE:** 2``, ``2/3``, the value
    on the next line, any case, markdown-escaped underscores, prose around the lines, and
    reasoning blocks before the answer. A category given more than once is read from its
    last line (the answer ends with the score lines; an earlier line may quote a headnote that
    carries a bait score line). Unparsed (``scores is None``, with every problem in
    ``reason``): a missing category, a last value that is not exactly the integer 1, 2 or 3
    (``2.5``, ``4``, ``1e309``, ``3/5``), an empty answer, an unclosed reasoning block.

    >>> parse_judgement("**ACCURACY_FAITHFULNESS_SCORE:** [3]").reason
    'no COMPLETENESS_RELEVANCE_SCORE; no CLARITY_COHERENCE_SCORE; no ARTICLES_SCORE; no CONSIDERATIONS_SCORE'
    """
    if text is None or not text.strip():
        return Judgement(None, "empty response")
    answer, reasoning_problem = strip_reasoning(text)
    problems = []
    scores = {}
    for category, pattern in _SCORE_PATTERNS.items():
        found = [m.group("value") for m in pattern.finditer(answer)]
        score, problem = _strict_value(category.upper() + "_SCORE", found)
        if problem:
            problems.append(problem)
        else:
            scores[category] = score
    if reasoning_problem and problems:
        problems.insert(0, reasoning_problem)
    if problems:
        return Judgement(None, "; ".join(problems))
    return Judgement(scores)


PARSE_MODES = ("strict", "published")
"""``strict`` (default): :func:`parse_judgement`, failed samples excluded (or 0 with
``failed_as_zero``). ``published``: :func:`parse_published`, every sample scored."""

#: The published judge's score line, searched in the whole answer with ``re.MULTILINE`` as
#: the published code does (so ``\s`` may run over a line break: "ARTICLES_SCORE:" with the
#: value on the next line is a match there too).
_PUBLISHED_LINE = re.compile(r"^\s*([A-Z_]+_SCORE):\s*(\d+)\s*$", re.MULTILINE)
#: Largest sample score the published mode reports (its values are not range-checked; a
#: sample beyond this one is refused as unparsed rather than summed into an overflow).
MAX_PUBLISHED_SCORE = 1e15
_PUBLISHED_NAMES = {category.upper() + "_SCORE": category for category in CATEGORIES}


def parse_published(text: str | None) -> dict:
    """The published SLDS judge's parsing, reproduced: every match of
    ``^\\s*([A-Z_]+_SCORE):\\s*(\\d+)\\s*$`` in the answer (``re.findall`` with
    ``re.MULTILINE``) that names one of the five categories adds ``value - 1`` to the sample's
    points; other names are ignored; no range check. A category given on several lines
    therefore counts every time (the published code sums all matches, it does not look at
    names twice); a category without a line adds nothing (as a 1).

    Returns category -> ``1 + sum(value - 1)`` over its lines (1 without a line), so that
    :func:`sample_score` gives the published figure: an empty answer scores 0, five lines of
    3 and a repeated ``ARTICLES_SCORE: 2`` score 110.

    >>> parse_published("ARTICLES_SCORE: 2\\nARTICLES_SCORE: 3\\nclarity_coherence_score: 3")["articles"]
    4
    """
    points = dict.fromkeys(CATEGORIES, 1)
    for name, value in _PUBLISHED_LINE.findall(text or ""):
        category = _PUBLISHED_NAMES.get(name)
        if category is not None:
            points[category] += int(value) - 1
    return points


def sample_score(scores: Mapping[str, int]) -> float:
    """Score of one sample: ``10 * sum(score - 1)`` over the five categories, 0-100.

    >>> sample_score(dict.fromkeys(CATEGORIES, 3)), sample_score(dict.fromkeys(CATEGORIES, 1))
    (100.0, 0.0)
    """
    return float(10 * sum(int(scores[c]) - 1 for c in CATEGORIES))


# --------------------------------------------------------------------------------------------
# Validation and aggregation


def _check_texts(name: str, values: object, n: int | None, *, allow_blank: bool) -> list:
    """``values`` as a list of texts (valid Unicode, at most MAX_TEXT_CHARACTERS each; blank
    only with ``allow_blank``), ``n`` of them when given; BoundaryError names the item."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise BoundaryError(name, f"<{type(values).__name__}>", "a list of strings")
    values = list(values)
    if n is not None and len(values) != n:
        raise BoundaryError(name, f"<{len(values):,} items>", f"one per prediction ({n:,})")
    for index, value in enumerate(values):
        check_text(value, f"{name}[{index}]", max_chars=MAX_TEXT_CHARACTERS,
                   allow_blank=allow_blank, what="a headnote")
    return values


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def aggregate(samples: Sequence[Mapping], *, failed_as_zero: bool = False) -> dict:
    """Corpus figures from per-sample records (``language_pair``, ``scores``, ``score``).

    Failed samples (``scores is None``) are excluded from every mean, or, with
    ``failed_as_zero``, count as score 0 (= rating 1 in every category).

    Returns ``score`` (mean 0-100), ``category_means`` (1-3), ``by_language_pair`` (per pair:
    ``score``, ``category_means``, ``n_samples``, ``n_scored``, ``n_failed``), ``macro_score``
    (mean of the pair scores that exist) and ``n_language_pairs``. A mean over no sample is
    ``None``.

    >>> ok = {"language_pair": "de_de", "scores": dict.fromkeys(CATEGORIES, 2), "score": 50.0}
    >>> bad = {"language_pair": "fr_de", "scores": None, "score": None}
    >>> aggregate([ok, bad])["macro_score"], aggregate([ok, bad], failed_as_zero=True)["macro_score"]
    (50.0, 25.0)
    """

    def figures(group: Sequence[Mapping]) -> dict:
        scored = [s for s in group if s["scores"] is not None]
        n_failed = len(group) - len(scored)
        pad_score = [0.0] * n_failed if failed_as_zero else []
        pad_rating = [1] * n_failed if failed_as_zero else []
        return {
            "score": _mean([s["score"] for s in scored] + pad_score),
            "category_means": {c: _mean([s["scores"][c] for s in scored] + pad_rating)
                               for c in CATEGORIES},
            "n_samples": len(group),
            "n_scored": len(scored),
            "n_failed": n_failed,
        }

    corpus = figures(samples)
    pairs = sorted({s["language_pair"] for s in samples})
    by_pair = {pair: figures([s for s in samples if s["language_pair"] == pair]) for pair in pairs}
    pair_scores = [f["score"] for f in by_pair.values() if f["score"] is not None]
    return {
        "score": corpus["score"],
        "macro_score": _mean(pair_scores),
        "n_language_pairs": len(pairs),
        "n_language_pairs_scored": len(pair_scores),
        "category_means": corpus["category_means"],
        "by_language_pair": by_pair,
    }


# --------------------------------------------------------------------------------------------
# The judge


def _check_sample_ids(sample_ids: Sequence | None, n: int) -> list:
    if sample_ids is None:
        return list(range(n))
    sample_ids = list(sample_ids)
    if len(sample_ids) != n:
        raise BoundaryError("sample_ids", f"<{len(sample_ids):,} items>",
                            f"one per prediction ({n:,})")
    seen = {}
    for index, sample_id in enumerate(sample_ids):
        try:
            earlier = seen.setdefault(sample_id, index)
        except TypeError:
            raise BoundaryError(f"sample_ids[{index}]", sample_id, "a hashable id") from None
        if earlier != index:
            raise BoundaryError(f"sample_ids[{index}]", sample_id,
                                f"a unique id (it repeats sample_ids[{earlier}])")
    return sample_ids


def _check_inputs(predictions, references, headnote_languages, decision_languages,
                  sample_ids) -> tuple:
    """The five per-sample lists, checked; BoundaryError names the argument and index."""
    predictions = _check_texts("predictions", predictions, None, allow_blank=True)
    n = len(predictions)
    if n == 0:
        raise BoundaryError("predictions", [], "at least one generated headnote")
    return (predictions,
            _check_texts("references", references, n, allow_blank=False),
            check_languages(headnote_languages, "headnote_languages", n),
            check_languages(decision_languages, "decision_languages", n),
            _check_sample_ids(sample_ids, n))


def _limited(name: str, value):
    """A work parameter as an int within :data:`LIMITS`."""
    low, high = LIMITS[name]
    return check_count(value, name, low=low, high=high, what=f"an integer {name}")


def judge_params(max_tokens: int, seed: int | None, temperature: float = 0.0) -> dict:
    """The sampling parameters of every judge request: ``temperature`` (default 0, at most
    2), ``max_tokens`` (capped, see :data:`LIMITS`), ``seed`` (an integer seed, or None:
    not sent)."""
    params = {"temperature": check_number(temperature, "temperature", low=0.0,
                                          high=MAX_TEMPERATURE, what="a temperature"),
              "max_tokens": _limited("max_tokens", max_tokens)}
    if seed is not None:
        params["seed"] = check_seed(seed, "seed")
    return params


def judge_requests(templates: PromptTemplates, predictions: Sequence[str],
                   references: Sequence[str], headnote_languages: Sequence[str],
                   params: Mapping) -> list:
    """One request ``(messages, params)`` per sample, in order."""
    return [(tuple(render_messages(templates, references[index], predictions[index],
                                   headnote_languages[index])), dict(params))
            for index in range(len(predictions))]


def endpoint_settings(base_url, model, api_key, options: Mapping) -> Endpoint:
    """The endpoint and request options, checked: an http(s) URL without credentials, a model
    name, string headers, and every work parameter within :data:`LIMITS` (a timeout of at
    most :data:`MAX_TIMEOUT_SECONDS`)."""
    check_endpoint_url(base_url)
    check_text(model, "model", max_chars=1000, what="a model name")
    if api_key is not None:
        check_text(api_key, "api_key", max_chars=10_000, what="an API key")
    headers = tuple(tuple(h) for h in options["headers"])
    check_headers(headers)
    for flag in ("follow_redirects",):
        if not isinstance(options[flag], bool):
            raise BoundaryError(flag, options[flag], "True or False")
    return Endpoint(
        base_url=base_url, model=model, api_key=api_key,
        concurrency=_limited("concurrency", options["concurrency"]),
        timeout=check_number(options["timeout"], "timeout", low=0.0, low_open=True,
                             high=MAX_TIMEOUT_SECONDS, what="seconds per attempt"),
        max_retries=_limited("max_retries", options["max_retries"]),
        cache_path=options["cache_path"],
        max_answer_chars=_limited("max_answer_chars", options["max_answer_chars"]),
        headers=headers, follow_redirects=options["follow_redirects"],
        max_auth_failures=_limited("max_auth_failures", options["max_auth_failures"]))


def _published_record(record: dict, result) -> dict:
    """``record`` completed by the published parsing (a failed request scores as an empty
    answer). A sample score beyond :data:`MAX_PUBLISHED_SCORE` in magnitude (a score line
    of about 15+ digits, which the published code would add up as it is) is not scored: the
    sample is ``unparsed`` with the reason, so no mean can overflow and no run crash."""
    record["raw_response"] = result.answer
    if result.error is not None:
        record.update(status="request_failed", reason=result.error)
    try:
        scores = parse_published(result.answer if result.error is None else None)
        score = sample_score(scores)
    except (ValueError, OverflowError):  # int() refuses 4,300+ digits; float() above 1e308
        score = math.inf
    if abs(score) > MAX_PUBLISHED_SCORE:
        record.update(status="unparsed", reason="published parsing: a sample score beyond "
                                                "1e15 (score values of about 15 digits or more)")
    else:
        record.update(scores=scores, score=score)
    return record


def sample_record(sample_id, language_pair: str, result, max_tokens: int,
                  parse: str = "strict") -> dict:
    """The per-sample record of one judged answer (``result``: an ``ChatResult``).

    ``status`` is ``scored``, ``unparsed`` (the judge answered, but not in the five score
    lines: a failure of the judge model, with ``reason`` and ``raw_response``) or
    ``request_failed`` (no answer after retries). ``reasoning`` holds the judge's reasoning
    text (``<think>`` or ``reasoning_content``), kept for inspection, never parsed. With
    ``parse="published"`` every answer is scored by :func:`parse_published` (a failed request
    as an empty answer: score 0, status still ``request_failed``).
    """
    record = {"sample_id": sample_id, "language_pair": language_pair, "status": "scored",
              "score": None, "scores": None, "reason": None, "raw_response": None,
              "reasoning": result.reasoning, "cached": result.cached}
    if parse == "published":
        return _published_record(record, result)
    if result.error is not None:
        record.update(status="request_failed", reason=result.error)
        return record
    judgement = parse_judgement(result.answer)
    if judgement.scores is not None:
        record.update(scores=judgement.scores, score=sample_score(judgement.scores))
        return record
    reason = judgement.reason
    if reason == "empty response" and result.reasoning:
        reason = "empty answer after the reasoning (reasoning block never closed?)"
    if result.finish_reason == "length":
        reason += f" (answer cut at max_tokens={max_tokens})"
    record.update(status="unparsed", reason=reason, raw_response=result.answer)
    return record


def _send(requests: list, endpoint: Endpoint, progress: bool):
    bar = tqdm(total=len(requests), desc="headnote_judge", unit="req", disable=not progress)
    try:
        return run(requests, endpoint, on_start=bar.update, on_done=bar.update)
    finally:
        bar.close()


def _counts(samples: Sequence[Mapping], requests: Sequence, outcome) -> dict:
    n = len(samples)
    n_request_failed = sum(s["status"] == "request_failed" for s in samples)
    n_unparsed = sum(s["status"] == "unparsed" for s in samples)
    n_cached = sum(s["cached"] for s in samples)
    sent = {json.dumps([messages, params], sort_keys=True)
            for (messages, params), s in zip(requests, samples, strict=True) if not s["cached"]}
    n_excluded = sum(s["scores"] is None for s in samples)
    return {"n_samples": n, "n_scored": n - n_request_failed - n_unparsed,
            "n_failed": n_request_failed + n_unparsed, "n_unparsed": n_unparsed,
            "n_excluded": n_excluded,
            "n_request_failed": n_request_failed, "n_cached": n_cached,
            "n_requested": n - n_cached, "n_http_requests": outcome.attempts,
            "n_retries": max(0, outcome.attempts - len(sent)),
            "n_cache_corrupt": outcome.cache_corrupt}


def _run_summary(outcome) -> dict:
    """Token usage, truncations, replaced surrogates and failures by kind of a run."""
    answers = outcome.answers
    kinds: dict = {}
    for answer in answers:
        if answer.error is not None:
            kinds[answer.failure_kind] = kinds.get(answer.failure_kind, 0) + 1
    return {"usage": {name: sum(a.usage[name] for a in answers)
                      for name in ("prompt_tokens", "completion_tokens", "total_tokens")},
            "n_truncated": outcome.count(lambda a: a.error is None and a.finish_reason == "length"),
            "n_surrogates_replaced": sum(a.surrogates for a in answers),
            "failures_by_kind": dict(sorted(kinds.items()))}


def headnote_judge(
    predictions: Sequence[str],
    references: Sequence[str],
    headnote_languages: Sequence[str],
    decision_languages: Sequence[str],
    *,
    base_url: str,
    model: str,
    api_key: str | None = None,
    sample_ids: Sequence | None = None,
    system_template: str | os.PathLike | None = None,
    user_template: str | os.PathLike | None = None,
    demonstrations: Mapping[str, str | os.PathLike] | None = None,
    max_tokens: int = 2048,
    seed: int | None = 0,
    timeout: float = 120.0,
    max_retries: int = 6,
    concurrency: int = 8,
    cache_path: str | os.PathLike | None = None,
    failed_as_zero: bool = False,
    progress: bool = True,
    parse: str = "strict",
    temperature: float = 0.0,
    max_answer_chars: int = 1_000_000,
    headers: Sequence = (),
    follow_redirects: bool = False,
    max_auth_failures: int = 3,
) -> dict:
    """Judge generated headnotes against gold headnotes with an LLM behind ``base_url``.

    Args:
        predictions: generated headnotes (may be blank; valid Unicode).
        references: gold headnotes (with visible text), same order.
        headnote_languages: language code of each gold headnote: "de", "fr" or "it"
            exactly (the rule of every SLDS module).
        decision_languages: language code of each decision, likewise; the language pair of
            a sample is ``"<decision>_<headnote>"`` (the SLDS config names).
        base_url: OpenAI-compatible endpoint, e.g. ``http://localhost:8000/v1``.
        model: judge model name at that endpoint.
        api_key: the key, sent as a bearer token and never stored; ``None`` for endpoints
            that need none.
        sample_ids: reported per sample; default ``0..n-1``; must be unique.
        system_template, user_template: template text (``str``) or file (``os.PathLike``);
            default the templates of ``judge_prompts.py``.
        demonstrations: headnote language (de, fr or it) -> a judged example (text or
            file); default none.
        max_tokens: maximal answer length in tokens (1 to 200,000).
        seed: an integer seed in [0, 2**32 - 1], sent as ``seed``; ``None`` omits it.
        timeout: seconds per HTTP attempt (> 0, at most 3,600).
        max_retries: the openai client's retries after the first attempt (0 to 20).
        concurrency: requests in flight at once (threads), 1 to 64.
        cache_path: SQLite file caching answers across runs (keyed by model, messages and
            parameters, not by the URL); ``None``: no cache.
        failed_as_zero: count failed samples as score 0 instead of excluding them.
        progress: show a progress bar and print a throughput line to stderr.
        parse: ``"strict"`` (default) or ``"published"`` (see ``PARSE_MODES``): the published
            SLDS judge's parsing and aggregation, for comparison with published numbers.
        temperature: sampling temperature of the judge (0 to 2, default 0).
        max_answer_chars: longest answer accepted (1 to 10,000,000 characters).
        headers: extra HTTP headers ``(name, value)`` (values are secrets: never stored).
        follow_redirects: follow HTTP redirects (off: a redirect is a failed request).
        max_auth_failures: stop sending after this many consecutive authentication / quota
            refusals (1 to 100).

    Returns:
        A dict: ``score``, ``macro_score``, ``category_means``, ``by_language_pair`` (see
        :func:`aggregate`), counts ``n_samples``, ``n_scored``, ``n_failed`` (``n_unparsed``
        + ``n_request_failed``), ``n_cached`` (samples answered from the cache),
        ``n_requested`` (samples requested in this run), ``n_http_requests`` (attempts sent),
        ``n_retries``, ``n_cache_corrupt``; ``failed_as_zero``; ``usage`` (summed token
        usage); ``samples`` (see :func:`sample_record`); ``reproducibility`` (model, endpoint
        host, parameters, template hashes, versions, ``signature``).

    Raises:
        ValueError: (``BoundaryError``) invalid inputs or options, naming the argument and
            the first bad index or value.
        TypeError: an unknown keyword argument (Python's rule for calls).
    """
    options = dict(locals())
    predictions, references, headnote_languages, decision_languages, sample_ids = _check_inputs(
        predictions, references, headnote_languages, decision_languages, sample_ids)
    endpoint = endpoint_settings(base_url, model, api_key, options)
    check_choice(parse, "parse", PARSE_MODES)
    params = judge_params(max_tokens, seed, temperature)
    templates = load_templates(system_template, user_template, demonstrations)
    requests = judge_requests(templates, predictions, references, headnote_languages, params)
    outcome = _send(requests, endpoint, progress)
    samples = [sample_record(sample_ids[i], f"{decision_languages[i]}_{headnote_languages[i]}",
                             answer, params["max_tokens"], parse)
               for i, answer in enumerate(outcome.answers)]
    result = aggregate(samples, failed_as_zero=failed_as_zero)
    result.update(_counts(samples, requests, outcome))
    if failed_as_zero:
        result["n_excluded"] = 0
    result.update(failed_as_zero=failed_as_zero, parse=parse, **_run_summary(outcome),
                  reproducibility=_reproducibility(endpoint, params, templates, failed_as_zero,
                                                   parse),
                  samples=samples)
    if progress:
        _throughput_line(result, outcome.elapsed)
    return result


def _throughput_line(result: Mapping, elapsed: float) -> None:
    sent = result["n_requested"]
    rate = sent / elapsed if elapsed > 0 else 0.0
    print(f"headnote_judge: {result['n_samples']} samples ({result['n_cached']} from cache, "
          f"{sent} requested, {result['n_http_requests']} HTTP attempts) in {elapsed:.1f} s, "
          f"{rate:.2f} requests/s; {result['n_failed']} failed", file=sys.stderr)


def _reproducibility(endpoint: Endpoint, params: Mapping, templates: PromptTemplates,
                     failed_as_zero: bool, parse: str = "strict") -> dict:
    host = check_endpoint_url(endpoint.base_url)
    hashes = templates.hashes()
    demos = ",".join(f"{lang}:{sha[:8]}" for lang, sha in hashes["demonstration_sha256"].items())
    signature = "|".join([
        f"headnote_judge:{__version__}", f"model:{endpoint.model}", f"host:{host}",
        f"temperature:{params['temperature']}", f"max_tokens:{params['max_tokens']}",
        f"seed:{params.get('seed', 'none')}", f"system:{hashes['system_template_sha256'][:8]}",
        f"user:{hashes['user_template_sha256'][:8]}", f"demos:{demos or 'none'}",
        f"failed:{'zero' if failed_as_zero else 'excluded'}", f"parse:{parse}",
    ])
    return {
        "model": endpoint.model,
        "base_url_host": host,
        **params,
        "seed": params.get("seed"),
        "timeout_seconds": endpoint.timeout,
        "max_retries": endpoint.max_retries,
        **hashes,
        "parse": parse,
        "headnote_judge_version": __version__,
        "openai_version": openai.__version__,
        "signature": signature,
    }


# --------------------------------------------------------------------------------------------
# evaluate wrapper


#: The keyword options of the evaluate wrapper's compute (besides the two features).
WRAPPER_OPTIONS = ("headnote_languages", "decision_languages", "base_url", "model", "api_key_env",
                   "sample_ids", "system_template", "user_template", "demonstrations",
                   "max_tokens", "seed", "timeout", "max_retries", "concurrency", "cache_path",
                   "failed_as_zero", "progress", "parse", "temperature", "max_answer_chars",
                   "headers", "follow_redirects", "max_auth_failures")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class HeadnoteJudge(CheckedWrapper, evaluate.Metric):
    """``evaluate`` wrapper around :func:`headnote_judge`."""

    FUNCTION = "headnote_judge"
    OPTIONS = WRAPPER_OPTIONS

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"),
                                        "references": datasets.Value("string")}),
            reference_urls=["https://platform.openai.com/docs/api-reference/chat"],
        )

    def check_batch(self, batch):
        predictions = _check_texts("predictions", batch["predictions"], None, allow_blank=True)
        _check_texts("references", batch["references"], len(predictions), allow_blank=False)

    def _compute(self, predictions, references, headnote_languages=None, decision_languages=None,
                 base_url=None, model=None, api_key_env=None, **options):
        for name, value in (("headnote_languages", headnote_languages),
                            ("decision_languages", decision_languages), ("base_url", base_url),
                            ("model", model)):
            if value is None:
                raise TypeError(f"headnote_judge() missing required argument {name!r} (it "
                                "needs headnote_languages, decision_languages, base_url, model)")
        api_key = None
        if api_key_env is not None:
            api_key = os.environ.get(api_key_env)
            if not api_key:
                raise BoundaryError("api_key_env", api_key_env,
                                    "the name of an environment variable that is set")
        return headnote_judge(predictions, references, headnote_languages, decision_languages,
                              base_url=base_url, model=model, api_key=api_key, **options)
