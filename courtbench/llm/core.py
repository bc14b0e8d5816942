"""Chat completions against any OpenAI-compatible endpoint: cache, retries, concurrency.

One self-contained file (standard library and ``openai`` only). ``courtbench.llm`` uses it,
and a metric module that calls an LLM links it into its folder (``metrics/<name>/llm_core.py``)
and imports it relatively: a metric module must run from a Hub Space where courtbench is not
installed, so the wheel, ``courtbench metrics export`` and ``courtbench publish`` carry this
file itself there. There is one source: edit this file.

- :func:`run_requests` sends :class:`ChatRequest` s with at most ``concurrency`` in flight,
  retries 429 / 5xx / timeouts / dropped connections with exponential backoff and jitter
  (``Retry-After`` honoured), and returns one :class:`ChatResult` per request, in order.
- :class:`ResponseCache` keeps every answer in SQLite under :func:`request_key` (model,
  messages, parameters; never the URL, never the API key), committed as it arrives: a rerun
  sends nothing and a killed run resumes with only the remainder. Only files carrying
  courtbench's cache marker are written; entries are added, never replaced.
- :func:`validate_completion` is the one boundary every response passes: shape and types
  checked, text made valid UTF-8, implausible usage ignored, size capped; anything else is a
  counted failure.
- :func:`split_reasoning` keeps ``<think>`` text and ``reasoning_content`` apart from the answer.
"""

import collections
import concurrent.futures
import contextlib
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
import threading
import time
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path

import openai

logger = logging.getLogger("courtbench.llm")

USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "total_tokens")


