"""The benchmarks' record verifiers, as the installed dataset plugins supply them.

A plugin's ``leaderboard_verifier`` hook returns a :class:`VerifierSpec`: the verifier module
(the contract is in :mod:`courtbench.leaderboard.record_check`), the files that carry it into
the leaderboard Space, the names of the benchmark's reference baselines, how to write the
gold file of a built folder and how to compare a record's numbers with a re-scored report.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from courtbench.plugins import load_plugins


@dataclass(frozen=True)
class VerifierSpec:
    """How the leaderboard recomputes one benchmark's records.

    Attributes:
        module: the verifier (``BENCHMARK``, ``VERSION``, ``AS_SUBMITTED``, ``recompute``);
            it imports only numpy, ``boundary.py`` and files listed in ``space_files``.
        space_files: file name in the Space folder → source file (the verifier as
            ``verifier_<benchmark>.py`` first, then what it imports as siblings).
        space_requirements: requirement lines the Space needs for them.
        references: the names of the benchmark's reference baselines (only ``courtbench
            leaderboard init`` writes them as reference rows; a submission may not use one).
        paired_against: the reference baselines every record is paired-tested against
            (when the report has them and they are the results dataset's reference rows).
        gold: built data folder → its gold file document (``record_check.gold_problem``).
        cross_check: ``(re-scored report, record, gold)`` → where the record's recomputed
            numbers differ from the report's (the metric modules'); empty when they agree.
    """

    module: ModuleType
    space_files: Mapping[str, Path]
    space_requirements: tuple[str, ...]
    references: tuple[str, ...]
    paired_against: tuple[str, ...]
    gold: Callable[[Path], dict[str, Any]]
    cross_check: Callable[[dict, dict, dict], list[str]]


def installed_verifiers() -> dict[str, VerifierSpec]:
    """``{benchmark: VerifierSpec}`` of every installed dataset plugin that has one."""
    return {name: plugin.leaderboard_verifier() for name, plugin in load_plugins().items()
            if plugin.leaderboard_verifier is not None}


def verifier_modules() -> dict[str, ModuleType]:
    """``{benchmark: verifier module}`` (what :class:`record_check.Checker` takes)."""
    return {name: spec.module for name, spec in installed_verifiers().items()}
