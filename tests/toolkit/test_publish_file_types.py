"""publish never opens a FIFO or device, and plans a top-level *.png only when it is a PNG."""

from __future__ import annotations

import os
import shutil

import pytest

from courtbench.cli import main


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("pub") / "built"
    assert main(["build", "ecthr_npd", "--synthetic", "--n", "200", "--out", str(out)]) == 0
    return out


def _copy(built, tmp_path):
    target = tmp_path / "folder"
    shutil.copytree(built, target)
    return target


def test_a_fifo_named_png_is_refused_without_being_opened(built, tmp_path, capsys):
    folder = _copy(built, tmp_path)
    os.mkfifo(folder / "x.png")  # opening it for reading would block forever
    assert main(["publish", str(folder), "--repo-id", "org/x", "--dry-run"]) == 1
    assert "x.png: not a regular file" in capsys.readouterr().err


def test_a_text_file_named_png_is_refused(built, tmp_path, capsys):
    folder = _copy(built, tmp_path)
    (folder / "notes.png").write_text("hf_secret_token_value\n", encoding="utf-8")
    assert main(["publish", str(folder), "--repo-id", "org/x", "--dry-run"]) == 1
    err = capsys.readouterr().err
    assert "notes.png: named *.png but not a PNG image" in err


def test_a_real_png_is_planned(built, tmp_path, capsys):
    folder = _copy(built, tmp_path)
    (folder / "figure.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 32)
    assert main(["publish", str(folder), "--repo-id", "org/x", "--dry-run"]) == 0
    assert "figure.png" in capsys.readouterr().out
