"""A headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``:
JSON messages separated by NUL bytes on file descriptors 3 and 4), standard library only.

Enough to load a page, type into it, click, reload and read what the page and the browser's
storage hold. Skips the calling test when no Chromium is installed.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time

import pytest

from courtbench.spaces.screenshots import find_chromium


class Browser:
    """One headless Chromium with one page (``evaluate``, ``navigate``, ``reload``)."""

    def __init__(self) -> None:
        chromium = find_chromium()
        if chromium is None:
            pytest.skip("headless Chromium not installed (apt-get install -y chromium)")
        self._profile = tempfile.TemporaryDirectory(prefix="courtbench-browser-")
        to_browser_read, self._write = os.pipe()
        self._read, from_browser_write = os.pipe()
        # the browser reads commands on fd 3 and writes answers on fd 4
        self._process = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-background-networking", "--disable-component-update",
             "--disable-sync", f"--user-data-dir={self._profile.name}",
             "--remote-debugging-pipe", "about:blank"],
            pass_fds=(3, 4), preexec_fn=_fds(to_browser_read, from_browser_write),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._buffer = b""
        self._next_id = 0
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self._session = self.call("Target.attachToTarget", targetId=target,
                                  flatten=True)["sessionId"]

    def call(self, method: str, session: str | None = None, **params) -> dict:
        """Send one command; return its result (events in between are dropped)."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self._buffer:
                chunk = os.read(self._read, 1 << 16)
                if not chunk:
                    raise RuntimeError("Chromium closed the DevTools pipe")
                self._buffer += chunk
            raw, _, self._buffer = self._buffer.partition(b"\0")
            answer = json.loads(raw)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page (promises awaited)."""
        result = self.call("Runtime.evaluate", self._session, expression=expression,
                           awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"JavaScript failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 90.0):
        """Poll ``expression`` until it is truthy (returns it) or fail the test."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.25)
        pytest.fail(f"the page did not satisfy {expression!r} within {timeout:g} s")

    def navigate(self, url: str) -> None:
        self.call("Page.navigate", self._session, url=url)
        time.sleep(0.5)

    def reload(self) -> None:
        self.call("Page.reload", self._session, ignoreCache=True)
        time.sleep(0.5)

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self._process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self._process.kill()
        os.close(self._write)
        os.close(self._read)
        self._profile.cleanup()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _fds(to_browser_read: int, from_browser_write: int):
    """In the child: the command pipe on fd 3, the answer pipe on fd 4."""
    def setup() -> None:
        high_read, high_write = os.dup2(to_browser_read, 100), os.dup2(from_browser_write, 101)
        os.dup2(high_read, 3)
        os.dup2(high_write, 4)
    return setup


#: Every string the browser keeps for the page: local and session storage, every IndexedDB
#: store's records, cookies visible to scripts, and the page's HTML.
STORED_AND_SHOWN = """(async () => {
  const parts = [JSON.stringify(localStorage), JSON.stringify(sessionStorage), document.cookie,
                 document.documentElement.outerHTML];
  for (const info of (await indexedDB.databases())) {
    const db = await new Promise((ok, bad) => {
      const request = indexedDB.open(info.name);
      request.onsuccess = () => ok(request.result); request.onerror = bad; });
    for (const store of db.objectStoreNames) {
      const rows = await new Promise((ok, bad) => {
        const request = db.transaction(store).objectStore(store).getAll();
        request.onsuccess = () => ok(request.result); request.onerror = bad; });
      parts.push(info.name + "/" + store + ":" + JSON.stringify(rows));
    }
    db.close();
  }
  return parts.join("\\n");
})()"""
