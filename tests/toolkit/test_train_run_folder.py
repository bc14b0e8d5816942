"""The run folder of ``courtbench train`` follows the replace/resume rules of every output
(courtbench.training.run_folder on courtbench.hub.atomic), without training anything: a
finished run is replaced by a new one, an unfinished one with checkpoints is kept with a hint
to --resume, a foreign, edited or moved file is never replaced, a failure before the first
checkpoint leaves no folder, a failed write is one line. The library texts of a full disk are
pinned here (courtbench.training.failures)."""

from __future__ import annotations

import errno
import json
import shutil
from pathlib import Path

import pytest

from courtbench.errors import CourtbenchError
from courtbench.hub.atomic import MARKER, read_marker
from courtbench.training import failures, run_folder
from courtbench.training.checkpoints import complete_checkpoints, incomplete_checkpoints

OPTIONS = {"learning_rate": 0.001, "seed": 42, "threads": 1, "resume": False}


def _checkpoint(out: Path, step: int, *, complete: bool = True, under: str = "checkpoints") -> Path:
    folder = out / under / f"checkpoint-{step}"
    folder.mkdir(parents=True)
    (folder / "model.safetensors").write_bytes(bytes([step]) * 64)
    if complete:
        (folder / "trainer_state.json").write_text(json.dumps({"global_step": step}))
    return folder


def _run(out: Path, *, steps=(2, 4), finished: bool = True) -> Path:
    """A run folder as a run leaves it: marker refreshed after each checkpoint, manifest."""
    run_folder.prepare(out, resume=False, options=OPTIONS)
    for step in steps:
        _checkpoint(out, step)
        run_folder.record_files(out)
    if finished:
        run_folder.write_manifest(out, {"status": "complete", "options": OPTIONS})
    return out


def test_a_finished_run_is_replaced_by_the_same_command(tmp_path):
    out = _run(tmp_path / "run")
    marker = read_marker(out)
    assert marker["folder"] == str(out.resolve()) and len(marker["sha256"]) == len(
        [f for f in marker["files"] if not f.endswith("/")])
    run_folder.check_start(out, resume=False, options=OPTIONS)
    assert run_folder.prepare(out, resume=False, options=OPTIONS) is False
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "manifest.json"]
    assert json.loads((out / "manifest.json").read_text())["status"] == "running"


def test_an_unfinished_run_with_checkpoints_is_kept_and_points_to_resume(tmp_path):
    out = _run(tmp_path / "run", finished=False)
    with pytest.raises(CourtbenchError) as caught:
        run_folder.check_start(out, resume=False, options=OPTIONS)
    message = str(caught.value)
    assert "unfinished training run (last checkpoint checkpoints/checkpoint-4)" in message
    assert "--resume" in message and "\n" not in message
    run_folder.check_start(out, resume=True, options=OPTIONS)  # the way on
    assert run_folder.prepare(out, resume=True, options={**OPTIONS, "threads": 4}) is True
    with pytest.raises(CourtbenchError, match=r"--learning-rate 0.001 there, 0.01 now"):
        run_folder.check_start(out, resume=True, options={**OPTIONS, "learning_rate": 0.01})


def test_an_unfinished_run_without_a_checkpoint_is_replaced(tmp_path):
    out = _run(tmp_path / "run", steps=(), finished=False)
    _checkpoint(out, 2, complete=False)  # killed while saving its first checkpoint
    run_folder.record_files(out)
    run_folder.check_start(out, resume=False, options=OPTIONS)
    run_folder.check_start(out, resume=True, options=OPTIONS)


@pytest.mark.parametrize("change, message", [
    (lambda out: (out / "notes.txt").write_text("mine"), "did not write: notes.txt"),
    (lambda out: (out / "checkpoints/checkpoint-2/model.safetensors").write_bytes(b"edited"),
     "differ from what courtbench wrote"),
])
def test_foreign_or_edited_files_are_never_replaced(tmp_path, change, message):
    out = _run(tmp_path / "run")
    change(out)
    with pytest.raises(CourtbenchError, match=message):
        run_folder.check_start(out, resume=False)
    assert (out / "checkpoints" / "checkpoint-4").is_dir()


def test_a_foreign_file_in_an_unfinished_run_gets_the_resume_hint(tmp_path):
    out = _run(tmp_path / "run", steps=(), finished=False)
    _checkpoint(out, 2, complete=False)  # a kill mid-save, after the last marker
    with pytest.raises(CourtbenchError) as caught:
        run_folder.check_start(out, resume=False)
    assert "did not write" in str(caught.value) and "plus --resume" in str(caught.value)


def test_a_moved_run_folder_is_not_replaced(tmp_path):
    out = _run(tmp_path / "run")
    moved = tmp_path / "moved"
    shutil.move(out, moved)
    with pytest.raises(CourtbenchError, match="copied or moved"):
        run_folder.check_start(moved, resume=False)


def test_resume_needs_a_run_folder(tmp_path):
    with pytest.raises(CourtbenchError, match="start without --resume"):
        run_folder.check_start(tmp_path / "never", resume=True)
    (tmp_path / "mine").mkdir()
    with pytest.raises(CourtbenchError, match="start without --resume"):
        run_folder.check_start(tmp_path / "mine", resume=True)


