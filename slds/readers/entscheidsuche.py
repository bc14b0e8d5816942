"""Reader for entscheidsuche.ch search responses (the public Swiss case-law search API).

A response is Elasticsearch JSON: ``{"hits": {"hits": [{"_id", "_index", "_source": {...}}]}}``.
Only landmark decisions (BGE) that carry headnotes in German, French and Italian are kept;
every other hit is skipped and counted by reason (:attr:`SourceRead.skipped`).

For a kept hit:

- ``decision_id`` is the hit id (``CH_BGE_004_BGE-151-II-245_2025``);
- the BGE reference (``_source.reference``, e.g. ``"BGE 151 II 245"``) gives the yearly
  volume (151, checked against the year by validation), the part (``volume`` = ``"II"``) and
  the page;
- ``year`` is the year of ``_source.date`` (else volume + 1874);
- the headnotes are ``_source.abstract.{de,fr,it}`` with the leading "Regeste"/"Regesto"
  label, HTML markup and entities removed, whitespace collapsed;
- ``decision`` is ``_source.attachment.content`` from the first heading where the decision
  itself starts — "Sachverhalt" / "Faits" / "Fatti" (the facts), else the considerations
  ("Erwägungen", "Considérants", "Considerandi") — so that neither the header ("Urteilskopf")
  nor the headnote reaches the model input; whitespace collapsed to single spaces as in the
  published SLDS rows (which start "Sachverhalt ab Seite 11 …");
- ``decision_language`` is ``_source.language`` (else the attachment's; else left empty for
  detection); ``url`` is the attachment's ``content_url``.

A directory source is read file by file (``*.json``, sorted by name).
"""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from courtbench.errors import SourceError
from courtbench.textio import decode_utf8, read_input_bytes
from slds.readers.base import RawRow, SourceRead
from slds.schema import LANGUAGES

BGE_REFERENCE = re.compile(r"^\s*BGE\s+(?P<volume>\d{1,3})\s+(?P<part>Ia|Ib|I|II|III|IV|V)\s+"
                           r"(?P<page>\d{1,4})\s*$")
HEADNOTE_LABEL = re.compile(r"^\s*(?:Regeste|Regesto|Régeste)\b[\s:.]*", re.IGNORECASE)
MARKUP = re.compile(r"<[^>]{0,200}>")
WHITESPACE = re.compile(r"\s+")
FACTS_HEADING = re.compile(r"^[ \t\xa0]*(?:Sachverhalt|Faits|Fatti)\b", re.MULTILINE)
CONSIDERATIONS_HEADING = re.compile(
    r"^[ \t\xa0]*(?:Aus den Erwägungen|Erwägungen|Extrait des considérants|Considérants|"
    r"Dai considerandi|Considerandi|Considerando)\b", re.MULTILINE)

SKIP_NOT_LANDMARK = "not a BGE landmark decision"
SKIP_NO_HEADNOTE = "landmark decision without headnotes in de, fr and it"
SKIP_NO_DECISION_START = "no facts or considerations heading in the decision text"
SKIP_HEADNOTE_IN_DECISION = "headnote text still inside the cut decision text"


def clean_headnote(raw: str) -> str:
    """Strip the leading "Regeste"/"Regesto" label, HTML tags and entities; collapse spaces."""
    text = html.unescape(MARKUP.sub(" ", raw))
    text = HEADNOTE_LABEL.sub("", text, count=1)
    return WHITESPACE.sub(" ", text).strip()


def cut_decision(content: str) -> str | None:
    """Return the decision text from its facts (else considerations) heading, whitespace
    collapsed; ``None`` when neither heading is found."""
    match = FACTS_HEADING.search(content) or CONSIDERATIONS_HEADING.search(content)
    if match is None:
        return None
    return WHITESPACE.sub(" ", html.unescape(content[match.start():])).strip()


def parse_bge_reference(reference: str) -> tuple[int, str, int] | None:
    """``"BGE 151 II 245"`` -> ``(151, "II", 245)``; ``None`` when it is no BGE reference."""
    match = BGE_REFERENCE.match(reference)
    if match is None:
        return None
    return int(match["volume"]), match["part"], int(match["page"])


def _bge_reference(source: dict[str, Any]) -> tuple[int, str, int] | None:
    references = source.get("reference") or []
    if isinstance(references, str):
        references = [references]
    if not isinstance(references, list):
        return None  # not a reference list: not a landmark decision we can place
    for reference in references:
        if isinstance(reference, str) and (parsed := parse_bge_reference(reference)):
            return parsed
    return None


def _is_landmark(hit: dict[str, Any], source: dict[str, Any]) -> bool:
    hierarchy = source.get("hierarchy") or []
    if not isinstance(hierarchy, (list, str)):
        hierarchy = []
    return ("CH_BGE" in hierarchy or "ch_bge" in str(hit.get("_index", "")).lower()) and \
        _bge_reference(source) is not None


def _object(path: Path, number: int, parent: dict[str, Any], key: str) -> dict[str, Any]:
    """``parent[key]`` when an object, ``{}`` when missing or null; SourceError otherwise."""
    value = parent.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise SourceError(path, f"'{key}' is a {type(value).__name__}; expected an object",
                          line=number, column=f"_source.{key}")
    return value


