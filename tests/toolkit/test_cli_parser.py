"""The command line: no abbreviations, "did you mean", renamed flags, folders named as folders,
outputs never inside the data, and `python -m courtbench` safe from the working folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from courtbench.cli import main
from courtbench.cli_parser import unknown_option_message


def _usage_error(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
    assert exit_info.value.code == 2
    return capsys.readouterr().err


def test_an_abbreviated_flag_is_refused_not_expanded(capsys):
    err = _usage_error(capsys, "evaluate", "ecthr_npd", "--data", "d", "--prediction", "p.csv",
                       "--out", "r")
    assert "--prediction: unknown option; did you mean --predictions?" in err


def test_a_typo_gets_the_closest_option_of_its_own_command(capsys):
    err = _usage_error(capsys, "submit", "report", "--repo-id", "a/b", "--dryrun")
    assert "did you mean --dry-run?" in err


def test_an_unknown_flag_without_a_close_match_lists_the_options():
    message = unknown_option_message("--zzz", ["--data", "--out"])
    assert message == "--zzz: unknown option; this command takes --data, --out"


def test_an_old_flag_spelling_still_works_with_a_deprecation_line(capsys):
    from courtbench.cli import build_parser

    args = build_parser("evaluate").parse_args(["evaluate", "slds", "--data", "d", "--predictions", "p",
                                      "--out", "r", "--split", "validation"])
    assert args.split == "validation"
    assert "--split is deprecated; use --splits" in capsys.readouterr().err
    args = build_parser("evaluate").parse_args(["evaluate", "slds", "--data", "d", "--predictions", "p",
                                      "--out", "r", "--splits", "test"])
    assert args.split == "test"
    assert "deprecated" not in capsys.readouterr().err


def test_every_parser_refuses_abbreviations():
    from courtbench.cli import build_parser

    def walk(parser):
        yield parser
        for action in parser._actions:
            for child in getattr(action, "choices", None).values() if isinstance(
                    getattr(action, "choices", None), dict) else ():
                yield from walk(child)

    parsers = list(walk(build_parser(every_command=True)))
    assert len(parsers) > 10
    assert all(not p.allow_abbrev for p in parsers)


def test_a_folder_given_as_predictions_file_is_named_a_folder(tmp_path, capsys):
    from slds_fixtures import write_slds_folder

    data = write_slds_folder(tmp_path, [("Sachverhalt 1. Art. 1 BV.", "de")] * 3,
                             {"de": "Art. 1 BV: Regeste."})
    (tmp_path / "preds").mkdir()
    assert main(["evaluate", "slds", "--data", str(data), "--predictions",
                 str(tmp_path / "preds"), "--out", str(tmp_path / "r")]) == 1
    assert "is a folder; expected a predictions file" in capsys.readouterr().err


def test_an_output_inside_the_data_folder_is_refused(tmp_path, capsys):
    from slds_fixtures import write_slds_folder

    data = write_slds_folder(tmp_path, [("Sachverhalt 1. Art. 1 BV.", "de")] * 3,
                             {"de": "Art. 1 BV: Regeste."})
    (tmp_path / "p.jsonl").write_text("", encoding="utf-8")
    before = sorted(p.name for p in data.rglob("*"))
    assert main(["evaluate", "slds", "--data", str(data), "--predictions",
                 str(tmp_path / "p.jsonl"), "--out", str(data / "report")]) == 1
    assert "lies inside --data" in capsys.readouterr().err
    assert sorted(p.name for p in data.rglob("*")) == before


def test_python_m_courtbench_ignores_a_dataset_folder_in_the_working_folder(tmp_path):
    import courtbench

    for name in ("slds", "ecthr_npd"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(
            "raise SystemExit('imported the working folder copy')\n", encoding="utf-8")
    root = Path(courtbench.__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, "-m", "courtbench", "evaluate", "slds", "--help"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "working folder copy" not in done.stderr + done.stdout
    assert "--rouge-tokenizer" in done.stdout


def test_verify_refuses_a_folder_whose_plugin_is_not_installed(tmp_path, capsys):
    (tmp_path / "README.md").write_text("---\ncourtbench_dataset: nosuch\nconfigs: []\n---\n",
                                        encoding="utf-8")
    assert main(["verify", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "plugin is not installed" in err and "not verified" in err


def test_an_option_that_only_works_with_another_is_refused_when_alone(capsys):
    assert main(["build", "ecthr_npd", "--source", "case_level.csv", "--n", "5", "--out",
                 "built"]) == 1
    assert "--n: only has an effect with --synthetic" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["baselines", "slds", "--data", "d", "--out", "o", "--budget", "0"],
     "argument --budget: expected a number of tokens in [1, 10,000,000], got '0'"),
    (["evaluate", "slds", "--data", "d", "--predictions", "p", "--out", "o", "--seed", "-1"],
     "argument --seed: expected an integer seed in [0, 4,294,967,295], got '-1'"),
    (["evaluate", "ecthr_npd", "--data", "d", "--predictions", "p", "--out", "o",
      "--resamples", str(10**12)], "argument --resamples: expected a number of resamples in "
                                   "[1, 100,000], got '1000000000000'"),
    (["generate", "slds", "--data", "d", "--out", "o.jsonl", "--model", "m", "--top-p", "5",
      "--base-url", "http://127.0.0.1:9/v1", "--config", "de_de"],
     "argument --top-p: expected a top-p > 0 and <= 1, got '5'"),
])
def test_numeric_options_out_of_range_are_one_line_before_any_work(tmp_path, capsys, argv,
                                                                   message):
    with pytest.raises(SystemExit) as exit_info:  # refused while parsing: a usage error
        main([str(tmp_path / a) if a in ("d", "o", "p", "o.jsonl") else a for a in argv])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert message in err and len(err.strip().splitlines()) == 1, err
    assert list(tmp_path.iterdir()) == []


def test_a_non_utf8_stdout_gets_escapes_not_a_traceback(tmp_path):
    import courtbench

    root = Path(courtbench.__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONIOENCODING": "ascii",
           "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-m", "courtbench", "evaluate", "slds", "--help"],
                          cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


def test_a_missing_optional_extra_is_one_line(monkeypatch, capsys):
    import courtbench.commands.metrics as metrics_command

    def needs_extra(args):
        raise ImportError("bertscore=True needs the bertscore extra: pip install "
                          "'courtbench[bertscore]'")

    monkeypatch.setattr(metrics_command, "run_list", needs_extra, raising=False)
    from courtbench.cli import build_parser

    parser = build_parser(every_command=True)
    args = parser.parse_args(["metrics", "list"])
    monkeypatch.setattr("courtbench.cli.build_parser", lambda *a, **k: _Fixed(parser, args, needs_extra))
    assert main(["metrics", "list"]) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "bertscore extra" in err


class _Fixed:
    """A parser stand-in whose parse_args returns ``args`` with ``func`` replaced."""

    def __init__(self, parser, args, func):
        self.parser, self.args = parser, args
        self.args.func = func

    def parse_args(self, argv):
        return self.args


def test_submit_takes_systems_like_baselines_and_the_old_spelling_still_works(capsys):
    from courtbench.cli import build_parser

    args = build_parser("submit").parse_args(["submit", "r", "--repo-id", "a/b", "--systems", "x,y",
                                      "--system", "z"])
    assert args.system == ["x,y", "z"]
    assert "--system is deprecated; use --systems" in capsys.readouterr().err
