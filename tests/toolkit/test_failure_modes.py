"""Failure modes a new user ran into, reproduced, and the one clear line every error must be.

Each test first reproduces what a new user ran into and then checks the promise of the
README's "Guarantees": nothing courtbench did not write is deleted, an input never lives in an
output, a failure is one line naming what is wrong, every JSON written is strict.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from courtbench.cli import main
from courtbench.errors import CourtbenchError, quoted
from courtbench.hub.atomic import (
    MARKER,
    atomic_output_dir,
    check_replaceable,
    clean_stale_scratch,
    read_marker,
)
from courtbench.jsonio import dumps_strict
from courtbench.report import Report, Table, write_report
from ecthr_npd.build import build_synthetic as build_ecthr
from ecthr_npd.synthetic import write_synthetic

ECTHR_ROWS = 400


def _absent_module(name):
    raise CourtbenchError(f"metric module {name!r} not found (test: absent)")


def run_cli(capsys, *argv) -> tuple[int, str]:
    """Exit code and stderr of ``courtbench ARGV`` run in-process (a usage error: 2)."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exit_info:
        code = exit_info.code
    return code, capsys.readouterr().err


def assert_one_line_error(code: int, err: str, *needles: str, exit_code: int = 1) -> str:
    """The run failed with ``exit_code`` and its last stderr line is the error, naming every
    needle; no traceback anywhere."""
    assert code == exit_code, err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("courtbench "), err
    for needle in needles:
        assert needle in last, last
    return last


def strict_json(path: Path):
    """``json.loads`` that refuses NaN and Infinity, as every non-Python parser does."""
    def refuse(constant):
        raise ValueError(f"{path}: non-standard JSON constant {constant}")
    return json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse)


@pytest.fixture(scope="module")
def ecthr_source(tmp_path_factory) -> Path:
    return write_synthetic(tmp_path_factory.mktemp("source") / "case_level.csv", n=ECTHR_ROWS)


@pytest.fixture(scope="module")
def ecthr_built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ecthr") / "built"
    build_ecthr(out, n=ECTHR_ROWS)
    return out


@pytest.fixture(scope="module")
def slds_built(tmp_path_factory) -> Path:
    from slds.build import build_synthetic

    out = tmp_path_factory.mktemp("slds") / "built"
    build_synthetic(out, decisions=10, seed=1, properties_loader=_absent_module)
    return out


@pytest.fixture(scope="module")
def zero_predictions(tmp_path_factory, ecthr_built) -> Path:
    out = tmp_path_factory.mktemp("pred") / "pred"
    assert main(["baselines", "ecthr_npd", "--data", str(ecthr_built), "--out", str(out),
                 "--systems", "zero"]) == 0
    return out / "zero.csv"


# ---------------------------------------------------------------- item 1: ownership marker

def test_settings_json_does_not_make_a_folder_ours(capsys, tmp_path, ecthr_built):
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "settings.json").write_text("{}")
    (folder / "thesis.tex").write_text("x")
    code, err = run_cli(capsys, "baselines", "ecthr_npd", "--data", ecthr_built, "--out", folder,
                        "--systems", "zero")
    assert_one_line_error(code, err, "refusing to replace", MARKER, "thesis.tex")
    assert (folder / "thesis.tex").read_text() == "x"
    assert sorted(p.name for p in folder.iterdir()) == ["settings.json", "thesis.tex"]


def test_report_json_does_not_make_a_folder_ours(capsys, tmp_path, ecthr_built,
                                                         zero_predictions):
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / "report.json").write_text("{}")
    (folder / "thesis.tex").write_text("x")
    code, err = run_cli(capsys, "evaluate", "ecthr_npd", "--data", ecthr_built, "--predictions",
                        zero_predictions, "--out", folder, "--no-figures", "--resamples", "20")
    assert_one_line_error(code, err, "refusing to replace", "thesis.tex")
    assert (folder / "thesis.tex").read_text() == "x"


