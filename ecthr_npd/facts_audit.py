"""``courtbench verify`` checks of a built folder's facts configs (when it has them).

Every facts config holds exactly ``case_id``, ``facts_text``, ``source_document_sha256`` and
``source_anchor``; each of its splits names the same cases in the same order as the matching
model-input config (``facts`` ↔ ``default``, ``facts_id`` ↔ ``id`` …); texts and anchors are
non-empty, fingerprints 64 hex digits; and the leakage screen, rerun on the text against
``y_amount_eur``, finds no more than the card's ``provenance.facts.screen_findings``.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import yaml

from ecthr_npd import schema
from ecthr_npd.facts import SHA256_PATTERN
from ecthr_npd.facts_build import FACTS_CONFIGS, column_problems
from ecthr_npd.facts_screen import screen_texts

PARTNER = {"facts": "default", "facts_id": "id", "facts_ood": "ood",
           "facts_challenging": "challenging"}


def _recorded_findings(folder: Path) -> int | None:
    """``provenance.facts.screen_findings`` of the card's YAML, or None."""
    text = (folder / "README.md").read_text(encoding="utf-8")
    if not text.startswith("---"):
        return None
    header = yaml.safe_load(text.split("---", 2)[1]) or {}
    return ((header.get("provenance") or {}).get("facts") or {}).get("screen_findings")


def _split_problems(folder: Path, path: Path, amounts: dict) -> tuple[list[str], list]:
    """Problems of one facts parquet file and the rows to screen from it."""
    where = path.relative_to(folder).as_posix()
    table = pq.read_table(path)
    problems = [f"{where}: {p}" for p in column_problems(path.parent.name, table.column_names)]
    if problems:
        return problems, []
    partner = folder / "data" / PARTNER[path.parent.name] / path.name
    ids = table.column(schema.ID_COLUMN).to_pylist()
    if not partner.is_file() or pq.read_table(partner, columns=[schema.ID_COLUMN]).column(
            schema.ID_COLUMN).to_pylist() != ids:
        problems.append(f"{where}: case ids differ from {partner.relative_to(folder).as_posix()}"
                        "; expected the same cases in the same order")
    texts = table.column("facts_text").to_pylist()
    for row, (text, digest, anchor) in enumerate(zip(
            texts, table.column("source_document_sha256").to_pylist(),
            table.column("source_anchor").to_pylist(), strict=True)):
        if not (text or "").strip() or not (anchor or "").strip() or not SHA256_PATTERN.fullmatch(
                digest or ""):
            problems.append(f"{where}: row {row + 1} (case {ids[row]}): expected a non-empty "
                            "text and anchor and a 64-hex source_document_sha256")
            break
    rows = [(c, i + 1, t, amounts.get(c)) for i, (c, t) in enumerate(zip(ids, texts, strict=True))]
    return problems, rows if path.parent.name == "facts" else []


def facts_problems(folder: Path) -> list[str]:
    """Problems of the facts configs of ``folder`` (empty when it has none or they pass)."""
    files = [p for name in FACTS_CONFIGS for p in sorted((folder / "data" / name).glob("*.parquet"))]
    if not files:
        return []
    amounts = {}
    for path in sorted((folder / "data" / "default").glob("*.parquet")):
        part = pq.read_table(path, columns=[schema.ID_COLUMN, schema.TARGET_COLUMN])
        amounts.update(zip(part.column(0).to_pylist(), part.column(1).to_pylist(), strict=True))
    problems, rows = [], []
    for path in files:
        found, screened = _split_problems(folder, path, amounts)
        problems += found
        rows += screened
    findings, _ = screen_texts(rows)
    recorded = _recorded_findings(folder) or 0
    if len(findings) > recorded:
        problems.append(f"data/facts: the text leakage screen finds {len(findings):,} passage(s) "
                        f"(card records {recorded:,}), e.g. case {findings[0].case_id}: "
                        f"{findings[0].passage!r}")
    return problems
