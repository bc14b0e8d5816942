"""Import the ``evaluate`` library without the one part of it that no metric module uses.

``import evaluate`` also imports ``evaluate.evaluator``, whose module body imports
``transformers.pipelines`` whenever transformers is installed (huggingface/evaluate issues
#387 and #674). On a 2-core machine that is about 4.7 of the 6.6 CPU-seconds the import
costs, paid again by every fresh process: each ``courtbench`` command that scores, each
Space start, each ``evaluate.load`` in a new interpreter. Only the pipeline evaluators
(``evaluate.evaluator(task)``) need that import, and no metric module here calls them.

:func:`import_evaluate` imports ``evaluate`` with transformers hidden for that one import:
evaluate's own ``try``/``except ImportError`` around it then records "no transformers" for
the pipeline evaluators alone. Nothing else changes: transformers is importable as before
afterwards (the hiding entry is removed), and where transformers or evaluate is already
imported the import is the ordinary one.

Standard library only: the file is shared by courtbench, the metric folders and their Spaces.
"""

import importlib
import sys

#: The package hidden while ``evaluate`` is imported (``sys.modules[name] = None`` makes any
#: ``import`` of it, or of a submodule, raise ``ImportError`` at once).
HIDDEN_PACKAGE = "transformers"


def import_evaluate():
    """Return the ``evaluate`` module, importing it without ``transformers.pipelines``.

    Returns:
        the ``evaluate`` module (the one already imported, when it is).

    ``evaluate.evaluator(...)`` in a process whose first ``import evaluate`` went through here
    says that transformers is not installed; every metric, comparison and measurement module
    loads and computes as usual.
    """
    if "evaluate" in sys.modules or HIDDEN_PACKAGE in sys.modules:
        return importlib.import_module("evaluate")
    sys.modules[HIDDEN_PACKAGE] = None
    try:
        return importlib.import_module("evaluate")
    finally:
        if sys.modules.get(HIDDEN_PACKAGE, ...) is None:
            del sys.modules[HIDDEN_PACKAGE]
