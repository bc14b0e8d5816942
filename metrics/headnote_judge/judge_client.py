"""The headnote judge's requests to an OpenAI-compatible chat-completions endpoint.

What the judge needs and no more, on the ``openai`` client (its requirement):

- retries are the client's own (``max_retries``): exponential backoff with jitter on
  connection errors, timeouts, 408 / 409 / 429 / 5xx, honouring ``Retry-After``; every HTTP
  attempt is counted through an httpx event hook, so ``n_http_requests`` and ``n_retries``
  are what went over the wire;
- ``concurrency`` requests in flight (a thread pool); identical requests are sent once;
- an SQLite cache of answers (:class:`AnswerCache`) keyed by model, messages and parameters
  (never the URL, never the key), committed as each answer arrives: a rerun sends nothing and
  a killed run resumes with the rest. Its file format is courtbench's LLM response cache
  (same marker, schema and keys), so caches written by ``courtbench judge`` stay valid;
- after ``max_auth_failures`` consecutive authentication / quota refusals nothing more is
  sent (a wrong key does not cost thousands of refused requests);
- every answer passes :func:`read_answer`: text made valid Unicode (lone surrogates become
  U+FFFD, counted), implausible usage ignored, an answer over ``max_answer_chars`` refused;
- ``<think>`` blocks and ``reasoning_content`` are kept apart from the answer
  (:func:`split_reasoning`); the key and header values never reach a message or the cache.

Not here (courtbench's former client had them): a wall-clock bound per attempt beyond the
client's per-operation timeouts, backoff parameters (the client's are fixed: 0.5 s doubling
to 8 s), and a cap on a server's ``Retry-After`` (the client waits at most 60 s).
"""

import collections
import concurrent.futures
import contextlib
import dataclasses
import hashlib
import json
import os
import re
import sqlite3
import threading
import time
import urllib.parse
from datetime import datetime, timezone

import openai

from .reasoning import split_reasoning

USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "total_tokens")
#: Usage numbers above this (tokens per request) are ignored as absurd.
MAX_USAGE = 10**12
CACHE_MARK = "courtbench-llm-response-cache"
CACHE_VERSION = 2
_SQLITE_HEADER = b"SQLite format 3\x00"
_SURROGATE = re.compile("[\ud800-\udfff]")
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_QUOTA = re.compile(r"quota|billing|credit|insufficient", re.I)


@dataclasses.dataclass(frozen=True)
class Endpoint:
    """Where and how requests go. ``api_key`` and header values are secrets: never shown
    (``repr`` leaves them out), stored or put into a message."""

    base_url: str
    model: str
    api_key: str | None = dataclasses.field(default=None, repr=False)
    concurrency: int = 8
    timeout: float = 120.0
    max_retries: int = 6
    cache_path: str | os.PathLike | None = None
    max_answer_chars: int = 1_000_000
    headers: tuple = dataclasses.field(default=(), repr=False)
    follow_redirects: bool = False
    max_auth_failures: int = 3

    @property
    def secrets(self):
        return [s for s in (self.api_key, *(value for _, value in self.headers)) if s]


@dataclasses.dataclass(frozen=True)
class Answer:
    """One request's outcome: ``answer`` (content without reasoning blocks), ``reasoning``,
    ``finish_reason``, ``usage``, or ``error`` with its ``failure_kind``; ``cached`` when it
    came from the cache; ``surrogates``: lone surrogates replaced in its text."""

    answer: str | None
    reasoning: str | None
    finish_reason: str | None
    usage: dict
    error: str | None = None
    cached: bool = False
    failure_kind: str | None = None
    surrogates: int = 0


@dataclasses.dataclass
class Run:
    """All answers (in request order) and the run's counts."""

    answers: list
    attempts: int = 0
    cache_corrupt: int = 0
    elapsed: float = 0.0

    def count(self, predicate):
        return sum(1 for answer in self.answers if predicate(answer))


