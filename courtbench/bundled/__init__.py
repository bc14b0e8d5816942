"""The repository's ``metrics/`` and ``cards/`` folders as package resources.

In a checkout, ``metrics`` and ``cards`` here are links to the folders at the repository's
top level (where ``evaluate.load("metrics/<name>")`` finds them); a wheel or sdist carries
them as real files. Code finds both through :mod:`courtbench.resources`, never by walking
up from ``__file__``.
"""
