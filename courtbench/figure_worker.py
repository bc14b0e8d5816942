"""Draw figures in a child process that loads matplotlib while the parent works.

Importing matplotlib and drawing one figure take about a second on a CPU core — as long as
reading, checking and writing a whole dataset release of fifteen thousand rows. A
:class:`FigureWorker` starts a
child Python at once; the child imports matplotlib while the parent reads its source, then
draws each figure the parent submits (a picklable callable that writes a PNG to the path it
is given) into a scratch folder, and the parent copies the file into place when it writes its
output folder. Same interpreter, same matplotlib, same drawing: the same bytes as drawing
in-process.

A worker in a process that has already imported matplotlib (a test session, the demo: the
child would only load it again), or made with ``parallel=False``, draws in-process instead;
callers see no difference but the time.

Run as ``python -m courtbench.figure_worker [MODULE ...]`` it is the child: it imports
matplotlib and the named modules, then reads pickled ``(draw, path)`` jobs from stdin and
answers each with a pickled ``(status, message)`` on stdout until stdin closes.
"""

from __future__ import annotations

import importlib
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from courtbench.errors import CourtbenchError

Draw = Callable[[Path], None]


class FigureWorker:
    """Draws submitted figures in a child process (see the module docstring).

    Args:
        parallel: ``None`` (default): start the child unless matplotlib is already imported
            here; ``True``: start it in any case; ``False``: draw every figure in-process.
        preload: modules the submitted drawings live in; the child imports them after
            matplotlib, while it waits for the first job (unpickling a job would otherwise
            import them then).

    Use as a context manager (or call :meth:`close`): the child is stopped and its scratch
    folder removed on exit, whether or not the figures were collected.
    """

    def __init__(self, *, parallel: bool | None = None, preload: tuple[str, ...] = ()) -> None:
        self._child: subprocess.Popen | None = None
        self._scratch: Path | None = None
        self._submitted = 0
        self._answered = 0
        if parallel is None:
            parallel = "matplotlib.pyplot" not in sys.modules
        if parallel:
            self._scratch = Path(tempfile.mkdtemp(prefix="courtbench-figures-"))
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
            self._child = subprocess.Popen(
                [sys.executable, "-m", "courtbench.figure_worker", *preload], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, env=env)

    @property
    def parallel(self) -> bool:
        """True when figures are drawn in the child process."""
        return self._child is not None

    def submit(self, draw: Draw) -> Draw:
        """Start drawing ``draw`` now; returns a function of the destination path that waits
        for the drawing and copies it there.

        The returned function raises what ``draw`` raised in the child: ImportError as
        ImportError (the plotting extra is missing: callers skip the figure), anything else
        as :class:`CourtbenchError` naming the error; a child that died without answering
        is a CourtbenchError with its exit status. In-process, ``draw`` itself is returned.
        """
        if self._child is None:
            return draw
        self._submitted += 1
        scratch_file = self._scratch / f"figure-{self._submitted}.png"
        pickle.dump((draw, str(scratch_file)), self._child.stdin)
        self._child.stdin.flush()

        def collect(path: Path) -> None:
            _raise_failure(self._answer(), path)
            shutil.copyfile(scratch_file, path)

        return collect

    def _answer(self) -> tuple[str, str]:
        try:
            answer = pickle.load(self._child.stdout)
            self._answered += 1
            return answer
        except (EOFError, pickle.UnpicklingError):
            status = self._child.wait()
            return "error", f"the figure process exited with status {status} before answering"

    def close(self) -> None:
        """Stop the child and remove its scratch folder. A child that answered every job
        ends as soon as its stdin closes; one still drawing (the caller failed before
        collecting) is killed."""
        if self._child is not None:
            if self._answered < self._submitted:
                self._child.kill()
            self._child.stdin.close()
            self._child.wait()
            self._child.stdout.close()
            self._child = None
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    def __enter__(self) -> FigureWorker:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _raise_failure(answer: tuple[str, str], path: Path) -> None:
    status, message = answer
    if status == "import_error":
        raise ImportError(message)
    if status != "ok":
        raise CourtbenchError(f"figure {Path(path).name}: {message}")


def _serve(jobs: BinaryIO, answers: BinaryIO) -> None:
    """The child's loop: draw each pickled ``(draw, path)`` job, answer ``(status, message)``;
    returns when ``jobs`` ends."""
    while True:
        try:
            draw, path = pickle.load(jobs)
        except EOFError:
            return
        answer: tuple[str, Any]
        try:
            draw(Path(path))
            answer = ("ok", "")
        except ImportError as error:
            answer = ("import_error", str(error))
        except Exception as error:  # reported to the parent, which raises it
            answer = ("error", f"{type(error).__name__}: {error}")
        pickle.dump(answer, answers)
        answers.flush()


def _preload(modules: list[str]) -> None:
    """Import matplotlib with the Agg backend, then ``modules``, so that the first drawing
    does not wait for them; an import that fails is reported by the drawing itself."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot  # noqa: F401 - the import is the point
        for module in modules:
            importlib.import_module(module)
    except ImportError:
        pass


def main() -> None:
    """The child: answers go to the original stdout; anything a drawing prints goes to
    stderr, so that it cannot corrupt the answers."""
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    _preload(sys.argv[1:])
    _serve(sys.stdin.buffer, answers)
    answers.close()
    os._exit(0)  # every answer is flushed; tearing matplotlib down would only delay the parent


if __name__ == "__main__":
    main()
