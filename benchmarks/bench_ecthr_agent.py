"""ECtHR-NPD ReAct agent: episode throughput across cases and the controller's CPU per step.

A synthetic build (1,700 cases; 500 held-out cases are run) and the scripted tool-calling
model of the tests (``tests/agent_script.py``) in a child process of the scripted chat server
(``tests/fake_chat_server.py``), so that its CPU time is not the controller's:

- throughput: 500 cases × 6 steps (inspect_case, resolve_empirical_priors,
  retrieve_train_references, assess_aggregation_pattern, leakage_check, final_predict) at
  200 ms server latency, concurrency 16 against concurrency 1 (target ratio >= 10). Step 1 is
  the same request for every case (it holds no case information), so the client sends it
  once: 1 + 500 × 5 requests per run.
- controller CPU per step: the same episodes with the answers made in-process (no HTTP), so
  the time is the controller's own (reading actions, running them, redaction, leakage scans,
  message building), ``time.process_time`` ÷ steps.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from benchmarks.server_process import TESTS, ServerProcess
from courtbench.llm import ChatResult, EndpointConfig, RunSummary, run_chat, split_reasoning
from ecthr_npd.agent.run import build_episodes, build_resources
from ecthr_npd.build import build_synthetic
from ecthr_npd.data import load_benchmark

SCRIPT = ("inspect_case", "resolve_empirical_priors", "retrieve_train_references",
          "assess_aggregation_pattern", "leakage_check", "final_predict")
SERVER = """
import sys
sys.path.insert(0, sys.argv[1])
from fake_chat_server import FakeChatServer
from agent_script import scripted_agent
script = tuple(sys.argv[3].split(","))
delay = float(sys.argv[2])
respond = scripted_agent("tools", script)
def delayed(body, attempt):
    reply = respond(body, attempt)
    reply.delay = delay
    return reply
with FakeChatServer(delayed) as server:
    print(server.url, flush=True)
    sys.stdin.read()
"""
LATENCY = 0.2
N_CASES = 500
PARAMS = {"temperature": 0.0, "seed": 42, "max_tokens": 4096}


def _episodes(data, resources):
    pairs = build_episodes(data, ("validation", "test"), resources, mode="tools",
                           max_steps=len(SCRIPT), audit={}, applicant_awards={})
    return [episode for _, episode in pairs[:N_CASES]]


def _params():
    from ecthr_npd.agent.actions import tools
    return {**PARAMS, "tools": tools(), "tool_choice": "auto"}


def throughput(data, resources) -> dict:
    from ecthr_npd.agent.controller import run_episodes

    seconds, requests = {}, {}
    with ServerProcess(SERVER, LATENCY, ",".join(SCRIPT)) as server:
        for concurrency in (16, 1):
            config = EndpointConfig(server.url, "m", api_key_env=None, concurrency=concurrency)
            episodes = _episodes(data, resources)
            started = time.perf_counter()
            counts = run_episodes(episodes, _params(), lambda r, step, c=config: run_chat(
                r, c, progress=False))
            seconds[concurrency] = time.perf_counter() - started
            requests[concurrency] = counts["attempts"]
            assert all(e.status == "final" for e in episodes) and counts["failed"] == 0
    return {"cases": N_CASES, "steps_per_case": len(SCRIPT), "server_latency_s": LATENCY,
            "requests_sent_per_run": requests[16],
            "concurrency_16_seconds": seconds[16], "concurrency_1_seconds": seconds[1],
            "concurrency_16_steps_per_s": N_CASES * len(SCRIPT) / seconds[16],
            "concurrency_1_steps_per_s": N_CASES * len(SCRIPT) / seconds[1],
            "ratio_16_over_1": seconds[1] / seconds[16], "target_ratio": 10}


def _local_send(requests, step):
    """Answers of the scripted model made in-process, as ChatResults."""
    sys.path.insert(0, str(TESTS))
    from agent_script import scripted_agent

    respond = scripted_agent("tools", SCRIPT)
    results = []
    for request in requests:
        reply = respond({"messages": list(request.messages)}, 0)
        answer, reasoning, _ = split_reasoning(reply.content)
        results.append(ChatResult(request.id, answer, reasoning, reply.finish_reason,
                                  dict(reply.usage), None, False, tuple(reply.tool_calls)))
    return RunSummary(results, sent=len(results), cached=0, failed=0, usage={})


def controller_cpu(data, resources) -> dict:
    from ecthr_npd.agent.controller import run_episodes

    episodes = _episodes(data, resources)
    cpu = time.process_time()
    run_episodes(episodes, _params(), _local_send)
    cpu = time.process_time() - cpu
    steps = sum(len(e.steps) for e in episodes)
    assert all(e.status == "final" for e in episodes)
    return {"steps": steps, "controller_cpu_ms_per_step": 1000 * cpu / steps,
            "note": "includes the in-process scripted model's answers (JSON parsing)"}


def main() -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-ecthr-agent-") as tmp:
        build_synthetic(Path(tmp) / "built", n=1700, seed=3)
        data = load_benchmark(Path(tmp) / "built")
    started = time.perf_counter()
    resources = build_resources(data, top_k=5, min_count=5, knowledge_base=None)
    setup = time.perf_counter() - started
    return {"train_cases": data.splits["train"].num_rows, "resources_setup_s": setup,
            "controller_cpu": controller_cpu(data, resources),
            "throughput": throughput(data, resources)}


if __name__ == "__main__":
    import json

    print(json.dumps(main(), indent=2))
