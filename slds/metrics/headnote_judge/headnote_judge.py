"""headnote_judge: LLM-as-a-judge scores for generated headnotes (SLDS benchmark).

A judge model served by any OpenAI-compatible chat-completions endpoint (vLLM, llama.cpp
server, OpenRouter, OpenAI, ...) compares a generated headnote with the gold headnote (never
the decision) and rates five categories from 1 to 3. A sample scores
``10 * sum(score - 1)`` over the five categories, 0-100; the corpus score is the mean.

The computation is the plain function :func:`headnote_judge`; :class:`HeadnoteJudge` is a thin
``evaluate.Metric`` wrapper. The module depends only on the packages in requirements.txt.

Prompt templates: the defaults are embedded below (``DEFAULT_SYSTEM_TEMPLATE``,
``DEFAULT_USER_TEMPLATE``) because ``evaluate.load`` copies only this script into its module
cache, and a Hub Space download fetches only this script; ``system_prompt.txt`` and
``user_prompt.txt`` in the module folder are identical copies for reading and editing.
"""

import concurrent.futures
import dataclasses
import email.utils
import hashlib
import json
import logging
import math
import os
import random
import re
import sqlite3
import string
import sys
import threading
import time
import urllib.parse
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone

import datasets
import evaluate
import openai
from tqdm import tqdm

__version__ = "0.1.0"

logger = logging.getLogger("headnote_judge")

CATEGORIES = (
    "accuracy_faithfulness",
    "completeness_relevance",
    "clarity_coherence",
    "articles",
    "considerations",
)
"""The five judged categories; the answer line of each is ``<CATEGORY>_SCORE: <1-3>``."""

LANGUAGE_NAMES = {"de": "German", "fr": "French", "it": "Italian", "rm": "Romansh", "en": "English"}
"""Headnote language code -> the name put into ``$language`` (other codes are used as given)."""

PLACEHOLDERS = ("gold_headnote", "generated_headnote", "language", "language_code", "demonstration")
"""Named placeholders a template may use (``string.Template`` syntax: ``$name`` or ``${name}``)."""

DEFAULT_SYSTEM_TEMPLATE = """\
You are an expert in Swiss law who assesses headnotes (German "Regeste", French "regeste", Italian "regesto") of landmark decisions of the Swiss Federal Supreme Court (BGE/ATF/DTF).

You receive the official headnote written by the Court (the gold headnote) and a generated headnote. Both are meant to be in $language. You do not see the decision itself: judge the generated headnote against the gold headnote only, and do not reward content that the gold headnote does not support.

Rate the generated headnote in five categories, each with an integer from 1 (poor) to 3 (good):

1. Accuracy and faithfulness: are the legal statements of the generated headnote correct with respect to the gold headnote, without contradictions or invented content? 1 = major errors or invented holdings; 2 = minor inaccuracies; 3 = accurate and faithful.
2. Completeness and relevance: does the generated headnote cover the key legal points of the gold headnote, without irrelevant material? 1 = most key points missing; 2 = some key points missing or some irrelevant material; 3 = all key points, nothing irrelevant.
3. Clarity and coherence: is the generated headnote clear, concise and well structured, in the legal style of a headnote in $language? 1 = confusing or not in $language; 2 = understandable with flaws; 3 = clear and coherent.
4. Articles: does the generated headnote cite the statutory provisions ("Art." / "art.") that the gold headnote cites, with the correct article, paragraph and enactment? 1 = most citations missing or wrong; 2 = some missing or wrong; 3 = all correct (also 3 when neither headnote cites a provision).
5. Considerations: does the generated headnote refer to the considerations of the decision ("E." in German, "consid." in French and Italian) that the gold headnote refers to? 1 = most references missing or wrong; 2 = some missing or wrong; 3 = all correct (also 3 when neither headnote refers to a consideration).

First write a short analysis of each category. Then end your answer with exactly these five lines, each followed by a single integer 1, 2 or 3 and nothing else:

ACCURACY_FAITHFULNESS_SCORE: <integer>
COMPLETENESS_RELEVANCE_SCORE: <integer>
CLARITY_COHERENCE_SCORE: <integer>
ARTICLES_SCORE: <integer>
CONSIDERATIONS_SCORE: <integer>
"""

