"""courtbench: Hugging Face dataset repositories, metric modules, baselines and reports for
the ECtHR-NPD and SLDS court-decision benchmarks.

The core package is dataset-agnostic: dataset packages (``ecthr_npd``, ``slds``) plug in
through the ``courtbench.datasets`` entry-point group (see :mod:`courtbench.plugins`).
"""

__version__ = "0.1.0"
