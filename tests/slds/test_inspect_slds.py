"""``inspect eval courtbench/slds`` against scripted servers on 127.0.0.1 (Inspect's
``openai-api/<service>/<model>`` provider): the task found through the entry point, the
published preset in every request body, a one-shot example that is the sample itself never in
its prompt, the parameters a model family refuses dropped whatever the host, the grader's
judgement and the similarity metrics per pair and macro as the metric modules compute them,
and the log going into ``courtbench evaluate slds`` as a predictions file. Also: without the
inspect extra, generate / judge say in one line which extra to install."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from fake_chat_server import FakeChatServer, Reply, judgement
from slds_fixtures import pair_rows, write_pair_folder

from courtbench.cli import main
from courtbench.inspect_glue import INSTALL_HINT
from courtbench.metric_modules import load_metric_module

pytestmark = pytest.mark.slow
GOLD = {row["sample_id"]: row for row in pair_rows(2000, "validation")}


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return write_pair_folder(tmp_path_factory.mktemp("inspect_slds"))


def responder(body: dict, attempt: int) -> Reply:
    """The generator repeats the first line of its decision; the grader gives 3,3,2,2,1."""
    if body["model"] == "judge":
        return Reply(judgement([3, 3, 2, 2, 1]))
    return Reply(body["messages"][-1]["content"].split("```")[1].split("\n")[0])


@pytest.fixture
def scripted(monkeypatch, tmp_path, no_token_encodings):
    with FakeChatServer(responder) as server:
        monkeypatch.setenv("SCRIPTED_BASE_URL", server.url)
        monkeypatch.setenv("SCRIPTED_API_KEY", "sk-scripted")
        monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
        yield server



def test_inspect_eval_runs_the_published_preset_and_scores_with_the_metric_modules(
        folder, tmp_path, scripted, capsys):
    import inspect_ai

    log, = inspect_ai.eval("courtbench/slds", model="openai-api/scripted/gen",
                           model_roles={"grader": "openai-api/scripted/judge"},
                           task_args={"data": str(folder), "config": "all",
                                      "preset": "published", "split": "validation",
                                      "resamples": 10},
                           log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success" and log.eval.task_registry_name == "courtbench/slds"
    generated = [r.body for r in scripted.requests if r.body["model"] == "gen"]
    judged = [r.body for r in scripted.requests if r.body["model"] == "judge"]
    assert len(generated) == len(judged) == 9
    for body in generated:  # the published decoding reaches every request body
        assert {k: body[k] for k in ("temperature", "top_p", "seed", "max_tokens", "stop",
                                     "top_k", "repetition_penalty")} == {
            "temperature": 0.7, "top_p": 0.8, "seed": 2025, "max_tokens": 512,
            "stop": ["</s>"], "top_k": 20, "repetition_penalty": 1.05}
        # every validation row is its pair's one-shot example: each ran zero-shot, and no
        # gold headnote of the split is in any prompt
        assert [m["role"] for m in body["messages"]] == ["system", "user"]
        assert not any(row["headnote"] in json.dumps(body, ensure_ascii=False)
                       for row in GOLD.values())
    assert {b["temperature"] for b in judged} == {0.0}
    metrics = {name: m.value for score in log.results.scores for name, m in score.metrics.items()}
    samples = sorted(log.samples, key=lambda s: s.id)
    predictions = [s.scores["headnote"].metadata["prediction"] for s in samples]
    rows = [GOLD[s.id] for s in samples]
    assert predictions == [row["decision"].split("\n")[0] for row in rows]
    expected = load_metric_module("headnote_similarity").headnote_similarity(
        predictions, [r["headnote"] for r in rows], [r["headnote_language"] for r in rows],
        [r["decision_language"] for r in rows], bootstrap_resamples=10, seed=0)
    assert metrics["rougeL"] == pytest.approx(expected["rougeL"], rel=1e-12)
    assert metrics["fr_it/bleu"] == pytest.approx(expected["groups"]["fr_it"]["bleu"], rel=1e-12)
    assert metrics["judge"] == metrics["judge_macro"] == metrics["de_de/judge"] == pytest.approx(60.0)

    # the log is a predictions file of courtbench evaluate slds, scored like any other
    log_file = Path(log.location)
    assert main(["evaluate", "slds", "--data", str(folder), "--split", "validation",
                 "--predictions", str(log_file), "--out", str(tmp_path / "report"),
                 "--resamples", "10"]) == 0, capsys.readouterr().err
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    row = report["tables"]["main"]["rows"][0]
    assert row[report["tables"]["main"]["columns"].index("ROUGE-L F1")] == pytest.approx(
        expected["rougeL"], abs=0.05)


@pytest.mark.parametrize("model, sent", [
    ("openai-api/scripted/deepseek-chat", set()),           # DeepSeek through another host
    ("openai-api/scripted/claude-sonnet-4", set()),         # Claude through another host
    ("openai-api/scripted/Qwen3-8B", {"top_k", "repetition_penalty"}),
])
def test_parameters_a_family_refuses_are_dropped_whatever_the_host(folder, tmp_path, scripted,
                                                                   model, sent):
    import inspect_ai

    log, = inspect_ai.eval("courtbench/slds", model=model, limit=1,
                           task_args={"data": str(folder), "config": "de_de",
                                      "preset": "published", "judge": False},
                           log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success"
    body, = [r.body for r in scripted.requests]
    assert {"top_k", "repetition_penalty"} & set(body) == sent
    # the one-shot example of a test sample is the pair's validation row
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "user"]


@pytest.mark.parametrize("command", ["generate", "judge"])
def test_without_the_extra_one_line_names_it(folder, tmp_path, command):
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("")
    args = {"generate": ["generate", "slds", "--config", "de_de"],
            "judge": ["judge", "slds", "--config", "de_de", "--predictions", str(predictions)]}
    code = ("import sys; sys.modules['inspect_ai'] = None; from courtbench.cli import main; "
            f"sys.exit(main({args[command] + ['--data', str(folder), '--out', str(tmp_path / 'o.json' if command == 'judge' else tmp_path / 'o.jsonl'), '--model', 'm', '--base-url', 'http://127.0.0.1:9/v1']!r}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env={"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
                                            "PATH": ""})
    assert done.returncode == 1
    error = done.stderr.strip()
    assert len(error.splitlines()) == 1 and INSTALL_HINT in error and "Traceback" not in error