def check_headers(headers):
    """ValueError unless ``headers`` are ``(name, value)`` strings HTTP allows."""
    for item in headers:
        if not (isinstance(item, tuple) and len(item) == 2 and all(isinstance(x, str) for x in item)):
            raise ValueError(f"headers must be (name, value) string pairs, got {item!r:.100}")
        if not _HEADER_NAME.fullmatch(item[0]) or any(c in item[1] for c in "\r\n\x00"):
            raise ValueError(f"headers: {item[0]!r:.100} is no valid header name, or its value "
                             "holds a line break")


def request_key(model, messages, params):
    """The cache key: sha256 of the canonical JSON of model, messages and parameters."""
    payload = {"model": model, "messages": [dict(m) for m in messages], "params": dict(params)}
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _valid(text):
    if not isinstance(text, str):
        return None, 0
    return _SURROGATE.subn("\ufffd", text)


def read_answer(completion, max_answer_chars):
    """``(response dict, problem)`` of a chat completion (``openai``'s object): content,
    reasoning_content, finish_reason, model (valid Unicode), usage (plausible integers, else
    0) and the number of lone surrogates replaced; ``problem`` names what makes it no answer."""
    choices = getattr(completion, "choices", None)
    if not choices:
        return None, "the completion has no choices"
    message = choices[0].message
    extra = getattr(message, "model_extra", None) or {}
    fields = {"content": message.content,
              "reasoning_content": extra.get("reasoning_content") or extra.get("reasoning"),
              "finish_reason": choices[0].finish_reason, "model": completion.model}
    replaced = 0
    for name, value in fields.items():
        fields[name], count = _valid(value)
        replaced += count
    size = len(fields["content"] or "") + len(fields["reasoning_content"] or "")
    if size > max_answer_chars:
        return None, f"answer of {size:,} characters exceeds the cap of {max_answer_chars:,}"
    usage = completion.usage.model_dump() if completion.usage is not None else {}
    fields["usage"] = {name: value if isinstance(value, int) and not isinstance(value, bool)
                       and 0 <= value <= MAX_USAGE else 0
                       for name, value in ((n, usage.get(n)) for n in USAGE_FIELDS)}
    fields["boundary"] = {"surrogates_replaced": replaced}
    return fields, None


def scrub(text, secrets):
    """``text`` with each secret replaced by ``[redacted]``."""
    for secret in sorted((s for s in secrets if len(s) >= 4), key=len, reverse=True):
        text = text.replace(secret, "[redacted]")
    return " ".join(text.split())[:500]


# --------------------------------------------------------------------------- the cache


