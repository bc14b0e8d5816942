"""The pages in a real (headless) browser: the judge page keeps no API key anywhere after a
reload, and the leaderboard renders hostile record text as text after a hostile-records run
and shows unofficial records only in their labelled table.
Skipped, with the reason, when Chromium is not installed."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from browser import STORED_AND_SHOWN, Browser
from leaderboard_records import OFF_PROTOCOL, write_page_folder

from courtbench.leaderboard.folders import write_space_folder
from courtbench.metric_modules import metric_folders
from courtbench.spaces.screenshots import (
    free_port,
    page_environment,
    running_pages,
    stop,
    wait_until_serving,
)

pytestmark = pytest.mark.slow
SECRET = "sk-browser-test-secret-4711"


def test_judge_page_keeps_no_api_key_after_a_run_and_a_reload(tmp_path, monkeypatch):
    # the one allowed endpoint is a closed local port: the run fails fast, offline
    monkeypatch.setenv("JUDGE_ENDPOINTS", f"http://127.0.0.1:{free_port()}/v1")
    with Browser() as browser, running_pages({"headnote_judge": metric_folders()[
            "headnote_judge"]}, tmp_path) as urls:
        browser.navigate(urls["headnote_judge"])
        browser.wait_for("document.querySelector('input[type=password]') !== null")
        browser.evaluate(f"""(() => {{
            const key = document.querySelector('input[type=password]');
            key.value = {SECRET!r};
            key.dispatchEvent(new Event('input', {{bubbles: true}}));
            [...document.querySelectorAll('button')]
                .find(b => b.textContent.includes('Judge the table')).click();
            return true; }})()""")
        browser.wait_for("document.body.innerText.includes('Error: ')"
                         " || document.body.innerText.includes('Done:')")
        browser.reload()
        browser.wait_for("document.querySelector('input[type=password]') !== null")
        time.sleep(1.0)
        stored = browser.evaluate(STORED_AND_SHOWN)
        assert SECRET not in stored
        runs = browser.evaluate("fetch('gradio_api/runs').then(r => r.status)")
        assert runs != 200 or SECRET not in browser.evaluate(
            "fetch('gradio_api/runs').then(r => r.text())")


@pytest.fixture()
def hostile_leaderboard(tmp_path):
    folder = tmp_path / "results"
    write_page_folder(folder)  # verified records, a twin with hostile model text, hostile files
    space = tmp_path / "space"
    write_space_folder(space, "org/res")
    port = free_port()
    env = {**page_environment(port), "RESULTS_DIR": str(folder)}
    log = tmp_path / "leaderboard.log"
    with open(log, "wb") as out:
        process = subprocess.Popen([sys.executable, str(space / "app.py")], cwd=space, env=env,
                                   stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_until_serving(process, port, log)
        yield f"http://127.0.0.1:{port}/"
    finally:
        stop(process)


def test_leaderboard_renders_hostile_record_text_as_text(hostile_leaderboard):
    with Browser() as browser:
        browser.navigate(hostile_leaderboard)
        browser.wait_for("document.body.innerText.includes('Refused files')")
        text = browser.evaluate("document.body.innerText")
        assert "courtbench leaderboard" in text and "big_llm" in text
        assert "<img src=x onerror=alert(1)>" in text  # shown, as text
        ranked, label, labelled = text.partition("Not part of the ranking above")
        assert label and "Unofficial: non-protocol options or incomplete runs" in ranked
        assert "few_resamples" not in ranked  # the main table, above the labelled one
        assert "few_resamples" in labelled and OFF_PROTOCOL in labelled
        images = browser.evaluate("[...document.querySelectorAll('img')].map(i => "
                                  "i.getAttribute('src'))")
        assert "x" not in images, images
        assert not browser.evaluate("[...document.querySelectorAll('*')].some(e => "
                                    "e.hasAttribute('onerror'))")




def test_read_the_full_metric_card_opens_the_card(tmp_path):
    with Browser() as browser, running_pages({"zero_f1": metric_folders()["zero_f1"]},
                                             tmp_path) as urls:
        browser.navigate(urls["zero_f1"])
        browser.wait_for("[...document.querySelectorAll('button')].some(b => "
                         "b.textContent.includes('Read the full metric card'))")
        # the card's fold is lower on the page than the button and may render later
        browser.wait_for("document.getElementById('metric-card') !== null")
        card_text = "document.getElementById('metric-card').innerText"
        folded = browser.evaluate(card_text)
        browser.evaluate("[...document.querySelectorAll('button')].find(b => "
                         "b.textContent.includes('Read the full metric card')).click()")
        opened = browser.wait_for(f"{card_text}.length > {len(folded) + 200} && {card_text}")
        assert "zero" in opened.lower()
