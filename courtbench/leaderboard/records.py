"""Turn a ``courtbench evaluate`` report into self-verifying leaderboard records.

:func:`verified_records` is the whole check on the submitting side: the report's ``rerun``
block names the data folder and prediction files; their fingerprint and hashes must match,
the metric code must give the same signature, and re-scoring must reproduce every number of
every table. Then the dataset plugin turns each system into a record carrying its predictions
(:data:`courtbench.plugins.DatasetPlugin.leaderboard_records`), the benchmark's verifier
computes every number of it from those predictions and the data's gold values — the same
computation ``leaderboard check`` and the leaderboard Space repeat — and the plugin's cross
check compares them with the re-scored report (the metric modules), so a record is sent only
when both agree.

A submission never claims a reference row: a system named like a reference baseline (ignoring
case and Unicode width) is refused; only ``courtbench leaderboard init``
(:func:`reference_records`) writes reference rows. A runner's manifest beside a predictions
file is read with the shared validator: an incomplete run, or one whose cases were filled
with a fallback, is no official record (``--unofficial`` puts it into the labelled table).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from courtbench import __version__
from courtbench.boundary import BoundaryError, loads_bounded, name_key
from courtbench.errors import CourtbenchError
from courtbench.hub import read_card_metadata, verify_folder
from courtbench.hub.files import fingerprint, list_files, sha256_file
from courtbench.leaderboard.protocol import check_rerun_shape, data_problem, table_for
from courtbench.leaderboard.record_check import (
    Bootstrap,
    figure_problems,
    paired_test_against,
    predictions_digest,
    recompute,
)
from courtbench.leaderboard.rerun import metric_signature
from courtbench.leaderboard.results_schema import SCHEMA_VERSION, validate_result
from courtbench.output_files import read_manifest, run_status
from courtbench.plugins import DatasetPlugin, check_data_folder, load_plugins

#: Relative tolerance when comparing a reported number with its recomputation (JSON floats
#: round-trip exactly; the tolerance only absorbs last-bit differences across platforms).
RELATIVE_TOLERANCE = 1e-9
#: Largest report.json read (characters).
MAX_REPORT_CHARS = 512 * 2**20


def read_report(report_dir: Path) -> dict[str, Any]:
    """``report_dir/report.json`` parsed with the shared validator; CourtbenchError when the
    folder or file is missing or invalid (checked before anything else, network included)."""
    folder = Path(report_dir)
    if not folder.is_dir():
        raise CourtbenchError(f"REPORT_DIR {folder}: {'not a folder' if folder.exists() else 'no such folder'}; "
                              "expected a folder written by `courtbench evaluate`")
    path = folder / "report.json"
    try:
        document = loads_bounded(path.read_text(encoding="utf-8"), str(path),
                                 max_chars=MAX_REPORT_CHARS)
    except FileNotFoundError:
        raise CourtbenchError(f"{path}: not found; expected a folder written by "
                              "`courtbench evaluate`") from None
    except UnicodeDecodeError as error:
        raise CourtbenchError(f"{path}: not UTF-8 ({error.reason} at byte {error.start})") from None
    except BoundaryError as error:
        raise CourtbenchError(f"{path}: {error.expected}") from None
    provenance = document.get("provenance") if isinstance(document, dict) else None
    if not isinstance(provenance, dict) or "rerun" not in provenance:
        raise CourtbenchError(f"{path}: no provenance.rerun block; re-run `courtbench evaluate` "
                              "with this courtbench version to produce a report that can be "
                              "submitted")
    check_rerun_shape(provenance["rerun"], str(path))
    return document


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
    if (plugin is None or plugin.leaderboard_records is None
            or plugin.leaderboard_verifier is None):
        raise CourtbenchError(f"report of dataset {name!r}: no installed plugin turns it into "
                              "leaderboard records")
    return plugin


@dataclass
class Selection:
    """Which systems of a report become records, and which are left out with the reason."""

    systems: list[str]
    left_out: dict[str, str] = field(default_factory=dict)


def _reference_names(spec, pinned: dict[str, str] | None) -> dict[str, str]:
    """``{name_key: name}`` of the benchmark's reference baselines (and those the results
    dataset's card lists)."""
    names = {name_key(n): n for n in spec.references}
    names.update({name_key(n): n for n in (pinned or {})})
    return names


