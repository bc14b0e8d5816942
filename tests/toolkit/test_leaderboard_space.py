"""The leaderboard Space page, written by ``courtbench leaderboard space``, launched on
loopback and driven with gradio_client: it recomputes every record at load, shows only those
whose numbers come out the same, lists every refused file with its reason, and a reload says
what changed (the header and the tables count the same records)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from leaderboard_records import (
    HOSTILE_REASONS,
    OFF_PROTOCOL,
    build,
    ecthr_gold,
    ecthr_predictions,
    skeleton,
    write_page_folder,
    write_records,
)

from courtbench.leaderboard.folders import write_space_folder
from courtbench.leaderboard.results_schema import paired_bootstrap, primary_metric
from courtbench.spaces.screenshots import free_port, page_environment, stop, wait_until_serving

gradio_client = pytest.importorskip("gradio_client", reason="needs the 'spaces' extra")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    folder = tmp_path_factory.mktemp("results")
    records = write_page_folder(folder)
    space = tmp_path_factory.mktemp("space-parent") / "space"
    write_space_folder(space, "org/res")
    port = free_port()
    env = {**page_environment(port), "RESULTS_DIR": str(folder)}
    log = space.parent / "leaderboard.log"
    with open(log, "wb") as out:
        process = subprocess.Popen([sys.executable, str(space / "app.py")], cwd=space, env=env,
                                   stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_until_serving(process, port, log)
        client = gradio_client.Client(f"http://127.0.0.1:{port}/", verbose=False)
        client.folder, client.records = folder, records
        yield client
    finally:
        stop(process)


def _systems(result) -> list[str]:
    headers, rows = result["headers"], result["data"]
    return [row[headers.index("system")] for row in rows if row]


def _value(output):
    """A component's value, whether the page returned it plainly or as an update."""
    return output["value"] if isinstance(output, dict) and "value" in output else output


def _table(page, sort_by="", order="better first", search="", families=(), data="all",
           selection="all", size=None, columns=None, benchmark="ecthr_npd"):
    table, note = page.predict(sort_by, order, search, list(families), data, selection, size,
                               columns or [], api_name=f"/table_{benchmark}")
    return _value(table), note


def _mae(page, system):
    return primary_metric(page.records[system])["value"]


def test_table_ranks_by_the_recomputed_primary_metric_and_marks_references(page):
    result, note = _table(page)
    ranked = ["train_median", "big_llm", "big_llm_twin", "small_llm", "MyModel"]
    expected = sorted(ranked, key=lambda s: (_mae(page, s), ranked.index(s)))
    assert [s.removeprefix("★ ") for s in _systems(result)] == expected
    assert "★ train_median" in _systems(result)
    headers = result["headers"]
    assert headers[:2] == ["rank", "system"] and [row[0] for row in result["data"]] == [1, 2, 3,
                                                                                       4, 5]
    assert "MAE ↓" in headers and "ID MAE ↓" in headers and "MAE ↓ CI low" in headers
    assert note == "5 system(s)."


def test_unofficial_records_are_only_in_the_labelled_table(page):
    assert "few_resamples" not in _systems(_table(page)[0])
    table, note = page.predict(api_name="/unofficial_ecthr_npd")
    table = _value(table)
    rows = {row[0]: dict(zip(table["headers"], row, strict=True)) for row in table["data"]}
    assert list(rows) == ["few_resamples"] and "rank" not in table["headers"]
    assert rows["few_resamples"]["why unofficial (what differs)"] == OFF_PROTOCOL
    assert note.startswith("1 system(s), not ranked")


def test_sorting_search_columns_filters_and_the_note_counts_what_is_hidden(page):
    result, note = _table(page, "MAE ↓", families=["llm"], size=10.0)
    assert _systems(result) == ["small_llm", "MyModel"]  # an unknown size is kept
    assert note == "2 of 5 ranked system(s) shown; the search and filters hide 3."
    result, _ = _table(page, "size (B)", order="worse first")
    assert set(_systems(result)[:2]) == {"big_llm", "big_llm_twin"}
    result, _ = _table(page, search="no such system")
    assert not _systems(result)
    result, _ = _table(page, columns=["MAE ↓", "date"])
    assert result["headers"] == ["rank", "system", "date", "MAE ↓"]


