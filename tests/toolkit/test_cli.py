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
    for command in ("build", "verify", "baselines", "evaluate", "demo", "metrics", "publish"):
        assert command in out


def test_console_script_runs():
    result = subprocess.run([sys.executable, "-m", "courtbench", "--help"], capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert "usage: courtbench" in result.stdout


def test_no_command_prints_help_and_fails(capsys):
    assert main([]) == 2
    assert "usage: courtbench" in capsys.readouterr().out


# The plugins this repository registers (pyproject.toml); written out, not discovered, so that
# a plugin that fails to load fails the tests below instead of dropping out of them.
REPOSITORY_PLUGINS = ("ecthr_npd", "slds")


def test_the_repository_plugins_load_cleanly(capsys):
    plugins = load_plugins()
    assert capsys.readouterr().err == ""  # a plugin that fails to import is reported there
    assert set(REPOSITORY_PLUGINS) <= set(plugins)
    assert all(isinstance(p, DatasetPlugin) and p.name == name for name, p in plugins.items())


def test_a_plugin_that_fails_to_load_is_reported_and_left_out(monkeypatch, capsys):
    from courtbench import plugins as plugins_module

    class Broken:
        name, value = "broken", "nowhere.plugin:PLUGIN"

        def load(self):
            raise ImportError("No module named 'nowhere'")

    monkeypatch.setattr(plugins_module, "entry_points", lambda group: [Broken()])
    assert plugins_module.load_plugins() == {}
    assert "dataset plugin 'broken' (nowhere.plugin:PLUGIN) failed to load" in \
        capsys.readouterr().err


@pytest.mark.parametrize("name", REPOSITORY_PLUGINS)
@pytest.mark.parametrize("command", ["build", "baselines", "evaluate"])
def test_every_plugin_gets_its_command_parsers(name, command, capsys):
    with pytest.raises(SystemExit) as exit_info:
        build_parser(command).parse_args([command, name, "--help"])
    assert exit_info.value.code == 0
    assert "--out" in capsys.readouterr().out


def test_verify_reports_a_missing_card(tmp_path, capsys):
    assert main(["verify", str(tmp_path)]) == 1
    assert "no dataset card" in capsys.readouterr().err


def test_every_command_listed_without_import_has_the_help_it_registers():
    from courtbench.cli import command_help, command_names

    full = build_parser(every_command=True)
    registered = {action.dest: action.help for group in full._subparsers._group_actions
                  for action in group._choices_actions}
    assert registered.keys() == set(command_names())
    assert {name: command_help(name) for name in command_names()} == registered


def test_top_level_help_imports_no_command_module_or_heavy_library():
    code = ("import sys, contextlib, io\n"
            "from courtbench.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n        main(['--help'])\n    except SystemExit:\n        pass\n"
            "heavy = ['datasets', 'pyarrow', 'huggingface_hub', 'numpy', 'courtbench.commands.build']\n"
            "print(sorted(m for m in heavy if m in sys.modules))\n")
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