def test_marker_lists_what_was_written_and_a_rerun_replaces_only_that(tmp_path):
    out = tmp_path / "out"
    with atomic_output_dir(out, kind="report folder") as tmp:
        (tmp / "a.txt").write_text("1")
        (tmp / "sub").mkdir()
        (tmp / "sub" / "b.txt").write_text("2")
    marker = read_marker(out)
    assert marker["kind"] == "report folder" and marker["files"] == ["a.txt", "sub/b.txt"]
    assert "courtbench_version" in marker
    with atomic_output_dir(out, kind="report folder") as tmp:
        (tmp / "c.txt").write_text("3")
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "c.txt"]
    assert read_marker(out)["files"] == ["c.txt"]


def test_foreign_files_in_a_courtbench_folder_are_listed_and_kept(tmp_path):
    out = tmp_path / "out"
    with atomic_output_dir(out, kind="predictions folder") as tmp:
        (tmp / "zero.csv").write_text("case_id,prediction\n")
    (out / "notes.md").write_text("mine")
    (out / "extra").mkdir()
    (out / "extra" / "deep.txt").write_text("mine too")
    with pytest.raises(CourtbenchError, match=r"2 file\(s\) courtbench did not write: "
                                              r"extra/deep.txt, notes.md"):
        with atomic_output_dir(out, kind="predictions folder") as tmp:
            raise AssertionError("the body must not run")
    assert (out / "notes.md").read_text() == "mine" and (out / "zero.csv").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no partial left behind


def test_a_folder_of_another_kind_is_not_replaced(capsys, tmp_path, ecthr_built):
    code, err = run_cli(capsys, "baselines", "ecthr_npd", "--data", ecthr_built,
                        "--out", ecthr_built, "--systems", "zero")
    assert code == 1 and "Traceback" not in err
    with pytest.raises(CourtbenchError, match="is a Hub dataset folder written by courtbench, "
                                              "not a report folder"):
        check_replaceable(ecthr_built, kind="report folder")


def test_files_added_while_working_are_never_deleted(tmp_path):
    out = tmp_path / "out"
    with atomic_output_dir(out, kind="report folder") as tmp:
        (tmp / "a.txt").write_text("1")
    with pytest.raises(CourtbenchError, match="late.txt"):
        with atomic_output_dir(out, kind="report folder") as tmp:
            (tmp / "a.txt").write_text("2")
            (out / "late.txt").write_text("added by the user during the run")
    assert (out / "late.txt").is_file() and (out / "a.txt").read_text() == "1"


