"""Model answers are data, never a crash (#32): the agent on Inspect against scripted models.

NaN, Infinity, 1e400 and an integer of 401 digits in ``final_predict`` or any tool argument
fail that case with a reason while every other case's predictions and traces are written and
a rerun from Inspect's cache completes with the same bytes; ``--limit`` is obeyed; an answer
or a conversation over its byte cap fails the case; the leakage gate checks what courtbench
sends (both directions) and scans every positive award.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import pytest
from agent_script import action_reply, observations, step_of
from fake_chat_server import FakeChatServer, Reply
from sentinel_builds import build_with_sentinels

from courtbench.cli import main
from ecthr_npd.agent.leakage import number_forms
from ecthr_npd.data import load_benchmark

pytestmark = pytest.mark.slow
SENTINEL_AWARD = 876_543.21  # + 1.01 * i per held-out case: in no training award
BAD_ARGUMENTS = ('{"award_eur": NaN}', '{"award_eur": Infinity}', '{"award_eur": 1e400}',
                 '{"award_eur": 1' + "0" * 400 + "}")


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return build_with_sentinels(tmp_path_factory.mktemp("agent_answers") / "built", n=60,
                                seed=5, award_base=SENTINEL_AWARD)


@pytest.fixture(scope="module")
def awards_by_features(folder) -> dict[str, float]:
    """The serialised features an ``inspect_case`` observation shows → the case's award."""
    from ecthr_npd.agent.actions import readable
    from ecthr_npd.agent.references import RECORD_COLUMNS
    from ecthr_npd.prompting.serialise import FIELDS

    data = load_benchmark(folder)
    found = {}
    for split in ("validation", "test"):
        records = data.splits[split].select(list(RECORD_COLUMNS)).to_pylist()
        for record, award in zip(records, data.target(split), strict=True):
            found[_key(readable(record, tuple(f.column for f in FIELDS)))] = float(award)
    return found


def _key(features: dict) -> str:
    return json.dumps(features, sort_keys=True)


def _features(body: dict) -> dict:
    return observations(body)[0]["observation"]["features"]


def _run(folder: Path, server: FakeChatServer, out: Path, *extra: str) -> int:
    return main(["predict", "ecthr_npd", "--data", str(folder), "--out", str(out),
                 "--base-url", server.url, "--model", "scripted", "--max-retries", "0",
                 "--prompt", "react", *extra])


def _lines(path: Path) -> list[dict]:
    def refuse(constant):
        raise ValueError(f"non-JSON number {constant}")

    return [json.loads(line, parse_constant=refuse)
            for line in path.read_text(encoding="utf-8").splitlines()]


def _variant(body: dict) -> int:
    return int(hashlib.sha256(_key(_features(body)).encode()).hexdigest(), 16) % 7


def hostile(mode: str):
    """Step 1 inspect_case; then by case: one of the bad final_predict arguments, a NaN in
    another tool's argument, or a good answer."""
    def respond(body: dict, attempt: int) -> Reply:
        step = step_of(body)
        if step == 0:
            return action_reply("inspect_case", {}, mode=mode, step=step)
        variant = _variant(body)
        if variant < len(BAD_ARGUMENTS):
            return action_reply("final_predict", None, mode=mode, step=step,
                                raw_arguments=BAD_ARGUMENTS[variant])
        if variant == len(BAD_ARGUMENTS) and step == 1:
            return action_reply("retrieve_train_references", None, mode=mode, step=step,
                                raw_arguments='{"k": NaN}')
        return action_reply("final_predict", {"award_eur": 1234.5}, mode=mode, step=step)
    return respond


@pytest.mark.parametrize("mode", ["tools", "json"])
def test_non_finite_and_huge_numbers_fail_their_case_only(folder, tmp_path, mode):
    out, cache = tmp_path / "agent.csv", tmp_path / "cache"
    data = load_benchmark(folder)
    held_out = data.ids("validation") + data.ids("test")
    with FakeChatServer(hostile(mode)) as server:
        assert _run(folder, server, out, "--actions", mode, "--cache", str(cache)) == 1
        sent = len(server.requests)
        traces = out.with_name("agent.traces.jsonl").read_bytes()
        predictions, responses = out.read_bytes(), out.with_name("agent.responses.jsonl").read_bytes()
        # a rerun from the cache completes, sends nothing and writes the same bytes
        assert _run(folder, server, out, "--actions", mode, "--cache", str(cache)) == 1
        assert len(server.requests) == sent
    assert out.read_bytes() == predictions
    assert out.with_name("agent.traces.jsonl").read_bytes() == traces
    assert out.with_name("agent.responses.jsonl").read_bytes() == responses
    manifest = json.loads(out.with_name("agent.csv.manifest.json").read_text())
    cases = {c["case_id"]: c for c in _lines(out.with_name("agent.traces.jsonl"))
             if c["kind"] == "case"}
    assert list(cases) == held_out  # every case's trace is written
    lines = out.read_text().splitlines()
    assert len(lines) == 1 + len(held_out)  # every case has a prediction (fallback filled)
    invalid = {c for c, r in cases.items() if r["status"] == "invalid_answer"}
    good = {c for c, r in cases.items() if r["status"] == "ok"}
    assert invalid and good and invalid | good == set(held_out)
    for case_id in invalid:
        reason = cases[case_id]["failure_reason"]
        assert "finite" in reason or "64-bit" in reason or "integer" in reason, reason
        assert cases[case_id]["prediction_source"] == "fallback_train_median"
    assert all(cases[c]["prediction"] == 1234.5 for c in good)
    assert manifest["counts"]["invalid_answer"] == len(invalid)
    assert manifest["llm_run"]["failure_share"] == len(invalid) / len(held_out)
    assert manifest["complete"] is False  # failures over --max-failure-share 0: exit 1


