"""Speed and memory benchmarks (``make bench``).

Each ``bench_*.py`` module defines ``main() -> dict`` that measures one thing as a *ratio
against a reference run in the same process* (so that the figure means the same on a
loaded or an idle machine) and returns its figures; ``python -m benchmarks`` runs them all
and writes ``benchmarks/out/<name>.json`` (git-ignored; ``--update-results`` writes the
tracked record ``benchmarks/results/`` instead). Timing helpers are in :mod:`benchmarks.timing`.
"""