def _init_selection(available: list[str], references: dict) -> Selection:
    chosen = [s for s in available if name_key(s) in references]
    return Selection(chosen, {s: "not a reference baseline of the benchmark (submit it with "
                                 "`courtbench submit`)" for s in available if s not in chosen})


def select_systems(available: list[str], requested: list[str] | None, references: dict,
                   *, init: bool) -> Selection:
    """The systems to turn into records.

    ``init``: the report's reference baselines (the others are left out with why).
    Otherwise the requested systems (default: every system that is not a reference
    baseline; the reference ones are left out, their rows come from init); requesting one
    named like a reference baseline is refused.
    """
    unknown = sorted(set(requested or ()) - set(available))
    if unknown:
        raise CourtbenchError(f"--systems {', '.join(unknown)}: not in the report; it has "
                              f"{', '.join(sorted(available))}")
    if init:
        return _init_selection(available, references)
    claimed = [s for s in (requested or ()) if name_key(s) in references]
    if claimed:
        raise CourtbenchError(
            f"system(s) {', '.join(claimed)}: the name of a reference baseline "
            f"({', '.join(references[name_key(s)] for s in claimed)}); reference rows come only "
            "from `courtbench leaderboard init`: name your predictions file otherwise (the "
            "system is named after it) and evaluate again")
    if requested:
        return Selection(list(requested))
    chosen = [s for s in available if name_key(s) not in references]
    return Selection(chosen, {s: "a reference baseline (its row comes from `courtbench "
                                 "leaderboard init`)" for s in available if s not in chosen})


def verified_records(report_dir: Path, *, systems: list[str] | None = None,
                     overrides: dict[str, Any] | None = None,
                     today: _dt.date | None = None,
                     accepted: dict[str, dict[str, str]] | None = None,
                     references: dict[str, dict[str, str]] | None = None,
                     unofficial: bool = False, init: bool = False) -> list[dict[str, Any]]:
    """Re-score the report in ``report_dir`` and return one valid record per system.

    Args:
        report_dir: a folder written by ``courtbench evaluate``.
        systems: the systems to keep (default: every system of the report that is not a
            reference baseline).
        overrides: record fields to set on every record (``family``, ``model_size_b`` …).
        today: the record date (default: today, UTC).
        accepted: the results dataset's accepted data ``{benchmark: {fingerprint:
            data_kind}}``; ``None`` (``leaderboard init``, which declares it) skips that check.
        references: the results dataset's reference rows ``{benchmark: {system: predictions
            digest}}``; paired tests are computed only against these (None: against the
            report's reference baselines).
        unofficial: put records off the protocol, or of an incomplete or fallback-filled run,
            into the labelled ``unofficial`` table instead of refusing them.
        init: build the reference rows (``leaderboard init``) instead of a submission.

    Raises:
        CourtbenchError: the data, a predictions file, the metric signature or any number
            differs from the report, a named system is absent or claims a reference name,
            the options are not the protocol's, the run not complete (without
            ``unofficial``), the data not the accepted data, or a record is invalid.
    """
    return build_records(report_dir, systems=systems, overrides=overrides, today=today,
                         accepted=accepted, references=references, unofficial=unofficial,
                         init=init)[0]


def reference_records(report_dir: Path) -> tuple[list[dict[str, Any]], dict[str, str], dict]:
    """``(reference records, {left-out system: why}, gold file)`` of a reference report, for
    ``courtbench leaderboard init``."""
    records, selection, gold = build_records(report_dir, init=True)
    return records, selection.left_out, gold


