"""Recompute every number of the leaderboard's records and refuse those that differ.

A record (``results_schema``) carries its predictions; the results dataset holds, per
accepted data fingerprint, the gold values of the scored items (``gold/<benchmark>/
<fingerprint>.json``, pinned by sha256 in its card under ``courtbench_gold``). For each
record this module

1. checks its data is accepted (``courtbench_accepted_data``: fingerprint and data kind) and
   that a ``reference: true`` record is one the card lists (``courtbench_references``: only
   ``courtbench leaderboard init`` writes them);
2. has the benchmark's *verifier* recompute its per-item values, metrics, intervals and
   breakdowns from the predictions and the gold values, and compares every one with the
   record (a refusal names the field and both values); a metric that needs a model to
   recompute (an LLM judge, a neural similarity) is accepted only where the verifier lists
   it, and shown "as submitted" with its protocol;
3. recomputes each paired test from the two systems' per-item values (the other system
   must be a verified reference record on the same data).

A verifier is a module (one per benchmark; the dataset plugin supplies it, and ``courtbench
leaderboard space`` copies it into the Space as ``verifier_<benchmark>.py``) with
``BENCHMARK`` (name), ``VERSION`` (text; changes whenever a recomputation changes),
``AS_SUBMITTED`` (metric names shown as submitted), ``RESERVED_NAMES`` (the reference
baselines' names), ``protocol_problems(record)`` (how its evaluation options differ from the
protocol of the ranked table: a ``main`` record with any is refused, as is one from an
incomplete or fallback-filled run) and ``recompute(record, gold)`` returning ``{"metrics", "breakdowns",
"per_item", "item_index", "per_item_name", "per_item_lower_is_better", "resamples", "seed",
"intervals"}`` (``item_index``: the gold items ``per_item`` covers; ``intervals``: ``{metric
name: per-item values}`` whose bootstrap percentile interval this module fills in, resampling
every record of a leaderboard together) or raising ``ValueError`` (a ``BoundaryError``
included) that names what is wrong with the record.

Shared by ``courtbench leaderboard check`` and the leaderboard Space (this file is linked into
it), so the two never disagree. Imports only the standard library, numpy and sibling files.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from pathlib import Path

import numpy as np

try:  # courtbench.leaderboard.record_check (a package) or the Space's top-level module
    from . import results_schema as schema
    from .boundary import BoundaryError, check_number, loads_bounded, name_key, text_problem
    from .paired_bootstrap import (
        bootstrap_replicates,
        interval_side,
        percentile_interval,
        resample_indices,
    )
except ImportError:
    import results_schema as schema
    from boundary import BoundaryError, check_number, loads_bounded, name_key, text_problem
    from paired_bootstrap import (
        bootstrap_replicates,
        interval_side,
        percentile_interval,
        resample_indices,
    )

GOLD_SCHEMA = "courtbench-gold/1"
#: Largest gold file read (characters).
MAX_GOLD_CHARS = 512 * 2**20
#: Two numbers agree when they differ by at most ABSOLUTE + RELATIVE × the larger magnitude:
#: far below any figure a table shows, far above the last-bit differences of summing in
#: another order (the check sums bootstrap resamples through count matrices).
ABSOLUTE_TOLERANCE = 1e-6
RELATIVE_TOLERANCE = 1e-9
ALPHA = 0.05
#: Vectors resampled together in one matrix product.
BLOCK = 256
CHECK_VERSION = "record_check/1"


# ------------------------------------------------------------------------------ bootstrap

class Bootstrap:
    """Means of per-item values over full-size bootstrap resamples, as
    ``paired_bootstrap.bootstrap_replicates`` draws them (``default_rng(seed)``, replicate
    ``b`` the ``b``-th row of ``rng.integers(0, n, size=n)``), computed as one
    matrix-vector product with the resamples' count matrix, which is drawn once per
    ``(n, resamples, seed)`` and kept (a few at a time): every record of a leaderboard uses
    the same resamples, so checking a thousand records draws them once. Equal to the module's
    replicates up to summation order (last bits).

    Count matrices larger than ``max_elements`` are not cached: those replicates come from
    ``bootstrap_replicates`` itself.
    """

    def __init__(self, *, max_cached: int = 4, max_elements: int = 1 << 25):
        self.max_cached = max_cached
        self.max_elements = max_elements
        self._counts: OrderedDict = OrderedDict()

    def _count_matrix(self, n: int, n_resamples: int, seed: int) -> np.ndarray:
        key = (n, n_resamples, seed)
        if key in self._counts:
            self._counts.move_to_end(key)
            return self._counts[key]
        counts = np.empty((n_resamples, n))
        done = 0
        for chunk in resample_indices(n, n_resamples=n_resamples, seed=seed):
            rows = len(chunk)
            flat = (chunk + (np.arange(rows) * n)[:, None]).ravel()
            counts[done:done + rows] = np.bincount(flat, minlength=rows * n).reshape(rows, n)
            done += rows
        self._counts[key] = counts
        while len(self._counts) > self.max_cached:
            self._counts.popitem(last=False)
        return counts

    def replicates_many(self, vectors: list, n_resamples: int, seed: int) -> list[np.ndarray]:
        """The ``n_resamples`` bootstrap means of each of ``vectors`` (1-D, one length n):
        one matrix product per block of :data:`BLOCK` vectors."""
        vectors = [np.asarray(v, dtype=np.float64) for v in vectors]
        if not vectors:
            return []
        n = vectors[0].size
        if n * n_resamples > self.max_elements:
            return [bootstrap_replicates(v, n_resamples=n_resamples, seed=seed) for v in vectors]
        counts = self._count_matrix(n, n_resamples, seed)
        means = []
        for start in range(0, len(vectors), BLOCK):
            block = counts @ np.column_stack(vectors[start:start + BLOCK]) / n
            means += [block[:, j] for j in range(block.shape[1])]
        return means

    def replicates(self, values, n_resamples: int, seed: int) -> np.ndarray:
        """The ``n_resamples`` bootstrap means of ``values`` (1-D float64)."""
        return self.replicates_many([values], n_resamples, seed)[0]

    def interval(self, values, n_resamples: int, seed: int, alpha: float = ALPHA) -> tuple:
        """The ``alpha/2`` and ``1 − alpha/2`` percentiles of the bootstrap means."""
        return percentile_interval(self.replicates(values, n_resamples, seed), alpha)


def _test_figures(replicates: np.ndarray, delta: float, lower_is_better: bool) -> dict:
    low, high = percentile_interval(replicates, ALPHA)
    better = replicates < 0 if lower_is_better else replicates > 0
    return {"delta": delta, "ci_low": low, "ci_high": high,
            "p_better": float(np.count_nonzero(better) / replicates.size),
            "side": interval_side(low, high)}


def paired_test(values_a, values_b, *, lower_is_better: bool, n_resamples: int, seed: int,
                bootstrap: Bootstrap) -> dict:
    """A paired test of system A against B on the same items: ``delta`` = mean(A) − mean(B),
    the percentile interval of the resampled Δ, ``p_better`` = share of resamples where A is
    strictly better (ties count for neither), ``side`` (``interval_side``)."""
    a = np.asarray(values_a, dtype=np.float64)
    b = np.asarray(values_b, dtype=np.float64)
    return _test_figures(bootstrap.replicates(a - b, n_resamples, seed),
                         float(a.mean() - b.mean()), lower_is_better)


def resolve_intervals(results: list[dict], bootstrap: Bootstrap) -> None:
    """Fill in the bootstrap intervals verifiers ask for: each result's ``intervals``
    (``{metric name: per-item values}``) becomes that metric's ``ci_low`` / ``ci_high``, the
    percentile interval of the bootstrap means with the result's ``resamples`` and
    ``seed``; results of one size and seed are resampled together (one matrix product)."""
    groups: dict = {}
    for result in results:
        for name, values in result.get("intervals", {}).items():
            key = (len(values), result["resamples"], result["seed"])
            groups.setdefault(key, []).append((result, name, values))
    for (_, n_resamples, seed), wanted in groups.items():
        means = bootstrap.replicates_many([values for _, _, values in wanted], n_resamples, seed)
        for (result, name, _), replicates in zip(wanted, means, strict=True):
            low, high = percentile_interval(replicates, ALPHA)
            metric = next(m for m in result["metrics"] if m["name"] == name)
            metric.update(ci_low=low, ci_high=high)
        for result, _, _ in wanted:
            result.pop("intervals", None)


# ------------------------------------------------------------------------------------- gold

def gold_path(benchmark: str, fingerprint: str) -> str:
    """Where a results dataset holds the gold file of a benchmark's accepted data."""
    return f"gold/{benchmark}/{fingerprint}.json"


