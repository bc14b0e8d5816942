"""Run an Inspect task for a courtbench runner and read back what came of it.

:func:`run_task` is the one way courtbench's runners call a model:

1. a ``--base-url`` that refuses connections is reported in one line before anything runs
   (:func:`preflight`; Inspect would retry it until ``--timeout``);
2. the cache folder (Inspect's response cache, ``INSPECT_CACHE_DIR``) and the log folder are
   courtbench's own (a marker file; a foreign non-empty folder is refused);
3. the model is built with the key and the ``--header`` values passed to the HTTP client only:
   Inspect records the model's arguments without ``api_key`` and never sees the headers;
4. Inspect runs the task (``fail_on_error`` off: a failed sample is counted, never the run's
   end), with a tqdm bar over the samples; SIGTERM and Ctrl-C end it promptly, what finished is
   in the cache and a rerun sends only the rest;
5. the written log and the cache files of this run are searched for the key and header
   values (the log decompressed) — a hit is an error, never a silent file;
6. the log is read back into :class:`~courtbench.inspect_glue.outcomes.SampleOutcome` s.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import threading
import time
import urllib.parse
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from courtbench.errors import CourtbenchError
from courtbench.inspect_glue import require_inspect
from courtbench.inspect_glue.options import ModelOptions, endpoint_host
from courtbench.inspect_glue.outcomes import RunCounts, SampleOutcome, run_counts, sample_outcomes

MARKER = ".courtbench-inspect"
PREFLIGHT_SECONDS = 5.0


def preflight(base_url: str, seconds: float = PREFLIGHT_SECONDS) -> None:
    """CourtbenchError (one line) unless a TCP connection to ``base_url``'s host opens within
    ``seconds``: nothing listening, an unknown host or no answer is said at once."""
    parts = urllib.parse.urlsplit(base_url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    where = endpoint_host(base_url)
    try:
        with socket.create_connection((parts.hostname, port), timeout=seconds):
            return
    except ConnectionRefusedError:
        problem = f"connection refused: nothing listens on port {port}; is the server running?"
    except socket.gaierror:
        problem = f"unknown host {parts.hostname!r}"
    except TimeoutError:
        problem = f"no answer within {seconds:g} s"
    except OSError as error:
        problem = f"cannot connect ({error.strerror or error})"
    raise CourtbenchError(f"--base-url {where}: {problem}; nothing was sent")


def own_folder(path: Path, option: str) -> Path:
    """Create ``path`` as courtbench's folder (marker file), or accept it when it carries the
    marker or is empty; CourtbenchError for a folder of someone else's."""
    path = Path(path)
    if path.is_dir() and not (path / MARKER).exists() and any(path.iterdir()):
        raise CourtbenchError(f"{option} {path}: a non-empty folder courtbench did not create; "
                              "choose another or an empty one")
    path.mkdir(parents=True, exist_ok=True)
    (path / MARKER).touch()
    return path


@dataclass
class RunResult:
    """What :func:`run_task` gives back: the log's location and status, the samples' outcomes
    (dataset order) and the run's counts."""

    log_path: Path
    status: str
    outcomes: list[SampleOutcome]
    counts: RunCounts
    eval_spec: dict[str, Any]

    @property
    def interrupted(self) -> bool:
        return self.status == "cancelled"


def build_model(options: ModelOptions):
    """The Inspect model of ``options``; the key and headers go to the client only."""
    from inspect_ai.model import get_model

    from courtbench.compat import set_client_headers

    if not options.base_url:
        return get_model(options.inspect_model)
    # the client's own retries off: Inspect's (--max-retries, with backoff) are the only ones
    model = get_model(options.inspect_model, base_url=options.base_url,
                      api_key=options.api_key() or "no-key", memoize=False, max_retries=0)
    if options.headers:
        set_client_headers(model, dict(options.headers))
    return model


#: Seconds Inspect gets to cancel a run after SIGTERM before the process ends anyway.
SIGTERM_GRACE_SECONDS = 5.0
INTERRUPTED = ("interrupted: the answers received so far are in the cache {cache}; a rerun with "
               "the same options sends only the rest")


