"""Files that ship inside installed packages (card templates, metric-module folders).

Everything is looked up with :mod:`importlib.resources`, so it works the same from a wheel,
an sdist install or an editable checkout; nothing walks up from ``__file__``.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from courtbench.errors import CourtbenchError


def package_path(package: str, *parts: str) -> Path:
    """Return the filesystem path of ``parts`` inside the installed ``package``.

    Args:
        package: an importable package name (a dataset plugin's ``package``).
        parts: path components below the package folder (``"metrics", "<name>"``).

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
