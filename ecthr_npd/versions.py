"""Versions of the packages that determine ECtHR-NPD's numbers, recorded beside every result.

Used by ``courtbench baselines``, ``predict`` and ``evaluate`` for ``ecthr_npd`` alike.
"""

from __future__ import annotations

import platform

import numpy as np

from ecthr_npd.baselines import boosting_libraries as libraries


def package_versions() -> dict[str, str]:
    """Versions of the packages that determine the baselines' and the report's numbers."""
    import pyarrow
    import scipy
    import sklearn

    import courtbench

    versions = {"python": platform.python_version(), "numpy": np.__version__,
                "scipy": scipy.__version__, "scikit-learn": sklearn.__version__,
                "pyarrow": pyarrow.__version__, "courtbench": courtbench.__version__}
    for library in libraries.LIBRARIES:
        if libraries.available(library):
            versions[library] = libraries.version(library)
    try:
        import datasets

        versions["datasets"] = datasets.__version__
    except ImportError:  # pragma: no cover - datasets is a dependency
        pass
    return versions
