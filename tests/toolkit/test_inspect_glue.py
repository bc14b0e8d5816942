"""courtbench.inspect_glue: the Inspect task through its entry point, and the guarantees of a
run that courtbench adds on top of Inspect, against scripted servers on 127.0.0.1.

- ``courtbench/ecthr_npd`` is found through the ``inspect_ai`` entry point and runs on
  Inspect's ``openai-api/<service>/<model>`` provider (``<SERVICE>_BASE_URL`` / ``_API_KEY``),
  scoring with the metric modules' functions;
- nothing needs a token encoding (tiktoken refuses to load one here);
- a refused connection is one line within seconds; SIGTERM ends a run promptly and SIGKILL
  loses nothing finished: the rerun sends only the missing samples;
- the key and the ``--header`` values reach the server and no file;
- without the extra, one line names it.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import pytest
from fake_chat_server import FakeChatServer, Reply

from courtbench.cli import main
from courtbench.inspect_glue import INSTALL_HINT, options
from ecthr_npd.build import build_synthetic
from ecthr_npd.data import load_benchmark

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("glue") / "built"
    build_synthetic(out, n=100, seed=7)
    return out


def award_of(body: dict) -> float:
    return 1000.0 * (1 + len(body["messages"][-1]["content"]) % 9)


def answering(body: dict, attempt: int) -> Reply:
    return Reply(json.dumps({"award_eur": award_of(body)}))



def test_inspect_eval_finds_the_task_and_scores_with_the_metric_modules(
        folder, tmp_path, monkeypatch, no_token_encodings):
    """Run from a clone's root too, where the source tree's egg-info hides the install."""
    import inspect_ai

    from courtbench.metric_modules import load_metric_module

    data = load_benchmark(folder)
    with FakeChatServer(answering) as server:
        monkeypatch.setenv("SCRIPTED_BASE_URL", server.url)
        monkeypatch.setenv("SCRIPTED_API_KEY", "sk-scripted")
        monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
        log, = inspect_ai.eval("courtbench/ecthr_npd", model="openai-api/scripted/m",
                               task_args={"data": str(folder), "prompt": "cot",
                                          "split": "test"},
                               log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success" and log.eval.task_registry_name == "courtbench/ecthr_npd"
    bodies = [r.body for r in server.requests]
    assert len(bodies) == len(data.ids("test")) and {b["seed"] for b in bodies} == {42}
    assert {b["temperature"] for b in bodies} == {0.0} and {b["max_tokens"] for b in bodies} == {4096}
    predictions = {s.id: s.scores["award_scorer"].metadata["prediction"] for s in log.samples}
    y = data.target("test")
    p = [predictions[c] for c in data.ids("test")]
    expected = load_metric_module("npd_regression").npd_regression(predictions=p, references=y)
    metrics = log.results.scores[0].metrics
    assert metrics["mae"].value == pytest.approx(expected["mae"], rel=1e-12)
    zero = load_metric_module("zero_f1").zero_f1(predictions=p, references=y)
    assert metrics["zero_f1"].value == pytest.approx(zero["zero_f1"])
    assert metrics["mae_ci_low"].value <= metrics["mae"].value <= metrics["mae_ci_high"].value
    ids = set(data.views["ID"])
    in_id = [i for i, c in enumerate(data.ids("test")) if c in ids]
    view = load_metric_module("npd_regression").npd_regression(
        predictions=[p[i] for i in in_id], references=[y[i] for i in in_id])
    assert metrics["ID/mae"].value == pytest.approx(view["mae"], rel=1e-12)
    assert "Challenging/zero_f1" in metrics


def test_refused_connection_is_one_line_within_seconds(folder, tmp_path, capsys):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    started = time.monotonic()
    assert main(["predict", "ecthr_npd", "--data", str(folder), "--out",
                 str(tmp_path / "x.csv"), "--base-url", f"http://127.0.0.1:{port}/v1",
                 "--model", "m", "--prompt", "zero_shot"]) == 1
    assert time.monotonic() - started < 30  # before the data load; no retries
    error = capsys.readouterr().err.strip().splitlines()
    assert "connection refused" in error[-1] and "nothing was sent" in error[-1]
    assert not (tmp_path / "x.csv").exists()


def _predict_process(folder: Path, url: str, out: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "courtbench", "predict", "ecthr_npd", "--data", str(folder),
         "--out", str(out), "--base-url", url, "--model", "m", "--prompt", "zero_shot",
         "--concurrency", "4", "--max-retries", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"})


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_a_signal_keeps_what_finished_and_the_rerun_sends_only_the_rest(folder, tmp_path,
                                                                         signum):
    """About half the cases answer at once, the rest hang (holding the 4 connections); the run
    is signalled once every request sent so far is answered or hanging and the answers are
    cached. SIGTERM ends it within seconds in one line; after either signal the rerun sends
    exactly the cases that had no answer."""
    data = load_benchmark(folder)
    n = len(data.ids("validation") + data.ids("test"))
    hang = threading.Event()
    fast = {"on": False}

    def responder(body: dict, attempt: int) -> Reply:
        if fast["on"] or len(body["messages"][-1]["content"]) % 2:
            return answering(body, attempt)
        hang.wait(120)
        return Reply(status=503)

    out = tmp_path / "run.csv"
    with FakeChatServer(responder) as server:
        process = _predict_process(folder, server.url, out)
        deadline = time.monotonic() + 300
        answered = 0
        cache = out.with_name("run.inspect") / "cache"
        while time.monotonic() < deadline:
            answered = sum(len(r.body["messages"][-1]["content"]) % 2 == 1
                           for r in server.requests)
            stored = sum(p.is_file() for p in (cache / "generate").rglob("*")) \
                if cache.is_dir() else 0
            if answered and answered == len(server.requests) - 4 and stored == answered:
                break  # the fast ones are answered and cached, 4 slow ones hold connections
            time.sleep(0.5)
        signalled = time.monotonic()
        process.send_signal(signum)
        stdout, stderr = process.communicate(timeout=60)
        took = time.monotonic() - signalled
        hang.set()
        done = {r.body["messages"][-1]["content"] for r in server.requests
                if len(r.body["messages"][-1]["content"]) % 2 == 1}
        assert process.returncode != 0
        if signum == signal.SIGTERM:
            assert took < 30  # a 5 s grace period; measured 6-22 s on a machine at load 18
            assert "interrupted" in stderr.strip().splitlines()[-1]
        assert not out.exists()
        fast["on"] = True
        before = len(server.requests)
        assert main(["predict", "ecthr_npd", "--data", str(folder), "--out", str(out),
                     "--base-url", server.url, "--model", "m", "--prompt", "zero_shot",
                     "--max-retries", "0"]) == 0
        resent = server.requests[before:]
    # exactly the samples without an answer: the hanging ones and those never sent
    resent_texts = [r.body["messages"][-1]["content"] for r in resent]
    assert len(resent_texts) == n - len(done) and not set(resent_texts) & done
    manifest = json.loads(out.with_name("run.csv.manifest.json").read_text())
    assert manifest["counts"]["cached"] + manifest["counts"]["sent"] == n


def test_key_and_header_values_reach_the_server_and_no_file(folder, tmp_path, monkeypatch):
    monkeypatch.setenv("GLUE_TEST_KEY", "sk-glue-secret-0123")
    out = tmp_path / "out" / "h.csv"
    with FakeChatServer(answering) as server:
        assert main(["predict", "ecthr_npd", "--data", str(folder), "--out", str(out),
                     "--base-url", server.url, "--model", "m", "--prompt", "zero_shot",
                     "--api-key-env", "GLUE_TEST_KEY", "--header",
                     "X-Proxy-Token: hdr-secret-4567", "--limit", "3"]) == 0
    headers = [{k.lower(): v for k, v in r.headers.items()} for r in server.requests]
    assert all(h["authorization"] == "Bearer sk-glue-secret-0123" for h in headers)
    assert all(h["x-proxy-token"] == "hdr-secret-4567" for h in headers)
    found = []
    for path in sorted(out.parent.rglob("*")):
        if not path.is_file():
            continue
        blobs = [path.read_bytes()]
        if path.suffix == ".eval":
            with zipfile.ZipFile(path) as archive:
                blobs = [archive.read(name) for name in archive.namelist()]
        found += [path.name for blob in blobs
                  if b"sk-glue-secret-0123" in blob or b"hdr-secret-4567" in blob]
    assert found == []
    manifest = json.loads(out.with_name("h.csv.manifest.json").read_text())
    assert manifest["header_names"] == ["X-Proxy-Token"]
    assert manifest["llm_run"]["limit"] == 3 and manifest["counts"]["cases"] == 3


def test_without_the_extra_one_line_names_it(folder, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "inspect_ai", None)  # import inspect_ai fails
    assert main(["predict", "ecthr_npd", "--data", str(folder), "--out",
                 str(tmp_path / "x.csv"), "--model", "m", "--base-url",
                 "http://127.0.0.1:9/v1", "--prompt", "zero_shot"]) == 1
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and INSTALL_HINT in error


def test_extra_body_never_overrides_owned_fields_and_families_drop_refused_parameters():
    from courtbench.errors import CourtbenchError

    for field in ("model", "messages", "tools", "temperature", "seed", "max_tokens"):
        with pytest.raises(CourtbenchError, match="set by courtbench"):
            options.extra_body(json.dumps({field: 1}))
    assert options.extra_body('{"min_p": 0.05}') == {"min_p": 0.05}
    with pytest.raises(CourtbenchError, match="--extra-body"):
        options.extra_body('{"min_p": NaN}')
    # by the model's family, whatever the host: the published evaluation's rule
    for name in ("openai/gpt-4o-mini", "openai-api/courtbench/gpt-4o-mini",
                 "openrouter/deepseek/deepseek-chat", "openai-api/courtbench/claude-sonnet-4",
                 "openrouter/anthropic/claude-sonnet-4"):
        assert options.refused_parameters(name) == ("top_k", "repetition_penalty"), name
    # Anthropic's own API keeps top-k (the paper sent it), natively
    assert options.refused_parameters("anthropic/claude-sonnet-4") == ("repetition_penalty",)
    assert options.refused_parameters("openai-api/courtbench/Qwen/Qwen3-8B") == ()
    run = options.ModelOptions("anthropic/claude-sonnet-4", top_k=20, repetition_penalty=1.05)
    config = run.generate_config({"temperature": 0.7})
    assert config["top_k"] == 20 and "extra_body" not in config
    assert run.dropped_parameters() == ["repetition_penalty"]
    served = options.ModelOptions("claude-sonnet-4", base_url="http://127.0.0.1:9/v1", top_k=20,
                                  repetition_penalty=1.05)
    assert "extra_body" not in served.generate_config({}) and "top_k" not in served.generate_config({})
    assert served.dropped_parameters() == ["top_k", "repetition_penalty"]
    qwen = options.ModelOptions("Qwen/Qwen3-8B", base_url="http://127.0.0.1:9/v1", top_k=20,
                                repetition_penalty=1.05, extra_body={"min_p": 0.05})
    assert qwen.generate_config({})["extra_body"] == {"min_p": 0.05, "top_k": 20,
                                                      "repetition_penalty": 1.05}
