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


def case_record(agent: dict[str, Any], *, case_id: str, split: str,
                prediction: float | None, source: str | None,
                error: str | None = None) -> dict[str, Any]:
    """The ``{"kind": "case"}`` record (also the case's line in the responses file) of a
    case's outcome in the Inspect log (the solver's store record; empty when the sample
    failed before it, ``error`` then says why)."""
    return {"kind": "case", "case_id": case_id, "split": split,
            "status": agent.get("status", "request_failed"),
            "failure_reason": agent.get("reason") if agent else error,
            "steps": agent.get("steps", 0), "final": agent.get("final"),
            "prediction": prediction, "prediction_source": source,
            "usage": agent.get("usage") or dict.fromkeys(
                ("prompt_tokens", "completion_tokens", "total_tokens"), 0),
            "references": agent.get("references", []),
            "priors_used": agent.get("priors_used", []),
            "modules_loaded": agent.get("modules_loaded", []),
            "leakage_gate": agent.get("leakage_gate")}


def trace_lines(steps: list[dict[str, Any]], case: dict[str, Any]) -> list[dict[str, Any]]:
    """Every step record of a case (from the sample's store) then its case record."""
    return [{"kind": "step", "split": case["split"], **step} for step in steps] + [case]


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
