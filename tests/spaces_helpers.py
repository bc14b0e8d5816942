"""Talk to the metric modules' Space pages, each served from its own ``app.py`` in a
subprocess (:func:`courtbench.spaces.screenshots.running_pages`: ``python app.py`` in the folder, a free
127.0.0.1 port, offline, no analytics). All pages start at once, once per session, so that
their start-up (mostly imports) overlaps."""

from __future__ import annotations

from pathlib import Path

import pytest

from courtbench.metric_modules import metric_folders
from courtbench.spaces.screenshots import running_pages

gradio_client = pytest.importorskip("gradio_client", reason="extra 'spaces' not installed")
pytest.importorskip("gradio", reason="extra 'spaces' not installed")


@pytest.fixture(scope="session")
def page_logs(tmp_path_factory) -> Path:
    """Folder of the pages' logs, ``<name>.log``."""
    return tmp_path_factory.mktemp("space_pages")


@pytest.fixture(scope="session")
def pages(page_logs):
    """``{name: gradio_client.Client}`` of every metric module's page."""
    with running_pages(metric_folders(), page_logs) as urls:
        yield {name: gradio_client.Client(url, verbose=False) for name, url in urls.items()}


def table(headers: list[str], rows: list[list]) -> dict:
    """A pasted table as the page's Dataframe input takes it over the API."""
    return {"headers": headers, "data": rows, "metadata": None}


def page_error(client, *args, api_name: str) -> str:
    """The message of the error the page shows for a call that must fail."""
    with pytest.raises(gradio_client.exceptions.AppError) as error:
        client.predict(*args, api_name=api_name)
    return str(error.value)
