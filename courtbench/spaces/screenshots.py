"""Serve the metric modules' Space pages locally and screenshot them (``make spaces``).

Each metric folder's ``app.py`` runs as a Space runs it — ``python app.py`` in the folder —
on a free 127.0.0.1 port, offline and without Gradio analytics. With headless Chromium
installed (Debian package ``chromium``) every page is saved as ``<out>/<name>.png`` for a
person to look at; the page's log goes to ``<out>/<name>.log``. Without Chromium the pages
are still started and checked to serve.

With ``--leaderboard RESULTS_DIR`` the leaderboard Space is served too, reading the result
records of that folder (e.g. one holding hostile records), and saved as ``leaderboard.png``.

Usage: ``python -m courtbench.spaces [--out DIR] [--only NAME ...] [--leaderboard DIR]``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from tqdm import tqdm

from courtbench.errors import CourtbenchError
from courtbench.metric_modules import metric_folders

STARTUP_TIMEOUT_S = 900.0  # a ceiling: six pages importing gradio at once on a loaded 2-core machine
SCREENSHOT_TIMEOUT_S = 180.0
WINDOW_SIZE = "1280,2000"
#: Milliseconds of page time Chromium lets the page's scripts run before it captures.
RENDER_BUDGET_MS = 20000
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def page_environment(port: int) -> dict[str, str]:
    """The environment of a local page: loopback on ``port``, offline, no analytics, no token."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "SPACE_ID")}
    env.update(GRADIO_SERVER_NAME="127.0.0.1", GRADIO_SERVER_PORT=str(port),
               GRADIO_ANALYTICS_ENABLED="False", HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1",
               HF_EVALUATE_OFFLINE="1", MPLBACKEND="Agg", PYTHONUNBUFFERED="1")
    return env


def _log_tail(log_path: Path) -> str:
    return log_path.read_text(encoding="utf-8", errors="replace")[-4000:]