def dumps_gold(document: dict) -> bytes:
    """The bytes of a gold file (deterministic: the same data gives the same sha256)."""
    return (json.dumps(document, ensure_ascii=False, sort_keys=True, allow_nan=False,
                       separators=(",", ":")) + "\n").encode("utf-8")


def gold_problem(document, benchmark: str, fingerprint: str) -> str | None:
    """Why ``document`` is not a usable gold file of ``(benchmark, fingerprint)``.

    A gold file: ``{"schema": GOLD_SCHEMA, "benchmark", "data_fingerprint", "split",
    "item_ids": [text, ...] (unique), "values": [number, ...] or null, "texts": [text, ...] or
    null (one of the two), "labels": {name: [text per item]}, "groups": {table: {row: [item
    index, ...]}}}``.
    """
    if not isinstance(document, dict) or document.get("schema") != GOLD_SCHEMA:
        return f"not a gold file of schema {GOLD_SCHEMA}"
    if (document.get("benchmark"), document.get("data_fingerprint")) != (benchmark, fingerprint):
        return "it names another benchmark or data fingerprint"
    ids = document.get("item_ids")
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids) \
            or len(set(ids)) != len(ids):
        return "item_ids: expected a non-empty list of unique texts"
    return _gold_values_problem(document, len(ids)) or _gold_groups_problem(document, len(ids))


