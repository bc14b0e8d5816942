"""The agent's parts without an endpoint: redaction, leakage scan, priors, references,
knowledge base, action protocol, and snapshots of the rendered system prompt and of every
action's observation for one case (``tests/snapshots/ecthr_npd_agent_*``; regenerate with
``COURTBENCH_UPDATE_SNAPSHOTS=1``)."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from courtbench.errors import CourtbenchError
from ecthr_npd.agent import actions, protocol
from ecthr_npd.agent.controller import Episode, _run_action
from ecthr_npd.agent.gate import scan_texts
from ecthr_npd.agent.knowledge import KnowledgeBase, parse_module
from ecthr_npd.agent.leakage import LeakageScanner, number_forms
from ecthr_npd.agent.priors import EmpiricalPriors, applicant_band, award_statistics
from ecthr_npd.agent.redaction import RedactionContext, redact
from ecthr_npd.agent.references import TrainPool
from ecthr_npd.agent.run import build_resources
from ecthr_npd.agent.solver import AgentSetup
from ecthr_npd.data import from_canonical
from ecthr_npd.reader import read_case_level
from ecthr_npd.synthetic import write_synthetic

SNAPSHOTS = Path(__file__).parents[1] / "snapshots"
UPDATE_SNAPSHOTS = os.environ.get("COURTBENCH_UPDATE_SNAPSHOTS") == "1"


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    path = write_synthetic(tmp_path_factory.mktemp("agent") / "case_level.csv", n=600, seed=7)
    return from_canonical(read_case_level(path), source="synthetic n=600 seed=7")


@pytest.fixture(scope="module")
def resources(data):
    return build_resources(data, top_k=5, min_count=5, knowledge_base=None)


# --- redaction ---------------------------------------------------------------------------

def test_redaction_drops_audit_target_and_award_fields_and_foreign_cases():
    context = RedactionContext("query_reference_features", "T", {"R1", "R2"})
    payload = {"features": {"respondent_state": "X", "y_amount_eur": 5.0, "target_status": "a"},
               "nested": [{"case_id": "R1", "award_eur": 10.0, "y_binary": 1, "ok": 1},
                          {"case_id": "V9", "respondent_state": "Y"}],
               "award": 3}
    redacted, dropped = redact(payload, context)
    assert redacted == {"features": {"respondent_state": "X"},
                        "nested": [{"case_id": "R1", "ok": 1},
                                   {"case_id": "V9", "withheld": redacted["nested"][1]["withheld"]}]}
    assert set(dropped) == {"features.y_amount_eur", "features.target_status",
                            "nested[0].award_eur", "nested[0].y_binary", "nested[1][V9]", "award"}
    assert payload["features"]["y_amount_eur"] == 5.0  # input untouched
    # a retrieved training reference keeps its award; the target's own record never does
    kept, _ = redact({"references": [{"case_id": "R1", "award_eur": 10.0}],
                      "target": {"case_id": "T", "award_eur": 1.0}},
                     RedactionContext("retrieve_train_references", "T", {"R1"}))
    assert kept == {"references": [{"case_id": "R1", "award_eur": 10.0}],
                    "target": {"case_id": "T"}}


# --- leakage -----------------------------------------------------------------------------

def test_number_forms_and_the_scanner():
    assert {"12345.5", "12,345.50", "12.345,50", "12 345,5"} <= set(number_forms(12345.5))
    assert set(number_forms(7500.0)) == {"7500", "7,500", "7.500", "7 500"}
    scanner = LeakageScanner(12345.67, {"target_status": "corrected_amount",
                                        "beneficiary_type": ["applicant"], "y_binary": 1},
                             benign_numbers=frozenset({3000.0}))
    assert scanner.scanned == {"award_values": 1, "audit_values": 1, "audit_column_names": 7}
    assert scanner.scan_text("EUR 12,345.67") and not scanner.scan_text("EUR 112,345.675")
    assert scanner.scan_text("a corrected_amount label")[0]["kind"] == "audit_value"
    assert not scanner.scan_text("the applicant complained")  # not distinctive: not scanned
    assert scanner.scan_text('{"target_status": 1}')[0]["kind"] == "audit_column"
    assert LeakageScanner(0.0).scanned["award_values"] == 0  # zero is never distinctive
    assert LeakageScanner(3000.0, benign_numbers=frozenset({3000.0})).scanned["award_values"] == 0


# --- priors ------------------------------------------------------------------------------

def _train(rows):
    return pa.table({"violated_articles": [r[0] for r in rows],
                     "country_alpha2": [r[1] for r in rows],
                     "hudoc_application_count": [r[2] for r in rows],
                     "y_amount_eur": [float(r[3]) for r in rows]})


def test_priors_statistics_and_fallback_order():
    rows = [(["6"], "tr", 1, 1000 * i) for i in range(6)] + [(["3", "6"], "ru", 3, 9000),
                                                             (["3"], "ru", 30, 0)]
    priors = EmpiricalPriors(_train(rows), "fp", min_count=2)
    assert priors.tables["article_country"]["6|tr"] == award_statistics([1000 * i for i in range(6)])
    assert priors.tables["article"]["6"]["count"] == 7 and priors.tables["global"]["all"]["count"] == 9
    stats = priors.tables["article"]["3"]
    assert stats["median_eur"] == 4500.0 and stats["zero_share"] == 0.5
    assert stats["p10_eur"] == float(np.percentile([9000.0, 0.0], 10))
    assert priors.resolve_article("6", "ru")["level"] == "article"
    assert priors.resolve_article("6", "tr")["level"] == "article_country"
    assert priors.resolve_article("5", "ru")["level"] == "country"
    assert priors.resolve_article("5", "xx")["level"] == "global"
    assert priors.binding()["data_fingerprint"] == "fp"
    assert EmpiricalPriors(_train(rows), "other").sha256 != priors.sha256
    assert [applicant_band(n) for n in (1, 2, 5, 6, 21, 101)] == [
        "1", "2-5", "2-5", "6-20", "21-100", ">100"]


# --- references --------------------------------------------------------------------------

def test_references_are_earlier_share_an_article_and_rank_by_the_criteria():
    def case(i, day, articles, state="A", award=100.0):
        return {"case_id": f"c{i}", "judgment_date": dt.date(2000, 1, 1) + dt.timedelta(day),
                "violated_articles": articles, "respondent_state": state,
                "violation_type": 0, "court_formation": 0, "case_importance": 3,
                "hudoc_application_count": 1, "y_amount_eur": award}
    pool = [case(0, 1, ["6"]), case(1, 2, ["6", "13"]), case(2, 3, ["3"]),
            case(3, 50, ["6", "13"]), case(4, 4, ["6", "13"], "B"), case(5, 5, ["6"], "A", 0.0),
            case(6, 6, ["6", "13"], "A", 0.0)]
    train = pa.Table.from_pylist(pool).cast(pa.schema(
        [("case_id", pa.string()), ("judgment_date", pa.date32()),
         ("violated_articles", pa.list_(pa.string())), ("respondent_state", pa.string()),
         ("violation_type", pa.int64()), ("court_formation", pa.int64()),
         ("case_importance", pa.int64()), ("hudoc_application_count", pa.int64()),
         ("y_amount_eur", pa.float64())]))
    target = {**case(9, 10, ["6", "13"]), "case_id": "t"}
    ranked = TrainPool(train).references(target, 10 + 10957, 10)
    # c3 is later; c2 shares no article; exact article sets first, then same state, recency
    assert [pool[r.row]["case_id"] for r in ranked] == ["c6", "c1", "c4", "c5", "c0"]
    assert ranked[0].exact_article_set and ranked[3].article_jaccard == 0.5
    balanced = TrainPool(train).references(target, 10 + 10957, 2, balanced=True)
    assert [pool[r.row]["case_id"] for r in balanced] == ["c6", "c1"]


# --- knowledge base ----------------------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    ("no header", "YAML header"),
    ("---\nfamily: lore\narticles: all\n---\nx", "'family' must be one of"),
    ("---\nfamily: normative\narticles: [Article 6]\n---\nx", "'articles' must be"),
    ("---\nfamily: normative\narticles: all\n---\n", "no text"),
    ("---\nfamily: empirical\narticles: all\n---\nx", "must name the data"),
    ("---\n: [\n---\nx", "not valid YAML"),
])
def test_module_header_errors_are_one_line(text, message):
    with pytest.raises(CourtbenchError) as error:
        parse_module(text, name="m", source="user", where="kb/m.md", fingerprint="fp")
    assert message in str(error.value) and "kb/m.md" in str(error.value)
    assert "\n" not in str(error.value)


def test_knowledge_base_loads_and_searches_by_article(tmp_path, resources):
    (tmp_path / "art3.md").write_text("---\nfamily: normative\narticles: ['3']\ntitle: Article 3 "
                                      "notes\n---\nMy notes.\n")
    fingerprint = resources.priors.data_fingerprint
    (tmp_path / "emp.md").write_text(f"---\nfamily: empirical\narticles: all\ndata_fingerprint: "
                                     f"{fingerprint}\n---\nComputed on this data.\n")
    knowledge = KnowledgeBase(resources.priors, tmp_path)
    assert [m.name for m in knowledge.search(["3"], family="normative")] == ["art3"]
    assert knowledge.search(["6"], family="normative") == []
    assert [m.name for m in knowledge.search(["3"], query="notes")] == ["art3"]
    assert {"policy/protocol", "policy/output_schema", "policy/redaction_contract"} <= set(
        knowledge.modules)
    assert "empirical/article-6" in knowledge.modules
    assert set(knowledge.manifest()["modules"]) >= {"art3", "emp", "policy/protocol"}


# --- protocol ----------------------------------------------------------------------------

def test_read_turn_tool_calls_and_json_text():
    calls = ({"id": "a", "type": "function", "function": {"name": "inspect_case",
                                                          "arguments": "{}"}},
             {"id": "b", "type": "function", "function": {"name": "leakage_check",
                                                          "arguments": "{}"}})
    turn = protocol.read_turn(None, calls)
    assert (turn.name, turn.arguments, turn.call_id, turn.extra_call_ids) == (
        "inspect_case", {}, "a", ["b"])
    answered = protocol.observation_messages(turn, {"step": 1, "observation": {}})
    assert [m["tool_call_id"] for m in answered] == ["a", "b"]
    text = protocol.read_turn('Let me look.\n{"action": "search_modules", "arguments": '
                              '{"query": "x"}}', None)
    assert (text.name, text.arguments, text.via) == ("search_modules", {"query": "x"}, "text")
    assert protocol.read_turn("prose only", None).error.startswith("no action")
    assert "malformed" in protocol.read_turn('{"action": "x", "arguments": {', None).error
    unknown = protocol.read_turn('{"action": "drop_table"}', None)
    protocol.check_name(unknown)
    assert unknown.error.startswith("unknown action")


def test_final_predict_is_validated():
    final = actions.ACTION_BY_NAME["final_predict"]
    assert actions.check_final(actions.check_arguments(final, {"award_eur": 5})) == {
        "award_eur": 5.0}
    for arguments, message in (({"award_eur": -1}, ">= 0"), ({"award_eur": "5"}, "wrong type"),
                               ({"award_eur": 0, "zero_decision": "positive"}, "contradicts"),
                               ({}, "missing award_eur"), ({"award_eur": 1, "x": 1}, "unknown")):
        with pytest.raises(actions.ActionError, match=message):
            actions.check_final(actions.check_arguments(final, arguments))


# --- snapshots ---------------------------------------------------------------------------

def _normalised(text: str, data) -> str:
    text = text.replace(data.fingerprint, "<data_fingerprint>")
    return re.sub(r'"(priors_sha256|sha256)": "[0-9a-f]{64}"', r'"\1": "<sha256>"', text)


@pytest.mark.parametrize("mode", protocol.MODES)
def test_system_prompt_snapshot(mode, resources):
    policy = [m for m in resources.knowledge.modules.values() if m.source == "policy"]
    text = "".join(f"[{m['role']}]\n{m['content']}\n\n"
                   for m in protocol.first_messages(mode, policy, 12))
    if mode == "tools":
        text += "[tools]\n" + json.dumps(actions.tools(), indent=1, sort_keys=True) + "\n"
    path = SNAPSHOTS / f"ecthr_npd_agent_system_{mode}.txt"
    if UPDATE_SNAPSHOTS:
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def _episode(data, resources) -> Episode:
    setup = AgentSetup(data, resources, mode="tools", max_steps=12, audit={},
                       applicant_awards={})
    return setup.episode(data.ids("validation")[0])


def test_gate_leaves_out_checked_origins_and_scans_everything_else(data, resources):
    """A training case's award at its reference position is checked and left out; the same
    amount anywhere else, the target's own award everywhere, is scanned."""
    episode = _episode(data, resources)
    context = episode.context
    pool = resources.pool
    row = int(np.flatnonzero(pool.awards > 0)[0])
    amount = float(pool.awards[row])
    reference = {"case_id": pool.case_ids[row], "award_eur": amount,
                 **actions.readable(resources.train_records[row], ("respondent_state",))}
    strict, _ = scan_texts("retrieve_train_references", {"references": [reference]}, context)
    assert f"{amount}" not in strict and pool.case_ids[row] in strict
    forged = {**reference, "award_eur": amount + 1}  # not that case's award: scanned
    strict, _ = scan_texts("retrieve_train_references", {"references": [forged]}, context)
    assert f"{amount + 1}" in strict
    strict, _ = scan_texts("inspect_case", {"remark": f"{amount:,.2f}"}, context)
    assert f"{amount:,.2f}" in strict
    # every positive award is scanned, a training award too (no value is exempt as common)
    scanner = LeakageScanner(amount, {}, (), frozenset())
    assert scanner.scanned["award_values"] == 1 and scanner.scan_text(f"EUR {amount:,.2f}")


def test_every_action_observation_snapshot(data, resources):
    episode = _episode(data, resources)
    arguments = {"load_module": {"name": "policy/output_schema"}}
    observed = {}
    for action in actions.ACTIONS:
        if action.name == "final_predict":
            continue
        if action.name == "query_reference_features":
            arguments[action.name] = {"case_id": next(iter(episode.context.retrieved))}
        turn = protocol.Turn(action.name, arguments.get(action.name, {}), via="tool")
        _, outcome = _run_action(episode, turn)
        observed[action.name] = outcome["observation"]
    text = _normalised(json.dumps(observed, indent=1, ensure_ascii=False), data) + "\n"
    path = SNAPSHOTS / "ecthr_npd_agent_observations.json"
    if UPDATE_SNAPSHOTS:
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")
    assert "award_eur" in json.dumps(observed["retrieve_train_references"])
    assert "award_eur" not in json.dumps(observed["query_reference_features"])