@contextlib.contextmanager
def _signals_interrupt(cache_dir: Path) -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt in the main thread (as Ctrl-C): Inspect cancels the
    run; what finished is in the cache (each answer is stored as it arrives). Should the
    cancellation take longer than :data:`SIGTERM_GRACE_SECONDS`, the process ends with the
    same one line (exit status 143)."""
    def give_up() -> None:
        print("courtbench: " + INTERRUPTED.format(cache=cache_dir), file=sys.stderr, flush=True)
        os._exit(128 + signal.SIGTERM)

    def interrupt(signum, frame):
        timer = threading.Timer(SIGTERM_GRACE_SECONDS, give_up)
        timer.daemon = True
        timer.start()
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def _environment(name: str, value: str) -> Iterator[None]:
    previous = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = previous


def run_task(task, options: ModelOptions, config: dict[str, Any], *, desc: str,
             progress: bool = True) -> RunResult:
    """Run ``task`` (an Inspect ``Task``) with ``options`` (see the module docstring).

    Args:
        task: the dataset's task.
        options: the checked model options (``cache_dir`` and ``log_dir`` set).
        config: Inspect ``GenerateConfig`` fields (:meth:`ModelOptions.generate_config`).
        desc: progress-bar label.
        progress: show the bar (stderr).

    Raises:
        CourtbenchError: a refused connection, a foreign cache / log folder, a secret found
            in a written file, or Inspect refusing the run (its message, one line).
    """
    require_inspect()
    import inspect_ai
    from inspect_ai.model import CachePolicy

    from courtbench.inspect_glue import progress as bars

    if options.base_url:
        preflight(options.base_url)
    cache_dir = own_folder(options.cache_dir, "--cache")
    log_dir = own_folder(options.log_dir, "--log-dir")
    started = time.time()
    model = build_model(options)
    total = len(task.dataset) if options.limit is None else min(options.limit, len(task.dataset))
    with _environment("INSPECT_CACHE_DIR", str(cache_dir.resolve())), _signals_interrupt(cache_dir), \
            bars.with_progress(task, total, desc, disable=not progress):
        try:
            logs = inspect_ai.eval(task, model=model, log_dir=str(log_dir), display="none",
                                   limit=options.limit, fail_on_error=False,
                                   log_realtime=False, log_model_api=False,
                                   max_samples=max(options.concurrency, 1) * 2,
                                   cache=CachePolicy(expiry=None), **config)
        except KeyboardInterrupt:
            logs = []
    if not logs or logs[0].status == "cancelled":
        raise CourtbenchError(INTERRUPTED.format(cache=cache_dir))
    log = logs[0]
    secrets = [s for s in (options.api_key(), *(v for _, v in options.headers)) if s]
    check_secrets(Path(log.location), cache_dir, secrets, since=started)
    if log.status == "error" and not log.samples:
        raise CourtbenchError(f"Inspect could not run the task: {_one_line(log.error)}")
    outcomes = sample_outcomes(log)
    return RunResult(Path(log.location), log.status, outcomes, run_counts(outcomes),
                     log.eval.model_dump(mode="json", include={"task", "task_args", "model",
                                                               "created", "eval_id"}))


def _one_line(error) -> str:
    text = getattr(error, "message", None) or str(error)
    return " ".join(text.split())[:500]


def _blobs(path: Path) -> Iterator[tuple[str, bytes]]:
    """``(where, bytes)`` of a file; an Inspect ``.eval`` log member by member, decompressed."""
    if path.suffix == ".eval" and zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            for name in archive.namelist():
                yield f"{path} ({name})", archive.read(name)
    else:
        yield str(path), path.read_bytes()


def check_secrets(log_path: Path, cache_dir: Path, secrets: list[str], *, since: float) -> None:
    """CourtbenchError when any of ``secrets`` is in the log (every member decompressed) or
    in a cache file written since ``since`` (seconds since the epoch)."""
    needles = [s.encode("utf-8") for s in secrets if len(s) >= 4]
    if not needles:
        return
    files = [log_path] if log_path.is_file() else []
    files += [p for p in cache_dir.rglob("*") if p.is_file() and p.stat().st_mtime >= since - 1]
    found = [where for path in files for where, data in _blobs(path)
             if any(needle in data for needle in needles)]
    if found:
        raise CourtbenchError(f"a key or header value was written to {found[0]} (and "
                              f"{len(found) - 1} more): remove those files; please report this")