def _common_fields(plugin: DatasetPlugin, rerun: dict[str, Any], data_kind: str,
                   today: _dt.date | None) -> dict[str, Any]:
    return {"schema": SCHEMA_VERSION, "benchmark": plugin.name, "data_kind": data_kind,
            "data_source": Path(rerun["data"]).name,
            "data_fingerprint": rerun["data_fingerprint"],
            "metric_signature": rerun["metric_signature"], "courtbench_version": __version__,
            "date": (today or _dt.datetime.now(_dt.timezone.utc).date()).isoformat(),
            "options_json": json.dumps(rerun["options"], sort_keys=True, default=str),
            "resamples": rerun["options"].get("resamples", 0)}


def _checked_report(report_dir: Path):
    """``(report, rerun, plugin, verifier spec, protocol differences)`` after the report's
    inputs (data fingerprint, prediction hashes, metric signature) were checked."""
    report = read_report(report_dir)
    rerun = report["provenance"]["rerun"]
    plugin = plugin_for_report(report)
    spec = plugin.leaderboard_verifier()
    where = str(Path(report_dir) / "report.json")
    differences = (plugin.leaderboard_protocol(rerun["options"], where)
                   if plugin.leaderboard_protocol else [])
    check_inputs(rerun, metric_signature(rerun["options"], rerun.get("modules", ())))
    return report, rerun, plugin, spec, differences


def _check_accepted(plugin, rerun, data_kind: str, accepted) -> None:
    if accepted is None:
        return
    problem = data_problem(plugin.name, rerun["data_fingerprint"], data_kind, accepted)
    if problem:
        raise CourtbenchError("not comparable with the leaderboard: " + problem
                              + " (records are recomputed against the accepted data's gold "
                              "values; data the results dataset does not accept cannot be "
                              "submitted)")


def _rescored(report: dict, rerun: dict, plugin) -> dict:
    """The report re-scored from its rerun block; CourtbenchError when a number differs."""
    with tempfile.TemporaryDirectory(prefix="courtbench-rescore-") as scratch:
        fresh = plugin.rescore_report(rerun, Path(scratch) / "report")
    problems = _table_differences(report.get("tables", {}), fresh.get("tables", {}))
    if problems:
        raise CourtbenchError("numbers differ from a fresh re-scoring: " + "; ".join(problems[:5])
                              + (f" (+{len(problems) - 5} more)" if len(problems) > 5 else ""))
    return fresh


def build_records(report_dir: Path, *, systems=None, overrides=None, today=None, accepted=None,
                  references=None, unofficial=False, init=False):
    """:func:`verified_records`, also returning the :class:`Selection` and the gold file."""
    report, rerun, plugin, spec, differences = _checked_report(report_dir)
    pinned = (references or {}).get(plugin.name)
    selection = select_systems(sorted(rerun["predictions"]), systems,
                               _reference_names(spec, pinned), init=init)
    if not selection.systems:
        raise CourtbenchError(f"{report_dir}: no system to turn into records ("
                              + "; ".join(f"{s}: {why}" for s, why in
                                          sorted(selection.left_out.items())) + ")")
    table_for(differences, unofficial)  # off the protocol without --unofficial: refused now
    data_kind = verified_data_kind(plugin, Path(rerun["data"]))
    _check_accepted(plugin, rerun, data_kind, accepted)
    fresh = _rescored(report, rerun, plugin)
    try:
        gold = spec.gold(Path(rerun["data"]))
    except CourtbenchError as error:
        raise CourtbenchError(f"the leaderboard recomputes records against gold values of "
                              f"the data, and this data has none: {error}") from None
    builder = _Builder(plugin, spec, rerun, fresh, gold,
                       _common_fields(plugin, rerun, data_kind, today))
    compared = [s for s in spec.paired_against if s in rerun["predictions"]
                and (pinned is None or s in pinned)]
    built = builder.build(sorted(set(selection.systems) | set(compared)), overrides)
    records = []
    for system in selection.systems:
        builder.add_tests(built, system, [s for s in compared if s != system], pinned)
        record = built[system][0]
        table, reason = table_for(differences + builder.run_problems(system), unofficial)
        record.update(leaderboard_table=table, unofficial_reason=reason, reference=bool(init))
        _final_check(record, built[system][1], spec)
        records.append(record)
    return records, selection, gold


