"""The leakage screen's findings report, and what the rest of courtbench reads of it.

Every build with facts writes the report :data:`REPORT_FILE` (JSON Lines, one finding a line,
in text order: ``case_id``, ``line`` of the record, ``kind``, ``start`` and ``end`` — the
character offsets of the passage in the reviewed ``facts_text`` — and ``passage``; in mask
mode also ``masked_at``, where the passage's :data:`~ecthr_npd.facts_screen.MARKER` starts
in the masked text):

- into the built folder, in modes ``warn`` and ``mask`` and when ``refuse`` found nothing (an
  empty report: the screen ran). The file is not uploaded by ``courtbench publish``.
- when ``refuse`` stops the build, into the folder ``<out>`` + :data:`REFUSAL_SUFFIX` beside
  the output (an output folder courtbench owns, with its marker); the refusal names it.

The card's YAML records the screen's result under ``provenance.facts`` (``screen_mode``,
``screen_findings``, ``screen_findings_by_kind``, ``screen_masked``): :func:`recorded_screen`
reads it, :func:`facts_findings_notice` turns a warn-mode folder with findings into the line
baselines and predict print and put in their manifests.
"""

from __future__ import annotations

import json
from pathlib import Path

from courtbench.errors import CourtbenchError

REPORT_FILE = "facts_screen_findings.jsonl"
REFUSAL_SUFFIX = ".facts-screen"
REFUSAL_KIND = "facts screen report folder"
RECORD_FIELDS = ("case_id", "line", "kind", "start", "end", "passage")


def report_bytes(records: list[dict]) -> bytes:
    """The report's bytes: one JSON object a line, keys in :data:`RECORD_FIELDS` order
    (then ``masked_at``), UTF-8, no ASCII escaping (passages stay readable)."""
    return "".join(json.dumps(record, ensure_ascii=False) + "\n"
                   for record in records).encode("utf-8")


def refusal_folder(out_dir: Path) -> Path:
    """Where a refused build puts its report: ``<out>`` + :data:`REFUSAL_SUFFIX`."""
    out_dir = Path(out_dir)
    return out_dir.with_name(out_dir.name + REFUSAL_SUFFIX)


def write_refusal_report(out_dir: Path, records: list[dict]) -> Path:
    """Write the report of a refused build beside ``out_dir``; returns the file's path.

    Raises:
        CourtbenchError: that folder exists and is not a report courtbench wrote (it is
            never replaced then), or writing failed.
    """
    from courtbench.hub.atomic import atomic_output_dir

    folder = refusal_folder(out_dir)
    with atomic_output_dir(folder, kind=REFUSAL_KIND) as tmp:
        (tmp / REPORT_FILE).write_bytes(report_bytes(records))
    return folder / REPORT_FILE


def _card_header(folder: Path) -> dict:
    """The YAML header of ``folder``'s README.md ({} when there is none or it is not YAML)."""
    import yaml

    path = Path(folder) / "README.md"
    if not path.is_file():
        return {}
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---"):
        return {}
    try:
        header = yaml.safe_load(text.split("---", 2)[1])
    except yaml.YAMLError:
        return {}
    return header if isinstance(header, dict) else {}


def recorded_screen(folder: Path) -> dict:
    """``provenance.facts`` of the folder's card ({} when the folder has no facts)."""
    facts = (_card_header(folder).get("provenance") or {}).get("facts")
    return facts if isinstance(facts, dict) else {}


def read_report(folder: Path) -> list[dict]:
    """The records of ``folder``'s report.

    Raises:
        CourtbenchError: the file is missing, or a line is not a record with the fields of
            :data:`RECORD_FIELDS` (offsets whole numbers, start <= end): named by line.
    """
    path = Path(folder) / REPORT_FILE
    if not path.is_file():
        raise CourtbenchError(f"{path}: no findings report; expected the file the build "
                              "writes with the facts configs")
    records = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            record = json.loads(raw)
        except json.JSONDecodeError as error:
            raise CourtbenchError(f"{path}: line {number}: not JSON ({error.msg})") from None
        if not (isinstance(record, dict) and all(f in record for f in RECORD_FIELDS)
                and all(isinstance(record[f], int) and not isinstance(record[f], bool)
                        for f in ("line", "start", "end"))
                and 0 <= record["start"] <= record["end"]):
            raise CourtbenchError(f"{path}: line {number}: expected an object with "
                                  f"{', '.join(RECORD_FIELDS)} (offsets 0 <= start <= end)")
        records.append(record)
    return records


def facts_findings_notice(data_dir) -> str | None:
    """One line when the facts configs of the built folder ``data_dir`` were written in
    ``warn`` mode with findings left in the text (None otherwise: refuse or mask mode, no
    finding, no facts, or not a local folder).

    Baselines and predict print it on every run that reads the facts and record it in their
    manifests: a text system may then see award information.
    """
    if data_dir is None or not Path(data_dir).is_dir():
        return None
    screen = recorded_screen(Path(data_dir))
    found = screen.get("screen_findings")
    if screen.get("screen_mode") != "warn" or not isinstance(found, int) or found <= 0:
        return None
    kinds = screen.get("screen_findings_by_kind") or {}
    listed = ", ".join(f"{kind} {n:,}" for kind, n in sorted(kinds.items()) if n)
    return (f"the facts text of {data_dir} was built with --facts-screen warn and still "
            f"holds {found:,} passage(s) the leakage screen flagged ({listed}; listed in "
            f"{REPORT_FILE}): a text system may see award information")
