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
  sends nothing and a killed run resumes with only the remainder.
- :func:`split_reasoning` keeps ``<think>`` text and ``reasoning_content`` apart from the answer.
"""

import collections
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

    def __post_init__(self) -> None:
        endpoint_host(self.base_url)  # validates the URL
        if not isinstance(self.model, str) or not self.model:
            raise ValueError(f"model must be a non-empty string, got {self.model!r}")
        for name, minimum in (("concurrency", 1), ("max_retries", 0)):
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
    tool_calls: tuple | None = None


@dataclasses.dataclass(frozen=True)
class RunSummary:
    """All results (same order as the requests) and the run's counts.

    ``sent``: results obtained from the endpoint in this run; ``cached``: from the cache;
    ``failed``: results with an ``error``. ``usage``: token usage summed over all results
    (cached ones included: what the outputs cost). ``attempts``: HTTP attempts made;
    ``cache_corrupt``: cache entries found corrupt and requested again; ``elapsed``: seconds.
    """

    results: list
    sent: int
    cached: int
    failed: int
    usage: dict
    attempts: int = 0
    cache_corrupt: int = 0
    elapsed: float = 0.0


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


def sha256_text(text: str) -> str:
    """sha256 (hex) of the UTF-8 bytes of ``text``."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


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


_REASONING_BLOCK = re.compile(r"<(think|thinking|reasoning)>(.*?)</\1\s*>", re.S | re.I)
_REASONING_OPEN = re.compile(r"<(?:think|thinking|reasoning)>", re.I)
_REASONING_CLOSE = re.compile(r"</(?:think|thinking|reasoning)\s*>", re.I)


def split_reasoning(content: str | None, reasoning_content: str | None = None) -> tuple:
    """Separate reasoning from the answer.

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
    parts += [m.group(2).strip() for m in _REASONING_BLOCK.finditer(content)]
    text = _REASONING_BLOCK.sub("", content)
    closes = list(_REASONING_CLOSE.finditer(text))
    if closes:
        parts.append(text[:closes[-1].start()].strip())
        text = text[closes[-1].end():]
    opened = _REASONING_OPEN.search(text)
    if opened:
        parts.append(text[opened.end():].strip())
        text = text[:opened.start()]
    reasoning = "\n\n".join(p for p in parts if p) or None
    return text.strip(), reasoning, opened is not None


# --------------------------------------------------------------------------------------------
# Response cache (SQLite)


class ResponseCache:
    """Responses persisted in an SQLite file, one row per :func:`request_key`; thread-safe.

    A row holds the request body (model, messages, parameters; never a URL or key), the
    response JSON (content, reasoning_content, finish_reason, model, usage) and its sha256.
    Each response is committed as soon as it arrives, so a killed run keeps everything
    received so far. A row whose checksum or JSON is wrong is reported and requested again.
    """

    SCHEMA = ("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, request TEXT NOT NULL, "
              "response TEXT NOT NULL, response_sha256 TEXT NOT NULL, created_utc TEXT NOT NULL)")

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = os.fspath(path)
        if os.path.isdir(self.path):
            raise ValueError(f"cache {self.path!r} is a directory; give a file path")
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._connection = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
            self._connection.execute("PRAGMA journal_mode=WAL")
            self._connection.execute("PRAGMA synchronous=NORMAL")
            self._connection.execute(self.SCHEMA)
            self._connection.commit()
        except sqlite3.DatabaseError as error:
            raise ValueError(f"cache {self.path!r} is not a usable SQLite cache ({error}); "
                             "delete it or choose another cache path") from error

    def get_many(self, keys: Sequence[str]) -> tuple:
        """Return ``(responses, problems)``: key -> response dict for usable entries, and
        key -> reason for corrupt ones; keys without an entry are in neither."""
        rows = {}
        unique = list(dict.fromkeys(keys))
        with self._lock:
            for start in range(0, len(unique), 500):
                chunk = unique[start:start + 500]
                marks = ",".join("?" * len(chunk))
                rows.update((key, (text, checksum)) for key, text, checksum in self._connection.execute(
                    f"SELECT key, response, response_sha256 FROM responses WHERE key IN ({marks})",
                    chunk))
        responses, problems = {}, {}
        for key, (text, checksum) in rows.items():
            response, problem = _decode_cached(text, checksum)
            if problem is None:
                responses[key] = response
            else:
                problems[key] = problem
        return responses, problems

    def put(self, key: str, body: Mapping, response: Mapping) -> None:
        """Store (or replace) the response for ``key`` and commit."""
        text = json.dumps(response, ensure_ascii=False, sort_keys=True)
        request_text = json.dumps(body, ensure_ascii=False, sort_keys=True)
        created = datetime.now(timezone.utc).isoformat(timespec="seconds")
        with self._lock:
            self._connection.execute("INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?)",
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
    except json.JSONDecodeError as error:
        return None, f"invalid JSON ({error})"
    if not isinstance(response, dict) or not isinstance(response.get("content"), (str, type(None))):
        return None, "no 'content' field"
    return response, None


# --------------------------------------------------------------------------------------------
# One request with retries


@dataclasses.dataclass(frozen=True)
class RetryPolicy:
    """Retries on timeouts, dropped connections, HTTP 429 and 5xx; never on other 4xx.

    The wait before retry ``k`` (0-based) is ``min(backoff_max, backoff_base * 2**k)`` with
    "equal jitter" (uniformly between half and all of it), in seconds. A ``Retry-After`` (or
    ``retry-after-ms``) header replaces it: the server's wait (at most ``retry_after_max``)
    plus up to 10% jitter, so the retry never comes before the server allows it.
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
    """One request after retries: ``response`` dict, or ``None`` and the ``error``."""

    response: dict | None
    error: str | None
    attempts: int


