"""Throughput, client overhead and cache replay of :mod:`courtbench.llm`.

Against the scripted chat server of the tests (``tests/helpers/fake_chat_server.py``), run in a
separate process so that its CPU time is not the client's:

- throughput at 200 ms server latency, 96 requests, concurrency 16 against concurrency 1 (same run;
  target ratio >= 10);
- client CPU time per request (``time.process_time`` of this process / requests) at zero
  server latency, concurrency 8;
- 10,000 cached requests (SLDS-sized messages, ~4 KB each) replayed from the SQLite cache
  (target < 10 s), and the same run sends nothing;
- the ``headnote_judge`` metric module at 200 ms server latency, 32 samples, concurrency 8
  against concurrency 1 (same run; target ratio >= 5; formerly a timing test).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from benchmarks.server_process import TESTS, ServerProcess
from courtbench.llm import ChatRequest, EndpointConfig, request_key, run_chat
from courtbench.llm.core import ResponseCache, request_body

SERVER = """
import sys, time
sys.path.insert(0, sys.argv[1])
from fake_chat_server import FakeChatServer, Reply
reply = Reply("Art. 8 ZGB; generated headnote.", delay=float(sys.argv[2]),
              usage={"prompt_tokens": 1000, "completion_tokens": 50, "total_tokens": 1050})
with FakeChatServer(lambda request, attempt: reply) as server:
    print(server.url, flush=True)
    sys.stdin.read()
"""
LATENCY = 0.2
N_THROUGHPUT = 96
N_OVERHEAD = 400
N_CACHED = 10_000


def _requests(n: int, prefix: str, size: int = 200) -> list[ChatRequest]:
    filler = "Erwägung. " * (size // 10)
    return [ChatRequest(str(i), ({"role": "system", "content": "You write headnotes."},
                                 {"role": "user", "content": f"{prefix}-{i} {filler}"}),
                        {"temperature": 0.7, "top_p": 0.8, "seed": 2025, "max_tokens": 1024})
            for i in range(n)]


def throughput() -> dict:
    with ServerProcess(SERVER, LATENCY) as server:
        warm = EndpointConfig(server.url, "m", api_key_env=None, concurrency=16)
        run_chat(_requests(16, "warm"), warm, progress=False)  # lazy imports of openai, pools
        seconds = {}
        for concurrency in (16, 1):
            config = EndpointConfig(server.url, "m", api_key_env=None, concurrency=concurrency)
            started = time.perf_counter()
            summary = run_chat(_requests(N_THROUGHPUT, f"c{concurrency}"), config, progress=False)
            seconds[concurrency] = time.perf_counter() - started
            assert summary.failed == 0
    return {"requests": N_THROUGHPUT, "server_latency_s": LATENCY,
            "concurrency_1_requests_per_s": N_THROUGHPUT / seconds[1],
            "concurrency_16_requests_per_s": N_THROUGHPUT / seconds[16],
            "ratio_16_over_1": seconds[1] / seconds[16], "target_ratio": 10}


def client_overhead() -> dict:
    with ServerProcess(SERVER, 0.0) as server:
        config = EndpointConfig(server.url, "m", api_key_env=None, concurrency=8)
        run_chat(_requests(20, "warm"), config, progress=False)
        cpu, wall = time.process_time(), time.perf_counter()
        summary = run_chat(_requests(N_OVERHEAD, "overhead", 4000), config, progress=False)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        assert summary.failed == 0
    return {"requests": N_OVERHEAD, "message_chars": 4000,
            "client_cpu_ms_per_request": 1000 * cpu / N_OVERHEAD,
            "wall_ms_per_request_at_zero_latency": 1000 * wall / N_OVERHEAD}


def cached_replay() -> dict:
    requests = _requests(N_CACHED, "cached", 4000)
    with tempfile.TemporaryDirectory() as tmp:
        cache_path = Path(tmp) / "cache.sqlite"
        cache = ResponseCache(cache_path)
        response = {"content": "Art. 8 ZGB; cached.", "reasoning_content": None,
                    "finish_reason": "stop", "model": "m",
                    "usage": {"prompt_tokens": 1000, "completion_tokens": 50, "total_tokens": 1050}}
        started = time.perf_counter()
        for request in requests:
            cache.put(request_key("m", request.messages, request.params),
                      request_body(request, "m"), response)
        fill = time.perf_counter() - started
        cache.close()
        # nobody listens on port 9: a request that missed the cache would fail
        config = EndpointConfig("http://127.0.0.1:9/v1", "m", api_key_env=None,
                                cache_path=cache_path, max_retries=0)
        started = time.perf_counter()
        summary = run_chat(requests, config, progress=False)
        replay = time.perf_counter() - started
        size = cache_path.stat().st_size
    assert summary.cached == N_CACHED and summary.sent == 0 and summary.failed == 0
    return {"requests": N_CACHED, "message_chars": 4000, "fill_s": fill, "replay_s": replay,
            "replay_target_s": 10, "cache_mb": size / 2**20}


N_JUDGE = 32


def judge_concurrency() -> dict:
    from courtbench.metric_modules import load_metric_module

    sys.path.insert(0, str(TESTS))
    from fake_chat_server import FakeChatServer, Reply, judgement

    judge = load_metric_module("headnote_judge").headnote_judge
    seconds = {}
    with FakeChatServer(lambda request, attempt: Reply(judgement([2] * 5), delay=LATENCY)) as server:
        for concurrency in (8, 1):
            inputs = {"predictions": [f"c{concurrency}-{i}" for i in range(N_JUDGE)],
                      "references": ["Art. 8 ZGB."] * N_JUDGE,
                      "headnote_languages": ["de"] * N_JUDGE, "decision_languages": ["de"] * N_JUDGE}
            started = time.perf_counter()
            result = judge(**inputs, base_url=server.url, model="m", concurrency=concurrency,
                           progress=False)
            seconds[concurrency] = time.perf_counter() - started
            assert result["n_scored"] == N_JUDGE
        in_flight = server.max_in_flight
    return {"samples": N_JUDGE, "server_latency_s": LATENCY, "max_in_flight": in_flight,
            "concurrency_1_s": seconds[1], "concurrency_8_s": seconds[8],
            "ratio_1_over_8": seconds[1] / seconds[8], "target_ratio": 5}


def main() -> dict:
    return {"throughput": throughput(), "client_overhead": client_overhead(),
            "cached_replay": cached_replay(), "judge_concurrency": judge_concurrency()}


if __name__ == "__main__":
    import json

    print(json.dumps(main(), indent=2))
