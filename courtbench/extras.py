"""How to install one of courtbench's optional extras, said the same way by every command.

courtbench is installed from a clone (it is not on the package index yet), so the command
names the clone's editable install, not ``pip install courtbench[...]``.
"""

from __future__ import annotations


def install_command(extra: str) -> str:
    """The pip command that adds the optional dependency group ``extra`` (e.g. "trees")."""
    return f"pip install -e '.[{extra}]' in a clone of courtbench"