def test_the_marker_hashes_again_only_what_changed(tmp_path, monkeypatch):
    out = _run(tmp_path / "run", finished=False)
    from courtbench.hub import atomic

    read = []
    real = atomic._content_digest
    monkeypatch.setattr(atomic, "_content_digest", lambda path: read.append(path.name) or real(path))
    _checkpoint(out, 6)
    run_folder.record_files(out)
    assert sorted(read) == ["model.safetensors", "trainer_state.json"]  # checkpoint-6 only
    state = out / "checkpoints/checkpoint-6/trainer_state.json"
    state.write_text(json.dumps({"global_step": 6, "more": True}))
    run_folder.record_files(out)
    assert read[-1] == "trainer_state.json"
    run_folder.check_start(out, resume=True)
    run_folder.write_manifest(out, {"status": "complete"})
    run_folder.check_start(out, resume=False)  # every recorded digest is the content's


def test_a_failure_before_the_first_checkpoint_leaves_no_folder(tmp_path):
    out = tmp_path / "run"
    run_folder.prepare(out, resume=False, options=OPTIONS)
    with pytest.raises(CourtbenchError, match="no checkpoint yet, so its folder .* was removed"):
        with run_folder.guarded(out, resume=False):
            _checkpoint(out, 2, complete=False)
            raise OSError(errno.ENOSPC, "No space left on device", str(out / "x"))
    assert not out.exists()


def test_a_failed_checkpoint_write_is_one_line_and_the_run_can_resume(tmp_path):
    out = _run(tmp_path / "run", finished=False)
    with pytest.raises(CourtbenchError) as caught:
        with run_folder.guarded(out, resume=False):
            _checkpoint(out, 6, complete=False)
            raise OSError(errno.ENOSPC, "No space left on device",
                          str(out / "checkpoints/checkpoint-6/model.safetensors"))
    message = str(caught.value)
    assert message.startswith(f"--out {out}: writing the run failed: the disk is full (")
    assert "keeps its checkpoints (last: checkpoints/checkpoint-4)" in message
    assert "plus --resume" in message and "\n" not in message
    assert [p.name for p in complete_checkpoints(out)] == ["checkpoint-2", "checkpoint-4"]
    assert incomplete_checkpoints(out) == []  # the half-written one was removed
    run_folder.check_start(out, resume=True, options=OPTIONS)


def test_a_bug_keeps_its_traceback_and_says_what_was_kept(tmp_path, capsys):
    out = _run(tmp_path / "run", finished=False)
    with pytest.raises(ZeroDivisionError):
        with run_folder.guarded(out, resume=False):
            raise ZeroDivisionError
    assert "continue with the same command plus --resume" in capsys.readouterr().err
    assert out.is_dir()


@pytest.mark.parametrize("error, reason", [
    (OSError(errno.ENOSPC, "No space left on device", "/r/x.pt"), "the disk is full (/r/x.pt)"),
    (OSError(errno.EDQUOT, "Disk quota exceeded"), "the disk is full"),
    (OSError(errno.EROFS, "Read-only file system"), "read-only file system"),
    (OSError(errno.ENOENT, "No such file"), None),
    (ValueError("shapes do not match"), None),
    (RuntimeError("CUDA out of memory"), None),
])
def test_write_failures_are_told_from_other_errors(tmp_path, error, reason):
    assert failures.write_failure(error, tmp_path) == reason


_FAILING_WRITES = """
import json, resource, signal, sys
import torch, safetensors.torch as st
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (10_000, 10_000))  # larger writes fail: EFBIG
texts = {}
for name, save in (("torch", torch.save), ("safetensors", st.save_file)):
    try:
        save({"weights": torch.zeros(100_000)}, sys.argv[1] + "." + name)
    except Exception as error:
        texts[name] = [type(error).__name__, str(error)]
print(json.dumps(texts))
"""


@pytest.mark.models
def test_the_libraries_texts_of_a_failed_write_are_recognised(tmp_path, monkeypatch):
    """Real failed writes of torch and safetensors (a file size limit in a child process),
    their texts carried back and recognised."""
    import subprocess
    import sys

    pytest.importorskip("safetensors")
    from safetensors import SafetensorError

    done = subprocess.run([sys.executable, "-c", _FAILING_WRITES, str(tmp_path / "w")],
                          capture_output=True, text=True, timeout=120, check=True)
    texts = json.loads(done.stdout)
    assert texts["safetensors"][0] == "SafetensorError" and texts["torch"][0] == "RuntimeError"
    safetensors_error = SafetensorError(texts["safetensors"][1])
    assert failures.write_failure(safetensors_error, tmp_path) == "file too large"
    torch_error = RuntimeError(texts["torch"][1])
    assert failures.write_failure(torch_error, tmp_path).startswith(
        "torch could not write a checkpoint file")
    monkeypatch.setattr(failures, "_free_bytes", lambda folder: 4096)
    assert failures.write_failure(torch_error, tmp_path) == "the disk is full (4,096 bytes free)"
    # the text safetensors 0.8 raised on a full tmpfs on this machine
    full = SafetensorError("Error while serializing: I/O error: No space left on device "
                           "(os error 28)")
    assert failures.write_failure(full, tmp_path) == "the disk is full"
    wrapped = RuntimeError("saving failed")
    wrapped.__cause__ = OSError(errno.ENOSPC, "No space left on device")
    assert failures.write_failure(wrapped, tmp_path) == "the disk is full"
