"""Bounded Hub calls: every request courtbench sends to the Hub ends within a known time.

``huggingface_hub`` sends many requests with no timeout at all (``timeout=None``) and retries
timeouts and connection errors with back-off, so a network that accepts connections and never
answers held ``courtbench submit`` for 399 s. Two bounds fix that:

- :func:`bounded_hub_requests`: while active, huggingface_hub's HTTP client caps every socket
  operation (connect, each read, each write, waiting for a connection) at ``per_operation``
  seconds, and a timeout or a connection failure ends the call at once (it is raised as
  :class:`HubTransportError`, which huggingface_hub does not retry); a server's request to
  wait (``Retry-After``) is not followed beyond its own back-off of a few seconds;
- :func:`call_with_deadline`: one whole call (several requests, back-off included) abandoned
  after ``seconds`` of wall clock — a server that sends its answer a byte at a time cannot
  hold it either.

Uploads (``courtbench publish``) use the first only: they may take long, but never wait on
silence for longer than ``per_operation``.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from courtbench.boundary import BoundaryError, check_number
from courtbench.errors import CourtbenchError

#: Longest wait for any one socket operation (seconds); the environment variable
#: ``COURTBENCH_HUB_TIMEOUT`` sets another (a slow network, a test against a silent server).
PER_OPERATION_SECONDS = 20.0
TIMEOUT_VARIABLE = "COURTBENCH_HUB_TIMEOUT"
#: Longest wall-clock time of one bounded call (reading a card, opening a pull request).
CALL_SECONDS = 60.0
_WAIT_HEADERS = ("retry-after", "ratelimit", "ratelimit-policy", "x-ratelimit-reset")
_RETRIED_STATUSES = (408, 429, 500, 502, 503, 504)


def _http_library():
    """The HTTP library huggingface_hub uses (``httpx2`` for huggingface_hub 2, else
    ``httpx``) and its ``_http`` module."""
    from huggingface_hub.utils import _http

    library = getattr(_http, "httpx2", None) or _http.httpx
    return library, _http


def bounded_transport(library, per_operation: float):
    """An HTTP transport of ``library`` that caps every timeout at ``per_operation``
    seconds, turns timeouts and connection errors into ``HubTransportError`` (a transport
    error huggingface_hub does not retry) and drops wait-longer headers from answers
    huggingface_hub would retry."""

    class HubTransportError(library.TransportError):
        """A Hub request that timed out or could not connect (never retried)."""

    class BoundedTransport(library.BaseTransport):
        def __init__(self):
            self.inner = library.HTTPTransport()

        def handle_request(self, request):
            limits = {**dict.fromkeys(("connect", "read", "write", "pool")),
                      **(request.extensions.get("timeout") or {})}
            request.extensions["timeout"] = {
                key: per_operation if value is None else min(value, per_operation)
                for key, value in limits.items()}
            try:
                response = self.inner.handle_request(request)
            except (library.TimeoutException, library.NetworkError) as error:
                raise HubTransportError(f"{type(error).__name__} after at most "
                                        f"{per_operation:g} s: {str(error)[:200]}",
                                        request=request) from None
            if response.status_code in _RETRIED_STATUSES:
                for header in _WAIT_HEADERS:
                    if header in response.headers:
                        del response.headers[header]
            return response

        def close(self):
            self.inner.close()

    return BoundedTransport()


def per_operation_seconds() -> float:
    """:data:`PER_OPERATION_SECONDS`, or ``COURTBENCH_HUB_TIMEOUT`` when set (a number of
    seconds in (0, 600]; anything else is refused in one line)."""
    text = os.environ.get(TIMEOUT_VARIABLE)
    if not text:
        return PER_OPERATION_SECONDS
    try:
        return check_number(float(text), TIMEOUT_VARIABLE, low=0, high=600, low_open=True,
                            what="seconds")
    except (ValueError, BoundaryError):
        raise CourtbenchError(f"{TIMEOUT_VARIABLE}={text[:40]!r}: expected a number of "
                              "seconds in (0, 600]") from None


@contextlib.contextmanager
def bounded_hub_requests(per_operation: float | None = None) -> Iterator[None]:
    """While active, every huggingface_hub request waits at most ``per_operation`` seconds
    (default :func:`per_operation_seconds`) per socket operation and is not retried after a
    timeout or a failed connection. A client factory the caller set with
    ``huggingface_hub.set_client_factory`` (a proxy, a scripted Hub) is left as it is."""
    per_operation = per_operation or per_operation_seconds()
    library, http = _http_library()
    previous = getattr(http, "_GLOBAL_CLIENT_FACTORY", http.default_client_factory)
    if previous is not http.default_client_factory:  # the caller's own client: left as it is
        yield
        return

    def factory():
        return library.Client(transport=bounded_transport(library, per_operation),
                              follow_redirects=True,
                              event_hooks={"request": [http.hf_request_event_hook]})

    http.set_client_factory(factory)
    try:
        yield
    finally:
        http.set_client_factory(previous)


def call_with_deadline(call: Callable[..., Any], /, *args: Any, seconds: float = CALL_SECONDS,
                       what: str, after: str = "nothing was sent",
                       per_operation: float | None = None, **kwargs: Any) -> Any:
    """``call(*args, **kwargs)`` with bounded requests (:func:`bounded_hub_requests`),
    abandoned after ``seconds``.

    Raises:
        CourtbenchError: no result within ``seconds`` (one line: ``what``, the time and
            ``after`` — what the caller knows of the state left behind).
        Any exception of ``call`` itself.
    """
    outcome: dict[str, Any] = {}
    started = time.monotonic()
    per_operation = per_operation or per_operation_seconds()
    seconds = max(seconds, 3 * per_operation)  # a longer per-operation bound widens it

    def run() -> None:
        try:
            outcome["value"] = call(*args, **kwargs)
        except BaseException as error:  # noqa: BLE001 - handed to the waiting thread
            outcome["error"] = error

    with bounded_hub_requests(per_operation):
        worker = threading.Thread(target=run, name="courtbench-hub-call", daemon=True)
        worker.start()
        worker.join(seconds)
    if worker.is_alive():
        raise CourtbenchError(f"{what}: the Hub gave no complete answer within {seconds:g} s "
                              f"(waited {time.monotonic() - started:.0f} s); {after}")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