def _gold_values_problem(document: dict, n: int) -> str | None:
    values, texts = document.get("values"), document.get("texts")
    if (values is None) == (texts is None):
        return "expected exactly one of values / texts"
    items = values if values is not None else texts
    if not isinstance(items, list) or len(items) != n:
        return f"values / texts: expected {n:,} entries, one per item id"
    try:
        for index, item in enumerate(items):
            if values is not None:
                check_number(item, f"values[{index}]")
            elif not isinstance(item, str) or text_problem(item):
                return f"texts[{index}]: expected a visible text"
    except BoundaryError as error:
        return str(error)
    return None


def _gold_groups_problem(document: dict, n: int) -> str | None:
    labels, groups = document.get("labels", {}), document.get("groups", {})
    if not isinstance(labels, dict) or not all(
            isinstance(v, list) and len(v) == n and all(isinstance(x, str) for x in v)
            for v in labels.values()):
        return f"labels: expected {{name: [text per item]}} with {n:,} entries each"
    if not isinstance(groups, dict) or not all(
            isinstance(rows, dict) and all(isinstance(ix, list) and all(
                type(i) is int and 0 <= i < n for i in ix) for ix in rows.values())
            for rows in groups.values()):
        return "groups: expected {table: {row: [item index, ...]}}"
    return None


