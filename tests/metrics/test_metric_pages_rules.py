"""The judge page's owner rules, called as plain functions (the page module imported with
its folder on the path, as a Space runs it): endpoints, models, keys and caps."""

from __future__ import annotations

import importlib
import sys

import pytest

from courtbench.metric_modules import metric_folders

gr = pytest.importorskip("gradio", reason="extra 'spaces' not installed")
pytestmark = pytest.mark.slow  # imports gradio and builds the page (tens of seconds)


@pytest.fixture()
def judge_page(monkeypatch):
    folder = str(metric_folders()["headnote_judge"])
    monkeypatch.syspath_prepend(folder)
    monkeypatch.setenv("JUDGE_ENDPOINTS", "http://127.0.0.1:1/v1, https://judge.example/v1/")
    for name in ("app", "space_io"):
        sys.modules.pop(name, None)
    page = importlib.import_module("app")
    yield page
    for name in ("app", "space_io"):
        sys.modules.pop(name, None)


def test_only_the_owners_endpoints_are_called(judge_page):
    assert judge_page.allowed_endpoints() == ["http://127.0.0.1:1/v1", "https://judge.example/v1"]
    assert judge_page._endpoint("https://judge.example/v1/", "m", "k") == (
        "https://judge.example/v1", "m", "k")
    with pytest.raises(gr.Error, match="is not allowed on this page"):
        judge_page._endpoint("http://127.0.0.1:8080/v1", "m", "k")


def test_the_owners_key_replaces_the_visitors_and_limits_the_models(judge_page, monkeypatch):
    monkeypatch.setenv("JUDGE_API_KEY", "owner-key")
    monkeypatch.setenv("JUDGE_MODELS", "small")
    assert judge_page._endpoint("http://127.0.0.1:1/v1", "small", "visitor") == (
        "http://127.0.0.1:1/v1", "small", "owner-key")
    with pytest.raises(gr.Error, match="not allowed with the owner's key"):
        judge_page._endpoint("http://127.0.0.1:1/v1", "huge", None)


@pytest.mark.parametrize(("options", "message"), [
    ((2048, 0, 10000, 2, 120), "concurrency = 10000: expected an integer concurrency (this "
                               "page's cap) in [1, 8]"),
    ((2048, 0, 4, 50, 120), "max_retries = 50: expected an integer max_retries (this page's "
                            "cap) in [0, 5]"),
    ((10**9, 0, 4, 2, 120), "max_tokens = 1000000000: expected an integer max_tokens (this "
                            "page's cap) in [1, 8,192]"),
    ((2048, 0, 4, 2, 1e6), "timeout = 1000000.0: expected seconds per attempt (this page's "
                           "cap) > 0 and <= 300"),
    ((2048, 1.5, 4, 2, 120), "seed = 1.5: expected an integer seed"),
    ((2048, 0, 2.5, 2, 120), "concurrency = 2.5: expected an integer concurrency"),
])
def test_request_options_are_capped(judge_page, options, message):
    with pytest.raises(gr.Error) as error:
        judge_page._options(*options)
    assert error.value.message.startswith(message)


def test_run_history_is_off_once_a_page_helper_is_imported(judge_page):
    import os

    assert os.environ["GRADIO_RUN_HISTORY"] == "False"
