"""Run a metric folder's Space page (``app.py``) as the Space would, and talk to it.

:func:`running_page` starts ``python app.py`` in a subprocess, in the metric folder, on a
free 127.0.0.1 port with the network-free environment of the tests, waits until it answers
and yields a ``gradio_client.Client``. The page tests compare its answers with the plain
metric functions.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

gradio_client = pytest.importorskip("gradio_client", reason="extra 'spaces' not installed")
pytest.importorskip("gradio", reason="extra 'spaces' not installed")

STARTUP_TIMEOUT_S = 240.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def page_environment(port: int) -> dict[str, str]:
    """The environment of a page under test: loopback only, offline, no analytics."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "SPACE_ID")}
    env.update(GRADIO_SERVER_NAME="127.0.0.1", GRADIO_SERVER_PORT=str(port),
               GRADIO_ANALYTICS_ENABLED="False", HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1",
               HF_EVALUATE_OFFLINE="1", MPLBACKEND="Agg", PYTHONUNBUFFERED="1")
    return env


def start_page(folder: Path, port: int, log) -> subprocess.Popen:
    """Start ``app.py`` of ``folder`` on ``port``, its output going to the file ``log``."""
    return subprocess.Popen([sys.executable, "app.py"], cwd=folder, env=page_environment(port),
                            stdout=log, stderr=subprocess.STDOUT)


def wait_until_serving(process: subprocess.Popen, port: int, log_path: Path,
                       timeout_s: float = STARTUP_TIMEOUT_S) -> None:
    """Block until ``port`` accepts connections; fail with the page's log if it exits."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"app.py exited with {process.returncode}:\n"
                                 + log_path.read_text(errors="replace")[-4000:])
        with contextlib.suppress(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        time.sleep(0.25)
    raise AssertionError(f"app.py did not serve within {timeout_s:g} s:\n"
                         + log_path.read_text(errors="replace")[-4000:])


def stop_page(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=20)


@contextlib.contextmanager
def running_page(folder: Path, log_path: Path) -> Iterator[gradio_client.Client]:
    """A client of ``folder``'s page, served from a subprocess that is stopped afterwards."""
    port = free_port()
    with open(log_path, "wb") as log:
        process = start_page(folder, port, log)
        try:
            wait_until_serving(process, port, log_path)
            yield gradio_client.Client(f"http://127.0.0.1:{port}/", verbose=False)
        finally:
            stop_page(process)


def table(headers: list[str], rows: list[list]) -> dict:
    """A pasted table as the page's Dataframe input takes it over the API."""
    return {"headers": headers, "data": rows, "metadata": None}


def page_error(client, *args, api_name: str) -> str:
    """The message of the error the page shows for a call that must fail."""
    with pytest.raises(gradio_client.exceptions.AppError) as error:
        client.predict(*args, api_name=api_name)
    return str(error.value)