@dataclasses.dataclass(frozen=True)
class EndpointConfig:
    """Where and how to send requests.

    Attributes:
        base_url: OpenAI-compatible endpoint, e.g. ``http://127.0.0.1:8000/v1``.
        model: model name at that endpoint.
        api_key_env: name of the environment variable holding the API key (the key itself
            is never stored); ``None`` or an unset variable sends no key.
        concurrency: requests in flight at once (threads), >= 1.
        timeout: seconds per HTTP attempt.
        max_retries: retries after the first attempt on 429 / 5xx / timeouts / dropped
            connections.
        cache_path: SQLite response cache; ``None`` for none.
        backoff_base, backoff_max: seconds; see :class:`RetryPolicy`.
        max_answer_chars: longest answer (content + reasoning, characters) accepted; a longer
            one is a failed request, never cached.
        follow_redirects: follow HTTP redirects (each followed one is recorded per result);
            refused by default.
        headers: extra HTTP headers ``(name, value)`` sent with every request (values are
            never stored: they may be credentials).
        max_auth_failures: stop sending after this many consecutive authentication / quota
            errors (401, 402, 403, 429 quota); the rest are failed as "not sent".
    """

    base_url: str
    model: str
    api_key_env: str | None = "OPENAI_API_KEY"
    concurrency: int = 8
    timeout: float = 120.0
    max_retries: int = 6
    cache_path: Path | None = None
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    max_answer_chars: int = 1_000_000
    follow_redirects: bool = False
    headers: tuple = ()
    max_auth_failures: int = 3

    def __post_init__(self) -> None:
        endpoint_host(self.base_url)  # validates the URL
        parts = urllib.parse.urlsplit(self.base_url)
        if parts.username is not None or parts.password is not None:
            raise ValueError("base_url must not carry credentials (user:password@host); put the "
                             "key in the environment variable named by api_key_env")
        check_headers(self.headers)
        if not isinstance(self.model, str) or not self.model:
            raise ValueError(f"model must be a non-empty string, got {self.model!r}")
        for name, minimum in (("concurrency", 1), ("max_retries", 0), ("max_answer_chars", 1),
                              ("max_auth_failures", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
                raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
        for name in ("timeout", "backoff_base", "backoff_max"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not math.isfinite(value) or value <= 0:
                raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")

    def api_key(self) -> str | None:
        """The key from ``api_key_env`` (``None`` when unnamed, unset or empty)."""
        return os.environ.get(self.api_key_env) or None if self.api_key_env else None


@dataclasses.dataclass(frozen=True)
class ChatRequest:
    """One chat completion to obtain.

    ``id`` names the row (not part of the cache key); ``messages`` are
    ``{"role": ..., "content": ...}`` dicts; ``params`` (temperature, top_p, seed,
    max_tokens ...) are sent as given.
    """

    id: str
    messages: tuple
    params: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class ChatResult:
    """The outcome of one request.

    ``answer`` is the content with any ``<think>...</think>`` removed; ``reasoning`` the
    think text and/or ``reasoning_content`` (kept, never scored); ``usage`` has
    ``prompt_tokens``, ``completion_tokens``, ``total_tokens`` (0 when the endpoint sent
    none); ``error`` is set when the request could not be completed after retries;
    ``cached`` when the answer came from the cache; ``tool_calls`` the OpenAI tool calls of
    the message (``{"id", "type", "function": {"name", "arguments"}}`` dicts; ``None`` when
    there were none). Tools are offered by passing ``tools`` (and ``tool_choice``) in
    :attr:`ChatRequest.params`.
    """

    id: str
    answer: str | None
    reasoning: str | None
    finish_reason: str | None
    usage: dict
    error: str | None
    cached: bool
    failure_kind: str | None = None
    boundary: dict = dataclasses.field(default_factory=dict)
    tool_calls: tuple | None = None


@dataclasses.dataclass(frozen=True)
class RunSummary:
    """All results (same order as the requests) and the run's counts.

    ``sent``: results obtained from the endpoint in this run; ``cached``: from the cache;
    ``failed``: results with an ``error``. ``usage``: token usage summed over all results
    (cached ones included: what the outputs cost). ``attempts``: HTTP attempts made;
    ``cache_corrupt``: cache entries found corrupt and requested again; ``elapsed``: seconds.
    ``truncated``: answers with ``finish_reason`` ``length``; ``failures_by_kind``: failed
    results per kind (``auth``, ``http``, ``invalid``, ``too_large``, ``timeout``,
    ``connection``, ``not_sent``); ``surrogates_replaced``: lone surrogates in endpoint text
    replaced by U+FFFD; ``usage_ignored``: usage numbers ignored (negative, boolean, not an
    integer, absurdly large); ``redirects``: results obtained after a followed redirect.
    """

    results: list
    sent: int
    cached: int
    failed: int
    usage: dict
    attempts: int = 0
    cache_corrupt: int = 0
    elapsed: float = 0.0
    truncated: int = 0
    failures_by_kind: dict = dataclasses.field(default_factory=dict)
    surrogates_replaced: int = 0
    usage_ignored: int = 0
    redirects: int = 0


def endpoint_host(base_url: str) -> str:
    """``scheme://host[:port]`` of an http(s) URL: no path, no credentials, no query.

    >>> endpoint_host("https://user:secret@api.example.org:8443/v1?key=x")
    'https://api.example.org:8443'
    """
    parts = urllib.parse.urlsplit(base_url) if isinstance(base_url, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"base_url must be an http(s) URL such as http://127.0.0.1:8000/v1, "
                         f"got {base_url!r}")
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    return f"{parts.scheme}://{host}" + (f":{parts.port}" if parts.port else "")


_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


def check_headers(headers: Sequence) -> None:
    """ValueError unless ``headers`` is a sequence of ``(name, value)`` strings that HTTP
    allows (a token name, no line break in the value)."""
    for item in headers:
        if not (isinstance(item, tuple) and len(item) == 2 and all(isinstance(x, str) for x in item)):
            raise ValueError(f"headers must be (name, value) string pairs, got {item!r}")
        name, value = item
        if not _HEADER_NAME.fullmatch(name) or any(c in value for c in "\r\n\x00"):
            raise ValueError(f"headers: {name!r} is no valid header name, or its value holds a "
                             "line break")


def sha256_text(text: str) -> str:
    """sha256 (hex) of the UTF-8 bytes of ``text`` (lone surrogates encoded as they are, so
    no text makes it fail)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def request_body(request: ChatRequest, model: str) -> dict:
    """The JSON body sent for ``request``: model, messages, then the parameters."""
    return {"model": model, "messages": [dict(m) for m in request.messages], **request.params}


def request_key(model: str, messages: Sequence[Mapping], params: Mapping) -> str:
    """The cache key: sha256 of the canonical JSON of model, messages and parameters.

    Everything that determines the answer, nothing that does not (endpoint URL, API key,
    row id), so the same request through another port or host hits the same entry.
    """
    payload = {"model": model, "messages": [dict(m) for m in messages], "params": dict(params)}
    return sha256_text(json.dumps(payload, sort_keys=True, ensure_ascii=False,
                                  separators=(",", ":")))


# --------------------------------------------------------------------------------------------
# Reasoning


_REASONING_TAG = re.compile(r"<(/?)(think|thinking|reasoning)(\s*)>", re.I)


def _remove_reasoning_blocks(content: str) -> tuple:
    """``<name>...</name>`` blocks removed in one left-to-right pass (linear time).

    Returns ``(text, block_texts, leftover)``: the text without the blocks, the blocks'
    texts, and the tags left in ``text`` as ``(offset in text, is_close)``.
    """
    tags = [m for m in _REASONING_TAG.finditer(content) if m.group(1) or not m.group(3)]
    closes: dict = collections.defaultdict(list)
    for tag in tags:
        if tag.group(1):
            closes[tag.group(2).lower()].append(tag)
    pointer: dict = collections.defaultdict(int)
    pieces, blocks, leftover, position, length = [], [], [], 0, 0
    for tag in tags:
        if tag.start() < position:
            continue  # inside a block already removed
        name, close = tag.group(2).lower(), None
        if not tag.group(1):
            candidates = closes[name]
            while pointer[name] < len(candidates) and candidates[pointer[name]].start() < tag.end():
                pointer[name] += 1
            close = candidates[pointer[name]] if pointer[name] < len(candidates) else None
        if close is None:
            leftover.append((length + tag.start() - position, bool(tag.group(1)), tag.end() - tag.start()))
            continue
        pieces.append(content[position:tag.start()])
        length += tag.start() - position
        blocks.append(content[tag.end():close.start()].strip())
        position = close.end()
    pieces.append(content[position:])
    return "".join(pieces), blocks, leftover


def split_reasoning(content: str | None, reasoning_content: str | None = None) -> tuple:
    """Separate reasoning from the answer, in time linear in the text's length.

    Removes ``<think>...</think>`` blocks (also ``thinking`` / ``reasoning``); a closing tag
    without an opening one (servers that strip the opening tag) makes everything before it
    reasoning; an opening tag never closed (answer cut) makes everything after it reasoning.

    Returns:
        ``(answer, reasoning, unclosed)``: the answer (``None`` when ``content`` is
        ``None``), the reasoning texts joined by blank lines (``reasoning_content`` first;
        ``None`` when there is none) and whether a block was left open.

    >>> split_reasoning("<think>a?</think>\\nB.", "r")
    ('B.', 'r\\n\\na?', False)
    >>> split_reasoning("<think>never closed")
    ('', 'never closed', True)
    """
    parts = [reasoning_content.strip()] if reasoning_content and reasoning_content.strip() else []
    if content is None:
        return None, "\n\n".join(parts) or None, False
    text, blocks, leftover = _remove_reasoning_blocks(content)
    parts += blocks
    text, leftover = _split_before_last_close(text, leftover, parts)
    text, unclosed = _split_after_first_open(text, leftover, parts)
    reasoning = "\n\n".join(p for p in parts if p) or None
    return text.strip(), reasoning, unclosed


def _split_before_last_close(text: str, leftover: list, parts: list) -> tuple:
    """A stray closing tag: everything before the last one is reasoning (appended to
    ``parts``). Returns ``(text after that tag, leftover tags shifted into it)``."""
    last_close = max((t for t in leftover if t[1]), default=None, key=lambda t: t[0])
    if last_close is None:
        return text, leftover
    parts.append(text[:last_close[0]].strip())
    cut = last_close[0] + last_close[2]
    return text[cut:], [(offset - cut, close, size) for offset, close, size in leftover
                        if offset >= cut]


def _split_after_first_open(text: str, leftover: list, parts: list) -> tuple:
    """An opening tag never closed: everything after the first one is reasoning (appended to
    ``parts``). Returns ``(text before that tag, whether there was one)``."""
    opened = min((t for t in leftover if not t[1]), default=None, key=lambda t: t[0])
    if opened is None:
        return text, False
    parts.append(text[opened[0] + opened[2]:].strip())
    return text[:opened[0]], True


# --------------------------------------------------------------------------------------------
# Response cache (SQLite)


class CacheWriteError(OSError):
    """An answer could not be stored in the cache (disk full, read-only file ...); what was
    stored before stays, a rerun continues from it."""


CACHE_MARK = "courtbench-llm-response-cache"
CACHE_VERSION = 2
_SQLITE_HEADER = b"SQLite format 3\x00"


def _create_cache_file(path: str) -> None:
    """Create a cache with its schema in a temporary file, then link it into place (never
    replacing a file that appeared meanwhile)."""
    temporary = f"{path}.{os.getpid()}.{threading.get_ident()}.partial"
    try:
        with contextlib.closing(sqlite3.connect(temporary)) as connection:
            connection.executescript(ResponseCache.SCHEMA)
            connection.execute("INSERT INTO courtbench_cache VALUES (?, ?)",
                               (CACHE_MARK, CACHE_VERSION))
            connection.commit()
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass  # another run created it first: it is checked like any existing file
    except (OSError, sqlite3.Error) as error:
        raise CacheWriteError(f"cache {path!r}: cannot create it ({error})") from error
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def _foreign_reason(path: str) -> str | None:
    """Why the existing file ``path`` is no courtbench cache (``None`` when it is one),
    found without writing anything into it."""
    try:
        with open(path, "rb") as handle:
            header = handle.read(len(_SQLITE_HEADER))
    except OSError as error:
        return f"cannot be read ({error})"
    if header != _SQLITE_HEADER:
        return "is not an SQLite file"
    uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro&immutable=1"
    try:
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as connection:
            rows = connection.execute("SELECT name, version FROM courtbench_cache").fetchall()
    except sqlite3.Error:
        return "is an SQLite database without courtbench's cache marker (table courtbench_cache)"
    if rows != [(CACHE_MARK, CACHE_VERSION)]:
        return f"has a courtbench_cache marker {rows[:2]!r}, not ({CACHE_MARK!r}, {CACHE_VERSION})"
    return None


class ResponseCache:
    """Responses persisted in an SQLite file courtbench created; thread-safe.

    The file carries courtbench's marker (table ``courtbench_cache`` with one row: name and
    schema version); an existing file without it (a user's own database, a text file, an
    older courtbench's cache) is refused and never written. Entries are only ever added:
    a row holds the :func:`request_key`, the request body (model, messages, parameters;
    never a URL or key), the response JSON and its sha256; the same key may hold the answers
    of several runs side by side, and a lookup returns the earliest valid one, so the first
    run stays reproducible from the cache. Each response is committed as soon as it arrives.
    """

    SCHEMA = ("CREATE TABLE courtbench_cache (name TEXT NOT NULL, version INTEGER NOT NULL);"
              "CREATE TABLE responses (id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL, "
              "request TEXT NOT NULL, response TEXT NOT NULL, response_sha256 TEXT NOT NULL, "
              "created_utc TEXT NOT NULL, UNIQUE (key, response_sha256));"
              "CREATE INDEX responses_by_key ON responses (key, id);")

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = os.fspath(path)
        if os.path.isdir(self.path):
            raise ValueError(f"cache {self.path!r} is a directory; give a file path")
        if not os.path.lexists(self.path):
            os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
            _create_cache_file(self.path)
        reason = _foreign_reason(self.path)
        if reason is not None:
            raise ValueError(f"cache {self.path!r} {reason}; courtbench writes only into caches "
                             "it created: give a new file path")
        self._lock = threading.Lock()
        try:
            self._connection = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        except sqlite3.Error as error:
            raise ValueError(f"cache {self.path!r}: cannot open it ({error})") from error

    def get_many(self, keys: Sequence[str]) -> tuple:
        """Return ``(responses, problems)``: key -> response dict for usable entries (the
        earliest valid one per key), and key -> reason when every entry of a key is corrupt;
        keys without an entry are in neither."""
        found: dict = collections.defaultdict(list)
        unique = list(dict.fromkeys(keys))
        with self._lock:
            for start in range(0, len(unique), 500):
                chunk = unique[start:start + 500]
                marks = ",".join("?" * len(chunk))
                for key, text, checksum in self._connection.execute(
                        f"SELECT key, response, response_sha256 FROM responses "
                        f"WHERE key IN ({marks}) ORDER BY id", chunk):
                    found[key].append((text, checksum))
        responses, problems = {}, {}
        for key, entries in found.items():
            for text, checksum in entries:
                response, problem = _decode_cached(text, checksum)
                if problem is None:
                    responses[key] = response
                    break
                problems[key] = problem
            if key in responses:
                problems.pop(key, None)
        return responses, problems

    def put(self, key: str, body: Mapping, response: Mapping) -> None:
        """Add the response for ``key`` (never replacing an entry) and commit.

        Raises:
            CacheWriteError: the write failed (disk full ...), naming the file.
        """
        text = json.dumps(response, ensure_ascii=False, sort_keys=True)
        request_text = json.dumps(body, ensure_ascii=False, sort_keys=True)
        if _SURROGATE.search(request_text):  # a caller's text with lone surrogates: escaped
            request_text = json.dumps(body, sort_keys=True)
        created = datetime.now(timezone.utc).isoformat(timespec="seconds")
        with self._lock:
            try:
                self._insert(key, request_text, text, created)
            except (sqlite3.Error, OSError) as error:
                with contextlib.suppress(sqlite3.Error):
                    self._connection.rollback()
                raise CacheWriteError(
                    f"cache {self.path}: cannot store an answer ({error}; is the disk full?); "
                    f"the answers stored before are kept: free space and rerun to continue "
                    f"with the rest") from error

    def _insert(self, key: str, request_text: str, text: str, created: str) -> None:
        self._connection.execute(
            "INSERT OR IGNORE INTO responses (key, request, response, response_sha256, "
            "created_utc) VALUES (?, ?, ?, ?, ?)",
            (key, request_text, text, sha256_text(text), created))
        self._connection.commit()

    def __len__(self) -> int:
        with self._lock:
            return self._connection.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._connection.close()


def _decode_cached(text: object, checksum: object) -> tuple:
    if not isinstance(text, str) or sha256_text(text) != checksum:
        return None, "checksum mismatch"
    try:
        response = json.loads(text)
    except (ValueError, RecursionError) as error:
        return None, f"invalid JSON ({error})"
    if not isinstance(response, dict) or not isinstance(response.get("content"), (str, type(None))):
        return None, "no 'content' field"
    return response, None


# --------------------------------------------------------------------------------------------
# The response boundary: everything an endpoint sends is checked here, once


MAX_USAGE = 10**12
"""Usage numbers above this (tokens per request) are ignored as absurd."""

_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_text(value: object) -> tuple:
    """``(text, replaced)``: a string with every lone surrogate replaced by U+FFFD (valid
    UTF-8 from here on) and how many were replaced; a non-string is ``(None, 0)``."""
    if not isinstance(value, str):
        return None, 0
    text, replaced = _SURROGATE.subn("\ufffd", value)
    return text, replaced


def _content_text(content: object) -> tuple:
    """Message content as text: a string, ``None``, or a list of ``{"type": "text", "text":
    ...}`` parts joined (other part types skipped). Returns ``(text, problem)``."""
    if content is None or isinstance(content, str):
        return content, None
    if isinstance(content, list) and all(isinstance(p, dict) for p in content):
        texts = [p.get("text") for p in content if p.get("type") in ("text", "output_text")]
        if all(isinstance(t, str) for t in texts):
            return "".join(texts), None
    return None, (f"choices[0].message.content is a {type(content).__name__}; expected text "
                  "or a list of text parts")


def _usage_counts(usage: object) -> tuple:
    """``(counts, ignored)``: the usage fields that are plausible integers (others 0)."""
    counts, ignored = {}, 0
    usage = usage if isinstance(usage, dict) else {}
    for name in USAGE_FIELDS:
        value = usage.get(name)
        good = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_USAGE
        counts[name] = value if good else 0
        ignored += value is not None and not good
    return counts, ignored


def validate_completion(document: object, max_answer_chars: int) -> tuple:
    """THE boundary: a decoded chat-completion body -> ``(response, problem)``.

    ``response`` (when ``problem`` is ``None``) has ``content``, ``reasoning_content``,
    ``finish_reason``, ``model`` (valid strings or ``None``), ``usage`` (plausible integers,
    else 0) and ``boundary`` (``surrogates_replaced``, ``usage_ignored``). Anything else —
    ``choices`` not a non-empty list of objects, ``message`` not an object, ``content`` a
    number, an answer longer than ``max_answer_chars`` — gives ``(None, problem)``: a counted
    failure, never an exception, never cached.
    """
    if not isinstance(document, dict):
        return None, f"the body is a JSON {type(document).__name__}, not an object"
    choices = document.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None, "'choices' is not a non-empty list of objects"
    message = choices[0].get("message")
    if not isinstance(message, dict):
        return None, f"choices[0].message is a {type(message).__name__}, not an object"
    content, problem = _content_text(message.get("content"))
    if problem is not None:
        return None, problem
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    fields = {"content": content, "reasoning_content": reasoning,
              "finish_reason": choices[0].get("finish_reason"), "model": document.get("model")}
    replaced = 0
    for name, value in fields.items():
        fields[name], count = valid_text(value)
        replaced += count
    size = len(fields["content"] or "") + len(fields["reasoning_content"] or "")
    if size > max_answer_chars:
        return None, f"answer of {size:,} characters exceeds the cap of {max_answer_chars:,}"
    usage, ignored = _usage_counts(document.get("usage"))
    response = {**fields, "usage": usage,
                "boundary": {"surrogates_replaced": replaced, "usage_ignored": ignored}}
    calls, problem = _tool_calls(message.get("tool_calls"))
    if problem is not None:
        return None, problem
    if calls:  # only then: answers without tool calls are stored as before
        response["tool_calls"] = calls
    return response, None


def _tool_calls(calls: object) -> tuple:
    """``(calls, problem)``: the message's OpenAI tool calls as plain dicts (``id``, ``type``,
    ``function``: ``name``, ``arguments`` text), every string made valid UTF-8; anything
    else than a list of such objects is a problem."""
    if calls is None:
        return [], None
    if not isinstance(calls, list) or not all(isinstance(c, dict) for c in calls):
        return None, "choices[0].message.tool_calls is not a list of objects"
    plain = []
    for call in calls:
        function = call.get("function") if isinstance(call.get("function"), dict) else {}
        plain.append({"id": valid_text(call.get("id"))[0],
                      "type": valid_text(call.get("type"))[0] or "function",
                      "function": {"name": valid_text(function.get("name"))[0],
                                   "arguments": valid_text(function.get("arguments"))[0]}})
    return plain, None


def decode_completion(payload: bytes, max_answer_chars: int) -> tuple:
    """Raw response bytes -> ``(response, problem)`` via :func:`validate_completion`
    (invalid UTF-8 replaced, numbers of any size or depth never raise)."""
    text = payload.decode("utf-8", errors="replace")
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as error:
        return None, f"not JSON ({_short(f'{type(error).__name__}: {error}', 120)})"
    return validate_completion(document, max_answer_chars)


# --------------------------------------------------------------------------------------------
# One request with retries


@dataclasses.dataclass(frozen=True)
class RetryPolicy:
    """Retries on timeouts, dropped connections, HTTP 429 and 5xx; never on other 4xx.

    The wait before retry ``k`` (0-based) is ``min(backoff_max, backoff_base * 2**k)`` with
    "equal jitter" (uniformly between half and all of it), in seconds. A ``Retry-After`` (or
    ``retry-after-ms``) header replaces it: the server's wait plus up to 10% jitter, so the
    retry never comes before the server allows it. A server wait beyond ``retry_after_max``
    is not waited for: the request fails at once, naming the value.
    """

    max_retries: int = 6
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


@dataclasses.dataclass(frozen=True)
class RequestOutcome:
    """One request after retries: ``response`` dict, or ``None`` and the ``error`` with its
    ``kind`` (see :class:`RunSummary`)."""

    response: dict | None
    error: str | None
    attempts: int
    kind: str | None = None


def _short(message: object, limit: int = 300) -> str:
    text = " ".join(str(message).split())
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


_AUTH_VALUE = re.compile(r"(?i)((?:proxy-)?authorization\"?'?\s*[:=]\s*\"?'?)[^\"',}\n]*")
_BEARER = re.compile(r"(?i)\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=:-]{4,}")


def scrub(text: str, secrets: Sequence[str | None] = ()) -> str:
    """``text`` with each secret (key, header values) and any ``Authorization`` value or
    bearer / basic credential replaced by ``[redacted]``: safe to store and print.

    >>> scrub('bad key sk-123456, "Authorization": "Bearer sk-123456"', ["sk-123456"])
    'bad key [redacted], "Authorization": "[redacted]"'
    """
    for secret in sorted((s for s in secrets if s and len(s) >= 4), key=len, reverse=True):
        text = text.replace(secret, "[redacted]")
    text = _AUTH_VALUE.sub(lambda m: m.group(1) + "[redacted]", text)
    return _BEARER.sub(lambda m: m.group(1) + " [redacted]", text)


class _AttemptError(Exception):
    """An attempt failed while its body was read or ran past its deadline (``kind``:
    timeout, too_large, connection)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _read_body(response, deadline: float, max_bytes: int, timeout: float) -> bytes:
    """The body of a streamed response, cut at the attempt's wall-clock ``deadline`` and at
    ``max_bytes`` (a server dripping bytes cannot hold an attempt beyond ``--timeout``)."""
    chunks, size = [], 0
    try:
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > max_bytes:
                raise _AttemptError("too_large", f"answer larger than {max_bytes:,} bytes")
            if time.monotonic() > deadline:
                raise _AttemptError("timeout", f"timed out after {timeout:g} s (whole attempt)")
            chunks.append(chunk)
    except _AttemptError:
        raise
    except Exception as error:  # noqa: BLE001 - any transport error while reading the body
        raise _AttemptError("connection", f"connection error while reading the answer: "
                            f"{_short(f'{type(error).__name__}: {error}')}") from error
    return b"".join(chunks)


def _redirect_problem(history: Sequence) -> str | None:
    for step in history:
        if step.status_code in (301, 302, 303):
            return (f"HTTP {step.status_code} redirect turns the POST into a GET; refused (point "
                    f"--base-url at {_location_host(step)})")
    return None


def _location_host(response) -> str:
    location = response.headers.get("location", "")
    try:
        return endpoint_host(urllib.parse.urljoin(str(response.url), location))
    except ValueError:
        return repr(_short(location, 80))


def _within_deadline(exchange: Callable[[], tuple], deadline: float, timeout: float) -> tuple:
    """``exchange()`` run in a daemon thread and abandoned at ``deadline`` (monotonic
    seconds): httpx's timeouts bound each socket operation, not their sum, so a server
    sending its status line and headers byte by byte would otherwise hold the attempt
    forever. An abandoned exchange ends by itself (its body read checks the same deadline;
    otherwise at the server's close or httpx's per-read timeout) and its result is dropped.
    Exceptions of ``exchange`` propagate; abandonment raises a ``timeout`` _AttemptError."""
    outcome: dict = {}

    def run() -> None:
        try:
            outcome["value"] = exchange()
        except BaseException as error:  # noqa: BLE001 - handed to the waiting thread
            outcome["error"] = error

    worker = threading.Thread(target=run, name="courtbench-llm-attempt", daemon=True)
    worker.start()
    worker.join(max(0.0, deadline - time.monotonic()))
    if worker.is_alive():
        raise _AttemptError("timeout", f"timed out after {timeout:g} s (whole attempt)")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _attempt(client: openai.OpenAI, body: Mapping, timeout: float, max_answer_chars: int) -> RequestOutcome:
    """One HTTP attempt — connect, response headers and body — within ``timeout`` seconds
    of wall clock, then the boundary check. openai errors propagate (classified by
    :func:`_classify`)."""
    deadline = time.monotonic() + timeout

    def exchange() -> tuple:
        with client.chat.completions.with_streaming_response.create(**body, timeout=timeout) as response:
            return response.http_response, _read_body(response, deadline,
                                                      6 * max_answer_chars + 2**20, timeout)

    http, payload = _within_deadline(exchange, deadline, timeout)
    problem = _redirect_problem(http.history)
    if problem is not None:
        return RequestOutcome(None, problem, 1, "http")
    decoded, problem = decode_completion(payload, max_answer_chars)
    if problem is not None:
        kind = "too_large" if "exceeds the cap" in problem else "invalid"
        return RequestOutcome(None, f"invalid response: {problem}", 1, kind)
    if http.history:
        decoded["redirected_to"] = endpoint_host(str(http.url))
    return RequestOutcome(decoded, None, 1)


_QUOTA = re.compile(r"quota|billing|credit|insufficient", re.I)


def _classify(error: openai.APIStatusError, policy: RetryPolicy) -> tuple:
    """``(kind, reason, retry_after)`` of an HTTP error; ``retry_after`` is ``None`` for an
    error that is not retried."""
    status, message = error.status_code, _short(error.message)
    if 300 <= status < 400:
        return "http", (f"HTTP {status}: redirect to {_location_host(error.response)} refused "
                        "(pass --follow-redirects to follow it)"), None
    if status == 401:
        return "auth", f"HTTP 401 authentication failed (check the API key): {message}", None
    if status in (402, 403) or (status == 429 and _QUOTA.search(message)):
        return "auth", f"HTTP {status} access or quota refused: {message}", None
    if status != 429 and status < 500:
        return "http", f"HTTP {status}: {message}", None
    retry_after = parse_retry_after(error.response.headers)
    if retry_after is not None and retry_after > policy.retry_after_max:
        return "http", (f"HTTP {status}: the server asks to retry after {retry_after:g} s "
                        f"(Retry-After), beyond the {policy.retry_after_max:g} s cap; not "
                        f"retried"), None
    return "http", f"HTTP {status}: {message}", -1.0 if retry_after is None else retry_after


def _one_attempt(client, body, timeout: float, policy: RetryPolicy, max_answer_chars: int) -> tuple:
    """``(outcome or None, reason, kind, retry_after)``: an outcome ends the request; else
    the attempt is retried after ``retry_after`` (``None``: backoff)."""
    try:
        return _attempt(client, body, timeout, max_answer_chars), None, None, None
    except openai.APIStatusError as error:
        kind, reason, retry_after = _classify(error, policy)
        if retry_after is None:
            return RequestOutcome(None, reason, 1, kind), None, None, None
        return None, reason, kind, None if retry_after < 0 else retry_after
    except openai.APITimeoutError:
        return None, f"timed out after {timeout:g} s", "timeout", None
    except openai.APIConnectionError as error:
        cause = error.__cause__ or error
        return None, f"connection error: {_short(f'{type(cause).__name__}: {cause}')}", "connection", None
    except _AttemptError as error:
        if error.kind == "too_large":
            return RequestOutcome(None, f"invalid response: {error}", 1, "too_large"), None, None, None
        return None, str(error), error.kind, None
    except Exception as error:  # noqa: BLE001 - a malformed exchange: recorded, not retried
        return RequestOutcome(None, f"invalid response: {_short(f'{type(error).__name__}: {error}')}",
                              1, "invalid"), None, None, None


def request_with_retries(client: openai.OpenAI, body: Mapping, *, timeout: float,
                         policy: RetryPolicy, rng: random.Random | None = None,
                         sleep: Callable[[float], None] = time.sleep,
                         max_answer_chars: int = 1_000_000,
                         secrets: Sequence[str | None] = ()) -> RequestOutcome:
    """Send one chat-completions request, retrying as ``policy`` says.

    Args:
        client: an ``openai.OpenAI`` client with its own retries off (``max_retries=0``).
        body: keyword arguments of ``client.chat.completions.create`` (model, messages, ...).
        timeout: seconds of wall clock per attempt (connect, wait and read together).
        max_answer_chars: see :class:`EndpointConfig`.
        secrets: texts scrubbed from every error message (:func:`scrub`).

    Returns:
        RequestOutcome; ``response`` as :func:`validate_completion`. Non-retryable failures
        (other 4xx, auth / quota, a body that is no valid chat completion) and exhausted
        retries give ``error`` (scrubbed) and ``kind``.
    """
    rng = rng or random.Random()
    for attempt in range(policy.max_retries + 1):
        outcome, reason, kind, retry_after = _one_attempt(client, body, timeout, policy,
                                                          max_answer_chars)
        if outcome is not None:
            error = scrub(outcome.error, secrets) if outcome.error else None
            return RequestOutcome(outcome.response, error, attempt + 1, outcome.kind)
        if attempt == policy.max_retries:
            return RequestOutcome(None, scrub(f"{reason} (gave up after {attempt + 1} attempts)",
                                              secrets), attempt + 1, kind)
        sleep(policy.delay(attempt, retry_after, rng))
    raise AssertionError("unreachable")  # pragma: no cover


# --------------------------------------------------------------------------------------------
# Many requests


def _result(request_id: str, response: dict | None, error: str | None, cached: bool,
            kind: str | None = None) -> ChatResult:
    if response is None:
        return ChatResult(request_id, None, None, None, dict.fromkeys(USAGE_FIELDS, 0), error,
                          cached, kind or "invalid")
    answer, reasoning, _ = split_reasoning(response.get("content"), response.get("reasoning_content"))
    usage, _ = _usage_counts(response.get("usage"))
    boundary = dict(response.get("boundary") or {})
    if response.get("redirected_to"):
        boundary["redirected_to"] = response["redirected_to"]
    calls = response.get("tool_calls")
    return ChatResult(request_id, answer, reasoning, response.get("finish_reason"), usage, None,
                      cached, None, boundary,
                      tuple(calls) if isinstance(calls, list) and calls else None)


class _AuthBreaker:
    """Counts consecutive auth / quota failures; open (stop sending) after ``limit``."""

    def __init__(self, limit: int) -> None:
        self.limit, self.streak, self.last = limit, 0, None
        self._lock = threading.Lock()

    def record(self, outcome: RequestOutcome) -> None:
        with self._lock:
            if outcome.kind == "auth":
                self.streak, self.last = self.streak + 1, outcome.error
            elif outcome.response is not None:
                self.streak = 0

    def refusal(self) -> RequestOutcome | None:
        with self._lock:
            if self.streak < self.limit:
                return None
            return RequestOutcome(None, f"not sent: stopped after {self.streak} consecutive "
                                  f"authentication / quota errors (last: {self.last})", 0,
                                  "not_sent")


def _client(config: EndpointConfig, api_key: str | None) -> openai.OpenAI:
    return openai.OpenAI(base_url=config.base_url, api_key=api_key or "no-key", max_retries=0,
                         timeout=config.timeout, default_headers=dict(config.headers) or None,
                         http_client=openai.DefaultHttpxClient(
                             follow_redirects=config.follow_redirects, timeout=config.timeout))


def _send_all(pending: dict, config: EndpointConfig, api_key: str | None, cache,
              on_done: Callable[[str], None]) -> tuple:
    """Send ``pending`` (key -> body) with ``config.concurrency`` threads; each response is
    cached as it arrives. Returns ``(outcomes by key, attempts)``. A cache write failure
    (:class:`CacheWriteError`) stops the run: nothing more is sent, it propagates."""
    outcomes: dict = {}
    if not pending:
        return outcomes, 0
    client = _client(config, api_key)
    policy = RetryPolicy(config.max_retries, config.backoff_base, config.backoff_max)
    breaker = _AuthBreaker(config.max_auth_failures)
    secrets = [api_key, *(value for _, value in config.headers)]

    def work(key: str) -> tuple:
        outcome = breaker.refusal() or request_with_retries(
            client, pending[key], timeout=config.timeout, policy=policy,
            max_answer_chars=config.max_answer_chars, secrets=secrets)
        breaker.record(outcome)
        if outcome.response is not None and cache is not None:
            cache.put(key, pending[key], outcome.response)
        return key, outcome

    executor = concurrent.futures.ThreadPoolExecutor(max_workers=config.concurrency,
                                                     thread_name_prefix="courtbench-llm")
    try:
        futures = [executor.submit(work, key) for key in pending]
        for future in concurrent.futures.as_completed(futures):
            key, outcome = future.result()
            outcomes[key] = outcome
            on_done(key)
        executor.shutdown(wait=True)
    except BaseException:
        executor.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        client.close()
    return outcomes, sum(o.attempts for o in outcomes.values())


def _summary(results: list, attempts: int, corrupt: int, started: float) -> RunSummary:
    """The counts of a run's results (see :class:`RunSummary`)."""
    kinds = collections.Counter(r.failure_kind for r in results if r.error is not None)
    return RunSummary(
        results, sent=sum(not r.cached and r.error is None for r in results),
        cached=sum(r.cached for r in results), failed=sum(r.error is not None for r in results),
        usage={name: sum(r.usage[name] for r in results) for name in USAGE_FIELDS},
        attempts=attempts, cache_corrupt=corrupt, elapsed=time.perf_counter() - started,
        truncated=sum(r.error is None and r.finish_reason == "length" for r in results),
        failures_by_kind=dict(sorted(kinds.items())),
        surrogates_replaced=sum(r.boundary.get("surrogates_replaced", 0) for r in results),
        usage_ignored=sum(r.boundary.get("usage_ignored", 0) for r in results),
        redirects=sum("redirected_to" in r.boundary for r in results))


def run_requests(requests: Sequence[ChatRequest], config: EndpointConfig, *,
                 api_key: str | None = None,
                 on_start: Callable[[int], None] | None = None,
                 on_done: Callable[[int], None] | None = None) -> RunSummary:
    """Obtain every request: from the cache, else from the endpoint.

    Identical requests (same key) are sent once. ``api_key`` overrides the key named by
    ``config.api_key_env``. ``on_start(n)`` is called with the number of requests answered
    from the cache, ``on_done(n)`` as each sent request completes with the number of
    requests it answers (progress bars).

    Returns:
        RunSummary with one ChatResult per request, in the order given.

    Raises:
        CacheWriteError: an answer could not be stored (those stored before are kept).
    """
    started = time.perf_counter()
    keys = [request_key(config.model, r.messages, r.params) for r in requests]
    bodies = {}
    for key, request in zip(keys, requests, strict=True):
        bodies.setdefault(key, request_body(request, config.model))
    cache = ResponseCache(config.cache_path) if config.cache_path is not None else None
    try:
        stored, corrupt = cache.get_many(list(bodies)) if cache else ({}, {})
        for key, problem in corrupt.items():
            logger.warning("cache %s: entry %s is corrupt (%s); requesting it again",
                           cache.path, key[:12], problem)
        if on_start is not None:
            on_start(sum(key in stored for key in keys))
        pending = {key: body for key, body in bodies.items() if key not in stored}
        rows_per_key = collections.Counter(keys)
        outcomes, attempts = _send_all(pending, config,
                                       api_key if api_key is not None else config.api_key(),
                                       cache, lambda key: on_done and on_done(rows_per_key[key]))
    finally:
        if cache is not None:
            cache.close()
    results = []
    for key, request in zip(keys, requests, strict=True):
        if key in stored:
            results.append(_result(request.id, stored[key], None, True))
        else:
            outcome = outcomes[key]
            results.append(_result(request.id, outcome.response, outcome.error, False,
                                   outcome.kind))
    return _summary(results, attempts, len(corrupt), started)


def dry_run_text(requests: Sequence[ChatRequest], config: EndpointConfig) -> str:
    """The first request as it would be sent (JSON, with the endpoint host) and the count."""
    if not requests:
        return f"dry run: 0 requests to {endpoint_host(config.base_url)}; nothing to send"
    first = {"endpoint": endpoint_host(config.base_url), "id": requests[0].id,
             "body": request_body(requests[0], config.model)}
    return (json.dumps(first, indent=2, ensure_ascii=False)
            + f"\ndry run: {len(requests)} request(s) to {endpoint_host(config.base_url)}, "
              f"model {config.model}; nothing sent")
