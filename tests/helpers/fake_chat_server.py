"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1 for offline tests.

``FakeChatServer(responder)`` serves ``POST /v1/chat/completions`` from a stdlib
``ThreadingHTTPServer`` in a background thread. For every request it calls
``responder(request_json, attempt)`` — ``attempt`` counts earlier requests with the same
messages, from 0 — and sends the returned :class:`Reply`: a judgement, an HTTP error with
headers (429 + Retry-After, 500 ...), a raw malformed body, a dropped connection, or a
delayed answer (slow responses and client timeouts); answers may carry ``reasoning_content``
and token ``usage``, and OpenAI ``tool_calls`` (a tool-calling server). Every request is
recorded with its headers and arrival time.
"""

from __future__ import annotations

import json
import re
import threading
import time
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

CATEGORY_LINES = ("ACCURACY_FAITHFULNESS_SCORE", "COMPLETENESS_RELEVANCE_SCORE",
                  "CLARITY_COHERENCE_SCORE", "ARTICLES_SCORE", "CONSIDERATIONS_SCORE")


@dataclass
class Reply:
    """What the server answers: ``content`` in a chat completion (status 200), or an error
    ``status`` with ``headers``; ``body`` (bytes) replaces the JSON body; ``delay`` seconds
    pass before the answer is sent; ``drop`` closes the connection without any answer;
    ``reasoning_content``, ``usage`` and ``tool_calls`` (``[{"id", "type": "function",
    "function": {"name", "arguments"}}]``) go into the completion when set."""

    content: str | None = None
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0
    body: bytes | None = None
    finish_reason: str = "stop"
    drop: bool = False
    reasoning_content: str | None = None
    usage: Mapping[str, int] | None = None
    tool_calls: Sequence[Mapping] | None = None
    drip: float = 0.0
    """seconds between single bytes of the body (a server dripping its answer)."""
    header_drip: float = 0.0
    """seconds between single bytes of the status line and headers (slow headers)."""


@dataclass
class RecordedRequest:
    path: str
    headers: dict
    body: dict
    attempt: int
    received: float


Responder = Callable[[dict, int], Reply]


def judgement(scores: Sequence[int], analysis: str = "The generated headnote is adequate.") -> str:
    """A well-formed judge answer: ``analysis`` and the five score lines."""
    lines = [f"{name}: {score}" for name, score in zip(CATEGORY_LINES, scores, strict=True)]
    return analysis + "\n\n" + "\n".join(lines)


def generated_headnote(request: dict) -> str:
    """The generated headnote inside the user message of a judge request (default template:
    a JSON string on the line after "Generated headnote, as a JSON string:")."""
    user = request["messages"][-1]["content"]
    match = re.search(r"^Generated headnote, as a JSON string:\n(\".*\")$", user, re.M)
    if match is None:
        raise ValueError("no generated headnote JSON string in the user message")
    return json.loads(match.group(1))


def _payload(reply, attempt: int, body: dict) -> bytes:
    """The bytes a scripted reply sends: its raw ``body``, a chat completion, or an error."""
    if reply.body is not None:
        return reply.body
    if reply.status != 200:
        return json.dumps({"error": {"message": f"scripted status {reply.status}",
                                     "type": "test"}}).encode()
    message = {"role": "assistant", "content": reply.content}
    if reply.reasoning_content is not None:
        message["reasoning_content"] = reply.reasoning_content
    if reply.tool_calls is not None:
        message["tool_calls"] = [dict(call) for call in reply.tool_calls]
    completion = {"id": f"chatcmpl-{attempt}", "object": "chat.completion", "created": 0,
                  "model": body.get("model", "?"),
                  "choices": [{"index": 0, "finish_reason": reply.finish_reason,
                               "message": message}]}
    if reply.usage is not None:
        completion["usage"] = dict(reply.usage)
    return json.dumps(completion).encode()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out at once: no 40 ms delayed-ACK stall
    server: _Server

    def log_message(self, format: str, *args: object) -> None:  # keep test output clean
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length) or b"{}")
        fake = self.server.fake
        reply, attempt = fake._dispatch(self.path, dict(self.headers), body)
        with fake._lock:
            fake._in_flight += 1
            fake.max_in_flight = max(fake.max_in_flight, fake._in_flight)
        try:
            if reply.delay:
                fake._stopping.wait(reply.delay)
            if reply.drop:
                self.close_connection = True
                self.connection.shutdown(2)  # socket.SHUT_RDWR: no status line at all
                return
            payload = _payload(reply, attempt, body)
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            if reply.header_drip:
                self._drip_headers(reply.header_drip)
            else:
                self.end_headers()
            if reply.drip:
                for index in range(len(payload)):
                    if fake._stopping.wait(reply.drip):
                        break
                    self.wfile.write(payload[index:index + 1])
                    self.wfile.flush()
            else:
                self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError, OSError):  # the client gave up
            self.close_connection = True
        finally:
            with fake._lock:
                fake._in_flight -= 1


    def _drip_headers(self, seconds: float) -> None:
        """Send the buffered status line and headers, and the blank line ending them, one
        byte every ``seconds``."""
        pending, self._headers_buffer = b"".join([*self._headers_buffer, b"\r\n"]), []
        for index in range(len(pending)):
            if self.server.fake._stopping.wait(seconds):
                raise ConnectionResetError("server stopping")
            self.wfile.write(pending[index:index + 1])
            self.wfile.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128
    fake: FakeChatServer


class FakeChatServer:
    """Context manager running the scripted server; ``url`` is the ``base_url`` (…/v1)."""

    def __init__(self, responder: Responder, port: int = 0) -> None:
        self.responder = responder
        self.requests: list[RecordedRequest] = []
        self.max_in_flight = 0
        self._in_flight = 0
        self._lock = threading.Lock()
        self._attempts: dict[str, int] = {}
        self._stopping = threading.Event()
        self._server = _Server(("127.0.0.1", port), _Handler)
        self._server.fake = self
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def _dispatch(self, path: str, headers: dict, body: dict) -> tuple[Reply, int]:
        key = json.dumps(body.get("messages"), sort_keys=True)
        with self._lock:
            attempt = self._attempts.get(key, 0)
            self._attempts[key] = attempt + 1
            self.requests.append(RecordedRequest(path, headers, body, attempt, time.monotonic()))
        if path.rstrip("/") != "/v1/chat/completions":
            return Reply(status=404), attempt
        return self.responder(body, attempt), attempt

    def __enter__(self) -> FakeChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def written_secrets(folder: Path, secret: bytes) -> list[str]:
    """Files under ``folder`` holding ``secret`` (an Inspect ``.eval`` log member by member,
    decompressed)."""
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        blobs = [path.read_bytes()]
        if path.suffix == ".eval":
            with zipfile.ZipFile(path) as archive:
                blobs = [archive.read(name) for name in archive.namelist()]
        found += [str(path) for blob in blobs if secret in blob]
    return found