DEFAULT_USER_TEMPLATE = """\
${demonstration}Gold headnote ($language):
<gold_headnote>
$gold_headnote
</gold_headnote>

Generated headnote:
<generated_headnote>
$generated_headnote
</generated_headnote>

Assess the generated headnote against the gold headnote in the five categories and end with the five score lines.
"""

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
    Other options of `headnote_judge` (templates, demonstrations, max_tokens, seed, timeout,
    max_retries, ...) are passed through.
Returns:
    score (float or None): mean sample score, 0-100, higher is better.
    macro_score (float or None): mean over language pairs of the pair scores.
    category_means (dict): mean rating per category, 1-3.
    by_language_pair (dict): score, category_means and counts per "<decision>_<headnote>".
    n_samples, n_scored, n_failed, n_unparsed, n_request_failed, n_cached, n_requested,
    n_http_requests, n_retries, n_cache_corrupt (int): counts.
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
        system_template: text (``str``) or file (``os.PathLike``); default the embedded
            ``DEFAULT_SYSTEM_TEMPLATE`` (= ``system_prompt.txt``).
        user_template: likewise; default ``DEFAULT_USER_TEMPLATE`` (= ``user_prompt.txt``).
        demonstrations: headnote language code -> demonstration text or file; default none.

    Raises:
        ValueError: unreadable file, malformed or unknown placeholder, or neither template
            containing ``$gold_headnote`` / ``$generated_headnote``.
    """
    system = DEFAULT_SYSTEM_TEMPLATE if system_template is None else _read_text(system_template, "system_template")
    user = DEFAULT_USER_TEMPLATE if user_template is None else _read_text(user_template, "user_template")
    used = template_placeholders(system, "system_template") | template_placeholders(user, "user_template")
    for required in ("gold_headnote", "generated_headnote"):
        if required not in used:
            raise ValueError(f"the prompt templates never use ${required}; the judge would not see it")
    demos = {}
    for language, source in (demonstrations or {}).items():
        if not isinstance(language, str) or not language:
            raise ValueError(f"demonstrations: language keys must be non-empty codes, got {language!r}")
        demos[language] = _read_text(source, f"demonstrations[{language!r}]")
    return PromptTemplates(system=system, user=user, demonstrations=demos)


def render_messages(templates: PromptTemplates, gold_headnote: str, generated_headnote: str,
                    language: str) -> list:
    """Return the chat messages ``[system, user]`` for one sample.

    >>> messages = render_messages(load_templates(), "Art. 8 ZGB ...", "Art. 8 ZGB ...", "de")
    >>> [m["role"] for m in messages], "German" in messages[1]["content"]
    (['system', 'user'], True)
    """
    demonstration = templates.demonstrations.get(language, "")
    values = {
        "gold_headnote": gold_headnote,
        "generated_headnote": generated_headnote,
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


_REASONING_BLOCK = re.compile(r"<(think|thinking|reasoning)>.*?</\1\s*>", re.S | re.I)
_REASONING_OPEN = re.compile(r"<(?:think|thinking|reasoning)>", re.I)
_REASONING_CLOSE = re.compile(r"</(?:think|thinking|reasoning)\s*>", re.I)
_MARKUP = r"[\s*_`]*"


def _score_pattern(category: str) -> re.Pattern:
    name = r"\\?_".join(re.escape(word) for word in (category + "_score").split("_"))
    return re.compile(
        r"(?<![A-Za-z_])" + name + r"(?![A-Za-z])"   # the line's name, markdown-escaped or not
        + _MARKUP + r"[:=]" + _MARKUP                # ":" with **bold** / `code` / newlines around
        + r"(?:[\[(]" + _MARKUP + r")?"              # "[2]" or "(2)"
        + r"(?P<value>[+-]?\d+(?:[.,]\d+)?)"
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
    text = _REASONING_BLOCK.sub("", text)
    closes = list(_REASONING_CLOSE.finditer(text))
    if closes:
        text = text[closes[-1].end():]
    opened = _REASONING_OPEN.search(text)
    if opened:
        return text[:opened.start()], "reasoning block opened but never closed (answer truncated?)"
    return text, None


def parse_judgement(text: str | None) -> Judgement:
    """Parse the five ``<CATEGORY>_SCORE: <1-3>`` lines of a judge answer.

    Tolerated: ``NAME_SCORE: 2``, ``NAME_SCORE: [2]``, ``**NAME_SCORE:** 2``, the value on the
    next line, any case, markdown-escaped underscores, prose around the lines, the same value
    repeated, and reasoning blocks before the answer. Unparsed (``scores is None``, with every
    problem in ``reason``): a missing category, a category repeated with conflicting values, a
    value that is not an integer 1-3, an empty answer, an unclosed reasoning block.

    >>> parse_judgement("**ACCURACY_FAITHFULNESS_SCORE:** [3]").reason
    'no COMPLETENESS_RELEVANCE_SCORE; no CLARITY_COHERENCE_SCORE; no ARTICLES_SCORE; no CONSIDERATIONS_SCORE'
    """
    if text is None or not text.strip():
        return Judgement(None, "empty response")
    answer, reasoning_problem = strip_reasoning(text)
    problems = []
    scores = {}
    for category, pattern in _SCORE_PATTERNS.items():
        label = category.upper() + "_SCORE"
        found = [m.group("value").replace(",", ".") for m in pattern.finditer(answer)]
        values = sorted(set(float(v) for v in found))
        if not values:
            problems.append(f"no {label}")
        elif len(values) > 1:
            problems.append(f"{label} given {len(found)} times with conflicting values "
                            + ", ".join(f"{v:g}" for v in values))
        elif values[0] not in (1.0, 2.0, 3.0):
            problems.append(f"{label} value {values[0]:g} is not an integer 1-3")
        else:
            scores[category] = int(values[0])
    if reasoning_problem and problems:
        problems.insert(0, reasoning_problem)
    if problems:
        return Judgement(None, "; ".join(problems))
    return Judgement(scores)


def sample_score(scores: Mapping[str, int]) -> float:
    """Score of one sample: ``10 * sum(score - 1)`` over the five categories, 0-100.

    >>> sample_score(dict.fromkeys(CATEGORIES, 3)), sample_score(dict.fromkeys(CATEGORIES, 1))
    (100.0, 0.0)
    """
    return float(10 * sum(int(scores[c]) - 1 for c in CATEGORIES))


# --------------------------------------------------------------------------------------------
# Response cache (SQLite)


def request_key(base_url: str, model: str, messages: Sequence[Mapping], params: Mapping) -> str:
    """sha256 (hex) of endpoint, model, messages and sampling parameters: the cache key."""
    payload = {"base_url": base_url.rstrip("/"), "model": model, "messages": list(messages),
               "params": dict(params)}
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return _sha256(text)


class ResponseCache:
    """Chat responses persisted in an SQLite file, one row per request key; thread-safe.

    A row holds the request (model, messages, parameters and the endpoint's host, never an
    API key), the response JSON and its sha256. Each response is committed as soon as it
    arrives, so an interrupted run keeps everything received so far.
    """

    SCHEMA = ("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, request TEXT NOT NULL, "
              "response TEXT NOT NULL, response_sha256 TEXT NOT NULL, created_utc TEXT NOT NULL)")

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = os.fspath(path)
        parent = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(parent, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._connection = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
            self._connection.execute(self.SCHEMA)
            self._connection.commit()
        except sqlite3.DatabaseError as error:
            raise ValueError(f"cache {self.path!r} is not a usable SQLite cache ({error}); "
                             "delete it or choose another cache path") from error

    def get(self, key: str) -> tuple:
        """Return ``(response, problem)``: the stored response dict, or ``None`` and a reason
        when the entry is corrupt, or ``(None, None)`` when there is no entry."""
        with self._lock:
            row = self._connection.execute(
                "SELECT response, response_sha256 FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None, None
        text, checksum = row
        if not isinstance(text, str) or _sha256(text) != checksum:
            return None, "checksum mismatch"
        try:
            response = json.loads(text)
        except json.JSONDecodeError as error:
            return None, f"invalid JSON ({error})"
        if not isinstance(response, dict) or not isinstance(response.get("content"), (str, type(None))):
            return None, "no 'content' field"
        return response, None

    def put(self, key: str, request: Mapping, response: Mapping) -> None:
        """Store (or replace) the response for ``key`` and commit."""
        text = json.dumps(response, ensure_ascii=False, sort_keys=True)
        request_text = json.dumps(request, ensure_ascii=False, sort_keys=True)
        created = datetime.now(timezone.utc).isoformat(timespec="seconds")
        with self._lock:
            self._connection.execute(
                "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?)",
                (key, request_text, text, _sha256(text), created))
            self._connection.commit()

    def __len__(self) -> int:
        with self._lock:
            return self._connection.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._connection.close()


# --------------------------------------------------------------------------------------------
# Requests with retries


@dataclasses.dataclass(frozen=True)
class RetryPolicy:
    """Retries on timeouts, connection errors, HTTP 429 and 5xx; never on other 4xx.

    The wait before retry ``k`` (0-based) is ``min(backoff_max, backoff_base * 2**k)`` with
    "equal jitter" (uniformly between half and all of it), in seconds. A ``Retry-After`` (or
    ``retry-after-ms``) header replaces it: the server's wait (at most ``retry_after_max``)
    plus up to 10% jitter, so the retry never comes before the server allows it.
    """

    max_retries: int = 5
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    retry_after_max: float = 600.0

    def delay(self, retry: int, retry_after: float | None, rng: random.Random) -> float:
        if retry_after is not None:
            return min(self.retry_after_max, retry_after) * (1.0 + 0.1 * rng.random())
        wait = min(self.backoff_max, self.backoff_base * 2 ** retry)
        return wait / 2 + rng.uniform(0, wait / 2)


def parse_retry_after(headers: Mapping) -> float | None:
    """Seconds to wait from ``retry-after-ms``, or ``Retry-After`` (seconds or HTTP date).

    >>> parse_retry_after({"retry-after": "2"}), parse_retry_after({})
    (2.0, None)
    """
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / divisor
        except ValueError:
            try:
                when = email.utils.parsedate_to_datetime(value)
            except (TypeError, ValueError):
                continue
            if when.tzinfo is None:
                when = when.replace(tzinfo=timezone.utc)
            seconds = (when - datetime.now(timezone.utc)).total_seconds()
        if math.isfinite(seconds):
            return max(0.0, seconds)
    return None


@dataclasses.dataclass
class RequestOutcome:
    """One request after retries: ``response`` dict, or ``None`` and the ``error``."""

    response: dict | None
    error: str | None
    attempts: int


def _short(message: object, limit: int = 300) -> str:
    text = " ".join(str(message).split())
    return text if len(text) <= limit else text[:limit] + "..."


def request_with_retries(client: openai.OpenAI, request: Mapping, *, timeout: float,
                         policy: RetryPolicy, rng: random.Random | None = None,
                         sleep=time.sleep) -> RequestOutcome:
    """Send one chat-completions request, retrying as ``policy`` says.

    Args:
        client: an ``openai.OpenAI`` client with its own retries disabled (``max_retries=0``).
        request: keyword arguments of ``client.chat.completions.create`` (model, messages, ...).
        timeout: seconds per attempt.

    Returns:
        RequestOutcome; ``response`` holds ``content`` (str or None), ``model`` and
        ``finish_reason``. Non-retryable failures and exhausted retries give ``error``.
    """
    rng = rng or random.Random()
    for attempt in range(policy.max_retries + 1):
        retry_after = None
        try:
            completion = client.chat.completions.create(**request, timeout=timeout)
        except openai.APIStatusError as error:
            reason = f"HTTP {error.status_code}: {_short(error.message)}"
            if error.status_code != 429 and error.status_code < 500:
                return RequestOutcome(None, reason, attempt + 1)
            retry_after = parse_retry_after(error.response.headers)
        except openai.APITimeoutError:
            reason = f"timed out after {timeout:g} s"
        except openai.APIConnectionError as error:
            cause = error.__cause__ or error
            reason = f"connection error: {_short(f'{type(cause).__name__}: {cause}')}"
        except Exception as error:  # malformed body and the like: recorded, not retried
            return RequestOutcome(None, f"invalid response: {_short(f'{type(error).__name__}: {error}')}",
                                  attempt + 1)
        else:
            choices = getattr(completion, "choices", None)
            if not choices or getattr(choices[0], "message", None) is None:
                return RequestOutcome(None, "invalid response: no choices/message", attempt + 1)
            response = {"content": choices[0].message.content,
                        "finish_reason": choices[0].finish_reason,
                        "model": getattr(completion, "model", None)}
            return RequestOutcome(response, None, attempt + 1)
        if attempt == policy.max_retries:
            return RequestOutcome(None, f"{reason} (gave up after {attempt + 1} attempts)", attempt + 1)
        sleep(policy.delay(attempt, retry_after, rng))
    raise AssertionError("unreachable")  # pragma: no cover


# --------------------------------------------------------------------------------------------
# Validation and aggregation


def _check_str_list(name: str, values: object, n: int | None, *, allow_empty: bool) -> list:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise ValueError(f"{name} must be a list of strings, got {type(values).__name__}")
    values = list(values)
    if n is not None and len(values) != n:
        raise ValueError(f"{name} has {len(values)} items, predictions has {n}")
    for index, value in enumerate(values):
        if not isinstance(value, str):
            raise ValueError(f"{name}[{index}] must be a string, got {type(value).__name__}: {value!r}")
        if not allow_empty and not value.strip():
            raise ValueError(f"{name}[{index}] is empty")
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


def _endpoint_host(base_url: str) -> str:
    parts = urllib.parse.urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"base_url must be an http(s) URL such as http://localhost:8000/v1, got {base_url!r}")
    return parts.hostname + (f":{parts.port}" if parts.port else "")


# --------------------------------------------------------------------------------------------
# The judge


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
    max_retries: int = 5,
    backoff_base: float = 1.0,
    backoff_max: float = 60.0,
    concurrency: int = 8,
    cache_path: str | os.PathLike | None = None,
    failed_as_zero: bool = False,
    progress: bool = True,
) -> dict:
    """Judge generated headnotes against gold headnotes with an LLM behind ``base_url``.

    Args:
        predictions: generated headnotes (may be empty strings).
        references: gold headnotes (non-empty), same order.
        headnote_languages: language code of each gold headnote ("de", "fr", "it").
        decision_languages: language code of each decision; the language pair of a sample
            is ``"<decision>_<headnote>"`` (the SLDS config names).
        base_url: OpenAI-compatible endpoint, e.g. ``http://localhost:8000/v1``.
        model: judge model name at that endpoint.
        api_key: the key, sent as a bearer token and never stored; ``None`` for endpoints
            that need none.
        sample_ids: reported per sample; default ``0..n-1``; must be unique.
        system_template, user_template: template text (``str``) or file (``os.PathLike``);
            default the embedded templates (= ``system_prompt.txt`` / ``user_prompt.txt``).
        demonstrations: headnote language -> a judged example (text or file); default none.
        max_tokens: maximal answer length in tokens. ``temperature`` is always 0.
        seed: sent as ``seed`` (endpoints that support it sample reproducibly); ``None`` omits it.
        timeout: seconds per HTTP attempt.
        max_retries, backoff_base, backoff_max: see :class:`RetryPolicy` (seconds).
        concurrency: requests in flight at once (threads), >= 1.
        cache_path: SQLite file caching responses across runs; ``None``: no cache.
        failed_as_zero: count failed samples as score 0 instead of excluding them.
        progress: show a progress bar and print a throughput line to stderr.

    Returns:
        A dict: ``score``, ``macro_score``, ``category_means``, ``by_language_pair`` (see
        :func:`aggregate`), counts ``n_samples``, ``n_scored``, ``n_failed`` (``n_unparsed``
        + ``n_request_failed``), ``n_cached`` (samples answered from the cache),
        ``n_requested`` (samples requested in this run), ``n_http_requests`` (attempts sent),
        ``n_retries``, ``n_cache_corrupt``; ``failed_as_zero``; ``samples`` (per sample:
        ``sample_id``, ``language_pair``, ``status`` scored / unparsed / request_failed,
        ``score``, ``scores``, ``reason``, ``raw_response`` for unparsed answers, ``cached``);
        ``reproducibility`` (model, base URL host, parameters, template hashes, versions,
        ``signature``).

    Raises:
        ValueError: invalid inputs or options, naming the argument and first bad index.
    """
    predictions = _check_str_list("predictions", predictions, None, allow_empty=True)
    n = len(predictions)
    if n == 0:
        raise ValueError("predictions is empty")
    references = _check_str_list("references", references, n, allow_empty=False)
    headnote_languages = _check_str_list("headnote_languages", headnote_languages, n, allow_empty=False)
    decision_languages = _check_str_list("decision_languages", decision_languages, n, allow_empty=False)
    if sample_ids is None:
        sample_ids = list(range(n))
    else:
        sample_ids = list(sample_ids)
        if len(sample_ids) != n:
            raise ValueError(f"sample_ids has {len(sample_ids)} items, predictions has {n}")
        seen = {}
        for index, sample_id in enumerate(sample_ids):
            if sample_id in seen:
                raise ValueError(f"sample_ids[{index}] = {sample_id!r} repeats sample_ids[{seen[sample_id]}]")
            seen[sample_id] = index
    if not isinstance(model, str) or not model:
        raise ValueError(f"model must be a non-empty string, got {model!r}")
    host = _endpoint_host(base_url)
    for name, value, minimum in (("max_tokens", max_tokens, 1), ("concurrency", concurrency, 1),
                                 ("max_retries", max_retries, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    for name, value in (("timeout", timeout), ("backoff_base", backoff_base), ("backoff_max", backoff_max)):
        if not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise ValueError(f"seed must be an integer or None, got {seed!r}")

    templates = load_templates(system_template, user_template, demonstrations)
    params = {"temperature": 0, "max_tokens": max_tokens}
    if seed is not None:
        params["seed"] = seed
    keys = []
    requests = {}
    for index in range(n):
        messages = render_messages(templates, references[index], predictions[index],
                                   headnote_languages[index])
        key = request_key(base_url, model, messages, params)
        keys.append(key)
        requests.setdefault(key, {"model": model, "messages": messages, **params})

    cache = ResponseCache(cache_path) if cache_path is not None else None
    responses = {}
    errors = {}
    from_cache = set()
    n_corrupt = 0
    attempts_total = 0
    started = time.perf_counter()
    try:
        pending = []
        for key in requests:
            response, problem = cache.get(key) if cache else (None, None)
            if response is not None:
                responses[key] = response
                from_cache.add(key)
                continue
            if problem is not None:
                n_corrupt += 1
                logger.warning("headnote_judge: cache %s: entry %s is corrupt (%s); requesting it again",
                               cache.path, key[:12], problem)
            pending.append(key)
        attempts_total = _run_requests(
            pending, requests, responses, errors, cache=cache, base_url=base_url, host=host,
            api_key=api_key, timeout=timeout, concurrency=concurrency,
            policy=RetryPolicy(max_retries, backoff_base, backoff_max), progress=progress)
    finally:
        if cache is not None:
            cache.close()
    elapsed = time.perf_counter() - started

    samples = []
    for index, key in enumerate(keys):
        record = {"sample_id": sample_ids[index],
                  "language_pair": f"{decision_languages[index]}_{headnote_languages[index]}",
                  "status": "scored", "score": None, "scores": None, "reason": None,
                  "raw_response": None, "cached": key in from_cache}
        if key in errors:
            record.update(status="request_failed", reason=errors[key])
        else:
            response = responses[key]
            judgement = parse_judgement(response["content"])
            if judgement.scores is None:
                reason = judgement.reason
                if response.get("finish_reason") == "length":
                    reason += f" (answer cut at max_tokens={max_tokens})"
                record.update(status="unparsed", reason=reason, raw_response=response["content"])
            else:
                record.update(scores=judgement.scores, score=sample_score(judgement.scores))
        samples.append(record)

    n_request_failed = sum(s["status"] == "request_failed" for s in samples)
    n_unparsed = sum(s["status"] == "unparsed" for s in samples)
    n_cached = sum(s["cached"] for s in samples)
    result = aggregate(samples, failed_as_zero=failed_as_zero)
    result.update({
        "n_samples": n,
        "n_scored": n - n_request_failed - n_unparsed,
        "n_failed": n_request_failed + n_unparsed,
        "n_unparsed": n_unparsed,
        "n_request_failed": n_request_failed,
        "n_cached": n_cached,
        "n_requested": n - n_cached,
        "n_http_requests": attempts_total,
        "n_retries": attempts_total - (len(requests) - len(from_cache)),
        "n_cache_corrupt": n_corrupt,
        "failed_as_zero": failed_as_zero,
        "reproducibility": _reproducibility(model, host, params, templates, timeout,
                                            max_retries, failed_as_zero),
        "samples": samples,
    })
    if progress:
        sent = len(requests) - len(from_cache)
        print(f"headnote_judge: {n} samples ({n_cached} from cache, {n - n_cached} requested: "
              f"{sent} unique requests, {attempts_total} HTTP attempts) in {elapsed:.1f} s, "
              f"{sent / elapsed if elapsed > 0 else 0.0:.2f} requests/s; "
              f"{result['n_failed']} failed", file=sys.stderr)
    return result


def _run_requests(pending, requests, responses, errors, *, cache, base_url, host, api_key,
                  timeout, concurrency, policy, progress) -> int:
    """Send the pending requests with ``concurrency`` threads; store responses as they
    arrive (in ``responses`` and the cache) and failures in ``errors``. Returns the number
    of HTTP attempts."""
    if not pending:
        return 0
    client = openai.OpenAI(base_url=base_url, api_key=api_key or "no-key", max_retries=0,
                           timeout=timeout)
    attempts = 0

    def work(key):
        outcome = request_with_retries(client, requests[key], timeout=timeout, policy=policy)
        if outcome.response is not None and cache is not None:
            stored_request = {"endpoint_host": host, **requests[key]}
            cache.put(key, stored_request, outcome.response)
        return key, outcome

    executor = concurrent.futures.ThreadPoolExecutor(max_workers=concurrency,
                                                     thread_name_prefix="headnote_judge")
    bar = tqdm(total=len(pending), desc="headnote_judge", unit="req", disable=not progress)
    try:
        futures = [executor.submit(work, key) for key in pending]
        for future in concurrent.futures.as_completed(futures):
            key, outcome = future.result()
            attempts += outcome.attempts
            if outcome.response is not None:
                responses[key] = outcome.response
            else:
                errors[key] = outcome.error
            bar.update(1)
        executor.shutdown(wait=True)
    except BaseException:
        executor.shutdown(wait=False, cancel_futures=True)
        raise
    finally:
        bar.close()
        client.close()
    return attempts


def _reproducibility(model, host, params, templates, timeout, max_retries, failed_as_zero) -> dict:
    hashes = templates.hashes()
    demos = ",".join(f"{lang}:{sha[:8]}" for lang, sha in hashes["demonstration_sha256"].items())
    signature = "|".join([
        f"headnote_judge:{__version__}", f"model:{model}", f"host:{host}",
        f"temperature:{params['temperature']}", f"max_tokens:{params['max_tokens']}",
        f"seed:{params.get('seed', 'none')}", f"system:{hashes['system_template_sha256'][:8]}",
        f"user:{hashes['user_template_sha256'][:8]}", f"demos:{demos or 'none'}",
        f"failed:{'zero' if failed_as_zero else 'excluded'}",
    ])
    return {
        "model": model,
        "base_url_host": host,
        **params,
        "seed": params.get("seed"),
        "timeout_seconds": timeout,
        "max_retries": max_retries,
        **hashes,
        "headnote_judge_version": __version__,
        "openai_version": openai.__version__,
        "signature": signature,
    }


# --------------------------------------------------------------------------------------------
# evaluate wrapper


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class HeadnoteJudge(evaluate.Metric):
    """``evaluate`` wrapper around :func:`headnote_judge`."""

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"),
                                        "references": datasets.Value("string")}),
            reference_urls=["https://platform.openai.com/docs/api-reference/chat"],
        )

    def _compute(self, predictions, references, headnote_languages=None, decision_languages=None,
                 base_url=None, model=None, api_key_env=None, **options):
        if headnote_languages is None or decision_languages is None:
            raise ValueError("headnote_languages and decision_languages are required (one code per sample)")
        if base_url is None or model is None:
            raise ValueError("base_url and model are required")
        api_key = None
        if api_key_env is not None:
            api_key = os.environ.get(api_key_env)
            if not api_key:
                raise ValueError(f"api_key_env: environment variable {api_key_env} is not set")
        return headnote_judge(predictions, references, headnote_languages, decision_languages,
                              base_url=base_url, model=model, api_key=api_key, **options)
