"""``courtbench verify`` checks of a built folder's facts configs (when it has them).

Every facts config holds exactly ``case_id``, ``facts_text``, ``source_document_sha256`` and
``source_anchor``; each of its splits names the same cases in the same order as the matching
model-input config (``facts`` ↔ ``default``, ``facts_id`` ↔ ``id`` …); texts and anchors are
valid, visible Unicode (the shared validator's rule), fingerprints 64 hex digits. The leakage
screen, rerun on the text against ``y_amount_eur``, must find nothing the findings report
(:mod:`ecthr_npd.facts_report`) does not list — and nothing at all in a masked folder, whose
report must place a marker at every ``masked_at``.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq

from courtbench.boundary import text_problem
from courtbench.errors import CourtbenchError
from ecthr_npd import schema
from ecthr_npd.facts import SHA256_PATTERN
from ecthr_npd.facts_build import FACTS_CONFIGS, column_problems
from ecthr_npd.facts_report import REPORT_FILE, read_report, recorded_screen
from ecthr_npd.facts_screen import MARKER, screen_texts, short

PARTNER = {"facts": "default", "facts_id": "id", "facts_ood": "ood",
           "facts_challenging": "challenging"}


def _row_problem(where: str, row: int, case_id: str, text, digest, anchor) -> str | None:
    """What is wrong with one row of a facts config, or None."""
    for name, value in (("facts_text", text), ("source_anchor", anchor)):
        problem = text_problem(value) if isinstance(value, str) else "a string"
        if problem:
            return f"{where}: row {row} (case {case_id}), {name}: expected {problem}"
    if not SHA256_PATTERN.fullmatch(digest or ""):
        return f"{where}: row {row} (case {case_id}): expected a 64-hex source_document_sha256"
    return None


def _split_problems(folder: Path, path: Path) -> tuple[list[str], dict[str, str]]:
    """Problems of one facts parquet file and its texts by case id."""
    where = path.relative_to(folder).as_posix()
    table = pq.read_table(path)
    problems = [f"{where}: {p}" for p in column_problems(path.parent.name, table.column_names)]
    if problems:
        return problems, {}
    partner = folder / "data" / PARTNER[path.parent.name] / path.name
    ids = table.column(schema.ID_COLUMN).to_pylist()
    if not partner.is_file() or pq.read_table(partner, columns=[schema.ID_COLUMN]).column(
            schema.ID_COLUMN).to_pylist() != ids:
        problems.append(f"{where}: case ids differ from {partner.relative_to(folder).as_posix()}"
                        "; expected the same cases in the same order")
    texts = table.column("facts_text").to_pylist()
    for row, values in enumerate(zip(ids, texts, table.column("source_document_sha256")
                                     .to_pylist(), table.column("source_anchor").to_pylist(),
                                     strict=True), start=1):
        problem = _row_problem(where, row, *values)
        if problem:
            problems.append(problem)
            break
    return problems, dict(zip(ids, texts, strict=True))


def _mask_problems(records: list[dict], texts: dict[str, str]) -> list[str]:
    """A masked folder's report must place the marker at every ``masked_at``."""
    for record in records:
        text = texts.get(record["case_id"], "")
        at = record.get("masked_at")
        if not isinstance(at, int) or not text.startswith(MARKER, at):
            return [f"{REPORT_FILE}: case {record['case_id']}: no {MARKER} at masked_at "
                    f"{at!r} of its facts_text; expected every masked passage's marker there"]
    return []


def _screen_problems(folder: Path, texts: dict[str, str], amounts: dict) -> list[str]:
    """Rerun the screen: every finding must be in the report (none at all when masked)."""
    recorded = recorded_screen(folder)
    try:
        records = read_report(folder)
    except CourtbenchError as error:
        return [str(error)]
    masked = recorded.get("screen_mode") == "mask"
    problems = _mask_problems(records, texts) if masked else []
    listed = Counter((r["case_id"], r["kind"], r["start"], r["end"]) for r in records)
    rows = [(c, i + 1, t, amounts.get(c)) for i, (c, t) in enumerate(texts.items())]
    findings, _ = screen_texts(rows)
    extra = [f for f in findings if masked or not listed[(f.case_id, f.kind, f.start, f.end)]]
    if extra:
        first = extra[0]
        problems.append(f"data/facts: the text leakage screen finds {len(extra):,} passage(s) "
                        f"that {REPORT_FILE} does not list"
                        + (" (the folder was masked)" if masked else "")
                        + f", e.g. case {first.case_id} ({first.kind}): {short(first.passage)!r}")
    return problems


def facts_problems(folder: Path) -> list[str]:
    """Problems of the facts configs of ``folder`` (empty when it has none or they pass)."""
    folder = Path(folder)
    files = [p for name in FACTS_CONFIGS for p in sorted((folder / "data" / name).glob("*.parquet"))]
    if not files:
        return []
    amounts = {}
    for path in sorted((folder / "data" / "default").glob("*.parquet")):
        part = pq.read_table(path, columns=[schema.ID_COLUMN, schema.TARGET_COLUMN])
        amounts.update(zip(part.column(0).to_pylist(), part.column(1).to_pylist(), strict=True))
    problems, texts = [], {}
    for path in files:
        found, split_texts = _split_problems(folder, path)
        problems += found
        if path.parent.name == "facts":
            texts.update(split_texts)
    return problems + _screen_problems(folder, texts, amounts)
