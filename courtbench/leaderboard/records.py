"""Turn a ``courtbench evaluate`` report into verified leaderboard records.

:func:`verified_records` is the whole check: the report's ``rerun`` block names the data
folder and prediction files; their fingerprint and hashes must match, the metric code must
give the same signature, and re-scoring must reproduce every number of every table. Only
then does the dataset plugin turn the fresh report into records
(:data:`courtbench.plugins.DatasetPlugin.leaderboard_records`).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import re
import tempfile
from pathlib import Path
from typing import Any

from courtbench import __version__
from courtbench.errors import CourtbenchError
from courtbench.hub import read_card_metadata, verify_folder
from courtbench.hub.files import fingerprint, list_files, sha256_file
from courtbench.leaderboard.protocol import check_rerun_shape, data_problem, table_for
from courtbench.leaderboard.rerun import metric_signature
from courtbench.leaderboard.results_schema import SCHEMA_VERSION, validate_result
from courtbench.plugins import DatasetPlugin, check_data_folder, load_plugins

#: Relative tolerance when comparing a reported number with its recomputation (JSON floats
#: round-trip exactly; the tolerance only absorbs last-bit differences across platforms).
RELATIVE_TOLERANCE = 1e-9


def read_report(report_dir: Path) -> dict[str, Any]:
    """``report_dir/report.json`` parsed strictly; CourtbenchError when missing or invalid."""
    path = Path(report_dir) / "report.json"
    try:
        document = json.loads(path.read_text(encoding="utf-8"),
                              parse_constant=lambda c: _reject_constant(path, c))
    except FileNotFoundError:
        raise CourtbenchError(f"{path}: not found; expected a folder written by "
                              "`courtbench evaluate`") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CourtbenchError(f"{path}: not valid JSON ({error})") from None
    provenance = document.get("provenance") if isinstance(document, dict) else None
    if not isinstance(provenance, dict) or "rerun" not in provenance:
        raise CourtbenchError(f"{path}: no provenance.rerun block; re-run `courtbench evaluate` "
                              "with this courtbench version to produce a report that can be "
                              "submitted")
    check_rerun_shape(provenance["rerun"], str(path))
    return document


def _reject_constant(path: Path, constant: str):
    raise CourtbenchError(f"{path}: contains {constant}, which is not JSON")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _dict_differences(reported: dict, fresh: dict, where: str) -> list[str]:
    """Keys only on one side, then the differences of the shared keys (sorted)."""
    found = [f"{where}.{key}: only in the {'report' if key in reported else 'rescore'}"
             for key in sorted(set(reported) ^ set(fresh))]
    for key in sorted(set(reported) & set(fresh)):
        found += _differences(reported[key], fresh[key], f"{where}.{key}")
    return found


def _list_differences(reported: list, fresh: list, where: str) -> list[str]:
    """A length mismatch, or the differences entry by entry."""
    if len(reported) != len(fresh):
        return [f"{where}: {len(reported)} entries in the report, {len(fresh)} rescored"]
    found = []
    for index, (a, b) in enumerate(zip(reported, fresh, strict=True)):
        found += _differences(a, b, f"{where}[{index}]")
    return found


def _differences(reported: Any, fresh: Any, where: str) -> list[str]:
    """Paths where two JSON values differ (numbers compared with a relative tolerance)."""
    if _is_number(reported) and _is_number(fresh):
        if math.isclose(reported, fresh, rel_tol=RELATIVE_TOLERANCE, abs_tol=1e-12):
            return []
    elif isinstance(reported, dict) and isinstance(fresh, dict):
        return _dict_differences(reported, fresh, where)
    elif isinstance(reported, list) and isinstance(fresh, list):
        return _list_differences(reported, fresh, where)
    elif reported == fresh:
        return []
    return [f"{where}: report {reported!r}, rescored {fresh!r}"]


def _table_differences(reported: dict, fresh: dict) -> list[str]:
    """Differences of the report tables, named by table, row (first cell) and column."""
    problems = []
    for name in sorted(set(reported) | set(fresh)):
        if name not in reported or name not in fresh:
            problems.append(f"table {name!r} only in the {'report' if name in reported else 'rescore'}")
            continue
        old, new = reported[name], fresh[name]
        if old.get("columns") != new.get("columns") or len(old["rows"]) != len(new["rows"]):
            problems.append(f"table {name!r}: columns or row count differ")
            continue
        for row_old, row_new in zip(old["rows"], new["rows"], strict=True):
            for column, a, b in zip(old["columns"], row_old, row_new, strict=True):
                if _differences(a, b, ""):
                    problems.append(f"table {name!r}, row {row_old[0]!r}, column {column!r}: "
                                    f"report {a!r}, rescored {b!r}")
    return problems


def check_inputs(rerun: dict[str, Any], modules_signature: str) -> None:
    """Refuse when the data folder, a prediction file or the metric signature changed.

    The data folder must be a Hub folder courtbench built for the report's dataset (its card
    says so) before anything in it is hashed: ``rerun.data = "/"`` is refused, not hashed.
    """
    data = Path(rerun["data"])
    try:
        check_data_folder(data, rerun["dataset"])
    except CourtbenchError as error:
        raise CourtbenchError(f"the report's data folder: {error}") from None
    found = fingerprint(list_files(data))
    if found != rerun["data_fingerprint"]:
        raise CourtbenchError(f"data fingerprint differs: report {rerun['data_fingerprint'][:16]}…, "
                              f"{data} now {found[:16]}… (the dataset changed since the report)")
    for system, entry in sorted(rerun["predictions"].items()):
        path = Path(entry["path"])
        if not path.is_file():
            raise CourtbenchError(f"predictions of system {system!r}: {path} not found")
        digest = sha256_file(path)
        if digest != entry["sha256"]:
            raise CourtbenchError(f"predictions of system {system!r} differ from the report: "
                                  f"{path} has sha256 {digest[:16]}…, report {entry['sha256'][:16]}…")
    if modules_signature != rerun["metric_signature"]:
        raise CourtbenchError(f"metric signature differs: report {rerun['metric_signature']!r}, "
                              f"this installation {modules_signature!r} (options or metric code "
                              "changed)")


def plugin_for_report(report: dict[str, Any]) -> DatasetPlugin:
    """The installed plugin that wrote ``report`` and can turn it into records."""
    name = report["provenance"]["rerun"].get("dataset")
    plugin = load_plugins().get(name)
    if plugin is None or plugin.leaderboard_records is None:
        raise CourtbenchError(f"report of dataset {name!r}: no installed plugin turns it into "
                              "leaderboard records")
    return plugin


def verified_records(report_dir: Path, *, systems: list[str] | None = None,
                     overrides: dict[str, Any] | None = None,
                     today: _dt.date | None = None,
                     accepted: dict[str, dict[str, str]] | None = None,
                     unofficial: bool = False) -> list[dict[str, Any]]:
    """Re-score the report in ``report_dir`` and return one valid record per system.

    Args:
        report_dir: a folder written by ``courtbench evaluate``.
        systems: the systems to keep (default: every system of the report).
        overrides: record fields to set on every record (``family``, ``model_size_b`` …).
        today: the record date (default: today, UTC).
        accepted: the results dataset's accepted data ``{benchmark: {fingerprint:
            data_kind}}``; ``None`` (``leaderboard init``, which declares it) skips that check.
        unofficial: put records off the protocol or off the accepted data into the
            labelled ``unofficial`` table instead of refusing them.

    Raises:
        CourtbenchError: the data, a predictions file, the metric signature or any number
            differs from the report, a named system is absent, the options are not the
            protocol's or the data not the accepted data (without ``unofficial``), or a
            record is invalid.
    """
    report = read_report(report_dir)
    rerun = report["provenance"]["rerun"]
    plugin = plugin_for_report(report)
    where = str(Path(report_dir) / "report.json")
    differences = (plugin.leaderboard_protocol(rerun["options"], where)
                   if plugin.leaderboard_protocol else [])
    check_inputs(rerun, metric_signature(rerun["options"], rerun.get("modules", ())))
    unknown = sorted(set(systems or ()) - set(rerun["predictions"]))
    if unknown:
        raise CourtbenchError(f"--systems {', '.join(unknown)}: not in the report; it has "
                              f"{', '.join(sorted(rerun['predictions']))}")
    data_kind = verified_data_kind(plugin, Path(rerun["data"]))
    if accepted is not None:
        problem = data_problem(plugin.name, rerun["data_fingerprint"], data_kind, accepted)
        differences += [problem] if problem else []
    table, reason = table_for(differences, unofficial)
    with tempfile.TemporaryDirectory(prefix="courtbench-rescore-") as scratch:
        fresh = plugin.rescore_report(rerun, Path(scratch) / "report")
    problems = _table_differences(report.get("tables", {}), fresh.get("tables", {}))
    if problems:
        raise CourtbenchError("numbers differ from a fresh re-scoring: " + "; ".join(problems[:5])
                              + (f" (+{len(problems) - 5} more)" if len(problems) > 5 else ""))
    common = {"schema": SCHEMA_VERSION, "benchmark": plugin.name, "data_kind": data_kind,
              "data_source": Path(rerun["data"]).name,
              "data_fingerprint": rerun["data_fingerprint"],
              "metric_signature": rerun["metric_signature"], "courtbench_version": __version__,
              "date": (today or _dt.datetime.now(_dt.timezone.utc).date()).isoformat(),
              "options_json": json.dumps(rerun["options"], sort_keys=True, default=str),
              "resamples": rerun["options"].get("resamples", 0),
              "leaderboard_table": table, "unofficial_reason": reason}
    return [_finished_record(record, common, rerun, overrides)
            for record in plugin.leaderboard_records(rerun, fresh,
                                                     systems or sorted(rerun["predictions"]))]


def verified_data_kind(plugin: DatasetPlugin, data: Path) -> str:
    """``synthetic`` or ``real``, from the data's own card, after the folder is verified
    (every config loads offline and matches the card, so the card describes this data; the
    fingerprint, which covers the card, is pinned by the results dataset's accepted data)."""
    del plugin  # the dataset audit is `courtbench verify`'s; the card check is what matters here
    try:
        verify_folder(data)
    except CourtbenchError as error:
        raise CourtbenchError(f"the report's data folder {data} does not verify: "
                              + "; ".join(str(error).splitlines()[:4])) from None
    tags = read_card_metadata(data).get("tags") or []
    return "synthetic" if "synthetic" in tags else "real"


def _finished_record(record: dict[str, Any], common: dict[str, Any], rerun: dict[str, Any],
                     overrides: dict[str, Any] | None) -> dict[str, Any]:
    """A plugin's record with the generic fields, runner fields and overrides; validated."""
    entry = rerun["predictions"][record["system"]]
    record = {**record, **common, "predictions_sha256": entry["sha256"],
              **_runner_fields(Path(entry["path"]), record["system"]), **(overrides or {})}
    record.setdefault("family", "baseline" if record.get("reference") else "other")
    problems = validate_result(record)
    if problems:
        raise CourtbenchError(f"record of system {record['system']!r} is invalid: "
                              + "; ".join(problems))
    return record


_SIZE = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*[bB](?![a-zA-Z])")


def model_size_from_name(name: str | None) -> float | None:
    """Billions of parameters read from a model name (``Qwen2.5-7B-Instruct`` → 7.0)."""
    match = _SIZE.search(name or "")
    return float(match.group(1)) if match else None


def _system_selection(settings: dict[str, Any], system: str) -> str | None:
    """How a baseline chose its settings, per system (``None`` for systems that select
    nothing, such as the constant baselines)."""
    per_system = settings.get("systems")
    if isinstance(per_system, dict):
        variant = (per_system.get(system) or {}).get("variant") or {}
        selection = variant.get("selection")
        return selection if isinstance(selection, str) and selection != "none" else None
    selection = settings.get("selection")
    return selection if isinstance(selection, str) else None


def _runner_fields(predictions: Path, system: str) -> dict[str, Any]:
    """Model, endpoint, parameters and prompt hashes from a runner's manifest beside the
    predictions (``<file name>.manifest.json``), or the baseline settings (``settings.json``)."""
    fields: dict[str, Any] = {"model_name": None, "model_size_b": None, "endpoint_host": None,
                              "selection": None, "parameters_json": "{}",
                              "prompt_hashes_json": "{}"}
    from courtbench.output_files import legacy_manifest_path, manifest_path

    manifest = manifest_path(predictions)
    if not manifest.is_file():  # written by courtbench before manifests carried the full name
        manifest = legacy_manifest_path(predictions)
    settings = predictions.with_name("settings.json")
    if manifest.is_file():
        document = json.loads(manifest.read_text(encoding="utf-8"))
        model = document.get("model")
        fields.update(model_name=model, model_size_b=model_size_from_name(model),
                      endpoint_host=document.get("endpoint_host") or document.get("endpoint"),
                      parameters_json=json.dumps(document.get("parameters", {}), sort_keys=True),
                      prompt_hashes_json=json.dumps(
                          document.get("template_sha256") or document.get("prompt_sha256") or {},
                          sort_keys=True),
                      family="llm")
    elif settings.is_file():
        document = json.loads(settings.read_text(encoding="utf-8"))
        fields.update(selection=_system_selection(document, system),
                      parameters_json=json.dumps({k: v for k, v in document.items()
                                                  if k not in ("data",)}, sort_keys=True,
                                                 default=str))
    if not isinstance(json.loads(fields["prompt_hashes_json"]), dict):
        fields["prompt_hashes_json"] = json.dumps({"prompt": json.loads(fields["prompt_hashes_json"])})
    return fields
