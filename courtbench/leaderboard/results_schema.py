"""The leaderboard's result record: one JSON object per (benchmark, system), one file each.

This file is the one source of the record schema: ``courtbench submit`` (which writes
records) and ``leaderboard check`` import it from here, and the leaderboard Space (which reads
them) receives it as a real file (a link in ``courtbench/spaces/leaderboard/`` in a
checkout). It imports only the standard library, ``numpy`` and its sibling files
(``boundary.py``, the shared validator, and ``paired_bootstrap.py``), so the Space runs it
without courtbench installed. Every record has the same flat shape for every benchmark, so
that ``datasets.load_dataset`` reads a folder of them as one table:

- identity: ``benchmark``, ``system``, ``family`` (``baseline``, ``tree``, ``llm`` …),
  ``reference`` (a reference baseline of the benchmark: only ``courtbench leaderboard init``
  writes one, and the results dataset's card lists it), ``model_name``, ``model_size_b``
  (billions of parameters when known), ``endpoint_host``, ``selection`` (how settings were
  chosen: ``validation``, ``rolling`` … or null);
- reproducibility: ``parameters_json`` and ``prompt_hashes_json`` (JSON text: their keys differ
  per system), ``data_kind`` (``real`` or ``synthetic``), ``data_source``,
  ``data_fingerprint``, ``metric_signature``, ``predictions_sha256``, ``courtbench_version``,
  ``date`` (YYYY-MM-DD);
- what was predicted (schema 2): ``predicted_values`` (one number per test item, in the order
  of the accepted data's gold file) or ``predicted_texts`` (one text per item, null for an
  item outside the system's scope); the other list is empty. Every number below is
  recomputed from them against the gold values (:mod:`record_check`);
- the run (from a runner's manifest, null without one): ``run_complete``,
  ``failure_share`` and ``fallback_share`` (shares of the run's items, 0–1);
- results: ``metrics`` (``name``, ``value``, ``ci_low``, ``ci_high``, ``lower_is_better``,
  ``primary``, ``as_submitted``: null for a number recomputed from the predictions, else the
  protocol of a number that needs a model to recompute, shown "as submitted"),
  ``breakdowns`` (``table``, ``row``, ``column``, ``value``: views, language pairs …),
  ``paired_tests`` against reference systems (``against``, ``delta``, ``ci_low``,
  ``ci_high``, ``p_better``), and ``per_item`` (one number per scored item, in the gold
  order, named by ``per_item_name`` with ``per_item_lower_is_better``), which lets the page
  run a paired bootstrap between any two systems scored on the same data.

Every number passes the shared validator (``boundary.py``): finite, within its quantity's
range, integers within 64 bits. Records of schema 1 carry no predictions: they are refused
with that reason (resubmit them).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np

try:  # courtbench.leaderboard.results_schema (a package) or the Space's top-level module
    from .boundary import (
        INT64_MAX,
        INT64_MIN,
        BoundaryError,
        check_count,
        check_number,
        check_quantity,
        loads_bounded,
        name_key,
        shown,
        text_problem,
        visible,
    )
    from .paired_bootstrap import compare_paired
except ImportError:
    from boundary import (
        INT64_MAX,
        INT64_MIN,
        BoundaryError,
        check_count,
        check_number,
        check_quantity,
        loads_bounded,
        name_key,
        shown,
        text_problem,
        visible,
    )
    from paired_bootstrap import compare_paired

SCHEMA_VERSION = "courtbench-result/2"
#: Earlier schemas, each with the reason its records are refused.
LEGACY_SCHEMAS = {
    "courtbench-result/1": "a record of schema courtbench-result/1 carries no predictions, so "
                           "its numbers cannot be recomputed; resubmit the system with "
                           "`courtbench submit` (schema courtbench-result/2)",
}
DATA_KINDS = ("real", "synthetic")
MAX_PER_ITEM = 1_000_000
#: Limits that keep every accepted record cheap to read and to show (a record beyond them is
#: refused, never truncated into the table).
MAX_RECORD_BYTES = 64 * 2**20
MAX_FILES = 10_000
MAX_INT_DIGITS = 20
MAX_TEXT_CHARS = 1000
MAX_JSON_TEXT_CHARS = 100_000
MAX_LIST_ITEMS = 10_000
#: Longest predicted text (characters) a record may hold.
MAX_PREDICTION_CHARS = 200_000
#: Most bootstrap resamples a record may name (the check repeats them).
MAX_RESAMPLES = 100_000
#: Largest model size (billions of parameters).
MAX_MODEL_SIZE_B = 1e6

_SHOWN_LIMIT = 60


def short(value) -> str:
    """``repr`` of a value for a message, cut short (a 10 MB name or a 400-digit number never
    ends up in a message in full)."""
    return shown(value, _SHOWN_LIMIT)


_METRIC_FIELDS = {"name": str, "value": float, "ci_low": float, "ci_high": float,
                  "lower_is_better": bool, "primary": bool, "as_submitted": str}
_BREAKDOWN_FIELDS = {"table": str, "row": str, "column": str, "value": float}
_TEST_FIELDS = {"against": str, "delta": float, "ci_low": float, "ci_high": float,
                "p_better": float}

#: field → (type, may be null). Floats accept ints.
FIELDS: dict[str, tuple[type, bool]] = {
    "schema": (str, False), "benchmark": (str, False), "system": (str, False),
    "family": (str, False), "reference": (bool, False), "model_name": (str, True),
    "model_size_b": (float, True), "endpoint_host": (str, True), "selection": (str, True),
    "parameters_json": (str, False), "prompt_hashes_json": (str, False),
    "data_kind": (str, False), "data_source": (str, False), "data_fingerprint": (str, False),
    "metric_signature": (str, False), "predictions_sha256": (str, False),
    "courtbench_version": (str, False), "date": (str, False), "metrics": (list, False),
    "breakdowns": (list, False), "paired_tests": (list, False), "per_item_name": (str, True),
    "per_item_lower_is_better": (bool, False), "per_item": (list, False),
    "predicted_values": (list, False), "predicted_texts": (list, False),
    "run_complete": (bool, True), "failure_share": (float, True),
    "fallback_share": (float, True),
}

#: What was scored and how, and the table a record belongs in (``courtbench submit`` refuses
#: records off the protocol unless ``--unofficial`` puts them into the labelled
#: ``unofficial`` table): ``split`` scored, ``scope`` (views, language pairs),
#: ``options_json`` (every evaluation option, JSON text), ``resamples`` (bootstrap),
#: ``leaderboard_table`` (``main`` or ``unofficial``) and ``unofficial_reason``.
COMPARABILITY_FIELDS: dict[str, tuple[type, bool]] = {
    "split": (str, False), "scope": (str, False), "options_json": (str, False),
    "resamples": (float, False), "leaderboard_table": (str, False),
    "unofficial_reason": (str, True),
}
LEADERBOARD_TABLES = ("main", "unofficial")
FIELDS.update(COMPARABILITY_FIELDS)
#: Card key of the results dataset that lists its accepted data: ``{benchmark: {data
#: fingerprint: data_kind}}`` (read by ``courtbench submit`` and by the leaderboard Space).
ACCEPTED_KEY = "courtbench_accepted_data"
#: Card key pinning each accepted data's gold file: ``{benchmark: {fingerprint: sha256 of
#: gold/<benchmark>/<fingerprint>.json}}`` (written by ``courtbench leaderboard init``).
GOLD_KEY = "courtbench_gold"
#: Card key listing the reference rows: ``{benchmark: {system: predictions_sha256}}``
#: (written by ``courtbench leaderboard init``; no other record may claim ``reference``).
REFERENCES_KEY = "courtbench_references"

_DTYPES = {str: "string", bool: "bool", float: "float64"}
#: ``datasets`` features of a record, written into the results repository's card.
FEATURES_YAML: list[dict] = (
    [{"name": name, "dtype": _DTYPES[kind]} for name, (kind, _) in FIELDS.items()
     if kind is not list]
    + [{"name": "metrics", "list": [{"name": k, "dtype": _DTYPES[t]}
                                    for k, t in _METRIC_FIELDS.items()]},
       {"name": "breakdowns", "list": [{"name": k, "dtype": _DTYPES[t]}
                                       for k, t in _BREAKDOWN_FIELDS.items()]},
       {"name": "paired_tests", "list": [{"name": k, "dtype": _DTYPES[t]}
                                         for k, t in _TEST_FIELDS.items()]},
       {"name": "per_item", "sequence": "float64"},
       {"name": "predicted_values", "sequence": "float64"},
       {"name": "predicted_texts", "sequence": "string"}])

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+\-]{0,99}$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


def _problem(check, *args, **kwargs) -> str | None:
    """The message of the BoundaryError ``check(*args, **kwargs)`` raises, or None."""
    try:
        check(*args, **kwargs)
    except BoundaryError as error:
        return str(error)
    return None


def _type_problem(value, kind: type, nullable: bool, where: str) -> str | None:
    """Why ``value`` is not of ``kind`` (a number: finite), or too long; None when fine."""
    if value is None:
        return None if nullable else f"{where}: null; expected a value"
    if kind is float:
        return _problem(check_number, value, where)
    if kind is bool and not isinstance(value, bool):
        return f"{where}: {type(value).__name__}; expected true/false"
    if not isinstance(value, kind):
        return f"{where}: {type(value).__name__}; expected {kind.__name__}"
    if kind is str and len(value) > MAX_TEXT_CHARS:
        return f"{where}: {len(value):,} characters; expected at most {MAX_TEXT_CHARS}"
    if kind is list and len(value) > MAX_LIST_ITEMS:
        return f"{where}: {len(value):,} entries; expected at most {MAX_LIST_ITEMS:,}"
    return None


def _struct_problems(items, fields: dict, where: str, nullable: set[str]) -> list[str]:
    problems = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            problems.append(f"{where}[{index}]: expected an object")
            continue
        if set(item) != set(fields):
            problems.append(f"{where}[{index}]: keys {short(sorted(map(str, item)))}; expected "
                            f"{sorted(fields)}")
            continue
        for key, kind in fields.items():
            problem = _type_problem(item[key], kind, key in nullable, f"{where}[{index}].{key}")
            if problem:
                problems.append(problem)
    return problems


_LONG_LISTS = ("per_item", "predicted_values", "predicted_texts")
_LONG_TEXTS = ("parameters_json", "prompt_hashes_json", "options_json")


def _shape_problems(record: dict) -> list[str]:
    """Unknown, missing and mistyped fields."""
    problems = [f"unknown field {short(key)}" for key in sorted(set(record) - set(FIELDS))]
    problems += [f"missing field {key!r}" for key in FIELDS if key not in record]
    if problems:
        return problems
    for key, (kind, nullable) in FIELDS.items():
        value = record[key]
        if key in _LONG_TEXTS and isinstance(value, str):
            problem = (f"{key}: {len(value):,} characters; expected at most "
                       f"{MAX_JSON_TEXT_CHARS:,}" if len(value) > MAX_JSON_TEXT_CHARS else None)
        elif key in _LONG_LISTS and isinstance(value, list):
            problem = (f"{key}: {len(value):,} values; expected at most {MAX_PER_ITEM:,}"
                       if len(value) > MAX_PER_ITEM else None)
        else:
            problem = _type_problem(value, kind, nullable, key)
        if problem:
            problems.append(problem)
    return problems


def _json_object_problem(record: dict, key: str) -> str | None:
    try:
        document = loads_bounded(record[key], key, max_chars=MAX_JSON_TEXT_CHARS,
                                 max_int_digits=MAX_INT_DIGITS)
    except BoundaryError as error:
        return str(error)
    return None if isinstance(document, dict) else f"{key}: expected a JSON object as text"


def _range_problems(record: dict) -> list[str]:
    """Model size and run shares out of their ranges."""
    checks = []
    if record["model_size_b"] is not None:
        checks.append(_problem(check_number, record["model_size_b"], "model_size_b", low=0,
                               high=MAX_MODEL_SIZE_B, low_open=True,
                               what="billions of parameters"))
    checks += [_problem(check_quantity, record[key], key, "probability")
               for key in ("failure_share", "fallback_share") if record[key] is not None]
    return [problem for problem in checks if problem]


def _value_problems(record: dict) -> list[str]:
    """Fields of the right type whose value is not allowed."""
    problems = [f"{key}: {short(record[key])}; expected 1-100 of A-Z a-z 0-9 _ . + -"
                for key in ("benchmark", "system", "family") if not _NAME.match(record[key])]
    if record["data_kind"] not in DATA_KINDS:
        problems.append(f"data_kind: {short(record['data_kind'])}; expected one of {DATA_KINDS}")
    if not _SHA256.match(record["data_fingerprint"]):
        problems.append(f"data_fingerprint: {short(record['data_fingerprint'])}; expected 64 "
                        "lower-case hex digits")
    if not _DATE.match(record["date"]) or not _is_date(record["date"]):
        problems.append(f"date: {short(record['date'])}; expected a date YYYY-MM-DD")
    problems += [p for key in _LONG_TEXTS if (p := _json_object_problem(record, key))]
    return problems + _range_problems(record)


def _number_list_problem(values: list, key: str) -> str | None:
    """The first entry of ``values`` that is not a finite number (checked over the whole list
    at once; the entry found is then named by the shared validator)."""
    if set(map(type, values)) <= {float, int}:
        try:
            finite = np.isfinite(np.asarray(values, dtype=np.float64))
        except OverflowError:  # an int beyond float range
            finite = np.array([math.isfinite(float(v)) if abs(v) < 2**1023 else False
                               for v in values])
        if finite.all():
            return None
        index = int(np.flatnonzero(~finite)[0])
        return _problem(check_number, values[index], f"{key}[{index}]")
    index = next(i for i, v in enumerate(values) if type(v) not in (float, int))
    return _type_problem(values[index], float, False, f"{key}[{index}]")


def _text_list_problem(values: list) -> str | None:
    """The first predicted text that is not null or a valid text (no NUL, no lone
    surrogate, at most :data:`MAX_PREDICTION_CHARS`); a blank prediction is valid."""
    for index, value in enumerate(values):
        where = f"predicted_texts[{index}]"
        if value is None:
            continue
        if not isinstance(value, str):
            return f"{where}: {type(value).__name__}; expected a text or null"
        if len(value) > MAX_PREDICTION_CHARS:
            return f"{where}: {len(value):,} characters; expected at most {MAX_PREDICTION_CHARS:,}"
        # a blank answer is a valid (empty) prediction: only NUL and lone surrogates refused
        problem = text_problem(value if visible(value) else value + "x")
        if problem:
            return f"{where}: expected a text with {problem}"
    return None


def _per_item_problems(record: dict) -> list[str]:
    problems = [p for p in (_number_list_problem(record["per_item"], "per_item"),
                            _number_list_problem(record["predicted_values"], "predicted_values"),
                            _text_list_problem(record["predicted_texts"])) if p]
    if record["per_item"] and record["per_item_name"] is None:
        problems.append("per_item_name: null although per_item has values")
    if bool(record["predicted_values"]) == bool(record["predicted_texts"]):
        problems.append("predicted_values / predicted_texts: expected exactly one of them "
                        "non-empty (the system's predictions)")
    return problems


def _comparability_problems(record: dict) -> list[str]:
    """Values of :data:`COMPARABILITY_FIELDS` that are not allowed."""
    problems = []
    if record["leaderboard_table"] not in LEADERBOARD_TABLES:
        problems.append(f"leaderboard_table: {short(record['leaderboard_table'])}; expected "
                        f"one of {LEADERBOARD_TABLES}")
    elif (record["leaderboard_table"] == "unofficial") != (record["unofficial_reason"]
                                                           is not None):
        problems.append("unofficial_reason: expected text exactly when leaderboard_table is "
                        "'unofficial'")
    problem = _problem(check_count, record["resamples"], "resamples", low=0, high=MAX_RESAMPLES,
                       what="a number of bootstrap resamples")
    return problems + ([problem] if problem else [])


def _integer_problem(document, where: str = "record") -> str | None:
    """The first JSON integer of ``document`` outside 64 bits (a number that would become a
    machine integer anywhere downstream)."""
    stack = [(document, where)]
    while stack:
        item, at = stack.pop()
        if isinstance(item, bool):
            continue
        if isinstance(item, int) and not INT64_MIN <= item <= INT64_MAX:
            return f"{at} = {short(item)}: expected an integer within 64 bits"
        if isinstance(item, dict):
            stack.extend((value, f"{at}.{key}" if at != "record" else str(key))
                         for key, value in item.items())
        elif isinstance(item, list):
            stack.extend((value, f"{at}[{index}]") for index, value in enumerate(item))
    return None


def validate_result(record) -> list[str]:
    """Return every problem of a result record's shape and values (empty list: valid).

    Whether its numbers are right is :mod:`record_check`'s job (it recomputes them from the
    predictions against the accepted data's gold values); this is what a record must be for
    that to be attempted: every field present with its type, every number finite and in
    range, texts bounded (integers beyond 64 bits are refused when the file is parsed,
    :func:`read_record_bytes`).

    Args:
        record: the parsed JSON object of one result file.

    Returns:
        One message per problem, each naming the field and what was expected.
    """
    if not isinstance(record, dict):
        return [f"expected a JSON object, got {type(record).__name__}"]
    schema = record.get("schema")
    if isinstance(schema, str) and schema in LEGACY_SCHEMAS:
        return [f"schema: {LEGACY_SCHEMAS[schema]}"]
    if schema != SCHEMA_VERSION:
        return [f"schema: {short(schema)}; expected {SCHEMA_VERSION!r}"]
    problems = _shape_problems(record)
    if problems:
        return problems
    problems = _value_problems(record)
    problems += _struct_problems(record["metrics"], _METRIC_FIELDS, "metrics",
                                 {"ci_low", "ci_high", "value", "as_submitted"})
    problems += _struct_problems(record["breakdowns"], _BREAKDOWN_FIELDS, "breakdowns",
                                 {"value"})
    problems += _struct_problems(record["paired_tests"], _TEST_FIELDS, "paired_tests", set())
    if not problems and sum(m["primary"] for m in record["metrics"]) != 1:
        problems.append("metrics: expected exactly one primary metric")
    problems += _per_item_problems(record) + _comparability_problems(record)
    if not problems:
        problems += _consistency_problems(record)
    return problems


def _is_date(text: str) -> bool:
    import datetime

    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _consistency_problems(record: dict) -> list[str]:
    """Structure that contradicts itself: repeated names, a primary metric that is not
    recomputed, a test against the system itself or against the same system twice."""
    problems = []
    names = [m["name"] for m in record["metrics"]]
    if len(set(names)) != len(names):
        problems.append(f"metrics: a name appears twice ({short(names)})")
    primary = primary_metric(record)
    if primary["as_submitted"] is not None or primary["value"] is None:
        problems.append(f"metrics ({short(primary['name'])}): the primary metric must be a "
                        "number recomputed from the predictions (as_submitted null)")
    against = [t["against"] for t in record["paired_tests"]]
    if len(set(against)) != len(against):
        problems.append(f"paired_tests: a system appears twice ({short(against)})")
    if record["system"] in against:
        problems.append("paired_tests.against: the system itself; a system is never compared "
                        "with itself")
    return problems


def read_record_file(path: Path) -> tuple[dict | None, list[str]]:
    """``(record, [])`` of a valid result file, else ``(None, problems)``; never raises for
    what the file holds (too large, not UTF-8, bad or deeply nested JSON, a folder)."""
    try:
        return read_record_bytes(file_bytes(path))
    except Unreadable as error:
        return None, [str(error)]


class Unreadable(Exception):
    """A result file that cannot be read (the message is the reason)."""


def file_bytes(path: Path) -> bytes:
    try:
        if not path.is_file():
            raise Unreadable("not a regular file")
        size = path.stat().st_size
        if size > MAX_RECORD_BYTES:
            raise Unreadable(f"{size:,} bytes; expected at most {MAX_RECORD_BYTES:,}")
        return path.read_bytes()
    except OSError as error:
        raise Unreadable(f"cannot be read ({error.strerror})") from None


def read_record_bytes(data: bytes) -> tuple[dict | None, list[str]]:
    """:func:`read_record_file` of a file's bytes."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return None, [f"not UTF-8 (byte {error.start})"]
    try:
        # every number of a record is checked finite by validate_result
        record = loads_bounded(text, "the file", max_chars=MAX_RECORD_BYTES,
                               max_int_digits=MAX_INT_DIGITS, int64=True,
                               floats_checked_later=True)
    except BoundaryError as error:
        reason = str(error.expected)
        if "outside 64 bits" in reason:  # name the field holding it
            try:
                return None, [_integer_problem(json.loads(text)) or f"not {reason}"]
            except (ValueError, RecursionError):
                return None, [f"not {reason}"]
        if "recursion" in reason.lower():
            reason = "valid JSON (nested too deeply)"
        return None, [f"not {reason}"[:400] if reason.startswith("valid JSON") else
                      str(error)[:400]]
    problems = validate_result(record)
    return (record, []) if not problems else (None, problems)


