"""Output folders are courtbench's by content, not by name: hashes and the folder in the
marker; live partial folders of other PID namespaces are recognised by their lock."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from courtbench.errors import CourtbenchError
from courtbench.hub.atomic import (
    MARKER,
    atomic_output_dir,
    check_replaceable,
    clean_stale_scratch,
    read_marker,
)


def _write(out, files: dict[str, str], kind: str = "report folder") -> None:
    with atomic_output_dir(out, kind=kind) as tmp:
        for name, text in files.items():
            (tmp / name).write_text(text, encoding="utf-8")


def test_the_marker_records_each_file_hash_and_its_folder(tmp_path):
    out = tmp_path / "out"
    _write(out, {"report.md": "# r\n"})
    marker = read_marker(out)
    assert marker["format"] == 2 and marker["folder"] == str(out.resolve())
    assert marker["sha256"] == {"report.md": hashlib.sha256(b"# r\n").hexdigest()}


def test_a_hand_edited_output_file_makes_the_folder_foreign(tmp_path):
    out = tmp_path / "out"
    _write(out, {"report.md": "# r\n", "main.csv": "a\n"})
    (out / "report.md").write_text("# r\nmy own notes\n", encoding="utf-8")
    with pytest.raises(CourtbenchError, match=r"1 file\(s\) differ from what courtbench wrote"
                                              r".*report.md"):
        _write(out, {"report.md": "new"})
    assert (out / "report.md").read_text() == "# r\nmy own notes\n"


def test_a_copied_marker_does_not_make_a_users_folder_courtbenchs(tmp_path):
    built = tmp_path / "built"
    _write(built, {"README.md": "card\n"}, kind="Hub dataset folder")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "README.md").write_text("my notes\n", encoding="utf-8")
    shutil.copy(built / MARKER, mine / MARKER)
    with pytest.raises(CourtbenchError, match="was written for .*built, not this one"):
        check_replaceable(mine, kind="Hub dataset folder")
    assert (mine / "README.md").read_text() == "my notes\n"


def test_build_out_keeps_a_users_readme_next_to_a_copied_marker(tmp_path, capsys):
    from courtbench.cli import main

    assert main(["build", "ecthr_npd", "--synthetic", "--n", "200", "--out",
                 str(tmp_path / "built")]) == 0
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "README.md").write_text("my notes\n", encoding="utf-8")
    shutil.copy(tmp_path / "built" / MARKER, mine / MARKER)
    assert main(["build", "ecthr_npd", "--synthetic", "--n", "200", "--out", str(mine)]) == 1
    assert "refusing to replace" in capsys.readouterr().err
    assert (mine / "README.md").read_text() == "my notes\n"


def test_a_marker_without_hashes_proves_nothing(tmp_path):
    out = tmp_path / "out"
    _write(out, {"a.txt": "1"})
    marker = read_marker(out)
    del marker["sha256"]
    (out / MARKER).write_text(json.dumps(marker), encoding="utf-8")
    with pytest.raises(CourtbenchError, match="differ from what courtbench wrote.*a.txt"):
        check_replaceable(out, kind="report folder")


def test_an_unchanged_output_is_replaced(tmp_path):
    out = tmp_path / "out"
    _write(out, {"a.txt": "1"})
    _write(out, {"b.txt": "2"})
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "b.txt"]


def test_a_locked_partial_folder_of_another_pid_namespace_is_kept(tmp_path):
    """A partial folder named after a PID that does not run here, whose lock is held (a live
    build in another container), is not removed; once the lock is released it is stale."""
    out = tmp_path / "out"
    partial = tmp_path / ".out.partial-999999-abc"
    partial.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import fcntl, os, sys, time
        fd = os.open({str(partial)!r}, os.O_RDONLY)
        fcntl.flock(fd, fcntl.LOCK_EX)
        print("locked", flush=True)
        sys.stdin.readline()
    """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        assert clean_stale_scratch(out) == []
        assert partial.is_dir()
    finally:
        holder.communicate("done\n", timeout=30)
    assert clean_stale_scratch(out) == [partial]
    assert not partial.exists()


def test_a_running_build_holds_the_lock_of_its_partial_folder(tmp_path):
    from courtbench.hub.atomic import _locked_by_someone

    out = tmp_path / "out"
    with atomic_output_dir(out, kind="report folder") as tmp:
        assert _locked_by_someone(tmp)
        assert os.getpid() and tmp.is_dir()
