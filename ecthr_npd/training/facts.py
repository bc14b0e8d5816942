"""The Facts text of a built folder: the one place that knows the ``facts`` config's layout.

``data/facts/<split>.parquet`` for ``train`` / ``validation`` / ``test`` with the columns
``case_id`` (string), ``facts_text`` (string), ``source_document_sha256`` and
``source_anchor``; one row per case of the split, in any order.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from courtbench.errors import CourtbenchError, quoted

FACTS_CONFIG = "facts"
ID_COLUMN = "case_id"
TEXT_COLUMN = "facts_text"


def facts_path(folder: Path, split: str) -> Path:
    """``folder/data/facts/<split>.parquet``."""
    return Path(folder) / "data" / FACTS_CONFIG / f"{split}.parquet"


def check_facts(folder: Path, splits: tuple[str, ...] = ("train", "validation", "test")) -> None:
    """CourtbenchError when a split's facts file is missing (checked before any work)."""
    for split in splits:
        path = facts_path(folder, split)
        if not path.is_file():
            raise CourtbenchError(f"--data {folder}: no Facts text ({path.relative_to(folder)} "
                                  "is missing); the text encoders read the 'facts' config, so "
                                  "build the folder with the reviewed Facts records")


def read_facts(folder: Path, split: str, case_ids: list[str]) -> list[str]:
    """The Facts text of each of ``case_ids`` (the split's cases, in that order).

    Raises:
        CourtbenchError: no facts config, an unreadable file, a missing column, an empty or
            duplicated text row, or a case of the split without a text (the first few named).
    """
    check_facts(folder, (split,))
    path = facts_path(folder, split)
    try:
        table = pq.read_table(path, columns=[ID_COLUMN, TEXT_COLUMN])
    except (OSError, ValueError, KeyError) as error:
        raise CourtbenchError(f"{path}: cannot read columns {ID_COLUMN}, {TEXT_COLUMN}: "
                              f"{error}") from None
    texts: dict[str, str] = {}
    for row, (case_id, text) in enumerate(zip(table.column(ID_COLUMN).to_pylist(),
                                              table.column(TEXT_COLUMN).to_pylist(), strict=True)):
        if not isinstance(text, str) or not text.strip():
            raise CourtbenchError(f"{path}: row {row} (case {quoted(case_id)}): empty "
                                  f"{TEXT_COLUMN}; expected the case's Facts text")
        if case_id in texts:
            raise CourtbenchError(f"{path}: case {quoted(case_id)} appears twice")
        texts[case_id] = text
    missing = [case_id for case_id in case_ids if case_id not in texts]
    if missing:
        raise CourtbenchError(f"{path}: no Facts text for {len(missing)} case(s) of {split}, "
                              f"e.g. {', '.join(map(str, missing[:5]))}")
    return [texts[case_id] for case_id in case_ids]
