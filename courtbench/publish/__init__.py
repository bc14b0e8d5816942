"""Publish built dataset folders (Hub dataset repos) and metric modules (Hub Spaces).

The pipeline, one module per step:

- :mod:`~courtbench.publish.kinds` recognises what a folder holds and which of its files
  may be uploaded;
- :mod:`~courtbench.publish.checks` runs the pre-flight checks (offline) and refuses a
  folder that fails any of them;
- :mod:`~courtbench.publish.plan` turns a checked folder into a :class:`PublishPlan`
  (repo, files with sizes and sha256, commit message), printable for ``--dry-run``;
- :mod:`~courtbench.publish.executor` carries a plan out against the Hub with one commit.
"""

from courtbench.publish.checks import PublishRefused, preflight
from courtbench.publish.executor import PublishError, PublishResult, publish, resolve_token
from courtbench.publish.kinds import DATASET, METRIC, detect_kind, select_files
from courtbench.publish.plan import PublishPlan, format_plan, make_plan

__all__ = [
    "DATASET",
    "METRIC",
    "PublishError",
    "PublishPlan",
    "PublishRefused",
    "PublishResult",
    "detect_kind",
    "format_plan",
    "make_plan",
    "preflight",
    "publish",
    "resolve_token",
    "select_files",
]
