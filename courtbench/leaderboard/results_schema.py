"""The leaderboard's result record: one JSON object per (benchmark, system), one file each.

This file is the one source of the record schema: ``courtbench submit`` (which writes
records) and ``leaderboard check`` import it from here, and the leaderboard Space (which reads
them) receives it as a real file (a link in ``courtbench/spaces/leaderboard/`` in a
checkout). It imports only the standard library and ``numpy``, so the Space runs it without
courtbench installed. Every record has the same flat shape for
every benchmark, so that ``datasets.load_dataset`` reads a folder of them as one table:

- identity: ``benchmark``, ``system``, ``family`` (``baseline``, ``tree``, ``llm`` …),
  ``reference`` (a reference baseline of the benchmark), ``model_name``, ``model_size_b``
  (billions of parameters when known), ``endpoint_host``, ``selection`` (how settings were
  chosen: ``validation``, ``rolling`` … or null);
- reproducibility: ``parameters_json`` and ``prompt_hashes_json`` (JSON text: their keys differ
  per system), ``data_kind`` (``real`` or ``synthetic``), ``data_source``,
  ``data_fingerprint``, ``metric_signature``, ``predictions_sha256``, ``courtbench_version``,
  ``date`` (YYYY-MM-DD);
- results: ``metrics`` (``name``, ``value``, ``ci_low``, ``ci_high``, ``lower_is_better``,
  ``primary``), ``breakdowns`` (``table``, ``row``, ``column``, ``value``: views, language
  pairs …), ``paired_tests`` against reference systems (``against``, ``delta``,
  ``ci_low``, ``ci_high``, ``p_better``), and ``per_item`` (one number per test item, in the
  dataset's order, named by ``per_item_name`` with ``per_item_lower_is_better``), which lets
  the page run a paired bootstrap between any two systems scored on the same data.
"""

from __future__ import annotations

import json
import math
import re
import reprlib
from pathlib import Path

try:  # courtbench.leaderboard.results_schema (a package) or the Space's top-level module
    from .paired_bootstrap import compare_paired
except ImportError:
    from paired_bootstrap import compare_paired

SCHEMA_VERSION = "courtbench-result/1"
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
#: Metrics whose value is by definition the mean of the record's per-item values: their
#: value is recomputed from ``per_item`` and a record that disagrees is refused.
MEAN_OF_PER_ITEM = ("MAE",)
#: Agreement demanded between a recomputed and a stated number (reports round to 4 digits).
RELATIVE_TOLERANCE = 1e-6
ABSOLUTE_TOLERANCE = 5e-4

_SHOWN = reprlib.Repr()
_SHOWN.maxstring = _SHOWN.maxother = _SHOWN.maxlong = 60
_SHOWN.maxlevel = 2


def shown(value) -> str:
    """``repr`` of a value for a message: strings, numbers and nesting cut short, so a 10 MB
    name or a 400-digit number never ends up in a message in full."""
    try:
        return _SHOWN.repr(value)
    except (RecursionError, ValueError):
        return f"<{type(value).__name__}>"

_METRIC_FIELDS = {"name": str, "value": float, "ci_low": float, "ci_high": float,
                  "lower_is_better": bool, "primary": bool}
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
}

#: What was scored and how, and the table a record belongs in (``courtbench submit`` refuses
#: records off the protocol or off the accepted data unless ``--unofficial`` puts them into
#: the labelled ``unofficial`` table): ``split`` scored, ``scope`` (views, language pairs),
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