def test_model_links_only_for_hub_ids_and_record_text_is_not_markup(page):
    result, _ = _table(page)
    rows = {row[1]: dict(zip(result["headers"], row, strict=True)) for row in result["data"]}
    assert rows["big_llm"]["link"] == "[org/big-model](https://huggingface.co/org/big-model)"
    assert rows["big_llm_twin"]["link"] == ""
    assert rows["big_llm_twin"]["model"] == "<img src=x onerror=alert(1)>"  # a str cell: text


def test_pair_comparison_is_the_paired_bootstrap_of_the_recomputed_errors(page):
    verdict, status = page.predict("big_llm", "train_median", api_name="/compare_ecthr_npd")
    expected = paired_bootstrap(page.records["big_llm"]["per_item"],
                                page.records["train_median"]["per_item"], lower_is_better=True)
    assert verdict["delta"] == pytest.approx(expected["delta"])
    assert verdict["p_a_better"] == pytest.approx(expected["p_a_better"])
    assert verdict["verdict"] == "big_llm is better" and status == "Done."
    verdict, _ = page.predict("big_llm", "big_llm_twin", api_name="/compare_ecthr_npd")
    assert verdict["verdict"] == "no significant difference" and verdict["delta"] == 0.0
    _, status = page.predict("big_llm", "big_llm", api_name="/compare_ecthr_npd")
    assert status == "Error: big_llm against itself: pick two different systems"


def test_language_grid_of_a_system_is_rounded_and_labelled(page):
    result, _ = page.predict("lead", "ROUGE-L F1", api_name="/grid_slds")
    result = _value(result)
    assert len(result["data"]) == 3 and len(result["headers"]) == 4
    assert result["headers"][0] == "ROUGE-L F1 — rows: decision language ↓"
    assert result["headers"][1] == "headnote language: de"


def test_every_hostile_file_is_listed_and_a_reload_says_what_changed(page):
    outputs = page.predict(api_name="/reload")
    header = next(o for o in outputs if isinstance(o, str) and o.startswith("# courtbench"))
    refused = next(_value(o) for o in outputs if isinstance(_value(o), dict)
                   and _value(o).get("headers") == ["refused file", "reason"])
    reasons = {row[0]: row[1] for row in refused["data"]}
    assert set(HOSTILE_REASONS) | {"results/slds/broken.json"} <= set(reasons)
    for name, phrase in HOSTILE_REASONS.items():
        assert phrase in reasons[name]
    assert "ecthr_npd: 5 ranked, 1 unofficial" in header
    assert f"{len(reasons)} file(s) refused" in header
    assert "Reloaded: 0 record(s) added; 0 removed; 0 changed" in header
    gold = ecthr_gold()
    late = build(skeleton("ecthr_npd", "late_llm", values=ecthr_predictions(gold, 100, 9)),
                 gold)[0]
    liar = dict(late, system="late_liar", per_item=[0.0] * len(late["per_item"]))
    write_records(page.folder, [late, liar])
    try:
        outputs = page.predict(api_name="/reload")
        header = next(o for o in outputs if isinstance(o, str) and o.startswith("# courtbench"))
        assert "Reloaded: 1 record(s) added: ecthr_npd/late_llm" in header
        assert "(1 newly: results/ecthr_npd/late_liar.json)" in header
        assert "ecthr_npd: 6 ranked, 1 unofficial" in header
        result, note = _table(page)
        assert "late_llm" in _systems(result) and note == "6 system(s)."
    finally:
        for name in ("late_llm", "late_liar"):
            (page.folder / "results" / "ecthr_npd" / f"{name}.json").unlink()
        page.predict(api_name="/reload")