def _final_check(record: dict[str, Any], expected: dict[str, Any], spec) -> None:
    """The record is what ``leaderboard check`` will accept: valid shape, every number its
    recomputation."""
    problems = validate_result(record) + figure_problems(record, expected,
                                                        tuple(spec.module.AS_SUBMITTED))
    if problems:
        raise CourtbenchError(f"record of system {record['system']!r} is invalid: "
                              + "; ".join(problems[:5]))


class _Builder:
    """Records of one report: skeletons from the plugin, numbers from the verifier, checked
    against the re-scored report."""

    def __init__(self, plugin, spec, rerun, fresh, gold, common):
        self.plugin, self.spec, self.rerun, self.fresh = plugin, spec, rerun, fresh
        self.gold, self.common = gold, common
        self.bootstrap = Bootstrap()
        self.status: dict[str, dict] = {}

    def build(self, systems: list[str], overrides: dict | None) -> dict[str, tuple]:
        """``{system: (record, verifier result)}``."""
        built = {}
        for skeleton in self.plugin.leaderboard_records(self.rerun, self.fresh, systems):
            record = self._finished(skeleton, overrides)
            if record["split"] != self.gold["split"]:
                raise CourtbenchError(
                    f"system {record['system']!r}: scored on the {record['split']} split; the "
                    f"leaderboard recomputes records against the {self.gold['split']} split's "
                    "gold values (evaluate it on that split)")
            try:
                expected = complete_record(record, self.gold, self.spec.module, self.bootstrap)
            except ValueError as error:
                raise CourtbenchError(f"system {record['system']!r}: {error}") from None
            disagreement = self.spec.cross_check(self.fresh, record, self.gold)
            if disagreement:
                raise CourtbenchError(
                    f"system {record['system']!r}: the leaderboard's verifier and the metric "
                    "modules disagree (please report this): " + "; ".join(disagreement[:5]))
            built[record["system"]] = (record, expected)
        return built

    def _finished(self, skeleton: dict[str, Any], overrides: dict | None) -> dict[str, Any]:
        system = skeleton["system"]
        path = Path(self.rerun["predictions"][system]["path"])
        fields, status = runner_fields(path, system)
        self.status[system] = status
        record = {"per_item": [], "per_item_name": None, "per_item_lower_is_better": True,
                  "leaderboard_table": "main", "unofficial_reason": None,
                  **skeleton, **self.common,
                  "predictions_sha256": self.rerun["predictions"][system]["sha256"], **fields,
                  "run_complete": status["complete"], "failure_share": status["failure_share"],
                  "fallback_share": status["fallback_share"]}
        if skeleton.get("family"):
            record["family"] = skeleton["family"]
        record.update(overrides or {})
        record.setdefault("family", "other")
        return record

    def add_tests(self, built: dict, system: str, against: list[str],
                  pinned: dict[str, str] | None) -> None:
        """Paired tests of ``system`` against each reference of ``against`` whose predictions
        are the results dataset's reference row (``pinned``; all when None)."""
        record, expected = built[system]
        for other in against:
            theirs = built[other]
            if pinned is not None and pinned.get(other) != predictions_digest(theirs[0]):
                continue  # not the leaderboard's reference row: no test the check can redo
            add_paired_test(record, expected, other, theirs[1], self.bootstrap)

    def run_problems(self, system: str) -> list[str]:
        """Why a system's run is no official record: incomplete, or cases filled with a
        fallback (from its validated manifest)."""
        status = self.status[system]
        problems = []
        if status["complete"] is False:
            problems.append(f"system {system!r}: its run is incomplete (its manifest says "
                            "complete: false)")
        if status["fallback_share"]:
            problems.append(f"system {system!r}: {100 * status['fallback_share']:.1f}% of its "
                            "cases hold the fallback's prediction, not the model's (manifest)")
        return problems