def test_out_that_is_a_symlink_is_refused(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    with pytest.raises(CourtbenchError, match="symbolic link"):
        check_replaceable(link, kind="report folder")


# ---------------------------------------------------------------- item 2: input inside --out

def test_a_source_inside_out_is_refused_before_any_work(capsys, tmp_path, ecthr_source):
    folder = tmp_path / "b"
    folder.mkdir()
    source = folder / "case_level.csv"
    source.write_bytes(ecthr_source.read_bytes())
    code, err = run_cli(capsys, "build", "ecthr_npd", "--source", source, "--out", folder)
    assert_one_line_error(code, err, "--source", "lies inside --out")
    assert source.read_bytes() == ecthr_source.read_bytes()


def test_predictions_and_data_inside_out_are_refused(capsys, tmp_path, ecthr_built,
                                                            zero_predictions):
    code, err = run_cli(capsys, "evaluate", "ecthr_npd", "--data", ecthr_built, "--predictions",
                        zero_predictions, "--out", zero_predictions.parent)
    assert_one_line_error(code, err, "--predictions", "lies inside --out")
    assert zero_predictions.is_file()
    code, err = run_cli(capsys, "baselines", "ecthr_npd", "--data", ecthr_built,
                        "--out", ecthr_built.parent, "--systems", "zero")
    assert_one_line_error(code, err, "--data", "lies inside --out")
    assert (ecthr_built / "README.md").is_file()


# ---------------------------------------------------------------- item 6: strict JSON

def test_non_finite_numbers_are_refused_with_their_place():
    with pytest.raises(CourtbenchError, match=r"\$\.scores\.a\[1\] = inf; nothing was written"):
        dumps_strict({"scores": {"a": [1.0, float("inf")]}}, what="report.json")
    assert dumps_strict({"a": [1.0, None]}, what="x") == '{"a": [1.0, null]}'


def test_report_json_is_strict(tmp_path):
    table = Table("main", "Main", ["system", "mae"], [["a", float("inf")], ["b", float("nan")]])
    write_report(Report("t", {"seed": 0}, [table]), tmp_path / "r")
    document = strict_json(tmp_path / "r" / "report.json")
    assert document["tables"]["main"]["rows"] == [["a", None], ["b", None]]
    with pytest.raises(CourtbenchError, match=r"\$\.bootstrap\.ci_low = nan"):
        write_report(Report("t", {}, [table], extra_json={"bootstrap": {"ci_low": float("nan")}}),
                     tmp_path / "r")
    assert strict_json(tmp_path / "r" / "report.json") == document  # the old one stays


# ---------------------------------------------------------------- item 8: one clear line

def test_missing_or_folder_sources(capsys, tmp_path, ecthr_source):
    out = tmp_path / "out"
    code, err = run_cli(capsys, "build", "ecthr_npd", "--source", tmp_path / "nope.csv",
                        "--out", out)
    assert_one_line_error(code, err, "nope.csv", "not found")
    code, err = run_cli(capsys, "build", "ecthr_npd", "--source", tmp_path, "--out", out)
    assert_one_line_error(code, err, "is a folder; expected a CSV file")
    code, err = run_cli(capsys, "build", "ecthr_npd", "--source", ecthr_source,
                        "--applicants", tmp_path / "nope.csv", "--out", out)
    assert_one_line_error(code, err, "nope.csv", "not found")
    assert not out.exists()


@pytest.mark.parametrize("n, exit_code, needle", [
    ("0", 2, "argument --n: expected a number of cases in [1, 1,000,000], got '0'"),
    ("1", 1, "--n 1"), ("-5", 2, "got '-5'")])
def test_synthetic_size_too_small(capsys, tmp_path, n, exit_code, needle):
    code, err = run_cli(capsys, "build", "ecthr_npd", "--synthetic", "--n", n,
                        "--out", tmp_path / "out")
    assert_one_line_error(code, err, needle, "expected", exit_code=exit_code)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("decisions, exit_code, needle", [
    ("0", 2, "argument --decisions: expected a number of decisions in [1, 200,000], got '0'"),
    ("1", 1, "--decisions 1")])
def test_slds_synthetic_size_too_small(capsys, tmp_path, decisions, exit_code, needle):
    code, err = run_cli(capsys, "build", "slds", "--synthetic", "--decisions", decisions,
                        "--out", tmp_path / "out")
    assert_one_line_error(code, err, needle, "expected", exit_code=exit_code)


def test_split_sizes_larger_than_the_source(capsys, tmp_path, ecthr_source):
    code, err = run_cli(capsys, "build", "ecthr_npd", "--source", ecthr_source, "--recompute",
                        "--split-sizes", "20000,5", "--out", tmp_path / "out")
    assert_one_line_error(code, err, "--split-sizes", "20000", f"{ECTHR_ROWS}")


def test_integer_beyond_int32_is_a_source_error(capsys, tmp_path, ecthr_source):
    lines = ecthr_source.read_text(encoding="utf-8").splitlines(keepends=True)
    header = lines[0].rstrip("\n").split(",")
    position = header.index("num_applicants")
    import csv
    import io

    row = next(csv.reader(io.StringIO(lines[1])))
    row[position] = "3000000000"
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(row)
    source = tmp_path / "case_level.csv"
    source.write_text(lines[0] + buffer.getvalue() + "".join(lines[2:]), encoding="utf-8")
    code, err = run_cli(capsys, "build", "ecthr_npd", "--source", source, "--out",
                        tmp_path / "out")
    assert_one_line_error(code, err, "line 2", "num_applicants", "3000000000", "2,147,483,647")


def test_slds_source_without_a_landmark_decision(capsys, tmp_path):
    source = tmp_path / "search.json"
    source.write_text(json.dumps({"hits": {"total": {"value": 0}, "hits": []}}), encoding="utf-8")
    code, err = run_cli(capsys, "build", "slds", "--source", source, "--out", tmp_path / "out")
    assert_one_line_error(code, err, str(source))
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    code, err = run_cli(capsys, "build", "slds", "--source", empty, "--out", tmp_path / "out")
    assert_one_line_error(code, err, str(empty))
    assert not (tmp_path / "out").exists()


def test_real_search_response_without_landmark_decision(capsys, tmp_path, shared_data):
    source = shared_data / "slds" / "search_bger_1.json"
    code, err = run_cli(capsys, "build", "slds", "--source", source, "--out", tmp_path / "out")
    assert_one_line_error(code, err, "search_bger_1.json")


def test_evaluate_slds_on_an_ecthr_build(capsys, tmp_path, ecthr_built):
    predictions = tmp_path / "p.jsonl"
    predictions.write_text('{"sample_id": "x", "prediction": "y"}\n')
    code, err = run_cli(capsys, "evaluate", "slds", "--data", ecthr_built, "--predictions",
                        predictions, "--out", tmp_path / "report")
    assert_one_line_error(code, err, "--data", "is a Hub folder of ecthr_npd",
                          "courtbench build slds")


@pytest.fixture
def broken_copy(tmp_path, ecthr_built) -> Path:
    import shutil

    copy = tmp_path / "broken"
    shutil.copytree(ecthr_built, copy)
    (copy / "data" / "default" / "train.parquet").write_bytes(b"this is not parquet")
    return copy


def test_verify_baselines_evaluate_on_non_parquet(capsys, tmp_path, broken_copy,
                                                         zero_predictions):
    code, err = run_cli(capsys, "verify", broken_copy)
    assert code == 1 and "Traceback" not in err and "train.parquet" in err
    code, err = run_cli(capsys, "baselines", "ecthr_npd", "--data", broken_copy, "--out",
                        tmp_path / "p", "--systems", "zero")
    assert_one_line_error(code, err, str(broken_copy), "parquet")
    code, err = run_cli(capsys, "evaluate", "ecthr_npd", "--data", broken_copy, "--predictions",
                        zero_predictions, "--out", tmp_path / "r")
    assert_one_line_error(code, err, str(broken_copy), "parquet")


def test_disk_full_keeps_the_old_build(capsys, tmp_path, monkeypatch):
    from courtbench.hub import writer

    out = tmp_path / "out"
    assert main(["build", "ecthr_npd", "--synthetic", "--n", "300", "--out", str(out)]) == 0
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}

    def full(dataset, path):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(writer, "write_parquet", full)
    code, err = run_cli(capsys, "build", "ecthr_npd", "--synthetic", "--n", "300", "--seed", "1",
                        "--out", out)
    assert_one_line_error(code, err, "the disk is full", "is intact")
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_ctrl_c_is_one_line_and_exit_130(capsys, tmp_path, monkeypatch):
    import ecthr_npd.build

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(ecthr_npd.build, "build_synthetic", interrupted)
    code, err = run_cli(capsys, "build", "ecthr_npd", "--synthetic", "--out", tmp_path / "o")
    assert_one_line_error(code, err, "interrupted", exit_code=130)


