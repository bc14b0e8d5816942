"""Locate and import the ``evaluate`` metric modules that dataset plugins ship.

Each plugin names its metric modules (:attr:`DatasetPlugin.metric_modules`); module ``NAME``
of the plugin in package ``PKG`` is the folder ``PKG/metrics/NAME/`` (script, card, app,
requirements), installed as package data. Metric modules depend on nothing in this
repository (they must run from a Hub Space), so builders and reports load them by file path
instead of importing them as packages.
"""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

from courtbench.errors import CourtbenchError
from courtbench.plugins import load_plugins
from courtbench.resources import package_path


def metric_folders() -> dict[str, Path]:
    """Return ``{name: folder}`` of every metric module of the installed plugins, by name."""
    folders: dict[str, Path] = {}
    for plugin in load_plugins().values():
        if plugin.package is None:
            continue
        for name in plugin.metric_modules:
            folders[name] = package_path(plugin.package, "metrics", name)
    return dict(sorted(folders.items()))


def metric_dir(name: str) -> Path:
    """Return the folder of metric module ``name``.

    Raises:
        CourtbenchError: no installed plugin ships ``name``, or its script is missing.
    """
    folders = metric_folders()
    folder = folders.get(name)
    if folder is None:
        raise CourtbenchError(f"metric module {name!r} not found; available: "
                              f"{', '.join(folders) or 'none'}")
    if not (folder / f"{name}.py").is_file():
        raise CourtbenchError(f"metric module {name!r}: {folder / (name + '.py')} is missing")
    return folder


@cache
def load_metric_module(name: str) -> ModuleType:
    """Import ``<folder>/<name>.py`` as a plain Python module (no evaluate overhead).

    The module's plain function (by convention ``<name>.<name>``) is then callable
    directly. Cached per name.
    """
    return import_module_file(metric_dir(name) / f"{name}.py", f"courtbench_metric_{name}")


def import_module_file(path: Path, module_name: str) -> ModuleType:
    """Import the Python file ``path`` under ``module_name`` (registered in ``sys.modules``)."""
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:  # pragma: no cover - spec_from_file_location on a .py
        raise CourtbenchError(f"cannot import metric module from {path}")
    module = importlib.util.module_from_spec(spec)
    # Registered before running: dataclasses (with postponed annotations) look their module
    # up in sys.modules while the class body executes.
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[spec.name]
        raise
    return module
