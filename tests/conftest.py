"""Shared fixtures: the repository root and the real data in ``../shared/data``.

Tests that need real data take the ``shared_data`` fixture and skip cleanly when the folder
is absent (a clone without the steering repository beside it). ``COURTBENCH_SHARED_DATA``
overrides the location.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import threading
from pathlib import Path

import pytest

from courtbench.evaluate_import import import_evaluate

# every worker imports evaluate (test modules, metric loads): once, as courtbench does it
import_evaluate()

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("COURTBENCH_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data``; skips the test when it is not there."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real data folder {SHARED_DATA} is absent")
    return SHARED_DATA


# The test files that take longest (seconds of one worker on a clean clone without the real
# data, machine load about 1; paths relative to tests/), run first: `make test` hands whole
# files to its two workers in collection order, so a long file collected last (the area
# folders are collected in alphabetical order, toolkit/ last) would leave one worker idle at
# the end. Only the order changes; a stale list costs time, never a result.
LONGEST_FILES_FIRST = (
    "toolkit/test_docs_examples.py",                # 88
    "ecthr_npd/test_ecthr_agent.py",                # 60
    "toolkit/test_cli_judge.py",                    # 55
    "toolkit/test_leaderboard.py",                  # 54
    "toolkit/test_wheel_smoke.py",                  # 53
    "toolkit/test_spaces_pages.py",                 # 40
    "ecthr_npd/test_ecthr_build.py",                # 36
    "ecthr_npd/test_ecthr_predict_cli.py",          # 36
    "toolkit/test_llm_endpoint_text_property.py",   # 33
    "toolkit/test_command_demo.py",                 # 30
    "slds/test_generate_slds.py",                   # 26
    "toolkit/test_spaces_browser.py",               # 26
    "toolkit/test_runner_outputs_and_decoding.py",  # 24
    "toolkit/test_inspect_glue.py",                 # 22
    "toolkit/test_eval_results.py",                 # 19
    "ecthr_npd/test_ecthr_agent_answers.py",        # 17
    "metrics/test_metric_headnote_judge.py",        # 16
    "toolkit/test_readme_examples.py",              # 16
)


# The model tier (marker ``models``): tests of what runs on torch and transformers — dense and
# sparse retrieval, BERTScore, fine-tuning, token-based input cutting. `make test` installs no
# torch (the test environment stays near 1.5 GB), so there they skip, saying how to run them;
# `make test-models` installs the model stack and runs exactly them (CI runs both). A test is
# in the tier when its file is a model file, when it uses a fixture that loads a model or a
# tokenizer, or when it carries the marker itself.
MODEL_FILES = ("ecthr_npd/test_train_ecthr.py", "slds/test_train_slds.py")
MODEL_FIXTURES = frozenset({"small_bert", "small_model", "tokenizers", "tokenizer_folder"})
#: What `make test-models` adds to the test environment (import names).
MODEL_STACK = ("torch", "transformers", "sentence_transformers", "bert_score", "peft",
               "accelerate", "all_minilm_l6_v2")


#: Why a model-tier test (or module) does not run here.
MODEL_TIER_SKIP = "model tier: `make test-models` installs the model stack and runs it"


def _in_model_tier(item, tests: Path) -> bool:
    return (_relative(item.path, tests) in MODEL_FILES
            or not MODEL_FIXTURES.isdisjoint(getattr(item, "fixturenames", ()))
            or item.get_closest_marker("models") is not None)


def pytest_collection_modifyitems(items: list) -> None:
    """Mark the model tier (skipped, with the command that runs it, where the model stack is
    not installed); then longest files first (a stable sort: the order within a file is
    kept)."""
    tests = Path(__file__).resolve().parent
    missing = [name for name in MODEL_STACK if importlib.util.find_spec(name) is None]
    skip = pytest.mark.skip(reason=f"{MODEL_TIER_SKIP} ({', '.join(missing)} not installed)")
    for item in items:
        if _in_model_tier(item, tests):
            item.add_marker(pytest.mark.models)
            if missing:
                item.add_marker(skip)
    rank = {name: index for index, name in enumerate(LONGEST_FILES_FIRST)}
    items.sort(key=lambda item: rank.get(_relative(item.path, tests), len(rank)))


def _relative(path: Path, tests: Path) -> str:
    """``path`` relative to tests/ (``area/test_x.py``), or its name outside tests/."""
    try:
        return path.resolve().relative_to(tests).as_posix()
    except ValueError:
        return path.name


@pytest.fixture
def silent_hub():
    """The URL of a real server on 127.0.0.1 that accepts connections and never answers (a
    Hub that hangs): every Hub call must end on its own time bound."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(50)
    held = []

    def accept():
        while True:
            try:
                held.append(server.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}"
    server.close()
    for connection in held:
        connection.close()


@pytest.fixture
def no_token_encodings(monkeypatch):
    """Any tiktoken encoding load fails the test: nothing may download at run time."""
    import tiktoken

    def refuse(*args, **kwargs):
        raise AssertionError("a token encoding was loaded")

    monkeypatch.setattr(tiktoken, "get_encoding", refuse)
    monkeypatch.setattr(tiktoken, "encoding_for_model", refuse)
