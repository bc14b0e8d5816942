"""courtbench.llm against the scripted chat server on 127.0.0.1 (tests/helpers/fake_chat_server.py):
retries (429 + Retry-After, 5xx, timeouts, dropped connections), garbled and <think> answers,
bounded concurrency, the cache (rerun, other port, killed run resumed) and the CLI helpers."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fake_chat_server import FakeChatServer, Reply

from courtbench.errors import CourtbenchError
from courtbench.llm import (
    ChatRequest,
    EndpointConfig,
    add_endpoint_arguments,
    dry_run_text,
    endpoint_from_args,
    endpoint_host,
    request_key,
    run_chat,
    split_reasoning,
)
from courtbench.llm.core import RetryPolicy, parse_retry_after

SECRET = "sk-llm-test-5d1c-never-store-me"
PARAMS = {"temperature": 0.7, "top_p": 0.8, "seed": 2025, "max_tokens": 64}


def _config(url: str, **options) -> EndpointConfig:
    return EndpointConfig(base_url=url, model="m", **{"api_key_env": None, "backoff_base": 0.01,
                                                      "backoff_max": 0.5, **options})


def _requests(n: int, prefix: str = "row") -> list[ChatRequest]:
    return [ChatRequest(f"{prefix}-{i}", ({"role": "user", "content": f"{prefix}-{i}"},), PARAMS)
            for i in range(n)]


def _row(request: dict) -> int:
    return int(request["messages"][-1]["content"].rsplit("-", 1)[1])


def _by_row(script):
    return lambda request, attempt: script(_row(request), attempt)


# ----------------------------------------------------------------------------- pure helpers


def test_endpoint_host_strips_credentials_path_and_query():
    assert endpoint_host("https://u:pw@api.example.org/v1?key=k") == "https://api.example.org"
    assert endpoint_host("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000"
    for bad in ("localhost:8000", "ftp://x/v1", "", None):
        with pytest.raises(ValueError, match="base_url must be an http"):
            endpoint_host(bad)


def test_cache_key_is_model_messages_params_not_url_or_id():
    messages = ({"role": "user", "content": "x"},)
    key = request_key("m", messages, PARAMS)
    assert key == request_key("m", [{"content": "x", "role": "user"}], dict(reversed(PARAMS.items())))
    assert key != request_key("m2", messages, PARAMS)
    assert key != request_key("m", messages, {**PARAMS, "seed": 1})
    assert key != request_key("m", ({"role": "user", "content": "y"},), PARAMS)


@pytest.mark.parametrize("content, reasoning_content, expected", [
    ("plain", None, ("plain", None, False)),
    ("<think>step 1</think>\n\nAnswer.", None, ("Answer.", "step 1", False)),
    ("<THINKING>a</THINKING>B<reasoning>c</reasoning>", None, ("B", "a\n\nc", False)),
    ("dropped open tag</think>Answer", None, ("Answer", "dropped open tag", False)),
    ("Answer <think>cut off", None, ("Answer", "cut off", True)),
    ("Answer.", "  separate field ", ("Answer.", "separate field", False)),
    (None, "only reasoning", (None, "only reasoning", False)),
])
def test_split_reasoning(content, reasoning_content, expected):
    assert split_reasoning(content, reasoning_content) == expected


def test_retry_after_in_seconds_milliseconds_and_http_date():
    assert parse_retry_after({"retry-after-ms": "1500"}) == 1.5
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
    assert parse_retry_after({"retry-after": "soon"}) is None
    policy = RetryPolicy(max_retries=3, backoff_base=1.0, backoff_max=8.0)
    rng = __import__("random").Random(0)
    delays = [policy.delay(k, None, rng) for k in range(6)]
    assert all(b / 2 <= d <= b for d, b in zip(delays, [1, 2, 4, 8, 8, 8], strict=True))
    assert 30.0 <= policy.delay(0, 30.0, rng) <= 33.0  # Retry-After beats backoff_max
    assert 600.0 <= policy.delay(0, 86400.0, rng) <= 660.0  # ... up to retry_after_max


@pytest.mark.parametrize("change, message", [
    ({"concurrency": 0}, "concurrency must be an integer >= 1"),
    ({"max_retries": -1}, "max_retries must be an integer >= 0"),
    ({"timeout": float("inf")}, "timeout must be a positive number"),
    ({"model": ""}, "model must be a non-empty string"),
    ({"base_url": "127.0.0.1:8000"}, "base_url must be an http"),
])
def test_endpoint_config_validates(change, message):
    with pytest.raises(ValueError, match=message):
        EndpointConfig(**{"base_url": "http://127.0.0.1:9/v1", "model": "m", **change})


# ----------------------------------------------------------------------------- requests


def test_retries_on_429_5xx_timeouts_and_dropped_connections():
    def script(row, attempt):
        if row == 0:   # 429 with Retry-After: 1 second, then an answer
            return Reply(status=429, headers={"Retry-After": "1"}) if attempt == 0 else Reply("a0")
        if row == 1:   # 500, 503, then an answer
            return Reply(status=[500, 503][attempt]) if attempt < 2 else Reply("a1")
        if row == 2:   # first attempt slower than the client timeout
            return Reply("a2", delay=5.0 if attempt == 0 else 0.0)
        if row == 3:   # connection dropped without a status line, then an answer
            return Reply(drop=True) if attempt == 0 else Reply("a3")
        if row == 4:   # a client error is final
            return Reply(status=400)
        return Reply(status=502)  # always failing: gives up after max_retries
    with FakeChatServer(_by_row(script)) as server:
        summary = run_chat(_requests(6), _config(server.url, timeout=1.0, max_retries=3),
                           progress=False)
        attempts = {row: sum(_row(r.body) == row for r in server.requests) for row in range(6)}
        times = [r.received for r in server.requests if _row(r.body) == 0]
    assert attempts == {0: 2, 1: 3, 2: 2, 3: 2, 4: 1, 5: 4}
    assert times[1] - times[0] >= 0.95  # waited for Retry-After, not the 0.01 s backoff
    assert [r.answer for r in summary.results] == ["a0", "a1", "a2", "a3", None, None]
    assert [r.id for r in summary.results] == [f"row-{i}" for i in range(6)]
    assert summary.results[4].error.startswith("HTTP 400")
    assert summary.results[5].error.startswith("HTTP 502") and "gave up after 4 attempts" in summary.results[5].error
    assert (summary.sent, summary.cached, summary.failed, summary.attempts) == (4, 0, 2, 14)


def test_nobody_listening_is_a_failed_request_not_a_crash():
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    summary = run_chat(_requests(1), _config(f"http://127.0.0.1:{port}/v1", max_retries=1),
                       progress=False)
    assert summary.failed == 1 and summary.results[0].error.startswith("connection error")


def test_garbled_body_think_answers_reasoning_content_and_usage():
    replies = {0: Reply(body=b"<html>bad gateway</html>"),
               1: Reply("<think>Let me think.</think>Die Regeste.", usage={
                   "prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}),
               2: Reply("Answer", reasoning_content="hidden chain", usage={
                   "prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}),
               3: Reply(None, finish_reason="length"),
               4: Reply("\x00\ufffd garbled \u2028 text", finish_reason="length")}
    with FakeChatServer(_by_row(lambda row, attempt: replies[row])) as server:
        summary = run_chat(_requests(5), _config(server.url), progress=False)
        assert len(server.requests) == 5  # a garbled body is not retried
    first, think, separate, empty, garbled = summary.results
    assert first.error.startswith("invalid response") and first.answer is None
    assert (think.answer, think.reasoning) == ("Die Regeste.", "Let me think.")
    assert (separate.answer, separate.reasoning) == ("Answer", "hidden chain")
    assert empty.answer is None and empty.error is None and empty.finish_reason == "length"
    assert garbled.answer == "\x00\ufffd garbled \u2028 text"
    assert summary.usage == {"prompt_tokens": 17, "completion_tokens": 8, "total_tokens": 25}
    assert first.usage == {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}


def test_parameters_are_sent_as_given_and_concurrency_is_bounded():
    with FakeChatServer(lambda request, attempt: Reply("ok", delay=0.1)) as server:
        summary = run_chat(_requests(12), _config(server.url, concurrency=3), progress=False)
        body = server.requests[0].body
    assert server.max_in_flight == 3
    assert {k: body[k] for k in PARAMS} == PARAMS and body["model"] == "m"
    assert summary.sent == 12 and summary.failed == 0


# ----------------------------------------------------------------------------- cache


def test_rerun_sends_nothing_other_port_hits_the_cache_and_the_key_is_never_stored(
        tmp_path, monkeypatch, capsys):
    cache = tmp_path / "llm.sqlite"
    monkeypatch.setenv("LLM_TEST_KEY", SECRET)
    reply = Reply("<think>r</think>answer", usage={"prompt_tokens": 2, "completion_tokens": 1,
                                                    "total_tokens": 3})
    with FakeChatServer(lambda request, attempt: reply) as server:
        config = _config(server.url, cache_path=cache, api_key_env="LLM_TEST_KEY")
        first = run_chat(_requests(4) + _requests(1), config, progress=True, desc="rows")
        assert len(server.requests) == 4  # the duplicate request is sent once
        assert server.requests[0].headers["authorization"] == f"Bearer {SECRET}"
    with FakeChatServer(lambda request, attempt: Reply("different")) as other:
        config = _config(other.url, cache_path=cache, api_key_env="LLM_TEST_KEY")
        second = run_chat(_requests(4) + _requests(1), config, progress=False)
        assert other.requests == []
    assert (first.sent, first.cached) == (5, 0) and (second.sent, second.cached) == (0, 5)
    assert [(r.answer, r.reasoning, r.usage) for r in second.results] \
        == [(r.answer, r.reasoning, r.usage) for r in first.results]
    assert second.usage == first.usage == {"prompt_tokens": 10, "completion_tokens": 5,
                                           "total_tokens": 15}
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert SECRET.encode() not in stored and b"127.0.0.1" not in stored
    err = capsys.readouterr().err
    assert "rows: 100%" in err and "5/5" in err and SECRET not in err


def test_corrupt_entries_are_requested_again_and_non_caches_refused(tmp_path):
    cache = tmp_path / "llm.sqlite"
    with FakeChatServer(_by_row(lambda row, attempt: Reply(f"a{row}"))) as server:
        run_chat(_requests(3), _config(server.url, cache_path=cache), progress=False)
        with sqlite3.connect(cache) as db:
            db.execute("UPDATE responses SET response = '{\"content\": \"x\"}' WHERE rowid = 1")
        again = run_chat(_requests(3), _config(server.url, cache_path=cache), progress=False)
        assert len(server.requests) == 4
    assert again.cache_corrupt == 1 and again.cached == 2
    assert [r.answer for r in again.results] == ["a0", "a1", "a2"]
    bogus = tmp_path / "bogus.sqlite"
    bogus.write_bytes(b"not a database " * 100)
    with pytest.raises(ValueError, match="is not an SQLite file; courtbench writes only into"):
        run_chat(_requests(1), _config("http://127.0.0.1:9/v1", cache_path=bogus), progress=False)


KILLED_RUN = """
import sys
from pathlib import Path
from courtbench.llm import ChatRequest, EndpointConfig, run_chat
requests = [ChatRequest(f"row-{i}", ({"role": "user", "content": f"row-{i}"},), {"seed": 1})
            for i in range(int(sys.argv[3]))]