def complete_record(record: dict[str, Any], gold: dict[str, Any], verifier,
                    bootstrap: Bootstrap) -> dict[str, Any]:
    """Fill in every number of ``record`` (its predictions, options and identity set) with
    the benchmark's ``verifier`` against ``gold``; returns the verifier's result (what a
    paired test against this record needs). Its as-submitted metrics and their breakdown
    tables are kept after the recomputed ones.

    Raises:
        ValueError: the verifier refuses the predictions or options (BoundaryError included).
    """
    expected = recompute(verifier, record, gold, bootstrap)
    kept = [m for m in record["metrics"] if m.get("as_submitted") is not None]
    tables = {m["name"] for m in kept}
    record["metrics"] = [*expected["metrics"], *kept]
    record["breakdowns"] = [*expected["breakdowns"],
                            *[b for b in record["breakdowns"] if b["table"] in tables]]
    record.update(per_item=[float(v) for v in expected["per_item"]],
                  per_item_name=expected["per_item_name"],
                  per_item_lower_is_better=expected["per_item_lower_is_better"])
    return expected


def add_paired_test(record: dict[str, Any], expected: dict[str, Any], against: str,
                    other: dict[str, Any], bootstrap: Bootstrap) -> bool:
    """Append the paired test of ``record`` against system ``against`` (its verifier result
    ``other``); False when ``against`` does not cover the record's items."""
    test = paired_test_against(expected, other, bootstrap)
    if test is None:
        return False
    record["paired_tests"].append({"against": against, **{
        key: test[key] for key in ("delta", "ci_low", "ci_high", "p_better")}})
    return True


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


_SIZE = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*[bB](?![a-zA-Z])")


def model_size_from_name(name: str | None) -> float | None:
    """Billions of parameters read from a model name (``Qwen2.5-7B-Instruct`` → 7.0)."""
    match = _SIZE.search(name or "")
    if not match:
        return None
    size = float(match.group(1))
    return size if 0 < size < 1e6 else None


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


def _text_or_none(value: Any, limit: int = 1000) -> str | None:
    return value[:limit] if isinstance(value, str) and value else None


def runner_fields(predictions: Path, system: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Model, endpoint, parameters and prompt hashes from a runner's manifest beside the
    predictions (``<file name>.manifest.json``, validated), or the baseline settings
    (``settings.json``); and the run's status (:func:`courtbench.output_files.run_status`)."""
    fields: dict[str, Any] = {"model_name": None, "model_size_b": None, "endpoint_host": None,
                              "selection": None, "parameters_json": "{}",
                              "prompt_hashes_json": "{}"}
    manifest = read_manifest(predictions)
    settings = predictions.with_name("settings.json")
    if manifest is not None:
        model = _text_or_none(manifest.get("model"))
        hashes = manifest.get("template_sha256") or manifest.get("prompt_sha256") or {}
        fields.update(model_name=model, model_size_b=model_size_from_name(model),
                      endpoint_host=_text_or_none(manifest.get("endpoint_host")
                                                  or manifest.get("endpoint")),
                      parameters_json=_json_text(manifest.get("parameters", {})),
                      prompt_hashes_json=_json_text(hashes if isinstance(hashes, dict)
                                                    else {"prompt": hashes}),
                      family="llm")
    elif settings.is_file():
        document = loads_bounded(settings.read_text(encoding="utf-8"), str(settings),
                                 max_chars=MAX_REPORT_CHARS)
        fields.update(selection=_system_selection(document, system),
                      parameters_json=_json_text({k: v for k, v in document.items()
                                                  if k not in ("data",)}))
    return fields, run_status(manifest)


def _json_text(value: Any) -> str:
    """JSON text of ``value`` (sorted keys), at most the schema's 100,000 characters."""
    text = json.dumps(value if isinstance(value, dict) else {"value": value}, sort_keys=True,
                      default=str, allow_nan=False)
    if len(text) > 100_000:
        return json.dumps({"truncated": True, "keys": sorted(map(str, value))[:100]}
                          if isinstance(value, dict) else {"truncated": True})
    return text
