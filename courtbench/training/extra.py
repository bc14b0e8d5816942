"""The optional ``train`` extra: checked before any work, imported only when a run starts."""

from __future__ import annotations

import importlib.util

from courtbench.errors import CourtbenchError
from courtbench.extras import install_command

#: What ``courtbench train`` needs (torch is pinned by the installation, not by the extra).
TRAIN_MODULES = ("torch", "transformers", "accelerate")
INSTALL_HINT = (install_command("train")
                + " (keep your torch: add torch==<installed version>)")


def require(modules: tuple[str, ...] = TRAIN_MODULES, *, command: str = "courtbench train") -> None:
    """Raise one :class:`CourtbenchError` line naming the missing modules of ``modules``.

    Args:
        modules: import names (``("torch", "transformers", "peft")``).
        command: what needs them, for the message.
    """
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        raise CourtbenchError(f"{command} needs {', '.join(missing)} (the train extra), which "
                              f"is not installed; install it with: {INSTALL_HINT}")