def load_gold(folder: Path, card: dict, benchmark: str, fingerprint: str):
    """``(gold document, None)`` or ``(None, reason)`` for ``(benchmark, fingerprint)``: the
    file the card pins (sha256 equal), parsed with the shared validator and checked."""
    pinned = ((card.get(schema.GOLD_KEY) or {}).get(benchmark) or {}).get(fingerprint)
    if not isinstance(pinned, str):
        return None, (f"the results dataset pins no gold file for {benchmark} data "
                      f"{fingerprint[:16]}… (card key {schema.GOLD_KEY}): its numbers cannot "
                      "be recomputed")
    path = Path(folder) / gold_path(benchmark, fingerprint)
    try:
        data = path.read_bytes()
    except OSError as error:
        return None, f"{gold_path(benchmark, fingerprint)}: cannot be read ({error.strerror})"
    if hashlib.sha256(data).hexdigest() != pinned:
        return None, (f"{gold_path(benchmark, fingerprint)}: sha256 differs from the one its "
                      "card pins (the gold file was changed)")
    try:
        document = loads_bounded(data.decode("utf-8"), gold_path(benchmark, fingerprint),
                                 max_chars=MAX_GOLD_CHARS)
    except (BoundaryError, UnicodeDecodeError) as error:
        return None, f"{gold_path(benchmark, fingerprint)}: {str(error)[:300]}"
    problem = gold_problem(document, benchmark, fingerprint)
    if problem:
        return None, f"{gold_path(benchmark, fingerprint)}: {problem}"
    return document, None


# ----------------------------------------------------------------------------- comparison

def agrees(stated, recomputed, *, absolute: float = ABSOLUTE_TOLERANCE) -> bool:
    """Whether a record's number equals the recomputed one (both null counts as equal)."""
    if stated is None or recomputed is None:
        return stated is None and recomputed is None
    return abs(stated - recomputed) <= absolute + RELATIVE_TOLERANCE * max(abs(stated),
                                                                          abs(recomputed))


def _differs(field: str, stated, recomputed) -> str:
    return f"{field}: the record says {schema.short(stated)}, recomputed {schema.short(recomputed)}"


