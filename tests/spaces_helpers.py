"""Talk to a metric folder's Space page, served from its own ``app.py`` in a subprocess
(:func:`courtbench.spaces.running_page`: ``python app.py`` in the folder, a free 127.0.0.1
port, offline, no analytics)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from courtbench.spaces import running_page as serve_page

gradio_client = pytest.importorskip("gradio_client", reason="extra 'spaces' not installed")
pytest.importorskip("gradio", reason="extra 'spaces' not installed")


@contextlib.contextmanager
def running_page(folder: Path, log_path: Path) -> Iterator[gradio_client.Client]:
    """A ``gradio_client.Client`` of ``folder``'s page, stopped afterwards."""
    with serve_page(folder, log_path) as url:
        yield gradio_client.Client(url, verbose=False)


def table(headers: list[str], rows: list[list]) -> dict:
    """A pasted table as the page's Dataframe input takes it over the API."""
    return {"headers": headers, "data": rows, "metadata": None}


def page_error(client, *args, api_name: str) -> str:
    """The message of the error the page shows for a call that must fail."""
    with pytest.raises(gradio_client.exceptions.AppError) as error:
        client.predict(*args, api_name=api_name)
    return str(error.value)