#: ``datasets`` features of a record, written into the results repository's card.
FEATURES_YAML: list[dict] = (
    [{"name": name, "dtype": {str: "string", bool: "bool", float: "float64"}[kind]}
     for name, (kind, _) in FIELDS.items() if kind is not list]
    + [{"name": "metrics", "list": [{"name": k, "dtype": {str: "string", bool: "bool",
                                                           float: "float64"}[t]}
                                    for k, t in _METRIC_FIELDS.items()]},
       {"name": "breakdowns", "list": [{"name": k, "dtype": "string" if t is str else "float64"}
                                       for k, t in _BREAKDOWN_FIELDS.items()]},
       {"name": "paired_tests", "list": [{"name": k, "dtype": "string" if t is str
                                          else "float64"} for k, t in _TEST_FIELDS.items()]},
       {"name": "per_item", "sequence": "float64"}])

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+\-]{0,99}$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _number_problem(value) -> str | None:
    """Why ``value`` is not a finite JSON number of at most ``MAX_INT_DIGITS`` digits."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"{type(value).__name__} (expected a number)"
    if isinstance(value, int) and abs(value) >= 10 ** MAX_INT_DIGITS:
        return f"{shown(value)} (expected a number below 1e{MAX_INT_DIGITS})"
    if not math.isfinite(value):
        return f"{value!r} (expected a finite number)"
    return None


def _size_problem(value, kind: type) -> str | None:
    """Why a text or list ``value`` is too long (``MAX_TEXT_CHARS`` / ``MAX_LIST_ITEMS``)."""
    if kind is str and len(value) > MAX_TEXT_CHARS:
        return f"{len(value):,} characters (expected at most {MAX_TEXT_CHARS})"
    if kind is list and len(value) > MAX_LIST_ITEMS:
        return f"{len(value):,} entries (expected at most {MAX_LIST_ITEMS:,})"
    return None


def _type_problem(value, kind: type, nullable: bool) -> str | None:
    if value is None:
        return None if nullable else "null"
    if kind is float:
        return _number_problem(value)
    if kind is bool and not isinstance(value, bool):
        return f"{type(value).__name__} (expected true/false)"
    if not isinstance(value, kind):
        return f"{type(value).__name__} (expected {kind.__name__})"
    return _size_problem(value, kind)


def _struct_problems(items, fields: dict, where: str, nullable: set[str]) -> list[str]:
    problems = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            problems.append(f"{where}[{index}]: expected an object")
            continue
        if set(item) != set(fields):
            problems.append(f"{where}[{index}]: keys {shown(sorted(map(str, item)))}; expected "
                            f"{sorted(fields)}")
            continue
        for key, kind in fields.items():
            problem = _type_problem(item[key], kind, key in nullable)
            if problem:
                problems.append(f"{where}[{index}].{key}: {problem}")
    return problems


def _shape_problems(record: dict) -> list[str]:
    """Unknown, missing and mistyped fields."""
    problems = [f"unknown field {shown(key)}" for key in sorted(set(record) - set(FIELDS))]
    problems += [f"missing field {key!r}" for key in FIELDS if key not in record]
    if problems:
        return problems
    for key, (kind, nullable) in FIELDS.items():
        value = record[key]
        if key in ("parameters_json", "prompt_hashes_json") and isinstance(value, str):
            problem = (f"{len(value):,} characters (expected at most {MAX_JSON_TEXT_CHARS:,})"
                       if len(value) > MAX_JSON_TEXT_CHARS else None)
        elif key == "per_item" and isinstance(value, list):
            problem = None  # its own limit (MAX_PER_ITEM), checked value by value
        else:
            problem = _type_problem(value, kind, nullable)
        if problem:
            problems.append(f"{key}: {problem}")
    return problems


def _value_problems(record: dict) -> list[str]:
    """Fields of the right type whose value is not allowed."""
    problems = []
    if record["schema"] != SCHEMA_VERSION:
        problems.append(f"schema: {shown(record['schema'])}; expected {SCHEMA_VERSION!r}")
    problems += [f"{key}: {shown(record[key])}; expected 1-100 of A-Z a-z 0-9 _ . + -"
                 for key in ("benchmark", "system", "family") if not _NAME.match(record[key])]
    if record["data_kind"] not in DATA_KINDS:
        problems.append(f"data_kind: {shown(record['data_kind'])}; expected one of {DATA_KINDS}")
    if not _DATE.match(record["date"]) or not _is_date(record["date"]):
        problems.append(f"date: {shown(record['date'])}; expected a date YYYY-MM-DD")
    for key in ("parameters_json", "prompt_hashes_json"):
        try:
            if not isinstance(loads_strict(record[key]), dict):
                problems.append(f"{key}: expected a JSON object as text")
        except (ValueError, RecursionError):
            problems.append(f"{key}: not valid JSON text (or nested too deeply)")
    return problems


def _per_item_problems(record: dict) -> list[str]:
    per_item = record["per_item"]
    problems = []
    if len(per_item) > MAX_PER_ITEM:
        problems.append(f"per_item: {len(per_item):,} values; at most {MAX_PER_ITEM:,}")
    bad = next((i for i, v in enumerate(per_item) if _type_problem(v, float, False)), None)
    if bad is not None:
        problems.append(f"per_item[{bad}]: {_type_problem(per_item[bad], float, False)}")
    if per_item and record["per_item_name"] is None:
        problems.append("per_item_name: null although per_item has values")
    return problems


def _comparability_problems(record: dict) -> list[str]:
    """Values of :data:`COMPARABILITY_FIELDS` that are not allowed."""
    problems = []
    if record["leaderboard_table"] not in LEADERBOARD_TABLES:
        problems.append(f"leaderboard_table: {record['leaderboard_table']!r}; expected one of "
                        f"{LEADERBOARD_TABLES}")
    elif (record["leaderboard_table"] == "unofficial") != (record["unofficial_reason"]
                                                           is not None):
        problems.append("unofficial_reason: expected text exactly when leaderboard_table is "
                        "'unofficial'")
    resamples = record["resamples"]
    if resamples != int(resamples) or resamples < 0:
        problems.append(f"resamples: {resamples!r}; expected a whole number ≥ 0")
    try:
        if not isinstance(json.loads(record["options_json"]), dict):
            problems.append("options_json: expected a JSON object as text")
    except ValueError:
        problems.append("options_json: not valid JSON text")
    return problems


def validate_result(record) -> list[str]:
    """Return every problem of a result record (empty list: valid).

    Args:
        record: the parsed JSON object of one result file.

    Returns:
        One message per problem, each naming the field and what was expected.
    """
    if not isinstance(record, dict):
        return [f"expected a JSON object, got {type(record).__name__}"]
    problems = _shape_problems(record)
    if problems:
        return problems
    problems = _value_problems(record)
    problems += _struct_problems(record["metrics"], _METRIC_FIELDS, "metrics",
                                 {"ci_low", "ci_high"})
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


def _agrees(stated: float, recomputed: float) -> bool:
    return abs(stated - recomputed) <= ABSOLUTE_TOLERANCE + RELATIVE_TOLERANCE * abs(recomputed)


def _interval_problems(item: dict, value_key: str, where: str) -> list[str]:
    """``ci_low`` / ``ci_high``: both null or both numbers with low <= value <= high."""
    low, high, value = item["ci_low"], item["ci_high"], item[value_key]
    if (low is None) != (high is None):
        return [f"{where}: ci_low = {shown(low)}, ci_high = {shown(high)}; expected both "
                "numbers or both null"]
    if low is None or value is None:
        return []
    slack = ABSOLUTE_TOLERANCE + RELATIVE_TOLERANCE * abs(value)
    if not low - slack <= value <= high + slack:
        return [f"{where}: {value_key} {shown(value)} outside its interval [{shown(low)}, "
                f"{shown(high)}]; expected ci_low <= {value_key} <= ci_high"]
    return []


def _consistency_problems(record: dict) -> list[str]:
    """Numbers that contradict each other: intervals, p-values, names, the per-item mean."""
    problems = []
    names = [m["name"] for m in record["metrics"]]
    if len(set(names)) != len(names):
        problems.append(f"metrics: a name appears twice ({shown(names)})")
    for index, metric in enumerate(record["metrics"]):
        problems += _interval_problems(metric, "value", f"metrics[{index}] ({shown(metric['name'])})")
    for index, test in enumerate(record["paired_tests"]):
        where = f"paired_tests[{index}]"
        if not test["ci_low"] <= test["ci_high"]:
            problems.append(f"{where}: ci_low > ci_high")
        if not 0 <= test["p_better"] <= 1:
            problems.append(f"{where}.p_better: {shown(test['p_better'])}; expected 0 to 1")
        if test["against"] == record["system"]:
            problems.append(f"{where}.against: the system itself; a system is never compared "
                            "with itself")
    if record["per_item"]:
        mean = math.fsum(record["per_item"]) / len(record["per_item"])
        for metric in record["metrics"]:
            if metric["name"] in MEAN_OF_PER_ITEM and not _agrees(metric["value"], mean):
                problems.append(f"metrics ({metric['name']}): value {shown(metric['value'])} but "
                                f"the mean of per_item is {mean:.6g}; expected them to agree")
    return problems


def loads_strict(text: str):
    """JSON text → value, refusing NaN/Infinity and integers of more than MAX_INT_DIGITS
    digits (``ValueError``); too deep nesting raises ``RecursionError``."""
    def integer(digits: str) -> int:
        if len(digits.lstrip("-")) > MAX_INT_DIGITS:
            raise ValueError(f"an integer of {len(digits.lstrip('-'))} digits (expected at most "
                             f"{MAX_INT_DIGITS})")
        return int(digits)

    def constant(name: str):
        raise ValueError(f"{name} is not a number JSON allows")

    return json.loads(text, parse_int=integer, parse_constant=constant)


def read_record_file(path: Path) -> tuple[dict | None, list[str]]:
    """``(record, [])`` of a valid result file, else ``(None, problems)``; never raises for
    what the file holds (too large, not UTF-8, bad or deeply nested JSON, a folder)."""
    try:
        if not path.is_file():
            return None, ["not a regular file"]
        size = path.stat().st_size
        if size > MAX_RECORD_BYTES:
            return None, [f"{size:,} bytes; expected at most {MAX_RECORD_BYTES:,}"]
        record = loads_strict(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as error:
        return None, [f"not UTF-8 (byte {error.start})"]
    except RecursionError:
        return None, ["JSON nested too deeply"]
    except ValueError as error:  # json.JSONDecodeError included
        return None, [f"not valid JSON ({str(error)[:200]})"]
    except OSError as error:
        return None, [f"cannot be read ({error.strerror})"]
    return (record, []) if not (problems := validate_result(record)) else (None, problems)


def read_record_folder(folder: Path) -> tuple[list[dict], list[tuple[str, str]]]:
    """Every valid record under ``folder/results`` and ``(file, reason)`` per refused file.

    A record is refused when :func:`validate_result` finds a problem, when its file is not
    :func:`record_path` of its own benchmark and system, or when a second file holds the same
    (benchmark, system). Shared by ``courtbench leaderboard check`` and the leaderboard Space,
    so that no record the check accepts can break the page. Files are read in sorted order;
    at most ``MAX_FILES``.
    """
    root = Path(folder)
    records, refused, seen = [], [], {}
    paths = sorted((root / "results").rglob("*.json")) if (root / "results").is_dir() else []
    for index, path in enumerate(paths):
        name = path.relative_to(root).as_posix()
        if index >= MAX_FILES:
            refused.append((name[:200], f"more than {MAX_FILES:,} files: not read"))
            continue
        record, problems = read_record_file(path)
        if record is not None and name != record_path(record):
            problems = [f"stored as {name}, expected {record_path(record)}"]
        elif record is not None and (record["benchmark"], record["system"]) in seen:
            problems = [f"a second record of {record['system']} in {record['benchmark']} "
                        f"(first: {seen[(record['benchmark'], record['system'])]})"]
        if problems:
            refused.append((name[:200], "; ".join(problems[:5])[:1000]))
            continue
        seen[(record["benchmark"], record["system"])] = name
        records.append(record)
    return records, refused


def record_path(record: dict) -> str:
    """The record's path in the results repository: ``results/<benchmark>/<system>.json``."""
    return f"results/{record['benchmark']}/{record['system']}.json"