def _string(path: Path, number: int, parent: dict[str, Any], key: str, prefix: str) -> str:
    """``parent[key]`` when a string, ``""`` when missing or null; SourceError otherwise."""
    value = parent.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise SourceError(path, f"'{prefix}{key}' is a {type(value).__name__}; expected text",
                          line=number, column=f"_source.{prefix}{key}")
    return value


def _hit_to_rows(path: Path, number: int, hit: dict[str, Any], skipped: Counter
                 ) -> list[RawRow]:
    source = hit.get("_source")
    if not isinstance(source, dict):
        raise SourceError(path, "hit without a '_source' object", line=number, column="_source")
    if not _is_landmark(hit, source):
        skipped[SKIP_NOT_LANDMARK] += 1
        return []
    abstract = _object(path, number, source, "abstract")
    headnotes = {lang: clean_headnote(_string(path, number, abstract, lang, "abstract."))
                 for lang in LANGUAGES}
    if not all(headnotes.values()):
        skipped[SKIP_NO_HEADNOTE] += 1
        return []
    attachment = _object(path, number, source, "attachment")
    decision = cut_decision(_string(path, number, attachment, "content", "attachment."))
    if decision is None:
        skipped[SKIP_NO_DECISION_START] += 1
        return []
    if any(headnote in decision for headnote in headnotes.values()):
        skipped[SKIP_HEADNOTE_IN_DECISION] += 1
        return []
    bge_volume, part, _page = _bge_reference(source)  # type: ignore[misc]  # landmark => parsed
    shared = _shared_fields(hit, source, attachment, decision, bge_volume, part)
    return [RawRow(line=number, source=path, bge_volume=bge_volume,
                   fields=dict(shared, sample_id=None, headnote=headnotes[lang],
                               headnote_language=lang),
                   column_names={"headnote": f"_source.abstract.{lang}", **_COLUMN_NAMES})
            for lang in LANGUAGES]


_COLUMN_NAMES = {"decision": "_source.attachment.content", "decision_language": "_source.language",
                 "year": "_source.date", "volume": "_source.reference", "decision_id": "_id",
                 "url": "_source.attachment.content_url"}
"""Where in a hit each field besides the headnote comes from (for error messages)."""


def _shared_fields(hit: dict[str, Any], source: dict[str, Any], attachment: dict[str, Any],
                   decision: str, bge_volume: int, part: str) -> dict[str, Any]:
    """The fields the three rows of a hit share; the year is the date's, else the BGE
    volume's (volume + 1874)."""
    date = str(source.get("date") or "")
    year: int | str = int(date[:4]) if re.match(r"^\d{4}", date) else bge_volume + 1874
    return {
        "decision_id": str(hit.get("_id") or source.get("id") or ""),
        "decision": decision,
        "decision_language": source.get("language") or attachment.get("language") or None,
        "law_area": None,
        "year": year,
        "volume": part,
        "url": attachment.get("content_url") or "",
    }


def _read_response(path: Path, skipped: Counter) -> tuple[list[RawRow], int]:
    text = decode_utf8(path, read_input_bytes(path, expected="JSON search response"),
                       expected="JSON search response")
    try:
        response = json.loads(text)
    except json.JSONDecodeError as error:
        raise SourceError(path, f"malformed JSON: {error.msg}", line=error.lineno) from error
    outer = response.get("hits") if isinstance(response, dict) else None
    hits = outer.get("hits") if isinstance(outer, dict) else None
    if not isinstance(hits, list):
        raise SourceError(path, "not a search response: expected an object with "
                                "'hits': {'hits': [...]}", column="hits.hits")
    rows: list[RawRow] = []
    for number, hit in enumerate(hits, start=1):
        if not isinstance(hit, dict):
            raise SourceError(path, f"hit is a {type(hit).__name__}, expected an object",
                              line=number)
        rows.extend(_hit_to_rows(path, number, hit, skipped))
    return rows, len(hits)


def _response_rows(files: list[Path], read: SourceRead) -> Iterator[RawRow]:
    for file in files:
        file_rows, file_records = _read_response(file, read.skipped)
        read.records += file_records
        yield from file_rows


def _response_files(path: Path) -> list[Path]:
    files = sorted(path.glob("*.json")) if path.is_dir() else [path]
    if not files or not all(f.is_file() for f in files):
        raise SourceError(path, "no search-response JSON file found")
    return files


def stream_entscheidsuche(path: Path) -> SourceRead:
    """One search-response file, or every ``*.json`` file of a directory, as a one-pass
    stream of raw rows (one response file in memory at a time)."""
    read = SourceRead(path=path, rows=iter(()))
    read.rows = _response_rows(_response_files(path), read)
    return read


def read_entscheidsuche(path: Path) -> SourceRead:
    """Read one search-response JSON file, or every ``*.json`` file of a directory.

    Raw rows carry the hit number as ``line`` and the parsed BGE volume for validation.
    """
    read = stream_entscheidsuche(path)
    read.rows = list(read.rows)
    return read
