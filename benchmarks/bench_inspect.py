"""The Inspect runner (:func:`courtbench.inspect_glue.runner.run_task`) against today's
home-made runner (``courtbench/llm/core.py``'s ``run_requests``, kept only as the headnote_judge
module's linked client until that module carries its own) in the same run.

Against the scripted chat server of the tests in a separate process (its CPU is not the
client's), with SLDS-sized messages (~4 KB):

- client CPU per request (``time.process_time`` of this process / requests) at zero server
  latency, 400 requests, concurrency 8, both runners warmed up first (target: Inspect ≤
  today's);
- throughput at 200 ms server latency, 96 requests, concurrency 16 against 1 (target ratio
  ≥ 10): the whole call, and the sample phase alone (first sample start to last sample end,
  from the log: Inspect's start-up of a few seconds is not throughput);
- cached replay: the same samples run again from Inspect's cache (target: 10,000 in ≤ 10 s);
  measured on ``N_CACHED_INSPECT`` samples and scaled linearly, and today's runner on 10,000.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from benchmarks.server_process import ServerProcess
from courtbench.inspect_glue.options import ModelOptions
from courtbench.inspect_glue.runner import run_task
from courtbench.llm.core import ChatRequest, EndpointConfig, run_requests

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
N_CACHED_INSPECT = 1000
N_CACHED_TODAY = 10_000
SETTINGS = {"temperature": 0.7, "top_p": 0.8, "seed": 2025, "max_tokens": 1024}


def _messages(i: int, prefix: str, size: int) -> tuple[dict, dict]:
    filler = "Erwägung. " * (size // 10)
    return ({"role": "system", "content": "You write headnotes."},
            {"role": "user", "content": f"{prefix}-{i} {filler}"})


def _task(n: int, prefix: str, size: int = 4000):
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ChatMessageSystem, ChatMessageUser
    from inspect_ai.solver import generate

    samples = []
    for i in range(n):
        system, user = _messages(i, prefix, size)
        samples.append(Sample(id=str(i), input=[ChatMessageSystem(content=system["content"]),
                                                ChatMessageUser(content=user["content"])]))
    return Task(dataset=MemoryDataset(samples), solver=generate(), name="bench")


def _inspect(task, url: str, folder: Path, concurrency: int):
    options = ModelOptions("m", base_url=url, concurrency=concurrency, max_retries=0,
                           cache_dir=folder / "cache", log_dir=folder / "logs")
    return run_task(task, options, options.generate_config(SETTINGS), desc="bench",
                    progress=False)


def _today(n: int, prefix: str, url: str, concurrency: int, cache: Path | None = None):
    requests = [ChatRequest(str(i), _messages(i, prefix, 4000), dict(SETTINGS)) for i in range(n)]
    config = EndpointConfig(url, "m", api_key_env=None, concurrency=concurrency,
                            cache_path=cache, max_retries=0)
    return run_requests(requests, config)


def client_overhead() -> dict:
    cpu = {}
    with ServerProcess(SERVER, 0.0) as server, tempfile.TemporaryDirectory() as tmp:
        _today(20, "warm", server.url, 8)
        _inspect(_task(20, "warm"), server.url, Path(tmp) / "warm", 8)
        for name in ("today", "inspect"):
            started = time.process_time()
            if name == "today":
                assert _today(N_OVERHEAD, name, server.url, 8).failed == 0
            else:
                result = _inspect(_task(N_OVERHEAD, name), server.url, Path(tmp) / name, 8)
                assert result.counts.errored == 0 and result.counts.sent == N_OVERHEAD
            cpu[name] = 1000 * (time.process_time() - started) / N_OVERHEAD
    return {"requests": N_OVERHEAD, "message_chars": 4000, "concurrency": 8,
            "today_cpu_ms_per_request": cpu["today"],
            "inspect_cpu_ms_per_request": cpu["inspect"],
            "ratio_inspect_over_today": cpu["inspect"] / cpu["today"], "target_ratio_max": 1.0}


def _sample_phase(log_path: Path) -> float:
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(log_path))
    starts = [e.timestamp for s in log.samples for e in s.events[:1]]
    ends = [s.events[-1].timestamp for s in log.samples]
    return (max(ends) - min(starts)).total_seconds()


def throughput() -> dict:
    whole, phase = {}, {}
    with ServerProcess(SERVER, LATENCY) as server, tempfile.TemporaryDirectory() as tmp:
        _inspect(_task(16, "warm"), server.url, Path(tmp) / "warm", 16)
        for concurrency in (16, 1):
            started = time.perf_counter()
            result = _inspect(_task(N_THROUGHPUT, f"c{concurrency}"), server.url,
                              Path(tmp) / f"c{concurrency}", concurrency)
            whole[concurrency] = time.perf_counter() - started
            assert result.counts.sent == N_THROUGHPUT and result.counts.errored == 0
            phase[concurrency] = _sample_phase(result.log_path)
    return {"requests": N_THROUGHPUT, "server_latency_s": LATENCY,
            "concurrency_1_requests_per_s": N_THROUGHPUT / whole[1],
            "concurrency_16_requests_per_s": N_THROUGHPUT / whole[16],
            "ratio_16_over_1_whole_call": whole[1] / whole[16],
            "ratio_16_over_1_sample_phase": phase[1] / phase[16], "target_ratio": 10}


def cached_replay() -> dict:
    with ServerProcess(SERVER, 0.0) as server, tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        task = _task(N_CACHED_INSPECT, "cached")
        started = time.perf_counter()
        _inspect(task, server.url, folder, 16)
        fill = time.perf_counter() - started
        started = time.perf_counter()
        again = _inspect(_task(N_CACHED_INSPECT, "cached"), server.url, folder, 16)
        replay = time.perf_counter() - started
        assert again.counts.sent == 0 and again.counts.cached == N_CACHED_INSPECT
        cache = folder / "today.sqlite"
        _today(N_CACHED_TODAY, "cached", server.url, 16, cache)
        started = time.perf_counter()
        today = _today(N_CACHED_TODAY, "cached", server.url, 16, cache)
        today_replay = time.perf_counter() - started
        assert today.sent == 0
    return {"inspect_requests": N_CACHED_INSPECT, "inspect_fill_s": fill,
            "inspect_replay_s": replay,
            "inspect_replay_s_per_10000_scaled": replay * 10_000 / N_CACHED_INSPECT,
            "today_requests": N_CACHED_TODAY, "today_replay_s": today_replay,
            "replay_target_s_per_10000": 10}


def main() -> dict:
    return {"client_overhead": client_overhead(), "throughput": throughput(),
            "cached_replay": cached_replay()}


if __name__ == "__main__":
    import json

    print(json.dumps(main(), indent=2))