class AnswerCache:
    """Answers in an SQLite file the judge (or courtbench) created; thread-safe.

    The file carries the marker table ``courtbench_cache`` (name, version); any other file is
    refused and never written. Entries are only added: a key may hold several answers, the
    earliest valid one is used (the first run stays reproducible); each is committed as it
    arrives. A row whose checksum does not match is corrupt: requested again and counted.
    """

    SCHEMA = ("CREATE TABLE courtbench_cache (name TEXT NOT NULL, version INTEGER NOT NULL);"
              "CREATE TABLE responses (id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL, "
              "request TEXT NOT NULL, response TEXT NOT NULL, response_sha256 TEXT NOT NULL, "
              "created_utc TEXT NOT NULL, UNIQUE (key, response_sha256));"
              "CREATE INDEX responses_by_key ON responses (key, id);")

    def __init__(self, path):
        self.path = os.fspath(path)
        if os.path.isdir(self.path):
            raise ValueError(f"cache_path {self.path!r} is a directory; give a file path")
        if not os.path.lexists(self.path):
            self._create()
        problem = self._foreign()
        if problem:
            raise ValueError(f"cache_path {self.path!r} {problem}; only a cache file the judge "
                             "created is written: give a new file path")
        self._lock = threading.Lock()
        self._connection = sqlite3.connect(self.path, check_same_thread=False, timeout=30)

    def _create(self):
        """The schema in a temporary file linked into place (never replacing a file)."""
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        temporary = f"{self.path}.{os.getpid()}.{threading.get_ident()}.partial"
        try:
            with contextlib.closing(sqlite3.connect(temporary)) as connection:
                connection.executescript(self.SCHEMA)
                connection.execute("INSERT INTO courtbench_cache VALUES (?, ?)",
                                   (CACHE_MARK, CACHE_VERSION))
                connection.commit()
            with contextlib.suppress(FileExistsError):
                os.link(temporary, self.path)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temporary)

    def _foreign(self):
        with open(self.path, "rb") as handle:
            if handle.read(len(_SQLITE_HEADER)) != _SQLITE_HEADER:
                return "is not an SQLite file"
        uri = "file:" + urllib.parse.quote(os.path.abspath(self.path)) + "?mode=ro&immutable=1"
        try:
            with contextlib.closing(sqlite3.connect(uri, uri=True)) as connection:
                rows = connection.execute("SELECT name, version FROM courtbench_cache").fetchall()
        except sqlite3.Error:
            return "is an SQLite database without the cache marker (table courtbench_cache)"
        return None if rows == [(CACHE_MARK, CACHE_VERSION)] else f"has another marker {rows[:2]!r}"

    def get_many(self, keys):
        """``(found, corrupt)``: key -> response of the earliest valid entry; keys whose every
        entry is corrupt."""
        found, corrupt = {}, set()
        with self._lock:
            for key in dict.fromkeys(keys):
                rows = self._connection.execute("SELECT response, response_sha256 FROM "
                                                "responses WHERE key = ? ORDER BY id", (key,))
                for text, checksum in rows:
                    response = _decoded(text, checksum)
                    if response is not None:
                        found[key] = response
                        break
                    corrupt.add(key)
        return found, corrupt - set(found)

    def put(self, key, request, response):
        text = json.dumps(response, ensure_ascii=False, sort_keys=True)
        # readable text, as courtbench's cache stores it; \u-escaped only where a lone
        # surrogate could not be stored as UTF-8
        request_text = json.dumps(request, ensure_ascii=False, sort_keys=True)
        if _SURROGATE.search(request_text):
            request_text = json.dumps(request, sort_keys=True)
        created = datetime.now(timezone.utc).isoformat(timespec="seconds")
        with self._lock:
            self._connection.execute(
                "INSERT OR IGNORE INTO responses (key, request, response, response_sha256, "
                "created_utc) VALUES (?, ?, ?, ?, ?)",
                (key, request_text, text, hashlib.sha256(text.encode("utf-8")).hexdigest(),
                 created))
            self._connection.commit()

    def close(self):
        with self._lock:
            self._connection.close()


def _decoded(text, checksum):
    if not isinstance(text, str) or hashlib.sha256(text.encode("utf-8", "surrogatepass")
                                                   ).hexdigest() != checksum:
        return None
    try:
        response = json.loads(text)
    except ValueError:
        return None
    ok = isinstance(response, dict) and isinstance(response.get("content"), (str, type(None)))
    return response if ok else None


# --------------------------------------------------------------------------- sending


def _answer(response, cached):
    answer, reasoning, _ = split_reasoning(response.get("content"),
                                           response.get("reasoning_content"))
    usage = {name: int((response.get("usage") or {}).get(name) or 0) for name in USAGE_FIELDS}
    return Answer(answer, reasoning, response.get("finish_reason"), usage, cached=cached,
                  surrogates=int((response.get("boundary") or {}).get("surrogates_replaced", 0)))


def _failure(message, kind):
    return Answer(None, None, None, dict.fromkeys(USAGE_FIELDS, 0), error=message,
                  failure_kind=kind)


def _classify(error):
    """``(kind, message)`` of an error the client gave up on."""
    if isinstance(error, openai.APIStatusError):
        status, text = error.status_code, str(error.message)
        if status == 401 or status in (402, 403) or (status == 429 and _QUOTA.search(text)):
            return "auth", f"HTTP {status} authentication, access or quota refused: {text}"
        if 300 <= status < 400:
            return "http", f"HTTP {status}: redirect refused (follow_redirects is off)"
        return "http", f"HTTP {status}: {text}"
    if isinstance(error, openai.APITimeoutError):
        return "timeout", "timed out"
    if isinstance(error, openai.APIConnectionError):
        cause = error.__cause__ or error
        return "connection", f"connection error: {type(cause).__name__}: {cause}"
    return "invalid", f"invalid response: {type(error).__name__}: {error}"