def folder_paths(folder: Path) -> list[Path]:
    """The result files of a results folder: ``folder/results/**/*.json``, sorted."""
    root = Path(folder) / "results"
    return sorted(root.rglob("*.json")) if root.is_dir() else []


def read_record_folder(folder: Path) -> tuple[list[dict], list[tuple[str, str]]]:
    """Every record of valid shape under ``folder/results`` and ``(file, reason)`` per
    refused file.

    A record is refused when :func:`validate_result` finds a problem, when its file is not
    :func:`record_path` of its own benchmark and system, or when a second file holds a system
    of the same name in the same benchmark (names compared after Unicode NFKC and case
    folding: "GBT" and "gbt" are one name; the first file in sorted order is kept). Shared
    by ``courtbench leaderboard check`` and the leaderboard Space (both then recompute every
    number, :mod:`record_check`). Files are read in sorted order; at most ``MAX_FILES``.
    """
    root = Path(folder)
    records, refused, seen = [], [], {}
    for index, path in enumerate(folder_paths(root)):
        name = path.relative_to(root).as_posix()
        if index >= MAX_FILES:
            refused.append((name[:200], f"more than {MAX_FILES:,} files: not read"))
            continue
        record, problems = read_record_file(path)
        if record is not None:
            problems = placement_problems(record, name, seen)
        if problems:
            refused.append((name[:200], "; ".join(problems[:5])[:1000]))
            continue
        seen[(record["benchmark"], name_key(record["system"]))] = name
        records.append(record)
    return records, refused


