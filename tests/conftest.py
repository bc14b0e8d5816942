"""Shared fixtures: the repository root and the real data in ``../shared/data``.

Tests that need real data take the ``shared_data`` fixture and skip cleanly when the folder
is absent (a clone without the steering repository beside it). ``COURTBENCH_SHARED_DATA``
overrides the location.
"""

from __future__ import annotations

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


# The test files that take longest (seconds of one worker; paths relative to tests/), run
# first: `make test` hands whole files to its two workers in collection order, so a long file
# collected last (the area folders are collected in alphabetical order, toolkit/ last) would
# leave one worker idle at the end. The seconds were measured with --durations on a machine
# loaded about five times over, so only their order matters (test_ecthr_prompting.py's are
# mostly its real-data test). Only the order changes; a stale list costs time, never a result.
LONGEST_FILES_FIRST = (
    "toolkit/test_docs_examples.py",                # 857
    "toolkit/test_publish.py",                      # 350
    "toolkit/test_leaderboard.py",                  # 278
    "slds/test_inspect_slds.py",                    # ~110 (measured alone, loaded)
    "ecthr_npd/test_ecthr_prompting.py",            # 265
    "ecthr_npd/test_ecthr_agent.py",                # 236
    "toolkit/test_readme_examples.py",              # 224
    "metrics/test_metric_common.py",                # 191
    "toolkit/test_spaces_pages.py",                 # 139
    "toolkit/test_wheel_smoke.py",                  # 133
    "ecthr_npd/test_ecthr_predict_cli.py",          # 113
    "toolkit/test_command_demo.py",                 # 92
    "ecthr_npd/test_ecthr_build.py",                # 89
    "metrics/test_metric_headnote_similarity.py",   # 88
    "metrics/test_metric_headnote_judge.py",        # 84
    "toolkit/test_failure_modes.py",                # 75
    "metrics/test_metric_ecthr_paths.py",           # 72
    "toolkit/test_cli_judge.py",                    # 67
    "toolkit/test_inspect_glue.py",                 # 67
    "toolkit/test_spaces_browser.py",               # 66
)


def pytest_collection_modifyitems(items: list) -> None:
    """Longest files first (a stable sort: the order within a file is kept)."""
    rank = {name: index for index, name in enumerate(LONGEST_FILES_FIRST)}
    tests = Path(__file__).resolve().parent
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