class _Sender:
    """Sends request bodies through one client; counts attempts; stops after repeated
    authentication failures."""

    def __init__(self, endpoint):
        self.endpoint = endpoint
        self.attempts = 0
        self._lock = threading.Lock()
        self._auth_streak = 0
        http = openai.DefaultHttpxClient(follow_redirects=endpoint.follow_redirects,
                                         event_hooks={"request": [self._count]})
        self.client = openai.OpenAI(base_url=endpoint.base_url, api_key=endpoint.api_key or "none",
                                    max_retries=endpoint.max_retries, timeout=endpoint.timeout,
                                    default_headers=dict(endpoint.headers) or None,
                                    http_client=http)

    def _count(self, request):
        with self._lock:
            self.attempts += 1

    def send(self, body):
        """``(response dict or None, Answer on failure or None)``."""
        with self._lock:
            if self._auth_streak >= self.endpoint.max_auth_failures:
                return None, _failure(f"not sent: stopped after {self._auth_streak} consecutive "
                                      "authentication / quota errors", "not_sent")
        try:
            completion = self.client.chat.completions.create(**body)
            response, problem = read_answer(completion, self.endpoint.max_answer_chars)
            kind = "too_large" if problem and "exceeds the cap" in problem else "invalid"
        except Exception as error:  # noqa: BLE001 - every failure becomes a failed sample
            response, (kind, problem) = None, _classify(error)
        with self._lock:
            if response is not None:
                self._auth_streak = 0
            elif kind == "auth":
                self._auth_streak += 1
        if response is None:
            return None, _failure(scrub(problem, self.endpoint.secrets), kind)
        return response, None


def run(requests, endpoint, on_start=None, on_done=None):
    """Obtain every request ``(messages, params)``: from the cache, else from the endpoint.

    Identical requests (same key) are sent once; ``on_start(n)`` gets the number answered
    from the cache, ``on_done(n)`` the number each sent request answers (progress bars).
    Returns a :class:`Run` with one :class:`Answer` per request, in order.
    """
    started = time.perf_counter()
    keys = [request_key(endpoint.model, messages, params) for messages, params in requests]
    bodies = {}
    for key, (messages, params) in zip(keys, requests, strict=True):
        bodies.setdefault(key, {"model": endpoint.model, "messages": [dict(m) for m in messages],
                                **params})
    cache = AnswerCache(endpoint.cache_path) if endpoint.cache_path is not None else None
    try:
        stored, corrupt = cache.get_many(list(bodies)) if cache else ({}, set())
        if on_start is not None:
            on_start(sum(key in stored for key in keys))
        pending = {key: body for key, body in bodies.items() if key not in stored}
        outcomes, attempts = _send_all(pending, endpoint, cache, collections.Counter(keys), on_done)
    finally:
        if cache is not None:
            cache.close()
    answers = [_answer(stored[key], True) if key in stored else outcomes[key] for key in keys]
    return Run(answers, attempts, len(corrupt), time.perf_counter() - started)


def _send_all(pending, endpoint, cache, rows_per_key, on_done):
    """Send ``pending`` (key -> body) with ``endpoint.concurrency`` threads; cache each answer
    as it arrives. Returns ``(Answer by key, HTTP attempts)``."""
    if not pending:
        return {}, 0
    sender = _Sender(endpoint)

    def work(key):
        response, failure = sender.send(pending[key])
        if response is None:
            return key, failure
        if cache is not None:
            cache.put(key, pending[key], response)
        return key, _answer(response, False)

    outcomes = {}
    try:
        with concurrent.futures.ThreadPoolExecutor(endpoint.concurrency) as executor:
            for future in concurrent.futures.as_completed([executor.submit(work, key)
                                                           for key in pending]):
                key, outcome = future.result()
                outcomes[key] = outcome
                if on_done is not None:
                    on_done(rows_per_key[key])
    finally:
        sender.client.close()
    return outcomes, sender.attempts
