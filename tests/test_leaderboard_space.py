"""The leaderboard Space page, launched on loopback and driven with gradio_client."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import numpy as np
import pytest
from leaderboard_records import HOSTILE_REASONS, make_record, write_hostile_records, write_records

from courtbench.leaderboard.folders import results_card
from courtbench.leaderboard.results_schema import paired_bootstrap
from courtbench.resources import package_path

gradio_client = pytest.importorskip("gradio_client", reason="needs the 'spaces' extra")

pytestmark = pytest.mark.slow

OFF_PROTOCOL = "--resamples 2: the protocol needs at least 1,000"
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
    big = make_record("ecthr_npd", "big_llm", ERRORS["big_llm"], size=70.0)
    big["model_name"] = "org/big-model"
    twin = dict(big, system="big_llm_twin", model_name="<img src=x onerror=alert(1)>")
    write_records(folder, [
        make_record("ecthr_npd", "train_median", ERRORS["train_median"], reference=True,
                    family="baseline"),
        big, twin,
        make_record("ecthr_npd", "small_llm", ERRORS["small_llm"], size=7.0,
                    selection="validation"),
        make_record("slds", "lead", [10.0, 20.0, 30.0], lower=False, reference=True,
                    family="baseline", grid=True),
    ])
    write_records(folder, [
        dict(make_record("ecthr_npd", "few_resamples", ERRORS["big_llm"] / 3),
             leaderboard_table="unofficial", unofficial_reason=OFF_PROTOCOL),
        dict(make_record("ecthr_npd", "own_data", ERRORS["big_llm"] / 4), data_fingerprint="a" * 64),
    ])
    (folder / "README.md").write_text(results_card({"ecthr_npd": {"f" * 64: "synthetic"},
                                                    "slds": {"f" * 64: "synthetic"}}),
                                      encoding="utf-8")
    (folder / "results" / "slds" / "broken.json").write_text('{"schema": "x"}\n')
    write_hostile_records(folder, big)
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
    client.url = url
    client.folder = folder
    yield client
    process.terminate()
    process.wait(timeout=30)


def _systems(result) -> list[str]:
    headers, rows = result["headers"], result["data"]
    return [row[headers.index("system")] for row in rows]


COLUMNS = None  # the default column choice


def _value(output):
    """A component's value, whether the page returned it plainly or as an update."""
    return output["value"] if isinstance(output, dict) and "value" in output else output


def _table(page, sort_by="", order="better first", search="", families=(), data="all",
           selection="all", size=None, columns=COLUMNS, benchmark="ecthr_npd"):
    table, note = page.predict(sort_by, order, search, list(families), data, selection, size,
                               columns or [], api_name=f"/table_{benchmark}")
    return _value(table), note


def test_table_ranks_by_the_primary_metric_and_marks_references(page):
    result, note = _table(page)
    expected = sorted(["train_median", "big_llm", "small_llm"], key=lambda s: ERRORS[s].mean())
    systems = [s for s in _systems(result) if s != "big_llm_twin"]
    assert systems == [("★ " if s == "train_median" else "") + s for s in expected]
    headers = result["headers"]
    assert headers[:2] == ["rank", "system"] and [row[0] for row in result["data"]] == [1, 2, 3, 4]
    assert "MAE ↓" in headers and "ID MAE ↓" in headers and "MAE ↓ CI low" in headers
    assert note == "4 system(s)."


def test_unofficial_and_unaccepted_records_are_only_in_the_labelled_unofficial_table(page):
    main_systems = _systems(_table(page)[0])
    assert "few_resamples" not in main_systems and "own_data" not in main_systems
    table, note = page.predict(api_name="/unofficial_ecthr_npd")
    table = _value(table)
    rows = {row[0]: dict(zip(table["headers"], row, strict=True)) for row in table["data"]}
    assert list(rows) == ["own_data", "few_resamples"]  # MAE better first, not ranked
    assert "rank" not in table["headers"]
    reason = "why unofficial (what differs)"
    assert rows["few_resamples"][reason] == OFF_PROTOCOL
    assert rows["few_resamples"]["data fingerprint"] == "f" * 16 + "…"
    assert "data fingerprint aaaaaaaaaaaaaaaa… is not among the accepted" in rows["own_data"][reason]
    assert note.startswith("2 system(s), not ranked")
    empty, note = page.predict(api_name="/unofficial_slds")
    assert not [row for row in _value(empty)["data"] if any(row)] and note == "No unofficial records."


