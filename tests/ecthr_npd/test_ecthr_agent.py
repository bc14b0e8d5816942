"""``courtbench predict ecthr_npd --prompt react`` against the loopback scripted tool-calling
server (``tests/helpers/fake_chat_server.py`` + ``tests/helpers/agent_script.py``): full episodes (happy
path in both action modes, unknown and malformed actions, prose-only answers, ``<think>``
blocks, step-budget overrun, a model reaching for another case's award), sentinels planted
in every audit column and in every validation/test target that never reach any request,
the leakage gate, resumption, deterministic traces and ``courtbench evaluate``."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow as pa
import pytest
from agent_script import HAPPY, action_reply, default_arguments, observations, scripted_agent
from fake_chat_server import FakeChatServer, Reply
from sentinel_builds import build_with_sentinels

from courtbench.cli import main
from ecthr_npd.agent.leakage import number_forms
from ecthr_npd.data import load_benchmark

pytestmark = pytest.mark.slow
SENTINEL = "AUDITSENTINEL"
SENTINEL_AWARD = 987_654.32  # + 1.01 * i for the i-th held-out case: in no training award


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A synthetic build (60 cases): every audit column holds sentinel strings, every
    validation/test target a distinctive sentinel award."""
    return build_with_sentinels(tmp_path_factory.mktemp("ecthr_agent") / "built", n=60,
                                seed=2, award_base=SENTINEL_AWARD, audit_sentinel=SENTINEL)


@pytest.fixture(scope="module")
def held_out(folder) -> list[str]:
    data = load_benchmark(folder)
    return data.ids("validation") + data.ids("test")


@pytest.fixture(scope="module")
def sentinel_awards(folder) -> list[float]:
    data = load_benchmark(folder)
    return [*data.target("validation"), *data.target("test")]


def _run(folder: Path, server: FakeChatServer, out: Path, *extra: str) -> int:
    return main(["predict", "ecthr_npd", "--data", str(folder), "--out", str(out),
                 "--base-url", server.url, "--model", "scripted-agent", "--max-retries", "0",
                 "--prompt", "react", *extra])


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _cases(out: Path) -> dict[str, dict]:
    return {r["case_id"]: r for r in _lines(out.with_name(out.stem + ".traces.jsonl"))
            if r["kind"] == "case"}


def _steps(out: Path, case_id: str) -> list[dict]:
    return [r for r in _lines(out.with_name(out.stem + ".traces.jsonl"))
            if r["kind"] == "step" and r["case_id"] == case_id]


def assert_nothing_withheld_was_sent(server: FakeChatServer, awards: list[float]) -> None:
    """No sentinel string and no held-out sentinel award in any request of any step."""
    assert server.requests
    text = json.dumps([r.body for r in server.requests], ensure_ascii=False)
    assert SENTINEL not in text
    for award in awards:
        for form in number_forms(award):
            assert form not in text, form
    # the controller never names a withheld column (a prying model may, in its own turns)
    controller = json.dumps([m for r in server.requests for m in r.body["messages"]
                             if m["role"] != "assistant"])
    assert "y_amount_eur" not in controller and "target_status" not in controller


@pytest.mark.parametrize("mode", ["tools", "json"])
def test_happy_path_episode_then_evaluate(folder, held_out, sentinel_awards, tmp_path, mode):
    out = tmp_path / "preds" / "agent.csv"
    with FakeChatServer(scripted_agent(mode, think=True)) as server:
        assert _run(folder, server, out, "--actions", mode, "--splits", "validation,test") == 0
    assert_nothing_withheld_was_sent(server, sentinel_awards)
    bodies = [r.body for r in server.requests]
    assert all(("tools" in b) == (mode == "tools") for b in bodies)
    assert {b["temperature"] for b in bodies} == {0.0} and {b["seed"] for b in bodies} == {42}
    # <think> text is kept in the trace, never sent back
    assert "<think>" not in json.dumps(bodies)
    with open(out, newline="", encoding="utf-8") as handle:
        rows = {r["case_id"]: float(r["prediction"]) for r in csv.DictReader(handle)}
    assert list(rows) == held_out
    cases = _cases(out)
    assert list(cases) == held_out and {c["status"] for c in cases.values()} == {"ok"}
    first = held_out[0]
    steps = _steps(out, first)
    assert [s["action"] for s in steps] == list(HAPPY)
    assert steps[0]["reasoning"] == "choosing the next action"
    case = cases[first]
    assert case["steps"] == len(HAPPY) and len(case["references"]) == 5
    assert case["priors_used"] and case["leakage_gate"]["passed"] is True
    assert case["leakage_gate"]["scanned"]["award_values"] == 1
    assert case["leakage_gate"]["scanned"]["audit_values"] >= 2
    assert rows[first] == case["final"]["award_eur"] == case["prediction"]
    # the Inspect log holds the conversation: every model call of the case
    manifest = json.loads(out.with_name("agent.csv.manifest.json").read_text())
    from inspect_ai.log import read_eval_log
    log = read_eval_log(str(out.with_name("agent.inspect") / "logs" / manifest["llm_run"]["inspect_log"]))
    sample = next(s for s in log.samples if s.id == first)
    assert sum(e.event == "model" for e in sample.events) == len(HAPPY)
    priors = next(s for s in steps if s["action"] == "resolve_empirical_priors")
    assert rows[first] == priors["observation"]["per_article"][0]["median_eur"]
    assert next(s for s in steps if s["action"] == "leakage_check")["leakage_check"]["passed"]
    assert case["usage"]["total_tokens"] == 110 * len(HAPPY)
    assert manifest["complete"] and manifest["leakage_free"]
    assert manifest["counts"]["final"] == len(held_out) and manifest["prompt"]["actions"] == mode
    assert manifest["prompt"]["priors"]["data_fingerprint"] == manifest["data"]["fingerprint"]
    assert manifest["traces"]["file"] == "agent.traces.jsonl"
    if mode == "json":
        return
    report = tmp_path / "report"
    assert main(["evaluate", "ecthr_npd", "--data", str(folder), "--predictions", str(out),
                 "--splits", "validation,test", "--out", str(report), "--no-figures",
                 "--resamples", "20"]) == 0
    assert (report / "report.json").is_file()