def dumps_record(record: dict) -> str:
    """The file text of a record: one line of strict JSON (datasets reads it as one row)."""
    return json.dumps(record, ensure_ascii=False, sort_keys=True, allow_nan=False) + "\n"


def page_table(record: dict, accepted: dict | None) -> tuple[str, str | None]:
    """``(leaderboard_table, reason)`` of the table the leaderboard page shows a valid record in.

    The record's own ``leaderboard_table`` and ``unofficial_reason``, except that a ``main``
    record whose data the results dataset does not accept goes to ``unofficial`` with the
    fingerprint named — ``courtbench submit`` refuses such a record without ``--unofficial``,
    so only a record that bypassed it lands there.

    Args:
        record: a record :func:`validate_result` accepts.
        accepted: the card's :data:`ACCEPTED_KEY` (``{benchmark: {fingerprint:
            data_kind}}``), or ``None`` when the card declares none (nothing is moved).
    """
    if record["leaderboard_table"] != "main" or accepted is None:
        return record["leaderboard_table"], record["unofficial_reason"]
    fingerprint, pinned = record["data_fingerprint"], accepted.get(record["benchmark"]) or {}
    if fingerprint not in pinned:
        return "unofficial", (f"data fingerprint {fingerprint[:16]}… is not among the accepted "
                              f"{record['benchmark']} data of the results dataset")
    if pinned[fingerprint] != record["data_kind"]:
        return "unofficial", (f"data_kind {record['data_kind']!r}, but the results dataset "
                              f"accepts fingerprint {fingerprint[:16]}… as "
                              f"{pinned[fingerprint]!r} data")
    return "main", None


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
