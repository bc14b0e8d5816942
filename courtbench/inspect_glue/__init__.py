"""Model runs on Inspect AI: what courtbench adds on top of an Inspect task (the ``inspect`` extra).

Inspect owns the model side — providers (any ``inspect eval`` model, ``openai-api/<service>/
<model>`` for OpenAI-compatible servers), concurrency, retries, the response cache, agents and
the log (``.eval``). A dataset package owns its tasks (dataset → solver → scorer), named by its
plugin's ``inspect_task`` field. This package is the glue between them and the benchmark's
files, and it names no dataset:

- :mod:`~courtbench.inspect_glue.options`: the runner options (``--model``, ``--base-url``,
  ``--api-key-env``, ``--concurrency``, ``--timeout``, ``--max-retries``, ``--cache``,
  ``--log-dir``, ``--limit``, ``--header``, ``--max-failure-share``, ``--max-answer-chars``,
  ``--dry-run`` and the decoding options) → :class:`~courtbench.inspect_glue.options.ModelOptions`;
- :mod:`~courtbench.inspect_glue.runner`: :func:`~courtbench.inspect_glue.runner.run_task` runs
  a task (the model built with the key and headers kept out of every file, a refused
  connection reported in one line, SIGTERM ending the run with what finished cached, the
  written log and cache checked for the key) and returns the log read back as
  :class:`~courtbench.inspect_glue.outcomes.SampleOutcome` s;
- :mod:`~courtbench.inspect_glue.outcomes`: per sample — the answer, reasoning, stop reason,
  usage, error, score, requests sent / read from the cache — and the run's counts;
- :mod:`~courtbench.inspect_glue.manifest`: a manifest's ``llm_run`` block (failure share,
  ``complete``) and the endpoint block;
- :mod:`~courtbench.inspect_glue.eval_logs`: an Inspect log as a predictions file
  (``courtbench evaluate``);
- :mod:`~courtbench.inspect_glue.registry`: the ``inspect_ai`` entry point: every plugin's
  task registered as ``courtbench/<name>`` for ``inspect eval``.

Importing this package imports nothing of Inspect; :func:`require_inspect` says in one line
which extra to install when it is missing.
"""

from __future__ import annotations

from courtbench.errors import CourtbenchError

#: How to get Inspect AI: courtbench is installed from a clone, not from PyPI.
INSTALL_HINT = "pip install -e '.[inspect]' in a clone of courtbench"
#: The key of a score's metadata that holds a sample's prediction (what ``evaluate`` reads
#: from an Inspect log): every courtbench scorer writes it.
PREDICTION_KEY = "prediction"


def require_inspect() -> None:
    """CourtbenchError (one line) naming the extra to install when Inspect AI is missing."""
    try:
        import inspect_ai  # noqa: F401
    except ImportError:
        raise CourtbenchError("model runs go through Inspect AI, which is not installed: "
                              f"{INSTALL_HINT}") from None
