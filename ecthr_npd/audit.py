"""Leakage audit: model-input configs hold only ``case_id``, permitted inputs and the target.

The audit-side configs (``audit``, ``applicants``) are the only place where audit columns
(``y_binary``, ``target_status``, ``beneficiary_type``, ``has_joint_beneficiary``,
applicant-level award fields, zero-award rationales) may appear. The builder calls
:func:`column_problems` on every model-input config before writing anything, and
:func:`audit_folder` re-reads a built folder's parquet schemas (``courtbench verify``).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pyarrow.parquet as pq

from ecthr_npd import schema

AUDIT_CONFIGS = ("audit", "applicants")
_AUDIT_NAMES = (*schema.AUDIT_COLUMNS, *schema.APPLICANT_AWARD_COLUMNS,
                *schema.ZERO_AWARD_RATIONALES)


def derived_source(name: str) -> str | None:
    """The audit column ``name`` is, or is derived from; ``None`` when it is neither.

    A column is derived from an audit column when it is listed in
    :data:`ecthr_npd.schema.DERIVED_FROM_AUDIT` or its name embeds an audit column's name
    (``beneficiary_type_count``, ``log_npd_award_eur`` …).
    """
    if name in _AUDIT_NAMES:
        return name
    if name in schema.DERIVED_FROM_AUDIT:
        return schema.DERIVED_FROM_AUDIT[name][0]
    for audit_name in _AUDIT_NAMES:
        if audit_name in name:
            return audit_name
    return None


def column_problems(config: str, columns: Iterable[str]) -> list[str]:
    """Problems with the columns of one model-input config (empty when it is clean).

    Every column must be ``case_id``, a permitted input or ``y_amount_eur``. An audit column,
    one derived from an audit column, a bookkeeping tag (split/view) or any unknown column is
    a problem.
    """
    permitted = set(schema.MODEL_INPUT_COLUMNS)
    problems = []
    for name in columns:
        source = derived_source(name)
        if source == name:
            problems.append(f"config {config!r}: column {name!r} is an audit column; expected "
                            "only case_id, permitted inputs and y_amount_eur")
        elif source is not None:
            problems.append(f"config {config!r}: column {name!r} is derived from the audit "
                            f"column {source!r}; expected only case_id, permitted inputs and "
                            "y_amount_eur")
        elif name in schema.BOOKKEEPING_COLUMNS and name != schema.ID_COLUMN:
            problems.append(f"config {config!r}: column {name!r} is a split/view tag; views "
                            "are expressed by config membership")
        elif name not in permitted:
            problems.append(f"config {config!r}: column {name!r} is not a permitted input; "
                            f"expected a subset of {list(schema.MODEL_INPUT_COLUMNS)}")
    return problems


def audit_folder(folder: Path) -> list[str]:
    """Leakage audit of a built Hub folder from its parquet schemas.

    Args:
        folder: the Hub folder (``data/<config>/<split>.parquet``).

    Returns:
        Problems found; empty when no model-input config holds an audit-side column.
    """
    data = Path(folder) / "data"
    files = sorted(data.glob("*/*.parquet"))
    if not files:
        return [f"{data}: no parquet files found; expected data/<config>/<split>.parquet"]
    from ecthr_npd import facts_audit
    from ecthr_npd.facts_build import FACTS_CONFIGS

    problems = []
    for path in files:
        config = path.parent.name
        if config in AUDIT_CONFIGS or config in FACTS_CONFIGS:
            continue
        names = pq.read_schema(path).names
        problems.extend(f"{path.relative_to(folder).as_posix()}: {problem}"
                        for problem in column_problems(config, names))
    return problems + facts_audit.facts_problems(Path(folder))
