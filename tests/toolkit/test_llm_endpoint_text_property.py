"""Property: whatever text an endpoint answers (lone surrogates, NUL, right-to-left marks,
reasoning tags, bait score lines, long strings), every runner and the judge write a complete,
valid-UTF-8 output file and never crash."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from fake_chat_server import FakeChatServer, Reply
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from courtbench.cli import main
from tests.slds.test_generate_slds import slds_folder  # noqa: F401 - module fixture reused
from tests.toolkit.test_cli_judge import hub_folder  # noqa: F401 - module fixture reused

PIECES = st.sampled_from(["\ud800", "\udfff", "\x00", "\u202e", "\u200f", "ע", "<think>",
                          "</think>", "ACCURACY_FAITHFULNESS_SCORE: 3\n", '{"award_eur": ',
                          "0x1388", "1e309", "\\", '"', "\r\n", "x" * 20_000])
ANSWER = st.lists(st.one_of(st.text(st.characters(exclude_categories=()), max_size=30), PIECES),
                  max_size=8).map("".join)
#: Three answers per run, one for each of its three samples: an Inspect run costs about a
#: second whatever it is sent, so each run checks three texts.
ANSWERS = st.lists(ANSWER, min_size=3, max_size=3)
SETTINGS = settings(max_examples=5, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


def _server(answers: list[str]) -> FakeChatServer:
    """A server answering its n-th request with ``answers[n % 3]``."""
    sent = iter(range(10**9))
    return FakeChatServer(lambda request, attempt: Reply(answers[next(sent) % len(answers)]))


def _jsonl(path: Path) -> list:
    """Records of a JSON Lines file: only "\\n" ends a record (U+0085, U+2028 may be in text)."""
    text = path.read_bytes().decode("utf-8")
    return [json.loads(line) for line in text.split("\n") if line]


@SETTINGS
@given(answers=ANSWERS)
def test_generate_writes_a_complete_file_for_any_endpoint_text(slds_folder, answers):  # noqa: F811
    with tempfile.TemporaryDirectory() as folder, _server(answers) as server:
        out = Path(folder) / "g.jsonl"
        code = main(["generate", "slds", "--data", str(slds_folder), "--config", "all",
                     "--limit", "3", "--base-url", server.url, "--model", "m", "--out", str(out)])
        records = _jsonl(out)
        manifest = json.loads((Path(folder) / "g.jsonl.manifest.json").read_text("utf-8"))
    assert code in (0, 1) and len(records) == 3 and manifest["llm_run"]["samples"] == 3
    assert all(r["error"] is None and "\ud800" not in r["prediction"] for r in records)


@SETTINGS
@given(answers=ANSWERS)
def test_the_judge_writes_a_complete_file_for_any_endpoint_text(hub_folder, answers):  # noqa: F811
    with tempfile.TemporaryDirectory() as folder, _server(answers) as server:
        predictions = Path(folder) / "p.jsonl"
        predictions.write_text("".join(json.dumps({"sample_id": f"test-it_it-{i}",
                                                   "prediction": answer}) + "\n"
                                       for i, answer in enumerate(answers)), encoding="utf-8")
        out = Path(folder) / "j.json"
        code = main(["judge", "slds", "--data", str(hub_folder), "--config", "it_it",
                     "--predictions", str(predictions), "--base-url", server.url, "--model", "m",
                     "--out", str(out), "--no-progress"])
        result = json.loads(out.read_bytes().decode("utf-8"))
    assert code in (0, 1) and result["n_samples"] == 3 and len(result["samples"]) == 3
    assert result["n_request_failed"] == 0


@pytest.mark.slow
@SETTINGS
@given(answers=ANSWERS)
def test_predict_writes_a_complete_file_for_any_endpoint_text(ecthr_folder, answers):
    with tempfile.TemporaryDirectory() as folder, _server(answers) as server:
        out = Path(folder) / "p.csv"
        code = main(["predict", "ecthr_npd", "--data", str(ecthr_folder), "--prompt", "cot",
                     "--splits", "test", "--limit", "3", "--base-url", server.url, "--model", "m",
                     "--out", str(out)])
        rows = out.read_bytes().decode("utf-8").strip("\n").split("\n")
        responses = _jsonl(Path(folder) / "p.responses.jsonl")
    assert code in (0, 1) and len(rows) == 4 and len(responses) == 3
    assert all(r["error"] is None for r in responses)


@pytest.fixture(scope="module")
def ecthr_folder(tmp_path_factory) -> Path:
    from ecthr_npd.build import build_synthetic
    out = tmp_path_factory.mktemp("ecthr_property") / "build"
    build_synthetic(out, n=120, seed=3)
    return out
