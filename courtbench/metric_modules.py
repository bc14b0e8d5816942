"""Locate and import the ``evaluate`` metric modules (``metrics/<name>/``).

Every module is a folder ``metrics/<name>/`` (script ``<name>.py``, card, app, requirements
and the shared files it imports relatively, ``from .<sibling> import ...``), found
through :func:`courtbench.resources.metrics_root`. A dataset plugin names the modules it owns
(:attr:`DatasetPlugin.metric_modules`), which ``courtbench metrics list`` and ``publish``
use; loading a module by name needs no plugin.

Metric modules depend on nothing in this repository (they must run from a Hub Space), so
builders and reports import a module's folder as a package of its own, exactly as
``evaluate.load`` does, instead of importing it from ``courtbench``.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import shutil
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

from courtbench.errors import CourtbenchError
from courtbench.evaluate_import import import_evaluate
from courtbench.resources import metrics_root, shipped_root


def module_names() -> list[str]:
    """Names of the metric modules present: folders ``<root>/<name>/`` holding ``<name>.py``."""
    root = metrics_root()
    return sorted(p.name for p in root.iterdir() if (p / f"{p.name}.py").is_file())


def metric_owners() -> dict[str, str]:
    """``{module name: dataset name}`` of every metric module a plugin names, by name."""
    from courtbench.plugins import load_plugins  # the registry only where ownership matters

    return dict(sorted((name, plugin.name) for plugin in load_plugins().values()
                       for name in plugin.metric_modules))


def metric_folders() -> dict[str, Path]:
    """``{name: folder}`` of every metric module a plugin names (what ``publish --all``
    sends), by name."""
    return {name: metric_dir(name) for name in metric_owners()}


def metric_dir(name: str) -> Path:
    """Return the folder of metric module ``name``.

    Raises:
        CourtbenchError: there is no folder ``metrics/<name>/`` holding ``<name>.py``.
    """
    folder = metrics_root() / name
    if not (folder / f"{name}.py").is_file():
        raise CourtbenchError(f"metric module {name!r} not found; available: "
                              f"{', '.join(module_names()) or 'none'}")
    return folder


@cache
def load_metric_module(name: str) -> ModuleType:
    """Import metric module ``name`` as a plain Python module (no evaluate overhead).

    The module's plain function (by convention ``<name>.<name>``) is then callable
    directly. Cached per name.
    """
    return import_metric_script(metric_dir(name), f"courtbench_metric_{name}")


def import_metric_script(folder: Path, package: str) -> ModuleType:
    """Import ``folder/<folder name>.py`` as module ``<package>.<folder name>``.

    ``folder`` becomes the package ``package`` (registered in ``sys.modules``), so the
    script's relative imports of its sibling files resolve as under ``evaluate.load``.

    Raises:
        CourtbenchError: ``package`` is already registered for another folder.
    """
    folder = Path(folder)
    import_evaluate()  # before the script's own `import evaluate`, which then costs nothing
    existing = sys.modules.get(package)
    if existing is None:
        spec = importlib.machinery.ModuleSpec(package, None, is_package=True)
        spec.submodule_search_locations = [str(folder)]
        sys.modules[package] = importlib.util.module_from_spec(spec)
    elif list(getattr(existing, "__path__", [])) != [str(folder)]:
        raise CourtbenchError(f"cannot import {folder}: module {package!r} is already "
                              f"imported from {list(getattr(existing, '__path__', []))}")
    try:
        return importlib.import_module(f"{package}.{folder.name}")
    except BaseException:
        if existing is None:
            del sys.modules[package]
        raise


def shipped_link_target(path: Path) -> Path | None:
    """The file a link in a metric folder stands for, or None when ``path`` is not a link.

    A link may point only to a regular file that courtbench itself ships (under
    :func:`courtbench.resources.shipped_root`): the shared sources of the repository.

    Raises:
        CourtbenchError: the link is broken or points anywhere else.
    """
    path = Path(path)
    if not path.is_symlink():
        return None
    target = path.resolve()
    root = shipped_root()
    if not target.is_file() or not target.is_relative_to(root):
        raise CourtbenchError(f"{path}: a link to {target}, expected a link to a file under "
                              f"{root} (a shared source that courtbench ships)")
    return target


def assemble_metric_folder(source: Path, target: Path) -> list[str]:
    """Copy metric folder ``source`` to the new folder ``target`` as a Space receives it:
    every top-level file, links to shared sources replaced by the files themselves.

    Returns:
        the file names written, sorted.

    Raises:
        CourtbenchError: ``target`` exists, or a link points outside what courtbench ships
            (checked before anything is written).
    """
    source, target = Path(source), Path(target)
    if target.exists():
        raise CourtbenchError(f"{target}: already exists (nothing was overwritten)")
    files = sorted(p for p in source.iterdir() if p.is_file() and not p.name.endswith(".pyc"))
    for path in files:
        shipped_link_target(path)
    target.mkdir(parents=True)
    for path in files:
        shutil.copyfile(path, target / path.name)  # follows the link: a real file
    return [path.name for path in files]