def _unruly(mode: str):
    """Step 1 an unknown action, step 2 a malformed JSON action, step 3 prose only, then a
    tool call whose arguments are no JSON (tools) or a wrong argument type, then final."""
    def script(body: dict, step: int) -> Reply:
        if step == 0:
            return action_reply("read_award_column", {}, mode=mode, step=step)
        if step == 1:
            if mode == "tools":
                return action_reply("inspect_case", None, mode=mode, step=step,
                                    raw_arguments='{"fields": [')
            return Reply('<think>hm</think>{"action": "inspect_case", "arguments": {')
        if step == 2:
            return Reply("I think the award is probably around five thousand euros.")
        if step == 3:
            return action_reply("retrieve_train_references", {"k": "five"}, mode=mode, step=step)
        return action_reply("final_predict", default_arguments("final_predict", []), mode=mode,
                            step=step)
    return script


@pytest.mark.parametrize("mode", ["tools", "json"])
def test_unknown_malformed_and_prose_turns_are_errors_that_spend_steps(
        folder, held_out, sentinel_awards, tmp_path, mode):
    out = tmp_path / "agent.csv"
    with FakeChatServer(scripted_agent(mode, _unruly(mode))) as server:
        assert _run(folder, server, out, "--actions", mode) == 0
    assert_nothing_withheld_was_sent(server, sentinel_awards)
    steps = _steps(out, held_out[0])
    assert len(steps) == 5 and steps[-1]["action"] == "final_predict"
    assert steps[0]["error"].startswith("unknown action") and steps[0]["action"] is None
    assert "malformed" in steps[1]["error"]
    assert steps[2]["error"].startswith("no action")
    assert "wrong type" in steps[3]["error"]
    # every error went back to the model as an observation with the steps left
    last = server.requests[-1].body["messages"]
    answers = observations({"messages": last})
    assert [o["steps_left"] for o in answers[-4:]] == [11, 10, 9, 8]
    assert all("error" in o for o in answers[-4:])
    assert _cases(out)[held_out[0]]["status"] == "ok"


def test_step_budget_overrun_fails_the_case_and_falls_back(folder, held_out, tmp_path, capsys):
    loop = scripted_agent("tools", ("inspect_case",))
    out = tmp_path / "agent.csv"
    with FakeChatServer(loop) as server:  # every case falls back: incomplete, exit status 1
        assert _run(folder, server, out, "--max-steps", "3") == 1
    manifest = json.loads(out.with_name("agent.csv.manifest.json").read_text())
    assert manifest["complete"] is manifest["llm_run"]["complete"] is False
    assert manifest["llm_run"]["fallback_share"] == 1.0 == manifest["llm_run"]["failure_share"]
    assert manifest["counts"]["answer_failed"] == len(held_out)  # what evaluate's share reads
    assert manifest["counts"]["budget"] == len(held_out) == manifest["counts"]["filled"]
    assert {f["failure"] for f in manifest["failures"]} == {"budget"}
    train_median = manifest["fallback"]["train_median_eur"]
    with open(out, newline="", encoding="utf-8") as handle:
        assert {float(r["prediction"]) for r in csv.DictReader(handle)} == {train_median}
    assert all(c["steps"] == 3 and c["prediction_source"] == "fallback_train_median"
               for c in _cases(out).values())
    assert "failed cases" in capsys.readouterr().out
    none = tmp_path / "none.csv"
    with FakeChatServer(loop) as server:
        assert _run(folder, server, none, "--max-steps", "3", "--fallback", "none") == 1
    assert none.read_text() == "case_id,prediction\n"


