"""Talk to the metric modules' Space pages, each served from its own ``app.py`` in a
subprocess (:func:`courtbench.spaces.screenshots.running_pages`: ``python app.py`` in the folder, a free
127.0.0.1 port, offline, no analytics). All pages start at once, so that
their start-up (mostly imports) overlaps. They are stopped when the module that uses them ends:
an idle page still spends about 5 % of a core, which over the rest of a worker's session was
minutes of CPU."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from courtbench.metric_modules import metric_folders
from courtbench.spaces.screenshots import free_port, running_pages

gradio_client = pytest.importorskip("gradio_client", reason="extra 'spaces' not installed")
pytest.importorskip("gradio", reason="extra 'spaces' not installed")


@pytest.fixture(scope="module")
def page_logs(tmp_path_factory) -> Path:
    """Folder of the pages' logs, ``<name>.log``."""
    return tmp_path_factory.mktemp("space_pages")


@pytest.fixture(scope="module")
def judge_port():
    """The 127.0.0.1 port of the one judge endpoint the judge page allows (``JUDGE_ENDPOINTS``)."""
    return free_port()


@pytest.fixture(scope="module")
def pages(page_logs, judge_port):
    """``{name: gradio_client.Client}`` of every metric module's page; the judge page allows
    only ``http://127.0.0.1:<judge_port>/v1``."""
    saved = os.environ.get("JUDGE_ENDPOINTS")
    os.environ["JUDGE_ENDPOINTS"] = f"http://127.0.0.1:{judge_port}/v1"
    try:
        with running_pages(metric_folders(), page_logs) as urls:
            yield {name: gradio_client.Client(url, verbose=False) for name, url in urls.items()}
    finally:
        if saved is None:
            os.environ.pop("JUDGE_ENDPOINTS", None)
        else:
            os.environ["JUDGE_ENDPOINTS"] = saved


def ok(client, *args, api_name: str):
    """The outputs of a call that must succeed (its status box, the last output, says Done)."""
    *outputs, status = client.predict(*args, api_name=api_name)
    assert status.startswith("Done"), status
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def table(headers: list[str], rows: list[list]) -> dict:
    """A pasted table as the page's Dataframe input takes it over the API."""
    return {"headers": headers, "data": rows, "metadata": None}


def page_error(client, *args, api_name: str) -> str:
    """The message the page's status box shows for a call that must fail (one line, after
    "Error: ")."""
    status = client.predict(*args, api_name=api_name)[-1]
    assert status.startswith("Error: ") and "\n" not in status, status
    return status.removeprefix("Error: ")
