"""Per-case traces, per-case results and the traces file of a react run.

For ``--out DIR/NAME.csv`` the run writes, beside the files of the prompted runner
(:mod:`ecthr_npd.prompting.outputs`: ``NAME.csv``, ``NAME.responses.jsonl`` — here one result
record per case —, ``NAME.csv.manifest.json``), ``NAME.traces.jsonl``: for every case, in case
order, one ``{"kind": "step"}`` record per step (the model's answer, reasoning and tool calls,
the action and its arguments, the redacted observation or the error, the dropped paths,
retrieved reference ids, priors used, leakage-check results, tokens), then one
``{"kind": "case"}`` record (status, failure, the final JSON, the prediction, token totals,
references, priors, modules, final-gate result). No timestamps and no cache flags: the same
answers give the same bytes, so a rerun from the cache reproduces the file.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from courtbench.errors import CourtbenchError
from ecthr_npd.agent.controller import FINAL_STATUS, Episode
from ecthr_npd.prompting.outputs import OutputPaths, jsonl

TRACES_SUFFIX = ".traces.jsonl"


def traces_path(paths: OutputPaths) -> Path:
    """``NAME.traces.jsonl`` beside ``NAME.csv``."""
    return paths.predictions.with_name(paths.predictions.stem + TRACES_SUFFIX)


def _recorded_sha256(paths: OutputPaths) -> str | None:
    try:
        return json.loads(paths.manifest.read_text(encoding="utf-8"))["traces"]["sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def check_traces_replaceable(paths: OutputPaths, *, overwrite: bool) -> None:
    """Refuse an existing traces file this command did not write (or that changed since)."""
    path = traces_path(paths)
    if path.is_dir():
        raise CourtbenchError(f"--out {paths.predictions}: {path} is a directory")
    if overwrite or not path.exists():
        return
    if _recorded_sha256(paths) != hashlib.sha256(path.read_bytes()).hexdigest():
        raise CourtbenchError(f"--out {paths.predictions}: {path} exists and was not written by "
                              "a courtbench react run (or was changed since); remove it or "
                              "pass --overwrite")


def case_record(episode: Episode, *, split: str, prediction: float | None,
                source: str | None) -> dict[str, Any]:
    """The ``{"kind": "case"}`` record (also the case's line in the responses file)."""
    context = episode.context
    references = list(dict.fromkeys(context.retrieved))
    return {"kind": "case", "case_id": context.case_id, "split": split,
            "status": "ok" if episode.status == FINAL_STATUS else episode.status,
            "failure_reason": episode.failure, "steps": len(episode.steps),
            "final": episode.final, "prediction": prediction, "prediction_source": source,
            "usage": {k: int(episode.usage.get(k, 0)) for k in
                      ("prompt_tokens", "completion_tokens", "total_tokens")},
            "references": references, "priors_used": context.priors_used,
            "modules_loaded": context.modules_loaded, "leakage_gate": episode.gate}


def trace_lines(episode: Episode, case: dict[str, Any]) -> list[dict[str, Any]]:
    """Every step record of ``episode`` then its case record."""
    return [{"kind": "step", "split": case["split"], **step} for step in episode.steps] + [case]


def write_traces(paths: OutputPaths, records: list[dict[str, Any]]) -> dict[str, str]:
    """Write the traces file atomically; returns its ``{"file", "sha256"}`` for the manifest."""
    data = jsonl(records).encode("utf-8")
    path = traces_path(paths)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                         suffix=".partial")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return {"file": path.name, "sha256": hashlib.sha256(data).hexdigest()}