def test_a_model_cannot_read_another_cases_award(folder, held_out, sentinel_awards, tmp_path):
    other = held_out[-1]

    def prying(body: dict, step: int) -> Reply:
        seen = observations(body)
        plan = [("retrieve_train_references", {}),
                ("query_reference_features", {"case_id": other}),
                ("query_reference_features", {"case_id": held_out[0]}),
                ("query_reference_features", {**default_arguments(
                    "query_reference_features", seen), "fields": ["y_amount_eur",
                                                                  "target_status",
                                                                  "respondent_state"]}),
                ("query_target_information", {"fields": ["y_amount_eur", "y_binary"]}),
                ("final_predict", {"award_eur": 10.0, "zero_decision": "positive"})]
        name, arguments = plan[min(step, len(plan) - 1)]
        return action_reply(name, arguments, mode="tools", step=step)

    out = tmp_path / "agent.csv"
    with FakeChatServer(scripted_agent("tools", prying)) as server:
        assert _run(folder, server, out) == 0
    assert_nothing_withheld_was_sent(server, sentinel_awards)
    steps = _steps(out, held_out[0])
    assert "not among the training references" in steps[1]["error"]
    assert "not among the training references" in steps[2]["error"]
    features = steps[3]["observation"]
    assert set(features["features"]) == {"respondent_state"} and len(features["refused"]) == 2
    assert "award_eur" not in json.dumps(features)
    assert steps[4]["observation"]["values"] == {} and len(steps[4]["observation"]["refused"]) == 2
    assert _cases(out)[held_out[0]]["status"] == "ok"


def test_sentinels_in_the_model_input_tables_never_reach_a_request(folder, sentinel_awards,
                                                                     tmp_path):
    """Audit columns with sentinels added to every split table the agent reads."""
    from courtbench.inspect_glue.options import ModelOptions
    from courtbench.inspect_glue.runner import run_task
    from ecthr_npd import schema
    from ecthr_npd.inspect_task import build_task
    from ecthr_npd.prompting.scorer import AGENT_KEY

    data = load_benchmark(folder)
    for split, table in data.splits.items():
        for name in (*schema.AUDIT_COLUMNS, *schema.APPLICANT_AWARD_COLUMNS):
            table = table.append_column(name, pa.array(
                [f"{SENTINEL}-{name}-{i}" for i in range(table.num_rows)]))
        data.splits[split] = table
    task = build_task(data, ("validation", "test"), prompt="react", folder=folder)
    with FakeChatServer(scripted_agent("tools")) as server:
        options = ModelOptions("m", base_url=server.url, max_retries=0,
                               cache_dir=tmp_path / "cache", log_dir=tmp_path / "logs")
        result = run_task(task, options, options.generate_config({"temperature": 0.0}),
                          desc="agent", progress=False)
    assert_nothing_withheld_was_sent(server, sentinel_awards)
    outcomes = [o.store[AGENT_KEY] for o in result.outcomes]
    assert len(outcomes) == len(sentinel_awards)
    assert all(o["status"] == "ok" and o["leakage_gate"]["passed"] for o in outcomes)


def test_leakage_gate_fails_a_case_whose_award_reached_the_conversation(
        folder, held_out, sentinel_awards, tmp_path, capsys):
    """A user's module that holds one target's award: that case fails, is listed, exit 1."""
    knowledge = tmp_path / "kb"
    knowledge.mkdir()
    (knowledge / "notes.md").write_text(
        "---\nfamily: normative\narticles: all\ntitle: Leaky notes\n---\n"
        f"A figure seen somewhere: EUR {sentinel_awards[0]:,.2f}.\n", encoding="utf-8")

    def loading(body: dict, step: int) -> Reply:
        plan = [("load_module", {"name": "notes"}), ("leakage_check", {}),
                ("final_predict", {"award_eur": 5.0})]
        name, arguments = plan[min(step, 2)]
        return action_reply(name, arguments, mode="tools", step=step)

    out = tmp_path / "agent.csv"
    with FakeChatServer(scripted_agent("tools", loading)) as server:
        assert _run(folder, server, out, "--knowledge-base", str(knowledge)) == 1
    cases = _cases(out)
    assert cases[held_out[0]]["status"] == "leakage"
    assert cases[held_out[0]]["leakage_gate"]["hits"][0]["kind"] == "target_award"
    check = _steps(out, held_out[0])[1]["leakage_check"]
    assert check["passed"] is False and check["hits"][0]["kind"] == "target_award"
    assert all(c["status"] == "ok" for c in list(cases.values())[1:])
    manifest = json.loads(out.with_name("agent.csv.manifest.json").read_text())
    assert manifest["leakage_free"] is False
    assert [f["case_id"] for f in manifest["failures"]] == [held_out[0]]
    assert manifest["prompt"]["knowledge_base"]["modules"]["notes"]
    assert "leakage gate" in capsys.readouterr().err


