"""The ``facts`` configs of a build: screen the reviewed text, lay it out like the other configs.

``facts`` holds ``case_id``, ``facts_text``, ``source_document_sha256`` and ``source_anchor``
with the ``train`` / ``validation`` / ``test`` splits of ``default`` (same rows, same order);
``facts_id``, ``facts_ood`` and ``facts_challenging`` hold the test views (split ``test``), as
``id`` / ``ood`` / ``challenging`` do for the model inputs. Every config joins to every
model-input config on ``case_id``. :func:`run_screen` runs the leakage screen before anything
is written: mode ``refuse`` raises, ``warn`` lets the build write and the card report the count.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from courtbench.errors import CourtbenchError
from courtbench.hub import ConfigSpec
from courtbench.hub.features import TableFeatures, value
from ecthr_npd import schema
from ecthr_npd.defaults import SCREEN_MODES
from ecthr_npd.facts import CONFIG_COLUMNS, FactsInput, word_count
from ecthr_npd.facts_screen import Finding, describe, screen_texts

FACTS_CONFIGS = ("facts", "facts_id", "facts_ood", "facts_challenging")
FEATURES = TableFeatures({name: value("string") for name in CONFIG_COLUMNS})


class FactsLeakageError(CourtbenchError):
    """The text leakage screen found award passages and the mode is ``refuse``."""


@dataclass
class ScreenResult:
    """What the screen found: the mode, texts screened, findings (see facts_screen)."""

    mode: str
    screened: int
    findings: list[Finding]


def run_screen(table: pa.Table, facts: FactsInput, mode: str, progress: bool = True
               ) -> ScreenResult:
    """Screen every facts text against its case's ``y_amount_eur``.

    Raises:
        FactsLeakageError: findings and ``mode == "refuse"`` (one line: count, cases, the
            first passages cut to 200 characters).
    """
    if mode not in SCREEN_MODES:
        raise CourtbenchError(f"--facts-screen {mode!r}: expected one of {SCREEN_MODES}")
    amounts = dict(zip(table.column(schema.ID_COLUMN).to_pylist(),
                       table.column(schema.TARGET_COLUMN).to_pylist(), strict=True))
    rows = ((case_id, facts.lines[case_id], record["facts_text"], amounts.get(case_id))
            for case_id, record in facts.records.items())
    findings, screened = screen_texts(rows, progress=progress)
    if findings and mode == "refuse":
        raise FactsLeakageError(f"{facts.source}: the facts leakage screen refused to write: "
                                f"{describe(findings)}; remove these passages from the review, "
                                "or build with --facts-screen warn to write anyway (the card "
                                "reports the count)")
    return ScreenResult(mode, screened, findings)


def _subset(facts: FactsInput, ids: list[str]) -> pa.Table:
    columns = {"case_id": ids}
    for name in CONFIG_COLUMNS[1:]:
        columns[name] = [facts.records[case_id][name] for case_id in ids]
    return pa.table(columns).cast(FEATURES.arrow_schema)


def facts_configs(split_ids: dict[str, list[str]], view_ids: dict[str, list[str]],
                  facts: FactsInput) -> list[ConfigSpec]:
    """The four facts configs.

    Args:
        split_ids: split → case ids in the ``default`` config's row order.
        view_ids: ``id`` / ``ood`` / ``challenging`` → test case ids in their config's order.
        facts: the validated records (every case has one).
    """
    configs = [ConfigSpec("facts", {s: _subset(facts, ids) for s, ids in split_ids.items()})]
    for view, ids in view_ids.items():
        configs.append(ConfigSpec(f"facts_{view}", {"test": _subset(facts, ids)}))
    return configs


def prepare(table: pa.Table, facts_path=None, facts=None, mode: str = "refuse"
            ) -> tuple[FactsInput | None, ScreenResult | None]:
    """Read (``facts_path``) or generate (``facts``: a FactsInput or a callable of the
    canonical table) the facts, validate them against the table's cohort and screen them.
    ``(None, None)`` when neither is given."""
    from ecthr_npd.facts import read_facts

    if facts_path is not None:
        facts = read_facts(facts_path, table.column(schema.ID_COLUMN).to_pylist())
    elif callable(facts):
        facts = facts(table)
    if facts is None:
        return None, None
    return facts, run_screen(table, facts, mode)


def with_facts(configs: list[ConfigSpec], facts: FactsInput | None) -> list[ConfigSpec]:
    """``configs`` plus the facts configs, whose rows follow ``default`` and the views."""
    if facts is None:
        return configs
    by_name = {c.name: c for c in configs}
    splits = {s: d.column(schema.ID_COLUMN).to_pylist()
              for s, d in by_name["default"].splits.items()}
    views = {v: by_name[v].splits["test"].column(schema.ID_COLUMN).to_pylist()
             for v in ("id", "ood", "challenging")}
    return configs + facts_configs(splits, views, facts)


def column_problems(config: str, columns: list[str]) -> list[str]:
    """A facts config must hold exactly CONFIG_COLUMNS (never the target or audit columns)."""
    if list(columns) == list(CONFIG_COLUMNS):
        return []
    return [f"config {config!r}: columns {list(columns)}; expected exactly {list(CONFIG_COLUMNS)}"]


def length_summary(texts: list[str]) -> dict[str, float]:
    """Words per text: mean, median, p95, max (whitespace words)."""
    words = np.array([word_count(t) for t in texts], dtype=np.float64)
    if not words.size:
        return {"mean": 0.0, "median": 0.0, "p95": 0.0, "max": 0.0}
    return {"mean": float(words.mean()), "median": float(np.median(words)),
            "p95": float(np.percentile(words, 95)), "max": float(words.max())}


def card_context(facts: FactsInput, screen: ScreenResult) -> dict:
    """The card's ``facts`` block: provenance, fingerprint coverage, lengths, screen result."""
    fingerprinted = sum(1 for r in facts.records.values() if r["source_document_sha256"])
    lengths = length_summary([r["facts_text"] for r in facts.records.values()])
    return {"source": facts.source, "synthetic": facts.synthetic, "n": len(facts.records),
            "status_counts": sorted(facts.status_counts.items()),
            "fingerprinted": fingerprinted,
            "lengths": {k: f"{v:,.0f}" for k, v in lengths.items()},
            "screen_mode": screen.mode, "screened": screen.screened,
            "findings": len(screen.findings),
            "flagged_cases": len({f.case_id for f in screen.findings})}