def _per_item_problems(record: dict, expected: dict) -> list[str]:
    problems = [_differs(key, record[key], expected[key])
                for key in ("per_item_name", "per_item_lower_is_better")
                if record[key] != expected[key]]
    fresh = np.asarray(expected["per_item"], dtype=np.float64)
    if len(record["per_item"]) != fresh.size:
        return problems + [f"per_item: {len(record['per_item']):,} values, recomputed "
                           f"{fresh.size:,}"]
    stated = np.asarray(record["per_item"], dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        close = np.abs(stated - fresh) <= ABSOLUTE_TOLERANCE + RELATIVE_TOLERANCE * np.maximum(
            np.abs(stated), np.abs(fresh))
    if not close.all():
        index = int(np.flatnonzero(~close)[0])
        problems.append(_differs(f"per_item[{index}]", record["per_item"][index],
                                 float(fresh[index])))
    return problems


def _as_submitted_problem(metric: dict, fresh: dict, as_submitted: tuple) -> str | None:
    """Why a metric marked as submitted may not be (it is recomputable, or primary)."""
    where = f"metrics ({schema.short(metric['name'])})"
    if metric["name"] not in as_submitted or metric["name"] in fresh:
        return (f"{where}: marked as submitted, but it is not a number that needs a model to "
                f"recompute (those are: {', '.join(as_submitted) or 'none'})")
    if metric["primary"]:
        return f"{where}: an as-submitted metric cannot be primary"
    return None


def _one_metric_problems(metric: dict, fresh: dict) -> list[str]:
    """A recomputed metric against its recomputation ``fresh`` (by name)."""
    name = metric["name"]
    where = f"metrics ({schema.short(name)})"
    if name not in fresh:
        return [f"{where}: not a metric of this benchmark's records"]
    problems = [_differs(f"{where}.{key}", metric[key], fresh[name][key])
                for key in ("lower_is_better", "primary") if metric[key] != fresh[name][key]]
    return problems + [_differs(f"{where}.{key}", metric[key], fresh[name][key])
                       for key in ("value", "ci_low", "ci_high")
                       if not agrees(metric[key], fresh[name][key])]


def _metric_problems(record: dict, expected: dict, as_submitted: tuple) -> list[str]:
    fresh = {m["name"]: m for m in expected["metrics"]}
    problems = []
    for metric in record["metrics"]:
        if metric["as_submitted"] is not None:
            problem = _as_submitted_problem(metric, fresh, as_submitted)
            problems += [problem] if problem else []
        else:
            problems += _one_metric_problems(metric, fresh)
    stated = {m["name"] for m in record["metrics"] if m["as_submitted"] is None}
    return problems + [f"metrics: {name!r} missing (it is recomputed for every record)"
                       for name in fresh if name not in stated]


def _breakdown_problems(record: dict, expected: dict, as_submitted: tuple) -> list[str]:
    fresh = {(b["table"], b["row"], b["column"]): b["value"] for b in expected["breakdowns"]}
    stated = {}
    for item in record["breakdowns"]:
        key = (item["table"], item["row"], item["column"])
        if item["table"] not in as_submitted:
            stated[key] = item["value"]
    problems = [f"breakdowns: {schema.short(list(key))} is not a breakdown of this benchmark"
                for key in stated if key not in fresh]
    problems += [f"breakdowns: {list(key)} missing" for key in fresh if key not in stated]
    problems += [_differs(f"breakdowns {list(key)}.value", stated[key], value)
                 for key, value in fresh.items() if key in stated
                 and not agrees(stated[key], value)]
    return problems


def figure_problems(record: dict, expected: dict, as_submitted: tuple) -> list[str]:
    """Every difference between a record and its recomputation (``expected``, a verifier's
    result), each naming the field and both values."""
    return (_per_item_problems(record, expected)
            + _metric_problems(record, expected, as_submitted)
            + _breakdown_problems(record, expected, as_submitted))


# ------------------------------------------------------------------------- paired tests

def _test_inputs(expected: dict, other: dict) -> tuple | None:
    """``(own values, the other's values on the same items)``, or None when the other does
    not cover every item the system covers (item indices are ascending)."""
    own = np.asarray(expected["item_index"], dtype=np.int64)
    theirs = np.asarray(other["item_index"], dtype=np.int64)
    values = np.asarray(other["per_item"], dtype=np.float64)
    if own.size != theirs.size or not np.array_equal(own, theirs):
        positions = np.searchsorted(theirs, own)
        if own.size and (positions.max() >= theirs.size
                         or not np.array_equal(theirs[positions], own)):
            return None
        values = values[positions]
    return np.asarray(expected["per_item"], dtype=np.float64), values


def paired_test_against(expected: dict, other: dict, bootstrap: Bootstrap) -> dict | None:
    """The paired test of a system (its recomputation ``expected``) against another
    (``other``), on the items the system covers; None when the other does not cover them."""
    inputs = _test_inputs(expected, other)
    if inputs is None:
        return None
    return paired_test(*inputs, lower_is_better=expected["per_item_lower_is_better"],
                       n_resamples=expected["resamples"], seed=expected["seed"],
                       bootstrap=bootstrap)


def _same_data(record: dict, other: dict) -> bool:
    return all(record[key] == other[key] for key in ("benchmark", "data_fingerprint", "split"))


def _test_difference_problems(where: str, test: dict, fresh: dict, resamples: int) -> list:
    problems = [_differs(f"{where}.{key}", test[key], fresh[key])
                for key in ("delta", "ci_low", "ci_high") if not agrees(test[key], fresh[key])]
    if not agrees(test["p_better"], fresh["p_better"], absolute=1.0 / resamples):
        problems.append(_differs(f"{where}.p_better", test["p_better"], fresh["p_better"]))
    return problems


def paired_test_problems(checked: list[tuple], bootstrap: Bootstrap) -> dict[int, list[str]]:
    """Each paired test of each record recomputed against the verified reference record it
    names, all of one size and seed resampled together.

    Args:
        checked: ``(record, its recomputation)`` of every record whose own numbers passed.

    Returns:
        ``{position in checked: problems}`` for the records with a problem.
    """
    references = {(r["benchmark"], r["system"]): (r, e) for r, e in checked if r["reference"]}
    problems: dict[int, list[str]] = {}
    wanted: dict = {}
    for position, (record, expected) in enumerate(checked):
        for index, test in enumerate(record["paired_tests"]):
            where = f"paired_tests[{index}] (against {schema.short(test['against'])})"
            other = references.get((record["benchmark"], test["against"]))
            inputs = (_test_inputs(expected, other[1])
                      if other is not None and _same_data(record, other[0]) else None)
            if other is None or not _same_data(record, other[0]):
                problems.setdefault(position, []).append(
                    f"{where}: no verified reference record of that name on the same data to "
                    "recompute it against")
            elif inputs is None:
                problems.setdefault(position, []).append(
                    f"{where}: the reference does not cover the items the system does")
            else:
                key = (inputs[0].size, expected["resamples"], expected["seed"])
                wanted.setdefault(key, []).append((position, where, test, inputs, expected))
    for (_, n_resamples, seed), items in wanted.items():
        means = bootstrap.replicates_many([a - b for _, _, _, (a, b), _ in items],
                                          n_resamples, seed)
        for (position, where, test, (a, b), expected), replicates in zip(items, means,
                                                                          strict=True):
            fresh = _test_figures(replicates, float(a.mean() - b.mean()),
                                  expected["per_item_lower_is_better"])
            found = _test_difference_problems(where, test, fresh, n_resamples)
            if found:
                problems.setdefault(position, []).extend(found)
    return problems


# --------------------------------------------------------------------------- the check

def predictions_digest(record: dict) -> str:
    """sha256 of a record's predictions (both lists as canonical JSON): what the card's
    reference list pins."""
    text = json.dumps([record["predicted_values"], record["predicted_texts"]],
                      ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def table_problems(record: dict, verifier) -> list[str]:
    """Why a record marked for the ranked (``main``) table may not be there: evaluation
    options off the benchmark's protocol, or a run its manifest called incomplete or that
    filled cases with a fallback (``courtbench submit --unofficial`` puts those into the
    labelled table)."""
    if record["leaderboard_table"] != "main":
        return []
    problems = list(verifier.protocol_problems(record)) if verifier is not None else []
    if record["run_complete"] is False:
        problems.append("run_complete false: an incomplete run")
    if record["fallback_share"]:
        problems.append(f"fallback_share {record['fallback_share']!r}: cases filled with a "
                        "fallback")
    return [f"leaderboard_table 'main', but {p} (only the unofficial table takes it)"
            for p in problems]


def _admission_problems(record: dict, card: dict, reserved: tuple = ()) -> list[str]:
    """Data not accepted (or of another kind), a reference the card does not list, or a
    non-reference record under a reference baseline's name (``reserved`` by the verifier or
    listed in the card; compared ignoring case and Unicode width)."""
    benchmark, fingerprint = record["benchmark"], record["data_fingerprint"]
    accepted = (card.get(schema.ACCEPTED_KEY) or {}).get(benchmark) or {}
    if fingerprint not in accepted:
        return [f"data fingerprint {fingerprint[:16]}… is not among the accepted {benchmark} "
                "data of the results dataset, so no gold values exist to recompute it"]
    if accepted[fingerprint] != record["data_kind"]:
        return [f"data_kind {record['data_kind']!r}, but the results dataset accepts "
                f"fingerprint {fingerprint[:16]}… as {accepted[fingerprint]!r} data"]
    references = (card.get(schema.REFERENCES_KEY) or {}).get(benchmark) or {}
    if not isinstance(references, dict):
        references = {}
    if record["reference"]:
        if references.get(record["system"]) != predictions_digest(record):
            return ["reference: true, but the results dataset's card lists no reference "
                    f"{record['system']!r} with these predictions (reference rows come only "
                    "from `courtbench leaderboard init`)"]
        return []
    names = {name_key(str(n)): str(n) for n in (*reserved, *references)}
    taken = names.get(name_key(record["system"]))
    if taken is not None:
        return [f"system {record['system']!r}: the name of reference baseline {taken!r}; "
                "only `courtbench leaderboard init` writes reference rows"]
    return []


def recompute(verifier, record: dict, gold: dict, bootstrap: Bootstrap) -> dict:
    """A verifier's recomputation of one record with its intervals filled in and its
    per-item values as an array (:func:`resolve_intervals`)."""
    expected = verifier.recompute(record, gold)
    resolve_intervals([expected], bootstrap)
    return {**expected, "per_item": np.asarray(expected["per_item"], dtype=np.float64)}


class Checker:
    """Recomputes records of one results folder (its card's metadata given) with the
    benchmarks' ``verifiers`` (``{benchmark: module}``). Keeps each file's verdict by its
    content (sha256), gold pin and verifier version, so that a second run over the same
    files (the Space's "Reload results") recomputes only what changed."""

    def __init__(self, verifiers: dict, bootstrap: Bootstrap | None = None):
        self.verifiers = dict(verifiers)
        self.bootstrap = bootstrap or Bootstrap()
        self._verdicts: dict = {}

    def own_figures(self, record: dict, gold: dict) -> tuple[dict | None, list[str]]:
        """``(expected, problems)`` of one record: the verifier's recomputation and every
        difference (or ``(None, [why it cannot be recomputed])``)."""
        [(expected, problems)] = self._recompute_all([(record, gold)])
        return expected, problems

    def _recompute_all(self, pending: list[tuple]) -> list[tuple]:
        """``(expected, problems)`` per ``(record, gold)``: recomputed one by one, their
        bootstrap intervals together, then compared."""
        results = []
        for record, gold in pending:
            verifier = self.verifiers.get(record["benchmark"])
            try:
                if verifier is None:
                    raise ValueError(f"no verifier for benchmark {record['benchmark']!r} here: "
                                     "its numbers cannot be recomputed")
                results.append(verifier.recompute(record, gold))
            except ValueError as error:  # a BoundaryError included: names the field and value
                results.append([_first_line(error)])
            except Exception as error:  # noqa: BLE001 - no record may stop the check
                results.append([f"cannot be recomputed ({type(error).__name__}: "
                                f"{_first_line(error)})"])
        resolve_intervals([r for r in results if isinstance(r, dict)], self.bootstrap)
        verdicts = []
        for (record, _), result in zip(pending, results, strict=True):
            if isinstance(result, list):
                verdicts.append((None, result))
                continue
            expected = {**result, "per_item": np.asarray(result["per_item"], dtype=np.float64)}
            verifier = self.verifiers[record["benchmark"]]
            verdicts.append((expected, figure_problems(record, expected,
                                                       tuple(verifier.AS_SUBMITTED))))
        return verdicts

    def _admitted(self, folder: Path, card: dict, data: bytes, golds: dict):
        """``(record, gold, problems)`` of one file's bytes: its shape, its data accepted,
        its reference claim listed, the gold file of its data."""
        record, problems = schema.read_record_bytes(data)
        if record is None:
            return None, None, problems
        verifier = self.verifiers.get(record["benchmark"])
        problems = _admission_problems(record, card,
                                       tuple(getattr(verifier, "RESERVED_NAMES", ())))
        if not problems:
            try:
                problems = table_problems(record, verifier)
            except (ValueError, TypeError) as error:  # options_json of another shape
                problems = [f"options_json: {_first_line(error)}"]
        if problems:
            return record, None, problems
        key = (record["benchmark"], record["data_fingerprint"])
        if key not in golds:
            golds[key] = load_gold(folder, card, *key)
        gold, reason = golds[key]
        if gold is None:
            return record, None, [reason]
        if gold["split"] != record["split"]:
            return record, None, [f"split {record['split']!r}, but the accepted gold values "
                                  f"are of the {gold['split']!r} split"]
        return record, gold, []

    def _verdict_key(self, card: dict, record: dict, data: bytes) -> tuple:
        verifier = self.verifiers.get(record["benchmark"])
        pin = ((card.get(schema.GOLD_KEY) or {}).get(record["benchmark"]) or {}).get(
            record["data_fingerprint"])
        return (hashlib.sha256(data).hexdigest(), pin, getattr(verifier, "VERSION", None),
                CHECK_VERSION)

    def check_folder(self, folder: Path, card: dict, progress=None
                     ) -> tuple[list[dict], list[tuple[str, str]]]:
        """Every record of ``folder/results`` whose every number comes out the same, and
        ``(file, reason)`` per refused file (reasons one line, at most 1,000 characters).

        ``progress``: optional callable wrapping the file list (e.g. ``tqdm``).
        """
        root = Path(folder)
        paths = schema.folder_paths(root)
        golds, admitted, refused, seen = {}, [], [], {}
        for index, path in enumerate(progress(paths) if progress else paths):
            name = path.relative_to(root).as_posix()[:200]
            if index >= schema.MAX_FILES:
                refused.append((name, f"more than {schema.MAX_FILES:,} files: not read"))
                continue
            try:
                data = schema.file_bytes(path)
            except schema.Unreadable as error:
                refused.append((name, str(error)))
                continue
            record, gold, problems = self._admitted(root, card, data, golds)
            if record is not None and not problems:
                problems = schema.placement_problems(record, name, seen)
            if problems:
                refused.append((name, _reason(problems)))
                continue
            seen[(record["benchmark"], name_key(record["system"]))] = name
            admitted.append((name, record, gold, self._verdict_key(card, record, data)))
        return self._with_tests(self._verdicts_of(admitted), refused)

    def _verdicts_of(self, admitted: list[tuple]) -> list[tuple]:
        """``(name, record, expected, problems)`` per admitted file: cached verdicts for
        files seen before, the others recomputed together."""
        todo = [item for item in admitted if item[3] not in self._verdicts]
        fresh = self._recompute_all([(record, gold) for _, record, gold, _ in todo])
        verdicts = {**self._verdicts, **{item[3]: verdict
                                         for item, verdict in zip(todo, fresh, strict=True)}}
        self._verdicts = {key: verdicts[key] for *_, key in admitted}  # files still there
        return [(name, record, *self._verdicts[key]) for name, record, _, key in admitted]

    def _with_tests(self, verdicts: list[tuple], refused: list) -> tuple[list[dict], list]:
        checked = []
        for name, record, expected, problems in verdicts:
            if problems:
                refused.append((name, _reason(problems)))
            else:
                checked.append((name, record, expected))
        test_problems = paired_test_problems([(r, e) for _, r, e in checked], self.bootstrap)
        records = []
        for position, (name, record, _) in enumerate(checked):
            if position in test_problems:
                refused.append((name, _reason(test_problems[position])))
            else:
                records.append(record)
        refused.sort()
        return records, refused


def _first_line(error: BaseException) -> str:
    text = str(error)
    return (text.splitlines()[0] if text else type(error).__name__)[:500]


def _reason(problems: list[str]) -> str:
    more = f" (+{len(problems) - 5} more)" if len(problems) > 5 else ""
    return ("; ".join(problems[:5]) + more)[:1000]