def test_killed_run_resumes_with_only_unfinished_cases_and_traces_are_deterministic(
        folder, held_out, tmp_path):
    broken = {"on": True}
    happy = scripted_agent("tools")
    victims = set(held_out[::4])

    def flaky(body: dict, attempt: int) -> Reply:
        seen = observations(body)
        features = json.dumps(seen[0]["observation"]["features"]) if seen else ""
        if broken["on"] and len(seen) == 3 and _case_of(features) in victims:
            return Reply(status=500)
        return happy(body, attempt)

    data = load_benchmark(folder)
    texts = {}
    for split in ("validation", "test"):
        from ecthr_npd.agent.actions import readable
        from ecthr_npd.agent.run import RECORD_COLUMNS
        from ecthr_npd.prompting.serialise import FIELDS
        for record in data.splits[split].select(list(RECORD_COLUMNS)).to_pylist():
            texts[json.dumps(readable(record, tuple(f.column for f in FIELDS)))] = \
                record["case_id"]

    def _case_of(features: str) -> str | None:
        return texts.get(features)

    out, cache = tmp_path / "agent.csv", tmp_path / "cache"
    server = FakeChatServer(flaky).__enter__()  # one server: Inspect's cache key holds the URL
    try:
        _resume(folder, server, out, cache, victims, broken, _case_of, tmp_path)
    finally:
        server.__exit__(None, None, None)


def _resume(folder, server, out, cache, victims, broken, _case_of, tmp_path):
    assert _run(folder, server, out, "--cache", str(cache)) == 1
    manifest = json.loads(out.with_name("agent.csv.manifest.json").read_text())
    failed = {f["case_id"] for f in manifest["failures"]}
    assert failed and failed <= victims
    assert {f["failure"] for f in manifest["failures"]} == {"request_failed"}
    broken["on"] = False
    before = len(server.requests)
    assert _run(folder, server, out, "--cache", str(cache)) == 0
    resent = [r.body for r in server.requests[before:]]
    # only the unfinished cases, from their failed step on (steps 4..9)
    assert len(resent) == len(failed) * (len(HAPPY) - 3)
    assert {_case_of(json.dumps(observations(b)[0]["observation"]["features"]))
            for b in resent} == failed
    traces = out.with_name("agent.traces.jsonl").read_bytes()
    predictions = out.read_bytes()
    # a rerun sends nothing and writes the same bytes; a fresh run writes them too
    before = len(server.requests)
    assert _run(folder, server, out, "--cache", str(cache)) == 0
    assert len(server.requests) == before
    assert out.with_name("agent.traces.jsonl").read_bytes() == traces
    fresh = tmp_path / "fresh.csv"
    assert _run(folder, server, fresh) == 0
    assert fresh.with_name("fresh.traces.jsonl").read_bytes() == traces
    assert fresh.read_bytes() == predictions


def test_dry_run_sends_nothing_and_bad_options_are_one_line_errors(folder, tmp_path, capsys):
    with FakeChatServer(scripted_agent("tools")) as server:
        out = tmp_path / "dry.csv"
        assert _run(folder, server, out, "--dry-run") == 0
        printed = capsys.readouterr().out
        assert '"tools"' in printed and "inspect_case" in printed
        assert "dry run: step 1 of up to 12 per case shown" in printed
        assert "nothing sent" in printed
        for arguments, message in ((["--max-steps", "0"], "argument --max-steps: expected a "
                                    "number of turns in [1, 100], got '0'"),
                                   (["--top-k", "100000"], "argument --top-k: expected a number "
                                    "of references in [1, 100], got '100000'"),
                                   (["--knowledge-base", str(tmp_path / "nope")],
                                    "not a directory")):
            try:
                code = _run(folder, server, tmp_path / "x.csv", *arguments)
            except SystemExit as exit_info:  # refused while parsing
                code = exit_info.code
            assert code == (2 if message.startswith("argument") else 1)
            error = capsys.readouterr().err.strip()
            assert message in error and "Traceback" not in error
            assert len(error.splitlines()) == 1
        assert server.requests == []
    assert not out.exists()


def test_foreign_traces_file_is_not_overwritten(folder, tmp_path, capsys):
    out = tmp_path / "agent.csv"
    (tmp_path / "agent.traces.jsonl").write_text("mine\n")
    with FakeChatServer(scripted_agent("tools")) as server:
        assert _run(folder, server, out) == 1
        assert server.requests == []
    assert "agent.traces.jsonl exists" in capsys.readouterr().err
    assert (tmp_path / "agent.traces.jsonl").read_text() == "mine\n"
