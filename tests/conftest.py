"""Shared fixtures: the repository root and the real data in ``../shared/data``.

Tests that need real data take the ``shared_data`` fixture and skip cleanly when the folder
is absent (a clone without the steering repository beside it). ``COURTBENCH_SHARED_DATA``
overrides the location.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

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


# The test files that take longest (seconds of one worker, measured on 2 cores; paths relative
# to tests/), run first: `make test` hands whole files to its two workers in collection order,
# so a long file collected last (alphabetically, toolkit/test_wheel_smoke.py) would leave one
# worker idle at the end. Only the order changes; a stale list costs time, never a result.
LONGEST_FILES_FIRST = (
    "ecthr_npd/test_ecthr_agent.py",                # 67
    "toolkit/test_wheel_smoke.py",                  # 54
    "toolkit/test_spaces_pages.py",                 # 41
    "toolkit/test_readme_examples.py",              # 38
    "toolkit/test_leaderboard.py",                  # 35
    "toolkit/test_spaces_browser.py",               # 32
    "toolkit/test_llm_endpoint_text_property.py",   # 32
    "toolkit/test_command_demo.py",                 # 31
    "ecthr_npd/test_ecthr_build.py",                # 27
    "toolkit/test_publish.py",                      # 24
    "toolkit/test_cli_judge.py",                    # 21
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
