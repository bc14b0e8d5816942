"""The files of one ``courtbench predict ecthr_npd`` run, on :mod:`courtbench.output_files`.

For ``--out DIR/NAME.csv``:

- ``DIR/NAME.csv``: header ``case_id,prediction``, one row per predicted case (EUR, shortest
  repr), what ``courtbench evaluate ecthr_npd --predictions`` reads;
- ``DIR/NAME.responses.jsonl``: one JSON object per case: the raw answer, rationale,
  reasoning, parse outcome, usage, error, references;
- ``DIR/NAME.csv.manifest.json``: model, endpoint host, prompt, parameters, template sha256,
  counts, failures, usage, versions; it marks the CSV as courtbench's
  (:func:`courtbench.output_files.write_output_file`) and records the responses file's name
  and sha256.

Without ``--overwrite`` an existing file is replaced only when the manifest beside it was
written by this command and holds the file's current sha256 (:func:`check_replaceable`), so a
file courtbench did not write, or one changed since, is never overwritten. Each file goes to a
temporary file in the same folder, renamed into place: responses, CSV, manifest last.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from courtbench.errors import CourtbenchError
from courtbench.output_files import (
    check_output_file,
    manifest_path,
    sha256_file,
    write_atomic,
    write_output_file,
)

KIND = "ecthr_npd-predictions"
PREDICTIONS_SUFFIX = ".csv"
RESPONSES_SUFFIX = ".responses.jsonl"
CACHE_SUFFIX = ".cache.sqlite"


@dataclass(frozen=True)
class OutputPaths:
    """The three files of a run (see the module docstring)."""

    predictions: Path
    responses: Path
    manifest: Path

    @classmethod
    def for_out(cls, out: Path) -> OutputPaths:
        """Paths for ``--out``; CourtbenchError unless it names a ``.csv`` file."""
        out = Path(out)
        if out.suffix.lower() != PREDICTIONS_SUFFIX or not out.stem:
            raise CourtbenchError(f"--out {out}: expected a predictions file name ending in "
                                  f"{PREDICTIONS_SUFFIX}, e.g. preds/llm.csv")
        return cls(out, out.with_name(out.stem + RESPONSES_SUFFIX), manifest_path(out))

    @property
    def default_cache(self) -> Path:
        """The response cache used when ``--cache`` is not given: ``NAME.cache.sqlite``."""
        return self.predictions.with_name(self.predictions.stem + CACHE_SUFFIX)

    def all(self) -> tuple[Path, Path, Path]:
        return self.predictions, self.responses, self.manifest


def _recorded_responses_sha256(paths: OutputPaths) -> str | None:
    try:
        document = json.loads(paths.manifest.read_text(encoding="utf-8"))
        return document["responses"]["sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def check_replaceable(paths: OutputPaths, *, overwrite: bool = False,
                      inputs: Iterable[Path | None] = ()) -> None:
    """Refuse (CourtbenchError) an output that is an input (``--cache``, ``--data``), a
    folder, or an existing file this command did not write (or that changed since), unless
    ``overwrite``. Call before any slow work."""
    resolved_inputs = {Path(p).resolve() for p in inputs if p is not None}
    for path in paths.all():
        if path.resolve() in resolved_inputs:
            raise CourtbenchError(f"--out {paths.predictions}: would overwrite the input {path}; "
                                  "choose another --out")
    check_output_file(paths.predictions, kind=KIND, overwrite=overwrite,
                      suffixes=(PREDICTIONS_SUFFIX,))
    responses = paths.responses
    if responses.is_dir():
        raise CourtbenchError(f"--out {paths.predictions}: {responses} is a directory")
    if overwrite or not responses.exists():
        return
    if _recorded_responses_sha256(paths) != sha256_file(responses):
        raise CourtbenchError(f"--out {paths.predictions}: {responses} exists and was not written "
                              f"by a courtbench {KIND} run with this manifest (or was changed "
                              "since); remove it or choose another --out")


def predictions_csv(rows: Iterable[tuple[str, float]]) -> str:
    """``case_id,prediction`` CSV text (``\\n`` line ends, predictions as shortest repr)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["case_id", "prediction"])
    writer.writerows((case_id, repr(float(value))) for case_id, value in rows)
    return buffer.getvalue()


def jsonl(records: Iterable[dict[str, Any]]) -> str:
    """One compact JSON object per line (keys in the given order, UTF-8 kept, strict JSON)."""
    return "".join(json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n" for r in records)


def write_outputs(paths: OutputPaths, *, predictions: str, responses: str,
                  manifest: dict[str, Any]) -> None:
    """Write the responses, the CSV and the manifest (each atomically, in that order); the
    manifest gets the responses file's name and sha256 and courtbench's mark on the CSV."""
    data = responses.encode("utf-8")
    paths.predictions.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(paths.responses, data)
    document = {**manifest, "responses": {"file": paths.responses.name,
                                          "sha256": hashlib.sha256(data).hexdigest()}}
    write_output_file(paths.predictions, predictions.encode("utf-8"), document, kind=KIND)
