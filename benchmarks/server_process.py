"""A scripted chat server (tests/helpers/fake_chat_server.py) in a child process, for benchmarks that
time a client against it: the server's own work then runs on the other core, not in the
timed interpreter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests" / "helpers"


class ServerProcess:
    """Runs ``script`` as ``python -c script TESTS *arguments``; the script puts ``TESTS`` on
    ``sys.path``, starts its server, prints the server's URL on one line and serves until its
    stdin closes. ``url`` is that line."""

    def __init__(self, script: str, *arguments: object) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", script, str(TESTS), *map(str, arguments)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.url = self.process.stdout.readline().strip()

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=30)