# ------------------------------------------- item 9: SIGTERM and stale partial folders

_SLOW_WRITER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from courtbench.cli import sigterm_raises, Terminated
    from courtbench.hub.atomic import atomic_output_dir
    try:
        with sigterm_raises(), atomic_output_dir(Path(sys.argv[1]), kind="report folder") as tmp:
            (tmp / "half.txt").write_text("half")
            print("writing", flush=True)
            time.sleep(60)
    except Terminated:
        sys.exit(143)
""")


def test_sigterm_removes_the_partial_folder(tmp_path):
    out = tmp_path / "out"
    child = subprocess.Popen([sys.executable, "-c", _SLOW_WRITER, str(out)],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "writing"
        assert [p.name for p in tmp_path.iterdir() if ".partial-" in p.name]
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=30) == 143
    finally:
        if child.poll() is None:
            child.kill()
    assert list(tmp_path.iterdir()) == []


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_stale_partials_of_dead_processes_are_cleaned(tmp_path):
    out = tmp_path / "out"
    dead = _dead_pid()
    stale = tmp_path / f".out.partial-{dead}-abc"
    stale.mkdir()
    (stale / "half.txt").write_text("half")
    alive = tmp_path / f".out.partial-{os.getpid()}-xyz"  # this process's: never touched
    alive.mkdir()
    other = tmp_path / f".other.partial-{dead}-abc"  # another output's: not ours to clean
    other.mkdir()
    with atomic_output_dir(out, kind="report folder") as tmp:
        (tmp / "a.txt").write_text("1")
    assert not stale.exists() and alive.is_dir() and other.is_dir()


def test_an_interrupted_swap_is_restored(tmp_path):
    out = tmp_path / "out"
    old = tmp_path / f".out.old-{_dead_pid()}-abc"
    old.mkdir()
    (old / "a.txt").write_text("previous")
    assert clean_stale_scratch(out) == [old]
    assert (out / "a.txt").read_text() == "previous"


# ---------------------------------------------------------------- item 10: cut values

def test_huge_values_are_cut_in_messages(capsys, tmp_path, ecthr_built):
    assert quoted("abc") == "'abc'"
    cut = quoted("x" * 50_000_000)
    assert len(cut) < 260 and "50,000,000 characters" in cut
    predictions = tmp_path / "p.csv"
    predictions.write_text("case_id,prediction\n1," + "9" * 1_000_000 + "x\n", encoding="utf-8")
    code, err = run_cli(capsys, "evaluate", "ecthr_npd", "--data", ecthr_built, "--predictions",
                        predictions, "--out", tmp_path / "r")
    line = assert_one_line_error(code, err, "1,000,001 characters")
    assert len(line) < 2_000


# ---------------------------------------------------------------- item 11: BOM

def test_bom_is_accepted_by_every_reader(tmp_path, ecthr_source):
    from courtbench.predictions import read_predictions
    from ecthr_npd.reader import read_case_level
    from slds.readers import guess_format

    bom = b"\xef\xbb\xbf"
    response = tmp_path / "search.json"
    response.write_bytes(bom + json.dumps({"hits": {"hits": []}}).encode())
    assert guess_format(response) == "entscheidsuche"
    source = tmp_path / "case_level.csv"
    source.write_bytes(bom + ecthr_source.read_bytes())
    assert read_case_level(source).num_rows == ECTHR_ROWS
    for name, text in (("p.csv", "id,value\na,1\n"), ("p.jsonl", '{"id": "a", "value": 1}\n')):
        path = tmp_path / name
        path.write_bytes(bom + text.encode())
        assert read_predictions(path, "id", "value", ["a"], float) == {"a": 1.0}


# ---------------------------------------------------------------- item 12: publish

def test_publish_names_symlinks_and_non_parquet_files(capsys, tmp_path, ecthr_built):
    import shutil

    folder = tmp_path / "ecthr_npd"
    shutil.copytree(ecthr_built, folder)
    (folder / "data" / "default" / "notes.csv").write_text("a,b\n")
    (folder / "data" / "link.parquet").symlink_to(folder / "data" / "default" / "train.parquet")
    code, err = run_cli(capsys, "publish", folder, "--repo-id", "org/ecthr_npd", "--dry-run")
    assert code == 1 and "Traceback" not in err
    assert "data/default/notes.csv: not a parquet file" in err
    assert "data/link.parquet: a symbolic link" in err
    assert "crashed" not in err


def test_publish_refuses_a_symlinked_requirements_file(capsys, tmp_path):
    from courtbench.metric_modules import metric_dir

    folder = tmp_path / "zero_f1"
    import shutil

    shutil.copytree(metric_dir("zero_f1"), folder,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    real = tmp_path / "requirements.txt"
    (folder / "requirements.txt").rename(real)
    (folder / "requirements.txt").symlink_to(real)
    code, err = run_cli(capsys, "publish", folder, "--repo-id", "org/zero_f1", "--dry-run")
    assert code == 1 and "requirements.txt: a symbolic link" in err


# ---------------------------------------------------------------- item 13: umask

@pytest.mark.parametrize("umask, mode", [(0o022, 0o755), (0o077, 0o700), (0o002, 0o775)])
def test_output_folders_follow_the_umask(tmp_path, umask, mode):
    previous = os.umask(umask)
    try:
        with atomic_output_dir(tmp_path / "out", kind="report folder") as tmp:
            (tmp / "sub").mkdir()
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "out").stat().st_mode) == mode
    assert stat.S_IMODE((tmp_path / "out" / "sub").stat().st_mode) == mode


# ---------------------------------------------------------------- item 14

def _slds_rows(law_area):
    row = {"decision_id": "d1", "decision": "Der Entscheid.", "decision_language": "de",
           "headnote": "Regeste.", "headnote_language": "de", "law_area": law_area,
           "year": 2020, "volume": "II", "url": "https://example.org/d1"}
    return [row]


def test_law_area_number_is_read_alike_from_csv_and_jsonl(tmp_path):
    import csv

    from slds.readers import read_source
    from slds.validate import validate_rows

    jsonl = tmp_path / "rows.jsonl"
    jsonl.write_text(json.dumps(_slds_rows(2)[0]) + "\n", encoding="utf-8")
    table = tmp_path / "rows.csv"
    with open(table, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(_slds_rows(2)[0]))
        writer.writeheader()
        writer.writerows(_slds_rows(2))
    areas = []
    for path in (jsonl, table):
        validated = validate_rows(read_source(path, "slds").rows,
                                  detector=lambda text: ("de", 1.0))
        areas.append(validated.rows[0]["law_area"])
    assert areas[0] == areas[1]


def test_slds_build_refuses_a_foreign_out_before_reading(capsys, tmp_path, monkeypatch):
    import slds.build

    def must_not_run(*args, **kwargs):
        raise AssertionError("the source was read before --out was checked")

    monkeypatch.setattr(slds.build, "build_folder", must_not_run)
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("x")
    source = tmp_path / "s.jsonl"
    source.write_text("{}\n")
    code, err = run_cli(capsys, "build", "slds", "--source", source, "--out", out)
    assert_one_line_error(code, err, "refusing to replace", "thesis.tex")


# ------------------------------------- every subcommand, bad arguments, one line

def _bad_invocations(tmp: Path, ecthr_built: Path, slds_built: Path) -> list[list]:
    missing = tmp / "missing"
    return [
        ["build", "ecthr_npd", "--source", missing / "case_level.csv", "--out", tmp / "o1"],
        ["build", "slds", "--source", missing / "rows.jsonl", "--out", tmp / "o2"],
        ["verify", missing],
        ["baselines", "slds", "--data", slds_built, "--out", tmp / "o3", "--splits", "nope"],
        ["baselines", "ecthr_npd", "--data", missing, "--out", tmp / "o4"],
        ["evaluate", "ecthr_npd", "--data", ecthr_built, "--predictions", missing / "p.csv",
         "--out", tmp / "o5"],
        ["evaluate", "slds", "--data", slds_built, "--predictions", missing / "p.jsonl",
         "--out", tmp / "o6"],
        ["publish", missing, "--repo-id", "org/x", "--dry-run"],
        ["metrics", "path", "nope"],
        ["demo", "--out", tmp / "o7", "--datasets", "nosuch"],
        ["judge", "slds", "--data", missing, "--config", "de_de", "--predictions",
         missing / "p.jsonl", "--base-url", "http://127.0.0.1:9", "--model", "m",
         "--out", tmp / "j.json"],
        ["generate", "slds", "--data", missing, "--config", "de_de", "--base-url",
         "http://127.0.0.1:9", "--model", "m", "--out", tmp / "g.jsonl"],
        ["predict", "ecthr_npd", "--data", missing, "--prompt", "zero_shot", "--base-url",
         "http://127.0.0.1:9", "--model", "m", "--out", tmp / "p.csv"],
        ["submit", missing, "--repo-id", "org/x", "--dry-run"],
        ["leaderboard", "check", missing],
        ["train", "ecthr_npd", "--data", missing, "--text-model", missing / "model",
         "--arch", "modernbert", "--out", tmp / "run"],
    ]


def test_every_subcommand_fails_in_one_line(capsys, tmp_path, ecthr_built, slds_built):
    invocations = _bad_invocations(tmp_path, ecthr_built, slds_built)
    commands = {argv[0] for argv in invocations}
    import pkgutil

    from courtbench import commands as command_package

    assert commands == {m.name for m in pkgutil.iter_modules(command_package.__path__)}
    for argv in invocations:
        code, err = run_cli(capsys, *argv)
        assert_one_line_error(code, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_usage_errors_are_argparse_lines(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["build", "ecthr_npd", "--split-sizes", "a,b", "--source", "x", "--out", "y"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "--split-sizes 'a,b'" in err


def test_sigterm_handler_is_restored_after_main(capsys):
    before = signal.getsignal(signal.SIGTERM)
    main(["metrics", "path", "nope"])
    capsys.readouterr()
    assert signal.getsignal(signal.SIGTERM) is before


def test_huge_predictions_never_give_invalid_json(capsys, tmp_path, ecthr_built,
                                                        zero_predictions):
    huge = tmp_path / "huge.csv"
    lines = zero_predictions.read_text(encoding="utf-8").splitlines()
    huge.write_text("\n".join([lines[0]] + [f"{line.split(',')[0]},1e308" for line in lines[1:]])
                    + "\n", encoding="utf-8")
    out = tmp_path / "report"
    code, err = run_cli(capsys, "evaluate", "ecthr_npd", "--data", ecthr_built, "--predictions",
                        huge, zero_predictions, "--out", out, "--no-figures", "--resamples", "20")
    if code == 0:  # computed without overflow: the report is strict JSON
        strict_json(out / "report.json")
    else:  # or refused in one line, and nothing written
        assert_one_line_error(code, err)
        assert not out.exists()


def test_memory_bound_refuses_an_oversized_release_before_reading(capsys, tmp_path, monkeypatch,
                                                                  ecthr_source):
    from ecthr_npd import reader

    monkeypatch.setattr(reader, "MAX_SOURCE_BYTES", 1_000)
    code, err = run_cli(capsys, "build", "ecthr_npd", "--source", ecthr_source,
                        "--out", tmp_path / "out")
    assert_one_line_error(code, err, "MiB; expected a CSV file of at most", "about 3 MiB")


def test_an_interruption_says_what_each_kind_of_run_kept():
    """Training keeps its checkpoints and model runs their answers: saying "left as before"
    there would send a user to delete what --resume or a rerun would use."""
    from courtbench.cli import interruption_note

    assert "--resume" in interruption_note("courtbench train")
    for command in ("predict", "generate", "judge"):
        assert "rerun" in interruption_note(f"courtbench {command}")
    assert interruption_note("courtbench build") == "outputs were left as they were before the run"