def test_table_sorting_search_columns_and_filters(page):
    result, _ = _table(page, "MAE ↓", families=["llm"], size=10.0)
    assert _systems(result) == ["small_llm"]
    result, _ = _table(page, "size (B)", order="worse first")
    assert _systems(result)[:2] in (["big_llm", "big_llm_twin"], ["big_llm_twin", "big_llm"])
    result, _ = _table(page, "MAE ↓ CI low", order="worse first")
    lows = [row[result["headers"].index("MAE ↓ CI low")] for row in result["data"]]
    assert lows == sorted(lows, reverse=True) and all(isinstance(v, float) for v in lows)
    result, _ = _table(page, search="SMALL")
    assert _systems(result) == ["small_llm"]
    result, note = _table(page, search="no such system")
    assert result["data"] == [] or result["data"] == [[]] or not result["data"][0]
    assert note.startswith("**No rows match")
    result, _ = _table(page, columns=["MAE ↓", "date"])
    assert result["headers"] == ["rank", "system", "date", "MAE ↓"]


def test_model_links_only_for_hub_ids_and_record_text_is_not_markup(page):
    result, _ = _table(page)
    rows = {row[1]: dict(zip(result["headers"], row, strict=True)) for row in result["data"]}
    assert rows["big_llm"]["link"] == "[org/big-model](https://huggingface.co/org/big-model)"
    assert rows["big_llm_twin"]["link"] == ""
    assert rows["big_llm_twin"]["model"] == "<img src=x onerror=alert(1)>"  # a str cell: text


def test_pair_comparison_is_the_paired_bootstrap(page):
    verdict, status = page.predict("big_llm", "train_median", api_name="/compare_ecthr_npd")
    expected = paired_bootstrap(ERRORS["big_llm"], ERRORS["train_median"], lower_is_better=True)
    assert verdict["delta"] == pytest.approx(expected["delta"])
    assert verdict["p_a_better"] == pytest.approx(expected["p_a_better"])
    assert verdict["verdict"] == "big_llm is better" and status == "Done."


def test_identical_systems_are_not_significant_and_a_system_is_not_compared_with_itself(page):
    verdict, _ = page.predict("big_llm", "big_llm_twin", api_name="/compare_ecthr_npd")
    assert verdict["verdict"] == "no significant difference"
    assert verdict["delta"] == 0.0 and verdict["p_a_better"] == 0.0
    _, status = page.predict("big_llm", "big_llm", api_name="/compare_ecthr_npd")
    assert status == "Error: big_llm against itself: pick two different systems"


def test_language_grid_of_a_system_is_rounded_and_labelled(page):
    result, status = page.predict("lead", "ROUGE-L F1", api_name="/grid_slds")
    result = _value(result)
    assert len(result["data"]) == 3 and len(result["headers"]) == 4
    assert result["headers"][0] == "ROUGE-L F1 — rows: decision language ↓"
    assert result["headers"][1] == "headnote language: de"
    assert all(round(v, 2) == v for row in result["data"] for v in row[1:])


def test_hostile_records_are_skipped_and_listed_and_reload_reads_new_files(page):
    outputs = page.predict(api_name="/reload")
    header = next(o for o in outputs if isinstance(o, str) and o.startswith("# courtbench"))
    refused = next(_value(o) for o in outputs if isinstance(_value(o), dict)
                   and _value(o).get("headers") == ["refused file", "reason"])
    names = [row[0] for row in refused["data"]]
    assert set(HOSTILE_REASONS) | {"results/slds/broken.json"} <= set(names)
    assert "Synthetic data" in header and "file(s) refused" in header
    extra = make_record("ecthr_npd", "late_llm", ERRORS["small_llm"] / 2)
    write_records(page.folder, [extra])
    try:
        page.predict(api_name="/reload")
        result, _ = _table(page)
        assert "late_llm" in _systems(result)
    finally:
        (page.folder / "results" / "ecthr_npd" / "late_llm.json").unlink()
        page.predict(api_name="/reload")
