"""Files that ship inside installed packages (metric-module folders, card templates, prompts).

Everything is looked up with :mod:`importlib.resources`, so it works the same from a wheel,
an sdist install or an editable checkout; nothing walks up from ``__file__``. The metric
modules (``metrics/<name>/``) and dataset-card templates (``cards/<name>.md``) live at the
repository's top level and are package resources of :mod:`courtbench.bundled`.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from courtbench.errors import CourtbenchError

BUNDLE = "courtbench.bundled"


def package_path(package: str, *parts: str) -> Path:
    """Return the filesystem path of ``parts`` inside the installed ``package``.

    Args:
        package: an importable package name.
        parts: path components below the package folder.

    Raises:
        CourtbenchError: the package cannot be imported, or it is not installed as plain
            files (a zip import), which the metric loader and ``evaluate.load`` cannot read.
    """
    try:
        root = resources.files(package)
    except ModuleNotFoundError as error:
        raise CourtbenchError(f"package {package!r} is not installed: {error}") from None
    target = root.joinpath(*parts)
    if not isinstance(target, Path):
        raise CourtbenchError(f"package {package!r} is not installed as plain files "
                              f"({type(target).__name__}); reinstall it from a wheel")
    return target


def metrics_root() -> Path:
    """The folder holding every metric module (``<root>/<name>/<name>.py``)."""
    return package_path(BUNDLE, "metrics").resolve()


def card_template(name: str) -> Path:
    """The dataset-card template ``cards/<name>.md``.

    Raises:
        CourtbenchError: there is no such template.
    """
    path = package_path(BUNDLE, "cards").resolve() / f"{name}.md"
    if not path.is_file():
        raise CourtbenchError(f"no dataset-card template {name!r} ({path} is missing)")
    return path


def shipped_root() -> Path:
    """The folder that holds the ``courtbench`` package (a checkout's root, or
    site-packages): links inside metric folders may point only into it."""
    return package_path("courtbench").resolve().parent
