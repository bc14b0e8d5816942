"""ECtHR-NPD ReAct agent on Inspect: episode throughput across cases and the controller's CPU
per step.

A synthetic build (1,700 cases) and the scripted tool-calling model of the tests
(``tests/helpers/agent_script.py``) in a child process of the scripted chat server
(``tests/helpers/fake_chat_server.py``), so that its CPU time is not the client's:

- throughput: ``N_CASES`` cases × 6 steps (inspect_case, resolve_empirical_priors,
  retrieve_train_references, assess_aggregation_pattern, leakage_check, final_predict) at
  200 ms server latency through :func:`courtbench.inspect_glue.runner.run_task`, concurrency
  16 against concurrency 1 (target ratio >= 10). Step 1 is the same request for every case (it
  holds no case information), so Inspect's cache answers it after the first.
- controller CPU per step: the same episodes with the answers made in-process (no HTTP, no
  Inspect), so the time is the controller's own (reading actions, checking numbers, running
  them, redaction, leakage gate, message building), ``time.process_time`` ÷ steps.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from benchmarks.server_process import TESTS, ServerProcess
from courtbench.inspect_glue.options import ModelOptions
from courtbench.inspect_glue.runner import run_task
from ecthr_npd.agent.controller import Answer, advance, final_gate
from ecthr_npd.agent.run import build_resources
from ecthr_npd.agent.solver import AgentSetup
from ecthr_npd.build import build_synthetic
from ecthr_npd.data import load_benchmark
from ecthr_npd.inspect_task import build_task

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
N_CASES = 100


def throughput(data, folder: Path) -> dict:
    seconds = {}
    with ServerProcess(SERVER, LATENCY, ",".join(SCRIPT)) as server, \
            tempfile.TemporaryDirectory() as tmp:
        for concurrency in (16, 1):
            task = build_task(data, ("validation", "test"), prompt="react", folder=folder,
                              limit=N_CASES)
            options = ModelOptions("m", base_url=server.url, concurrency=concurrency,
                                   max_retries=0, cache_dir=Path(tmp) / f"c{concurrency}",
                                   log_dir=Path(tmp) / f"l{concurrency}")
            started = time.perf_counter()
            result = run_task(task, options, options.generate_config({"temperature": 0.0}),
                              desc="agent", progress=False)
            seconds[concurrency] = time.perf_counter() - started
            assert result.counts.errored == 0
    return {"cases": N_CASES, "steps_per_case": len(SCRIPT), "server_latency_s": LATENCY,
            "concurrency_16_seconds": seconds[16], "concurrency_1_seconds": seconds[1],
            "concurrency_16_steps_per_s": N_CASES * len(SCRIPT) / seconds[16],
            "concurrency_1_steps_per_s": N_CASES * len(SCRIPT) / seconds[1],
            "ratio_16_over_1": seconds[1] / seconds[16], "target_ratio": 10}


def controller_cpu(data, resources) -> dict:
    sys.path.insert(0, str(TESTS))
    from agent_script import scripted_agent

    respond = scripted_agent("tools", SCRIPT)
    setup = AgentSetup(data, resources, mode="tools", max_steps=12, audit={},
                       applicant_awards={})
    episodes = [setup.episode(case_id) for case_id in data.ids("test")[:300]]
    cpu, steps = time.process_time(), 0
    for episode in episodes:
        for step in range(len(SCRIPT)):
            reply = respond({"messages": list(episode.messages)}, 0)
            advance(episode, Answer(reply.content, None, tuple(reply.tool_calls),
                                    reply.finish_reason, dict(reply.usage)), step)
            steps += 1
            if episode.status != "running":
                break
        final_gate(episode)
    cpu = time.process_time() - cpu
    assert all(e.status == "final" for e in episodes)
    return {"steps": steps, "controller_cpu_ms_per_step": 1000 * cpu / steps,
            "note": "includes the in-process scripted model's answers (JSON parsing)"}


def main() -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-ecthr-agent-") as tmp:
        folder = Path(tmp) / "built"
        build_synthetic(folder, n=1700, seed=3)
        data = load_benchmark(folder)
        started = time.perf_counter()
        resources = build_resources(data, top_k=5, min_count=5, knowledge_base=None)
        setup = time.perf_counter() - started
        return {"train_cases": data.splits["train"].num_rows, "resources_setup_s": setup,
                "controller_cpu": controller_cpu(data, resources),
                "throughput": throughput(data, folder)}


if __name__ == "__main__":
    import json

    print(json.dumps(main(), indent=2))