def wait_until_serving(process: subprocess.Popen, port: int, log_path: Path, *,
                       timeout_s: float = STARTUP_TIMEOUT_S) -> None:
    """Block until ``port`` accepts connections.

    Raises:
        CourtbenchError: the page exited, or did not serve within ``timeout_s`` seconds
            (with the tail of its log).
    """
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise CourtbenchError(f"{log_path.stem}: app.py exited with code "
                                  f"{process.returncode}:\n{_log_tail(log_path)}")
        with contextlib.suppress(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        time.sleep(0.2)
    raise CourtbenchError(f"{log_path.stem}: app.py did not serve within {timeout_s:g} s:\n"
                          f"{_log_tail(log_path)}")


def stop(process: subprocess.Popen) -> None:
    """Terminate a page (kill it if it does not stop within 20 s)."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=20)


@contextlib.contextmanager
def running_pages(folders: Mapping[str, Path], log_dir: Path, *,
                  python: str = sys.executable,
                  extra_env: Mapping[str, str] | None = None) -> Iterator[dict[str, str]]:
    """Serve every ``folder/app.py`` from its own subprocess, all started at once (their
    start-up, mostly imports, overlaps); yield ``{name: URL}`` once all serve; stop them all
    afterwards.

    Args:
        folders: ``{name: metric folder holding app.py}``.
        log_dir: each page's stdout and stderr go to ``<log_dir>/<name>.log``.
        python: the interpreter that runs the pages.
        extra_env: more environment variables of every page (e.g. ``RESULTS_DIR``).
    """
    with contextlib.ExitStack() as stack:
        started = {}
        for name, folder in folders.items():
            port = free_port()
            log = stack.enter_context(open(log_dir / f"{name}.log", "wb"))
            process = subprocess.Popen([python, "app.py"], cwd=folder,
                                       env={**page_environment(port), **(extra_env or {})},
                                       stdout=log,
                                       stderr=subprocess.STDOUT)
            stack.callback(stop, process)
            started[name] = (process, port)
        for name, (process, port) in started.items():
            wait_until_serving(process, port, log_dir / f"{name}.log")
        yield {name: f"http://127.0.0.1:{port}/" for name, (_, port) in started.items()}


@contextlib.contextmanager
def running_page(folder: Path, log_path: Path, *, python: str = sys.executable) -> Iterator[str]:
    """Serve one ``folder/app.py`` (log in ``log_path``); yield its URL; stop it afterwards."""
    with running_pages({log_path.stem: folder}, log_path.parent, python=python) as urls:
        yield urls[log_path.stem]


def find_chromium() -> str | None:
    """The path of a Chromium (or Chrome) executable on PATH, or None."""
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def screenshot(chromium: str, url: str, png: Path) -> None:
    """Save a 1280 × 2000 screenshot of ``url`` to ``png`` (written to a temporary file in the
    same folder, then renamed, so no half-written PNG is left).

    Raises:
        CourtbenchError: Chromium failed or wrote no image.
    """
    with tempfile.TemporaryDirectory(prefix="courtbench-chromium-") as profile:
        partial = png.with_name(f".{png.name}.partial.png")
        command = [chromium, "--headless", "--no-sandbox", "--disable-gpu",
                   "--disable-background-networking", "--disable-component-update",
                   "--disable-sync", "--no-first-run", "--hide-scrollbars",
                   f"--user-data-dir={profile}", f"--window-size={WINDOW_SIZE}",
                   f"--virtual-time-budget={RENDER_BUDGET_MS}", f"--screenshot={partial}", url]
        try:
            done = subprocess.run(command, capture_output=True, text=True,
                                  timeout=SCREENSHOT_TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired:
            partial.unlink(missing_ok=True)
            raise CourtbenchError(f"{png.stem}: Chromium did not finish within "
                                  f"{SCREENSHOT_TIMEOUT_S:g} s") from None
        if done.returncode != 0 or not partial.is_file() or partial.stat().st_size == 0:
            partial.unlink(missing_ok=True)
            raise CourtbenchError(f"{png.stem}: Chromium exited with code {done.returncode} "
                                  f"and wrote no screenshot: {done.stderr.strip()[-1000:]}")
        os.replace(partial, png)


def capture_pages(names: Sequence[str], out: Path, leaderboard: Path | None = None) -> list[str]:
    """Start every named page, screenshot it if Chromium is installed, stop it; with
    ``leaderboard`` (a results folder) the leaderboard Space reading it, too.

    Returns:
        One line per page saying what was done.

    Raises:
        CourtbenchError: a page that does not start, or a failed screenshot.
    """
    folders = metric_folders()
    unknown = sorted(set(names) - set(folders))
    folders = {name: folders[name] for name in names if name in folders}
    if unknown:
        raise CourtbenchError(f"--only: unknown metric module(s) {unknown}; expected some of "
                              f"{sorted(folders)}")
    if leaderboard is None:
        return _capture(names, folders, out, {})
    if not (Path(leaderboard) / "results").is_dir():
        raise CourtbenchError(f"--leaderboard {leaderboard}: no results/ folder in it")
    from courtbench.leaderboard.folders import write_space_folder

    with tempfile.TemporaryDirectory(prefix="courtbench-leaderboard-space-") as scratch:
        space = Path(scratch) / "leaderboard"  # the Space as published: with its verifiers
        write_space_folder(space, "local/results")
        return _capture([*names, "leaderboard"], {**folders, "leaderboard": space}, out,
                        {"RESULTS_DIR": str(Path(leaderboard).resolve())})


def _capture(names: Sequence[str], folders: dict, out: Path, extra_env: dict) -> list[str]:
    """Serve ``folders``, screenshot each page of ``names`` (when Chromium is installed)."""
    out.mkdir(parents=True, exist_ok=True)
    chromium = find_chromium()
    lines = []
    print(f"starting {len(names)} page(s) ...", file=sys.stderr)
    with running_pages(folders, out, extra_env=extra_env) as urls:
        for name in tqdm(names, desc="screenshots" if chromium else "pages", unit="page"):
            if chromium is None:
                lines.append(f"{name}: served at {urls[name]} (no screenshot: Chromium not "
                             "installed)")
                continue
            screenshot(chromium, urls[name], out / f"{name}.png")
            lines.append(f"{name}: {out / f'{name}.png'}")
    if chromium is None:
        lines.append("no screenshots: install headless Chromium (apt-get install -y chromium) "
                     "and run again")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m courtbench.spaces", description=__doc__.split(
        "\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("spaces_screenshots"),
                        help="folder for <name>.png and <name>.log (default: spaces_screenshots)")
    parser.add_argument("--only", nargs="+", metavar="NAME",
                        help="metric modules to capture (default: all)")
    parser.add_argument("--leaderboard", type=Path, metavar="RESULTS_DIR",
                        help="also serve the leaderboard Space reading this results folder "
                             "and capture it as leaderboard.png")
    args = parser.parse_args(argv)
    try:
        lines = capture_pages(args.only or sorted(metric_folders()), args.out, args.leaderboard)
    except CourtbenchError as error:
        print(f"courtbench spaces: {error}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