def placement_problems(record: dict, name: str, seen: dict) -> list[str]:
    """Why a valid ``record`` read from file ``name`` may not join the records ``seen``
    (``{(benchmark, name_key(system)): file}``): a file at another path than its own, or a
    system name already taken (ignoring case and Unicode width)."""
    if name != record_path(record):
        return [f"stored as {name}, expected {record_path(record)}"]
    first = seen.get((record["benchmark"], name_key(record["system"])))
    if first is not None:
        return [f"system {record['system']!r} in {record['benchmark']}: the name is already "
                f"taken by {first} (system names are compared ignoring case and Unicode "
                "width)"]
    return []


def record_path(record: dict) -> str:
    """The record's path in the results repository: ``results/<benchmark>/<system>.json``."""
    return f"results/{record['benchmark']}/{record['system']}.json"


def dumps_record(record: dict) -> str:
    """The file text of a record: one line of strict JSON (datasets reads it as one row)."""
    return json.dumps(record, ensure_ascii=False, sort_keys=True, allow_nan=False) + "\n"


def primary_metric(record: dict) -> dict:
    """The record's primary metric (``metrics`` entry with ``primary`` true)."""
    return next(m for m in record["metrics"] if m["primary"])


def paired_bootstrap(values_a, values_b, *, lower_is_better: bool, n_resamples: int = 1000,
                     seed: int = 12345, alpha: float = 0.05) -> dict:
    """Paired bootstrap of the mean of per-item values: is system A better than B?

    The shared comparison of ``paired_bootstrap.py`` (the same code as the paired-bootstrap
    metric module's): ties count for neither system and the verdict is "A better" / "B better"
    only when the whole percentile interval of Δ = mean_a − mean_b lies on that system's side
    of 0, so identical systems are "no significant difference".

    Returns:
        ``{"mean_a", "mean_b", "delta", "ci_low", "ci_high", "p_a_better", "p_b_better",
        "verdict", "n", "n_resamples", "seed", "alpha"}``.
    """
    return compare_paired(values_a, values_b, lower_is_better=lower_is_better,
                          n_resamples=n_resamples, seed=seed, alpha=alpha)