def _short(message: object, limit: int = 300) -> str:
    text = " ".join(str(message).split())
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def _response_dict(completion: object) -> dict | None:
    """content, reasoning_content, finish_reason, model and usage of a completion."""
    choices = getattr(completion, "choices", None)
    message = getattr(choices[0], "message", None) if choices else None
    if message is None:
        return None
    reasoning = getattr(message, "reasoning_content", None) or getattr(message, "reasoning", None)
    usage = getattr(completion, "usage", None)
    counts = {name: getattr(usage, name, None) for name in USAGE_FIELDS}
    response = {"content": message.content,
                "reasoning_content": reasoning if isinstance(reasoning, str) else None,
                "finish_reason": choices[0].finish_reason,
                "model": getattr(completion, "model", None),
                "usage": {k: v if isinstance(v, int) else 0 for k, v in counts.items()}}
    tool_calls = _tool_calls(message)
    if tool_calls:  # only then: responses without tool calls are stored as before
        response["tool_calls"] = tool_calls
    return response


def _tool_calls(message: object) -> list:
    """The message's tool calls as plain dicts (id, type, function name and arguments text)."""
    calls = []
    for call in getattr(message, "tool_calls", None) or ():
        function = getattr(call, "function", None)
        calls.append({"id": getattr(call, "id", None), "type": getattr(call, "type", "function"),
                      "function": {"name": getattr(function, "name", None),
                                   "arguments": getattr(function, "arguments", None)}})
    return calls


def request_with_retries(client: openai.OpenAI, body: Mapping, *, timeout: float,
                         policy: RetryPolicy, rng: random.Random | None = None,
                         sleep: Callable[[float], None] = time.sleep) -> RequestOutcome:
    """Send one chat-completions request, retrying as ``policy`` says.

    Args:
        client: an ``openai.OpenAI`` client with its own retries off (``max_retries=0``).
        body: keyword arguments of ``client.chat.completions.create`` (model, messages, ...).
        timeout: seconds per attempt.

    Returns:
        RequestOutcome; ``response`` as :func:`_response_dict`. Non-retryable failures
        (other 4xx, a body that is no chat completion) and exhausted retries give ``error``.
    """
    rng = rng or random.Random()
    for attempt in range(policy.max_retries + 1):
        retry_after = None
        try:
            completion = client.chat.completions.create(**body, timeout=timeout)
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
        except Exception as error:  # noqa: BLE001 - a malformed body: recorded, not retried
            return RequestOutcome(None, f"invalid response: {_short(f'{type(error).__name__}: {error}')}",
                                  attempt + 1)
        else:
            response = _response_dict(completion)
            if response is None:
                return RequestOutcome(None, "invalid response: no choices/message", attempt + 1)
            return RequestOutcome(response, None, attempt + 1)
        if attempt == policy.max_retries:
            return RequestOutcome(None, f"{reason} (gave up after {attempt + 1} attempts)", attempt + 1)
        sleep(policy.delay(attempt, retry_after, rng))
    raise AssertionError("unreachable")  # pragma: no cover


# --------------------------------------------------------------------------------------------
# Many requests


def _result(request_id: str, response: dict | None, error: str | None, cached: bool) -> ChatResult:
    if response is None:
        return ChatResult(request_id, None, None, None, dict.fromkeys(USAGE_FIELDS, 0), error, cached)
    answer, reasoning, _ = split_reasoning(response.get("content"), response.get("reasoning_content"))
    usage = response.get("usage") or {}
    calls = response.get("tool_calls")
    return ChatResult(request_id, answer, reasoning, response.get("finish_reason"),
                      {k: int(usage.get(k) or 0) for k in USAGE_FIELDS}, None, cached,
                      tuple(calls) if isinstance(calls, list) and calls else None)


def _send_all(pending: dict, config: EndpointConfig, api_key: str | None, cache,
              on_done: Callable[[str], None]) -> tuple:
    """Send ``pending`` (key -> body) with ``config.concurrency`` threads; each response is
    cached as it arrives. Returns ``(outcomes by key, attempts)``."""
    outcomes: dict = {}
    if not pending:
        return outcomes, 0
    client = openai.OpenAI(base_url=config.base_url, api_key=api_key or "no-key",
                           max_retries=0, timeout=config.timeout)
    policy = RetryPolicy(config.max_retries, config.backoff_base, config.backoff_max)

    def work(key: str) -> tuple:
        outcome = request_with_retries(client, pending[key], timeout=config.timeout, policy=policy)
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
        executor.shutdown(wait=False, cancel_futures=True)
        raise
    finally:
        client.close()
    return outcomes, sum(o.attempts for o in outcomes.values())


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
            results.append(_result(request.id, outcome.response, outcome.error, False))
    usage = {name: sum(r.usage[name] for r in results) for name in USAGE_FIELDS}
    return RunSummary(results, sent=sum(not r.cached and r.error is None for r in results),
                      cached=sum(r.cached for r in results),
                      failed=sum(r.error is not None for r in results), usage=usage,
                      attempts=attempts, cache_corrupt=len(corrupt),
                      elapsed=time.perf_counter() - started)


def dry_run_text(requests: Sequence[ChatRequest], config: EndpointConfig) -> str:
    """The first request as it would be sent (JSON, with the endpoint host) and the count."""
    if not requests:
        return f"dry run: 0 requests to {endpoint_host(config.base_url)}; nothing to send"
    first = {"endpoint": endpoint_host(config.base_url), "id": requests[0].id,
             "body": request_body(requests[0], config.model)}
    return (json.dumps(first, indent=2, ensure_ascii=False)
            + f"\ndry run: {len(requests)} request(s) to {endpoint_host(config.base_url)}, "
              f"model {config.model}; nothing sent")
