"""The Hub's Eval Results, as far as they reach: ``.eval_results/*.yaml`` entries of a model
repository, built from a verified leaderboard record with huggingface_hub's
``EvalResultEntry``.

The Hub's format (https://huggingface.co/docs/hub/eval-results) keeps one number per task
of a benchmark dataset and has no lower-is-better field (its leaderboards rank higher
values first). A benchmark therefore exports a few of its figures, each as one task, and
says how to read each one; courtbench's own leaderboard (the results dataset and its Space)
stays the full record: every metric with its interval, the breakdowns, the paired tests and
the predictions every number is recomputed from.

What a benchmark exports is its plugin's ``eval_results`` hook: a :class:`HubBenchmark`
whose :class:`HubTask` entries name the task id (as the benchmark dataset's ``eval.yaml``
defines it), the dataset config and split it is scored on, and where its value lies in a
record: ``("metric", NAME)`` — a metric recomputed from the predictions (a number shown "as
submitted" is never exported) — or ``("breakdown", TABLE, ROW, COLUMN)``. A task whose value
is missing from a record (a view without cases, a language pair the system does not cover)
or whose ``needs`` are not all present (a macro-average over fewer parts than the benchmark
has) is left out, with the reason.

Everything here works offline; the pull request itself is opened by
:func:`courtbench.leaderboard.hub.create_pull_request`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml

from courtbench.boundary import BoundaryError, check_number, check_text
from courtbench.errors import CourtbenchError

#: Where exported files go in a model repository.
FOLDER = ".eval_results"
#: A task id: what the benchmark dataset's ``eval.yaml`` lists (lower-case, digits, ``_``).
_TASK_ID = re.compile(r"^[a-z0-9][a-z0-9_]{0,63}$")
#: Longest ``notes`` text of an entry (the Hub shows it beside the value).
MAX_NOTES_CHARS = 300
Source = tuple[str, ...]


@dataclass(frozen=True)
class HubTask:
    """One task of a benchmark on the Hub: one leaderboard, one number per model.

    Attributes:
        task_id: the id in the benchmark dataset's ``eval.yaml`` (``[a-z0-9_]``, ≤ 64).
        config, split: the dataset config and split the number is scored on.
        source: where the value lies in a record: ``("metric", name)`` or
            ``("breakdown", table, row, column)``.
        reading: how to read the number, shown in the entry's notes and the docs (unit,
            direction: e.g. "test mean absolute error in EUR; lower is better").
        lower_is_better: the number ranks the other way round than the Hub ranks it.
        needs: sources that must all be present in the record for the task to be exported
            (the parts of an average: a macro over fewer parts is another number).
    """

    task_id: str
    config: str
    split: str
    source: Source
    reading: str
    lower_is_better: bool = False
    needs: tuple[Source, ...] = ()

    def __post_init__(self):
        if not _TASK_ID.match(self.task_id):
            raise ValueError(f"task id {self.task_id!r}: expected [a-z0-9_], at most 64")
        for source in (self.source, *self.needs):
            _check_source(source)


@dataclass(frozen=True)
class HubBenchmark:
    """What one benchmark exports to the Hub's Eval Results.

    Attributes:
        name: display name (``eval.yaml`` ``name``).
        description: what the benchmark measures (``eval.yaml`` ``description``).
        tasks: the exported tasks, in the order they are written.
    """

    name: str
    description: str
    tasks: tuple[HubTask, ...] = field(default_factory=tuple)

    def __post_init__(self):
        ids = [task.task_id for task in self.tasks]
        if len(set(ids)) != len(ids):
            raise ValueError(f"task ids repeat: {ids}")


def _check_source(source: Source) -> None:
    if not ((len(source) == 2 and source[0] == "metric")
            or (len(source) == 4 and source[0] == "breakdown")):
        raise ValueError(f"source {source!r}: expected ('metric', name) or "
                         "('breakdown', table, row, column)")


def record_value(record: dict[str, Any], source: Source) -> float | None:
    """The number at ``source`` in a verified record; None when the record has none there
    (or only one shown "as submitted", which needs a model to recompute)."""
    if source[0] == "metric":
        found = [m for m in record["metrics"] if m["name"] == source[1]]
        if not found or found[0]["as_submitted"] is not None:
            return None
        return found[0]["value"]
    table, row, column = source[1:]
    return next((b["value"] for b in record["breakdowns"]
                 if (b["table"], b["row"], b["column"]) == (table, row, column)), None)


@dataclass
class Export:
    """The entries of one record: ``entries`` (EvalResultEntry, in task order) and the tasks
    left out with the reason."""

    benchmark: str
    system: str
    path: str
    entries: list[Any]
    left_out: dict[str, str]


def _entry_class():
    try:
        from huggingface_hub import EvalResultEntry
    except ImportError:  # an older huggingface_hub
        raise CourtbenchError("--eval-results needs a huggingface_hub with EvalResultEntry "
                              "(the Hub's Eval Results format; 2.4 is tested): "
                              "pip install -U huggingface_hub") from None
    return EvalResultEntry


def file_path(record: dict[str, Any]) -> str:
    """``.eval_results/courtbench_<benchmark>_<system>.yaml``: one file per exported system
    (another system of the same model is another file, named in its notes)."""
    return f"{FOLDER}/courtbench_{record['benchmark']}_{record['system']}.yaml"


def _notes(task: HubTask, record: dict[str, Any]) -> str:
    notes = f"courtbench system {record['system']}: {task.reading}"
    if task.lower_is_better:
        notes += " (the Hub ranks higher values first)"
    return notes[:MAX_NOTES_CHARS]


def export_record(record: dict[str, Any], spec: HubBenchmark, *, dataset_id: str,
                  source_url: str | None = None) -> Export:
    """The Eval Results entries of one verified record.

    Args:
        record: a record of the main leaderboard table, verified by ``courtbench submit``'s
            checks (every number recomputed from its predictions).
        spec: the benchmark's :class:`HubBenchmark`.
        dataset_id: the benchmark dataset's Hub id (``ORG/NAME``, where its ``eval.yaml``
            lives).
        source_url: where the full record is (the results dataset), linked from each entry.

    Raises:
        CourtbenchError: the record is not of the main table (the Hub has no other), or no
            task has a value; BoundaryError: an exported value is not finite.
    """
    if record["leaderboard_table"] != "main":
        raise CourtbenchError(f"system {record['system']!r}: an unofficial record "
                              f"({record['unofficial_reason']}); the Hub's Eval Results have "
                              "no unofficial table, so only main-table records are exported")
    entry_class = _entry_class()
    entries, left_out = [], {}
    for task in spec.tasks:
        missing = [s for s in (task.source, *task.needs) if record_value(record, s) is None]
        if missing:
            left_out[task.task_id] = _missing_reason(task, missing)
            continue
        value = check_number(record_value(record, task.source),
                             f"{record['system']}: {task.task_id}")
        entries.append(entry_class(
            dataset_id=dataset_id, task_id=task.task_id, value=value, date=record["date"],
            source_url=source_url,
            source_name="courtbench verified record" if source_url else None,
            notes=_notes(task, record)))
    if not entries:
        raise CourtbenchError(f"system {record['system']!r}: no task of {spec.name} has a "
                              "value in its record (" + "; ".join(
                                  f"{t}: {why}" for t, why in left_out.items()) + ")")
    return Export(record["benchmark"], record["system"], file_path(record), entries, left_out)


def _missing_reason(task: HubTask, missing: list[Source]) -> str:
    if task.source in missing:
        return f"the record has no value at {' / '.join(task.source[1:])}"
    return (f"{len(missing)} of its {len(task.needs)} parts are missing from the record "
            f"(first: {' / '.join(missing[0][1:])}); an average over fewer parts is not "
            "the benchmark's number")


def dumps_entries(entries: list[Any]) -> str:
    """The YAML file of ``entries`` (huggingface_hub's own serialisation), checked to read
    back into the same entries with huggingface_hub's parser."""
    from huggingface_hub import eval_result_entries_to_yaml, parse_eval_result_entries

    text = yaml.safe_dump(eval_result_entries_to_yaml(entries), sort_keys=False,
                          allow_unicode=True, width=1000)
    if parse_eval_result_entries(yaml.safe_load(text)) != list(entries):
        raise CourtbenchError("the Eval Results file does not read back into its entries "
                              "(please report this)")
    return text


def check_entries_text(text: str, where: str) -> list[Any]:
    """Parse an Eval Results file's text back into entries (what the Hub reads); the shared
    validator checks it is text, and every value finite."""
    from huggingface_hub import parse_eval_result_entries

    check_text(text, where, max_chars=1_000_000, what="an Eval Results file")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise BoundaryError(where, "<YAML>", f"valid YAML ({str(error).splitlines()[0]})"
                            ) from None
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise BoundaryError(where, "<YAML>", "a list of entries")
    try:
        entries = parse_eval_result_entries(data)
    except (KeyError, TypeError, AttributeError, ValueError) as error:
        raise BoundaryError(where, "<entry>", f"entries with dataset.id, dataset.task_id and "
                            f"value (missing {error})") from None
    for entry in entries:
        check_number(entry.value, f"{where}: {entry.task_id}")
    return entries


def pull_request_text(exports: list[Export], model_repo: str, dataset_id: str,
                      full_record: Callable[[Export], str | None]) -> tuple[str, str]:
    """Title and body of the model repository's pull request."""
    systems = ", ".join(f"{e.benchmark} {e.system}" for e in exports)
    title = f"Add courtbench Eval Results: {systems}"
    lines = [f"Evaluation results of `{model_repo}` on the benchmark dataset `{dataset_id}`, "
             "exported by courtbench from verified leaderboard records (every number was "
             "recomputed from the predictions against the accepted data before export).", ""]
    for export in exports:
        link = full_record(export)
        lines.append(f"`{export.path}`" + (f" — full record: {link}" if link else ""))
        lines += [f"- {entry.task_id}: {entry.value:,.4f} — {entry.notes}"
                  for entry in export.entries]
        lines += [f"- (not exported) {task}: {why}" for task, why in export.left_out.items()]
    lines += ["", "The Hub keeps one number per task and ranks higher values first; tasks "
              "marked 'lower is better' rank the other way round."]
    return title, "\n".join(lines)


def eval_yaml(spec: HubBenchmark, *, framework: str) -> str:
    """The benchmark dataset's ``eval.yaml`` for ``spec``: name, description, the
    evaluation framework id and one task (id, config, split) per exported task — the ids
    the entries of :func:`export_record` name."""
    document = {"name": spec.name, "description": spec.description,
                "evaluation_framework": framework,
                "tasks": [{"id": t.task_id, "config": t.config, "split": t.split}
                          for t in spec.tasks]}
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=88)


def benchmark_spec(benchmark: str) -> HubBenchmark:
    """The :class:`HubBenchmark` of ``benchmark`` (its plugin's ``eval_results`` hook);
    CourtbenchError when no installed plugin exports one."""
    from courtbench.plugins import load_plugins

    plugin = load_plugins().get(benchmark)
    if plugin is None or plugin.eval_results is None:
        raise CourtbenchError(f"benchmark {benchmark!r}: no installed plugin exports its "
                              "results to the Hub's Eval Results (no eval_results hook)")
    return plugin.eval_results()
