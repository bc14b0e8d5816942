"""The files of one ``courtbench predict ecthr_npd`` run, written all-or-nothing.

For ``--out DIR/NAME.csv``:

- ``DIR/NAME.csv``: header ``case_id,prediction``, one row per predicted case (EUR, shortest
  repr), what ``courtbench evaluate ecthr_npd --predictions`` reads;
- ``DIR/NAME.responses.jsonl``: one JSON object per case: the raw answer, rationale,
  reasoning, parse outcome, usage, error, references;
- ``DIR/NAME.manifest.json``: model, endpoint host, prompt, parameters, template sha256,
  counts, failures, usage, versions, and ``files`` (the names above).

An existing file among these is replaced only when the manifest beside it was written by this
command and names it (:func:`check_replaceable`); so a file courtbench did not write is never
overwritten. Each file is written to a hidden temporary file in the same folder and renamed
into place (the manifest last), so an interrupted run leaves the previous files intact.
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from courtbench.errors import CourtbenchError

COMMAND = "predict ecthr_npd"
PREDICTIONS_SUFFIX = ".csv"
RESPONSES_SUFFIX = ".responses.jsonl"
MANIFEST_SUFFIX = ".manifest.json"
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
        if out.is_dir():
            raise CourtbenchError(f"--out {out}: is a folder; expected a file name such as "
                                  f"{out / 'llm.csv'}")
        stem = out.name[: -len(out.suffix)]
        return cls(out, out.with_name(stem + RESPONSES_SUFFIX),
                   out.with_name(stem + MANIFEST_SUFFIX))

    @property
    def default_cache(self) -> Path:
        """The response cache used when ``--cache`` is not given: ``NAME.cache.sqlite``."""
        return self.predictions.with_name(self.predictions.stem + CACHE_SUFFIX)

    def all(self) -> tuple[Path, Path, Path]:
        return self.predictions, self.responses, self.manifest


def _written_by_us(paths: OutputPaths) -> set[str]:
    """Names of the files the existing manifest says this command wrote (empty when there is
    no such manifest)."""
    try:
        manifest = json.loads(paths.manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    if not isinstance(manifest, dict) or manifest.get("command") != COMMAND:
        return set()
    files = manifest.get("files")
    names = set(files.values()) if isinstance(files, dict) else set()
    return names | {paths.manifest.name}


def check_replaceable(paths: OutputPaths, *, inputs: Iterable[Path] = ()) -> None:
    """Refuse (CourtbenchError) to overwrite any existing output file that this command did
    not write, a folder in its place, or an input (``--cache``, ``--data``) among them."""
    resolved_inputs = {Path(p).resolve() for p in inputs if p is not None}
    ours = None
    for path in paths.all():
        if path.resolve() in resolved_inputs:
            raise CourtbenchError(f"--out {paths.predictions}: would overwrite the input {path}; "
                                  "choose another --out")
        if not path.exists() and not path.is_symlink():
            continue
        if not path.is_file():
            raise CourtbenchError(f"--out {paths.predictions}: {path} exists and is not a file")
        if ours is None:
            ours = _written_by_us(paths)
        if path.name not in ours:
            raise CourtbenchError(
                f"--out {paths.predictions}: refusing to overwrite {path}: it was not written by "
                f"`courtbench {COMMAND}` (no manifest {paths.manifest.name} naming it); choose "
                "another --out or move the file away")


def predictions_csv(rows: Iterable[tuple[str, float]]) -> str:
    """``case_id,prediction`` CSV text (``\\n`` line ends, predictions as shortest repr)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["case_id", "prediction"])
    writer.writerows((case_id, repr(float(value))) for case_id, value in rows)
    return buffer.getvalue()


def jsonl(records: Iterable[dict[str, Any]]) -> str:
    """One compact JSON object per line (keys in the given order, UTF-8 kept)."""
    return "".join(json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n" for r in records)


def write_outputs(paths: OutputPaths, *, predictions: str, responses: str,
                  manifest: dict[str, Any]) -> None:
    """Write the three files atomically (temporary file + rename each, manifest last).

    ``manifest`` gets ``command`` and ``files`` set here, so that a later run recognises the
    files as its own.
    """
    manifest = {"command": COMMAND, **manifest,
                "files": {"predictions": paths.predictions.name,
                          "responses": paths.responses.name}}
    texts = [(paths.predictions, predictions), (paths.responses, responses),
             (paths.manifest, json.dumps(manifest, indent=2, ensure_ascii=False,
                                         allow_nan=False) + "\n")]
    paths.predictions.parent.mkdir(parents=True, exist_ok=True)
    temporary: list[tuple[Path, Path]] = []
    try:
        for path, text in texts:
            handle = tempfile.NamedTemporaryFile(
                "w", encoding="utf-8", newline="", dir=path.parent, prefix=f".{path.name}.",
                suffix=".partial", delete=False)
            with handle:
                handle.write(text)
            temporary.append((Path(handle.name), path))
        for source, target in temporary:
            os.replace(source, target)
    finally:
        for source, _ in temporary:
            if source.exists():
                source.unlink()
