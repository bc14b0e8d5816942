"""SLDS reference baselines: model-free headnote floors (:mod:`slds.baselines.extractive`).

:data:`BASELINES` maps a system name (also the predictions file's stem) to its generator;
:mod:`slds.baselines.run` writes their predictions files (``courtbench baselines slds``).
"""

from __future__ import annotations

from slds.baselines.extractive import BASELINES, DEFAULT_BUDGET, citation_lead, lead

__all__ = ["BASELINES", "DEFAULT_BUDGET", "citation_lead", "lead"]