run_chat(requests, EndpointConfig(sys.argv[1], "m", api_key_env=None, concurrency=2,
                                  cache_path=Path(sys.argv[2])), progress=False)
"""


def test_killed_run_resumes_with_only_the_remainder(tmp_path):
    cache = tmp_path / "llm.sqlite"
    n = 30
    with FakeChatServer(lambda request, attempt: Reply("ok", delay=0.05)) as server:
        process = subprocess.Popen([sys.executable, "-c", KILLED_RUN, server.url, str(cache), str(n)],
                                   env={**os.environ, "OPENAI_API_KEY": ""})
        deadline = time.monotonic() + 60
        while len(server.requests) < 8 and time.monotonic() < deadline:
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        sent_before = {r.body["messages"][0]["content"] for r in server.requests}
        with sqlite3.connect(cache) as db:
            stored = db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
        assert 0 < stored < n and len(sent_before) < n
        server.requests.clear()
        summary = run_chat([ChatRequest(f"row-{i}", ({"role": "user", "content": f"row-{i}"},),
                                        {"seed": 1}) for i in range(n)],
                           _config(server.url, cache_path=cache), progress=False)
        resent = len(server.requests)
    assert summary.cached == stored and summary.sent == n - stored and resent == n - stored
    assert summary.failed == 0


# ----------------------------------------------------------------------------- CLI helpers


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_endpoint_arguments(parser, concurrency=4)
    return parser.parse_args(["--base-url", "http://127.0.0.1:8000/v1", "--model", "m", *argv])


def test_endpoint_from_args_defaults_and_errors(tmp_path, monkeypatch):
    monkeypatch.delenv("NOT_SET_ANYWHERE", raising=False)
    config = endpoint_from_args(_parse(), default_cache=tmp_path / "c.sqlite")
    assert (config.concurrency, config.timeout, config.max_retries) == (4, 120.0, 6)
    assert config.cache_path == tmp_path / "c.sqlite" and config.api_key_env == "OPENAI_API_KEY"
    with pytest.raises(CourtbenchError, match="--api-key-env NOT_SET_ANYWHERE: .* not set"):
        endpoint_from_args(_parse("--api-key-env", "NOT_SET_ANYWHERE"))
    with pytest.raises(SystemExit):  # refused while parsing (courtbench.option_checks)
        _parse("--concurrency", "0")
    with pytest.raises(CourtbenchError, match="--cache .*: is a directory"):
        endpoint_from_args(_parse("--cache", str(tmp_path)))


def test_dry_run_text_shows_the_first_request_and_the_count_without_credentials():
    config = endpoint_from_args(_parse("--dry-run"))
    text = dry_run_text(_requests(7), config)
    first = json.loads(text[:text.rindex("}") + 1])
    assert first["body"] == {"model": "m", "messages": [{"role": "user", "content": "row-0"}], **PARAMS}
    assert first["endpoint"] == "http://127.0.0.1:8000"
    assert text.endswith("dry run: 7 request(s) to http://127.0.0.1:8000, model m; nothing sent")


def test_core_file_is_self_contained():
    import ast

    import courtbench.llm.core as core
    tree = ast.parse(Path(core.__file__).read_text(encoding="utf-8"))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module}
    assert imported - set(sys.stdlib_module_names) == {"openai"}


# ----------------------------------------------------------------------------- the response boundary


def _completion(**overrides) -> bytes:
    document = {"model": "m", "choices": [{"index": 0, "finish_reason": "stop",
                                           "message": {"role": "assistant", "content": "ok"}}]}
    document.update(overrides)
    return json.dumps(document).encode()


BAD_BODIES = {
    "choices as a dict": _completion(choices={"0": {"message": {"content": "x"}}}),
    "message as a string": _completion(choices=[{"message": "just text"}]),
    "content as an int": _completion(choices=[{"message": {"content": 5000}}]),
    "empty choices": _completion(choices=[]),
    "a JSON list": b"[1, 2]",
    "5000-digit number": b'{"choices": [{"message": {"content": "x"}}], "n": ' + b"9" * 5000 + b"}",
    "deep nesting": b"[" * 100_000 + b"]" * 100_000,
}


def test_malformed_completions_are_counted_failures_never_exceptions_or_cached(tmp_path):
    bodies = list(BAD_BODIES.values())
    cache = tmp_path / "c.sqlite"
    with FakeChatServer(_by_row(lambda row, attempt: Reply(body=bodies[row]))) as server:
        summary = run_chat(_requests(len(bodies)), _config(server.url, cache_path=cache),
                           progress=False)
        assert len(server.requests) == len(bodies)  # not retried
    assert summary.failed == len(bodies) and summary.failures_by_kind == {"invalid": len(bodies)}
    assert all(r.error.startswith("invalid response: ") for r in summary.results)
    with sqlite3.connect(cache) as db:
        assert db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 0


def test_content_parts_lone_surrogates_and_absurd_usage_are_repaired_and_counted():
    usage = {"prompt_tokens": -5, "completion_tokens": True, "total_tokens": 10**30}
    bodies = {0: _completion(choices=[{"finish_reason": "stop", "message": {"content": [
                  {"type": "text", "text": "part one, "}, {"type": "image_url"},
                  {"type": "text", "text": "part two"}]}}]),
              1: b'{"choices": [{"finish_reason": "length", "message": {"content": "a\\ud800b"}}]}',
              2: _completion(usage=usage),
              3: _completion(usage={"prompt_tokens": 1e309, "completion_tokens": 2,
                                    "total_tokens": 3})}
    with FakeChatServer(_by_row(lambda row, attempt: Reply(body=bodies[row]))) as server:
        summary = run_chat(_requests(4), _config(server.url), progress=False)
    parts, surrogate, absurd, infinite = summary.results
    assert parts.answer == "part one, part two" and surrogate.answer == "a\ufffdb"
    assert surrogate.answer.encode("utf-8")  # valid UTF-8 from here on
    assert absurd.usage == {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
    assert infinite.usage == {"prompt_tokens": 0, "completion_tokens": 2, "total_tokens": 3}
    assert (summary.surrogates_replaced, summary.usage_ignored, summary.truncated) == (1, 4, 1)
    assert summary.failed == 0


def test_answers_longer_than_the_cap_are_failures_and_not_cached(tmp_path):
    with FakeChatServer(lambda request, attempt: Reply("x" * 5000)) as server:
        summary = run_chat(_requests(1), _config(server.url, max_answer_chars=1000,
                                                 cache_path=tmp_path / "c.sqlite"), progress=False)
    assert summary.failures_by_kind == {"too_large": 1}
    assert "5,000 characters exceeds the cap of 1,000" in summary.results[0].error


def test_a_server_dripping_bytes_is_cut_at_the_timeout_of_the_whole_attempt():
    with FakeChatServer(lambda request, attempt: Reply("slow answer", drip=0.05)) as server:
        started = time.monotonic()
        summary = run_chat(_requests(1), _config(server.url, timeout=1.0, max_retries=0),
                           progress=False)
        elapsed = time.monotonic() - started
    assert summary.failures_by_kind == {"timeout": 1} and "whole attempt" in summary.results[0].error
    assert elapsed < 4  # the body alone would take ~10 s


def test_a_server_sending_its_headers_byte_by_byte_is_cut_at_the_timeout_and_retried():
    with FakeChatServer(lambda request, attempt: Reply("slow headers", header_drip=0.2)) as server:
        started = time.monotonic()
        summary = run_chat(_requests(1), _config(server.url, timeout=1.0, max_retries=1),
                           progress=False)
        elapsed = time.monotonic() - started
        attempts_seen = len(server.requests)
    assert summary.failures_by_kind == {"timeout": 1}
    assert "whole attempt" in summary.results[0].error
    assert "gave up after 2 attempts" in summary.results[0].error and attempts_seen == 2
    assert elapsed < 10  # guard against hanging: the headers alone would take ~30 s


# ----------------------------------------------------------------------------- errors that tell the truth


def test_retry_after_beyond_the_cap_fails_at_once_naming_the_value():
    with FakeChatServer(lambda request, attempt: Reply(status=429, headers={"Retry-After": "86400"})) as server:
        summary = run_chat(_requests(1), _config(server.url), progress=False)
        assert len(server.requests) == 1
    assert "retry after 86400 s (Retry-After), beyond the 600 s cap" in summary.results[0].error


def test_a_401_is_reported_as_such_scrubbed_and_repeated_ones_stop_the_run(monkeypatch):
    monkeypatch.setenv("LLM_TEST_KEY", SECRET)
    body = json.dumps({"error": {"message": f"invalid key {SECRET}; header was "
                                            f"Authorization: Bearer {SECRET}"}}).encode()
    with FakeChatServer(lambda request, attempt: Reply(status=401, body=body)) as server:
        summary = run_chat(_requests(10), _config(server.url, api_key_env="LLM_TEST_KEY",
                                                  concurrency=1, max_auth_failures=3),
                           progress=False)
        sent = len(server.requests)
    assert sent == 3  # fail fast: the other 7 are not sent
    first = summary.results[0].error
    assert first.startswith("HTTP 401 authentication failed") and "gave up" not in first
    assert SECRET not in first and "[redacted]" in first
    assert summary.failures_by_kind == {"auth": 3, "not_sent": 7}
    assert all(SECRET not in (r.error or "") for r in summary.results)


def test_scrub_removes_keys_authorization_values_and_bearer_tokens():
    from courtbench.llm.core import scrub
    text = scrub(f"key {SECRET} 'authorization': 'Basic dXNlcjpwdw==' Bearer abcdef123", [SECRET])
    assert SECRET not in text and "dXNlcjpwdw" not in text and "abcdef123" not in text


def test_credentials_in_the_url_and_bad_headers_are_refused():
    with pytest.raises(ValueError, match="base_url must not carry credentials"):
        EndpointConfig(base_url="http://user:pw@127.0.0.1:9/v1", model="m")
    with pytest.raises(ValueError, match="headers"):
        EndpointConfig(base_url="http://127.0.0.1:9/v1", model="m", headers=(("X-A", "a\r\nB: c"),))


def test_redirects_are_refused_unless_followed_and_then_recorded():
    with FakeChatServer(lambda request, attempt: Reply("from the other host")) as target:
        location = target.url + "/chat/completions"
        redirect = Reply(status=307, headers={"Location": location}, body=b"")
        with FakeChatServer(lambda request, attempt: redirect) as server:
            refused = run_chat(_requests(1), _config(server.url), progress=False)
            followed = run_chat(_requests(1), _config(server.url, follow_redirects=True),
                                progress=False)
    assert "redirect to http://127.0.0.1:" in refused.results[0].error
    assert "--follow-redirects" in refused.results[0].error and target.requests[0].body
    assert followed.results[0].answer == "from the other host" and followed.redirects == 1
    assert followed.results[0].boundary["redirected_to"] == endpoint_host(target.url)


def test_extra_headers_are_sent():
    with FakeChatServer(lambda request, attempt: Reply("ok")) as server:
        run_chat(_requests(1), _config(server.url, headers=(("X-Project", "courts"),)), progress=False)
        assert server.requests[0].headers["x-project"] == "courts"


# ----------------------------------------------------------------------------- files courtbench did not write


def test_a_users_own_database_or_text_file_is_refused_untouched(tmp_path):
    own = tmp_path / "mine.sqlite"
    with sqlite3.connect(own) as db:
        db.execute("CREATE TABLE responses (key TEXT PRIMARY KEY, request TEXT, response TEXT, "
                   "response_sha256 TEXT, created_utc TEXT)")
    text = tmp_path / "notes.txt"
    text.write_text("my notes\n")
    for path in (own, text):
        before = path.read_bytes()
        with pytest.raises(ValueError, match="courtbench writes only into caches it created"):
            run_chat(_requests(1), _config("http://127.0.0.1:9/v1", cache_path=path), progress=False)
        assert path.read_bytes() == before
        assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.sqlite", "notes.txt"]


def test_two_runs_answers_coexist_and_the_first_stays_reproducible(tmp_path):
    from courtbench.llm.core import ResponseCache
    cache = ResponseCache(tmp_path / "c.sqlite")
    cache.put("k", {"model": "m"}, {"content": "first"})
    cache.put("k", {"model": "m"}, {"content": "second"})
    cache.put("k", {"model": "m"}, {"content": "first"})
    assert len(cache) == 2 and cache.get_many(["k"])[0]["k"]["content"] == "first"
    cache.close()


def test_a_full_disk_while_caching_is_one_line_and_a_rerun_continues(tmp_path, monkeypatch):
    import errno

    from courtbench.llm.core import ResponseCache
    cache = tmp_path / "c.sqlite"
    real = ResponseCache._insert
    stored = {"n": 0}

    def insert(self, *args):
        if stored["n"] >= 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        stored["n"] += 1
        return real(self, *args)

    monkeypatch.setattr(ResponseCache, "_insert", insert)
    with FakeChatServer(lambda request, attempt: Reply("ok")) as server:
        with pytest.raises(CourtbenchError, match=r"cache .*c.sqlite: cannot store an answer .*"
                                                  r"No space left.*rerun to continue"):
            run_chat(_requests(5), _config(server.url, cache_path=cache, concurrency=1),
                     progress=False)
        monkeypatch.setattr(ResponseCache, "_insert", real)
        server.requests.clear()
        rerun = run_chat(_requests(5), _config(server.url, cache_path=cache), progress=False)
    assert rerun.cached == 2 and rerun.sent == 3 and len(server.requests) == 3