def test_limit_is_obeyed_by_the_agent(folder, tmp_path):
    from agent_script import scripted_agent

    out = tmp_path / "agent.csv"
    with FakeChatServer(scripted_agent("tools")) as server:
        assert _run(folder, server, out, "--limit", "3") == 0
        first_steps = sum(step_of(r.body) == 0 for r in server.requests)
    assert len(out.read_text().splitlines()) == 1 + 3
    assert first_steps <= 3  # identical first requests may be answered from the cache
    manifest = json.loads(out.with_name("agent.csv.manifest.json").read_text())
    assert manifest["counts"]["cases"] == 3 and manifest["llm_run"]["limit"] == 3


def test_answer_and_conversation_byte_caps(folder, tmp_path):
    from ecthr_npd.agent.controller import MAX_CONVERSATION_BYTES

    def enormous(body: dict, attempt: int) -> Reply:
        return Reply("x" * 900_000 + '{"action": "inspect_case", "arguments": {}}')

    def growing(body: dict, attempt: int) -> Reply:  # under the answer cap, piling up
        return Reply("y" * 60_000 + '{"action": "assess_aggregation_pattern", "arguments": {}}')

    out = tmp_path / "big.csv"
    with FakeChatServer(enormous) as server:
        assert _run(folder, server, out, "--actions", "json", "--limit", "2") == 1
        assert len(server.requests) <= 2  # one turn each: the case ends there
    cases = [c for c in _lines(out.with_name("big.traces.jsonl")) if c["kind"] == "case"]
    assert {c["status"] for c in cases} == {"too_large"}
    assert "over the 65,536-byte cap" in cases[0]["failure_reason"]
    out = tmp_path / "long.csv"
    with FakeChatServer(growing) as server:
        assert _run(folder, server, out, "--actions", "json", "--limit", "1",
                    "--max-steps", "40") == 1
        biggest = max(len(json.dumps(r.body)) for r in server.requests)
    assert biggest < MAX_CONVERSATION_BYTES + 100_000
    case = next(c for c in _lines(out.with_name("long.traces.jsonl")) if c["kind"] == "case")
    assert case["status"] == "too_large" and "conversation" in case["failure_reason"]
    assert case["steps"] < 40


def test_the_gate_passes_the_models_own_guess_and_echoed_errors(folder, tmp_path,
                                                                awards_by_features):
    """The model writes the exact award in its own turns and in an argument that comes back
    in an error text: the gate checks what courtbench sends, so the case passes."""
    def guessing(body: dict, attempt: int) -> Reply:
        step = step_of(body)
        if step == 0:
            return action_reply("inspect_case", {}, mode="tools", step=step)
        award = awards_by_features[_key(_features(body))]
        if step == 1:
            return action_reply("load_module", {"name": f"EUR {award:,.2f}"}, mode="tools",
                                step=step)
        if step == 2:
            return action_reply("leakage_check", {}, mode="tools", step=step)
        reply = action_reply("final_predict", {"award_eur": award}, mode="tools", step=step)
        return dataclasses.replace(reply, content=f"My estimate is EUR {award:,.2f}.")

    out = tmp_path / "guess.csv"
    with FakeChatServer(guessing) as server:
        assert _run(folder, server, out, "--limit", "4") == 0
    traces = _lines(out.with_name("guess.traces.jsonl"))
    cases = [c for c in traces if c["kind"] == "case"]
    assert {c["status"] for c in cases} == {"ok"}
    assert all(c["leakage_gate"]["passed"] and c["leakage_gate"]["scanned"]["award_values"] == 1
               for c in cases)
    errors = [s["error"] for s in traces if s["kind"] == "step" and s["action"] == "load_module"]
    assert errors and all("no module named 'EUR 876," in e for e in errors)
    checks = [s["leakage_check"] for s in traces if s.get("leakage_check")]
    assert checks and all(check["passed"] for check in checks)


def test_the_gate_fails_a_case_whose_award_an_observation_carries(folder, tmp_path,
                                                                  monkeypatch):
    """A handler that leaks the target's award in an unchecked field: that case fails."""
    from agent_script import scripted_agent

    from ecthr_npd.agent import actions

    original = actions.ACTION_BY_NAME["inspect_case"]

    def leaky(context, arguments):
        payload = original.handler(context, arguments)
        return {**payload, "remark": f"{context.scanner.target_award:,.2f}"}

    monkeypatch.setitem(actions.ACTION_BY_NAME, "inspect_case",
                        dataclasses.replace(original, handler=leaky))
    out = tmp_path / "leak.csv"
    with FakeChatServer(scripted_agent("tools")) as server:
        assert _run(folder, server, out, "--limit", "2") == 1
        text = json.dumps([r.body for r in server.requests])
    assert any(form in text for form in number_forms(SENTINEL_AWARD))  # it did reach a request
    cases = [c for c in _lines(out.with_name("leak.traces.jsonl")) if c["kind"] == "case"]
    assert {c["status"] for c in cases} == {"leakage"}
    assert all(c["leakage_gate"]["hits"][0]["kind"] == "target_award" for c in cases)
    manifest = json.loads(out.with_name("leak.csv.manifest.json").read_text())
    assert manifest["leakage_free"] is False
