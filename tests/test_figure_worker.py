"""courtbench.figure_worker: figures drawn in a child process are the figures drawn here;
failures in the child reach the caller as the errors the Hub writer expects."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from figure_jobs import DieWithStatus, Fail, WriteBytes

from courtbench.errors import CourtbenchError
from courtbench.figure_worker import FigureWorker
from courtbench.hub.writer import draw_figures
from ecthr_npd.build import build_synthetic
from ecthr_npd.figures import award_distribution


def test_a_figure_drawn_in_the_child_has_the_bytes_of_one_drawn_here(tmp_path):
    rng = np.random.default_rng(3)
    draw = award_distribution({"train": np.round(rng.lognormal(8, 1.5, 300)) * (rng.random(300)
                                                                               > 0.3),
                               "test": np.round(rng.lognormal(8, 1.5, 80))}, synthetic=True)
    with FigureWorker(parallel=True) as worker:
        assert worker.parallel
        collect = worker.submit(draw)
        collect(tmp_path / "child.png")
    draw(tmp_path / "here.png")
    assert (tmp_path / "child.png").read_bytes() == (tmp_path / "here.png").read_bytes()


def test_jobs_are_answered_in_order_and_output_printed_by_a_job_is_not_an_answer(tmp_path):
    with FigureWorker(parallel=True) as worker:
        first = worker.submit(WriteBytes(b"one", noise="printed by the drawing"))
        second = worker.submit(WriteBytes(b"two"))
        first(tmp_path / "1.png")
        second(tmp_path / "2.png")
    assert [(tmp_path / f"{i}.png").read_bytes() for i in (1, 2)] == [b"one", b"two"]


def test_an_import_error_in_the_child_skips_the_figure_like_a_missing_plots_extra(tmp_path,
                                                                                 capsys):
    with FigureWorker(parallel=True) as worker:
        figures = {"a.png": worker.submit(Fail(ImportError("No module named 'matplotlib'"))),
                   "b.png": worker.submit(WriteBytes(b"png"))}
        written, skipped = draw_figures(figures, tmp_path)
    assert (written, skipped) == (["b.png"], ["a.png"])
    assert "No module named 'matplotlib'" in capsys.readouterr().err
    assert not (tmp_path / "a.png").exists()


def test_any_other_error_in_the_child_names_the_figure_and_the_error(tmp_path):
    with FigureWorker(parallel=True) as worker:
        collect = worker.submit(Fail(ValueError("bins must increase")))
        with pytest.raises(CourtbenchError, match=r"award\.png: ValueError: bins must increase"):
            collect(tmp_path / "award.png")
    assert not (tmp_path / "award.png").exists()


def test_a_child_that_dies_is_an_error_with_its_exit_status(tmp_path):
    with FigureWorker(parallel=True) as worker:
        collect = worker.submit(DieWithStatus(7))
        with pytest.raises(CourtbenchError, match="exited with status 7 before answering"):
            collect(tmp_path / "award.png")


def test_closing_before_collecting_stops_the_child_and_removes_its_scratch_folder():
    worker = FigureWorker(parallel=True)
    scratch, child = worker._scratch, worker._child
    worker.submit(WriteBytes(b"never collected"))
    worker.close()
    assert child.returncode is not None and not scratch.exists()
    worker.close()  # a second close is a no-op


def test_without_a_child_the_drawing_itself_is_returned(tmp_path):
    draw = WriteBytes(b"here")
    with FigureWorker(parallel=False) as worker:
        assert not worker.parallel
        assert worker.submit(draw) is draw


def test_a_cli_build_in_a_fresh_process_writes_the_folder_an_in_process_build_writes(tmp_path):
    # a fresh interpreter has no matplotlib loaded, so `courtbench build` draws in its child
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-m", "courtbench", "build", "ecthr_npd",
                           "--synthetic", "--n", "300", "--out", str(tmp_path / "cli")],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    build_synthetic(tmp_path / "here", n=300)
    files = sorted(p.relative_to(tmp_path / "here") for p in (tmp_path / "here").rglob("*")
                   if p.is_file() and p.name != ".courtbench.json")
    assert "award_distribution.png" in {str(f) for f in files}
    for name in files:
        assert (tmp_path / "cli" / name).read_bytes() == (tmp_path / "here" / name).read_bytes()
