"""courtbench: Hugging Face dataset repositories, metric modules, baselines and reports for
court-decision benchmarks.

The core package knows no dataset: dataset packages plug in through the
``courtbench.datasets`` entry-point group (see :mod:`courtbench.plugins` and
``ARCHITECTURE.md``).
"""

__version__ = "0.1.0"
