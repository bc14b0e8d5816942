"""Locate and import the metric modules in ``metrics/<name>/`` by path.

Metric modules depend on nothing in this repository (they must run from a Hub Space), so
builders and reports load them by file path instead of importing them as packages.
"""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

from courtbench.errors import CourtbenchError

METRICS_DIR = Path(__file__).resolve().parent.parent / "metrics"


def metric_dir(name: str) -> Path:
    """Return ``metrics/<name>``; raises CourtbenchError when the folder or script is missing."""
    folder = METRICS_DIR / name
    if not (folder / f"{name}.py").is_file():
        available = sorted(p.name for p in METRICS_DIR.iterdir() if (p / f"{p.name}.py").is_file())
        raise CourtbenchError(f"metric module {name!r} not found in {METRICS_DIR}; "
                              f"available: {', '.join(available) or 'none'}")
    return folder


@cache
def load_metric_module(name: str) -> ModuleType:
    """Import ``metrics/<name>/<name>.py`` as a plain Python module (no evaluate overhead).

    The module's plain functions (e.g. ``npd_regression.npd_regression``) are then callable
    directly. Cached per name.
    """
    path = metric_dir(name) / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"courtbench_metric_{name}", path)
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
