"""The leaderboard Space page, launched on loopback and driven with gradio_client."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import numpy as np
import pytest
from leaderboard_records import make_record, write_records

from courtbench.leaderboard.results_schema import paired_bootstrap
from courtbench.resources import package_path

gradio_client = pytest.importorskip("gradio_client", reason="needs the 'spaces' extra")

pytestmark = pytest.mark.slow

RNG = np.random.default_rng(0)
ERRORS = {"train_median": RNG.uniform(0, 100, 60), "big_llm": RNG.uniform(0, 60, 60),
          "small_llm": RNG.uniform(0, 90, 60)}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    folder = tmp_path_factory.mktemp("results")
    write_records(folder, [
        make_record("ecthr_npd", "train_median", ERRORS["train_median"], reference=True,
                    family="baseline"),
        make_record("ecthr_npd", "big_llm", ERRORS["big_llm"], size=70.0),
        make_record("ecthr_npd", "small_llm", ERRORS["small_llm"], size=7.0,
                    selection="validation"),
        make_record("slds", "lead", [10.0, 20.0, 30.0], lower=False, reference=True,
                    family="baseline", grid=True),
    ])
    (folder / "results" / "slds" / "broken.json").write_text('{"schema": "x"}\n')
    port = _free_port()
    env = {**os.environ, "RESULTS_DIR": str(folder), "GRADIO_SERVER_NAME": "127.0.0.1",
           "GRADIO_SERVER_PORT": str(port), "GRADIO_ANALYTICS_ENABLED": "False",
           "HF_HUB_OFFLINE": "1"}
    app = package_path("courtbench", "spaces", "leaderboard", "app.py")
    process = subprocess.Popen([sys.executable, str(app)], cwd=app.parent, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"app exited: {process.stdout.read()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                break
        except OSError:
            time.sleep(0.5)
    else:
        process.kill()
        pytest.fail("app did not start within 180 s")
    client = gradio_client.Client(url, verbose=False)
    yield client
    process.terminate()
    process.wait(timeout=30)


def _systems(result) -> list[str]:
    headers, rows = result["headers"], result["data"]
    return [row[headers.index("system")] for row in rows]


def test_table_sorts_by_the_primary_metric_and_marks_references(page):
    result = page.predict("", False, [], "all", "all", None, api_name="/table_ecthr_npd")
    expected = sorted(ERRORS, key=lambda s: ERRORS[s].mean())
    assert _systems(result) == [("★ " if s == "train_median" else "") + s for s in expected]
    assert "ID MAE" in result["headers"] and "MAE 95% CI" in result["headers"]


def test_table_sorting_and_filters(page):
    result = page.predict("MAE", True, ["llm"], "all", "all", 10.0,
                          api_name="/table_ecthr_npd")
    assert _systems(result) == ["small_llm"]
    result = page.predict("size (B)", True, [], "all", "all", None,
                          api_name="/table_ecthr_npd")
    assert _systems(result)[:2] == ["big_llm", "small_llm"]


def test_pair_comparison_is_the_paired_bootstrap(page):
    verdict = page.predict("big_llm", "train_median", api_name="/compare_ecthr_npd")
    expected = paired_bootstrap(ERRORS["big_llm"], ERRORS["train_median"], lower_is_better=True)
    assert verdict["delta"] == pytest.approx(expected["delta"])
    assert verdict["p_a_better"] == pytest.approx(expected["p_a_better"])
    assert verdict["verdict"] == "big_llm is better"


def test_language_grid_of_a_system(page):
    result = page.predict("lead", "ROUGE-L F1", api_name="/grid_slds")
    assert len(result["data"]) == 3 and len(result["headers"]) == 4
