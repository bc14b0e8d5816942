"""The courtbench CLI: discovery of subcommands and dataset plugins."""

from __future__ import annotations

import subprocess
import sys

import pytest

from courtbench.cli import build_parser, main
from courtbench.plugins import DatasetPlugin, load_plugins


def test_help_lists_the_subcommands(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for command in ("build", "verify", "baselines", "evaluate"):
        assert command in out


def test_console_script_runs():
    result = subprocess.run([sys.executable, "-m", "courtbench", "--help"], capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert "usage: courtbench" in result.stdout


def test_no_command_prints_help_and_fails(capsys):
    assert main([]) == 2
    assert "usage: courtbench" in capsys.readouterr().out


def test_installed_plugins_are_dataset_plugins():
    plugins = load_plugins()
    assert all(isinstance(p, DatasetPlugin) and p.name == name for name, p in plugins.items())


@pytest.mark.parametrize("name", sorted(load_plugins()))
def test_every_plugin_gets_a_build_parser(name, capsys):
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args(["build", name, "--help"])
    assert exit_info.value.code == 0
    assert "--out" in capsys.readouterr().out


def test_verify_reports_a_missing_card(tmp_path, capsys):
    assert main(["verify", str(tmp_path)]) == 1
    assert "no dataset card" in capsys.readouterr().err
