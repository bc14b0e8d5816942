"""Dataset plugins: how courtbench learns about a dataset (the two in this repository or a third).

A dataset package exposes one :class:`DatasetPlugin` object and registers it under the
entry-point group ``courtbench.datasets`` in its ``pyproject.toml``::

    [project.entry-points."courtbench.datasets"]
    my_dataset = "my_dataset.plugin:PLUGIN"

``courtbench`` never imports a dataset package by name; the CLI asks :func:`load_plugins`.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path

from courtbench.errors import CourtbenchError

ENTRY_POINT_GROUP = "courtbench.datasets"

ArgumentAdder = Callable[[argparse.ArgumentParser], None]
ArgsRunner = Callable[[argparse.Namespace], int]


class deferred:  # noqa: N801 - used like a function: deferred("package.module:name")
    """A plugin hook given as ``"package.module:attribute"``, imported on its first call.

    A plugin object names its hooks this way so that loading the plugins (``courtbench
    metrics list``, ``--help``, any command) imports none of a dataset's heavy modules until
    one of its hooks actually runs.
    """

    def __init__(self, target: str):
        module, _, attribute = target.partition(":")
        if not module or not attribute:
            raise ValueError(f"deferred({target!r}): expected 'package.module:attribute'")
        self.target = target

    def resolve(self) -> Callable:
        """The hook itself (importing its module)."""
        module, _, attribute = self.target.partition(":")
        return getattr(importlib.import_module(module), attribute)

    def __call__(self, *args, **kwargs):
        return self.resolve()(*args, **kwargs)

    def __repr__(self) -> str:
        return f"deferred({self.target!r})"


@dataclass(frozen=True)
class DatasetPlugin:
    """Everything the generic CLI needs to know about one dataset.

    Attributes:
        name: the dataset's short name, used on the command line (``courtbench build NAME``).
        summary: one line for ``--help``.
        add_build_arguments: adds the dataset's ``courtbench build NAME`` options.
        build: builds a Hub folder from parsed arguments (``args.out`` is the folder);
            returns an exit code.
        audit_folder: extra checks on a built Hub folder (e.g. the leakage audit); returns
            a list of problems, empty when the folder passes. Run by ``courtbench verify``
            and ``courtbench publish``.
        add_baseline_arguments / run_baselines: ``courtbench baselines NAME``.
        add_evaluate_arguments / evaluate: ``courtbench evaluate NAME``.
        add_generate_arguments / generate: ``courtbench generate NAME`` (predictions from
            a language model).
        add_judge_arguments / judge: ``courtbench judge NAME`` (an LLM judge scores
            predictions).
        add_predict_arguments / predict: ``courtbench predict NAME`` (a model's predictions,
            run through Inspect AI (:mod:`courtbench.inspect_glue`), written where
            ``courtbench evaluate NAME`` reads them).
        add_train_arguments / train: ``courtbench train NAME`` (fine-tune the dataset's
            reference system with :mod:`courtbench.training`; its outputs go to
            ``courtbench evaluate NAME`` or ``courtbench generate NAME``).
        demo: runs the dataset's part of ``courtbench demo`` into a folder, with a size
            scale in (0, 1]; returns a short text summary to print.
        metric_example: the last part of ``courtbench demo``: scores a generated example
            prediction set with the dataset's metric modules through ``evaluate.load``,
            deterministically from a seed, writing into its own subfolder of the given
            folder; returns the text to print.
        package: the import name of the dataset package; its resources (card template,
            metric folders) are found inside it with :mod:`importlib.resources`.
        rescore_report: recomputes a report from the ``rerun`` block of its provenance (see
            :mod:`courtbench.leaderboard.rerun`) into a folder; returns the fresh report.json
            document. Used by ``courtbench submit``.
        leaderboard_records: ``(rerun, fresh report document, systems)`` → one leaderboard
            record per system (the dataset's metrics, breakdowns, paired tests and per-item
            values; see :mod:`courtbench.leaderboard.results_schema`).
        leaderboard_protocol: ``(rerun options, where)`` → the ways the options differ from
            the benchmark's leaderboard protocol (empty: comparable); raises CourtbenchError
            for missing or mistyped options (see :mod:`courtbench.leaderboard.protocol`).
        leaderboard_verifier: ``()`` → a :class:`courtbench.leaderboard.verifiers.VerifierSpec`:
            how ``leaderboard check`` and the leaderboard Space recompute a record's numbers
            from its predictions and the accepted data's gold values.
        metric_modules: names of the ``evaluate`` metric modules the dataset ships, each a
            folder ``metrics/<name>/`` holding ``<name>.py``, card, app and requirements
            (see :mod:`courtbench.metric_modules`).
        inspect_task: a function returning the dataset's Inspect AI ``Task`` (keyword
            parameters = ``inspect eval -T`` options); registered as ``courtbench/<name>``
            by :mod:`courtbench.inspect_glue.registry` and used by the dataset's runners.
        eval_results: ``()`` → a :class:`courtbench.leaderboard.eval_results.HubBenchmark`:
            which figures of a verified record ``courtbench submit --eval-results`` exports
            to the Hub's Eval Results (one number per task, each with how to read it).
    """

    name: str
    summary: str
    add_build_arguments: ArgumentAdder
    build: ArgsRunner
    audit_folder: Callable[[Path], list[str]] | None = None
    add_baseline_arguments: ArgumentAdder | None = None
    run_baselines: ArgsRunner | None = None
    add_evaluate_arguments: ArgumentAdder | None = None
    evaluate: ArgsRunner | None = None
    add_generate_arguments: ArgumentAdder | None = None
    generate: ArgsRunner | None = None
    add_judge_arguments: ArgumentAdder | None = None
    judge: ArgsRunner | None = None
    add_predict_arguments: ArgumentAdder | None = None
    predict: ArgsRunner | None = None
    add_train_arguments: ArgumentAdder | None = None
    train: ArgsRunner | None = None
    demo: Callable[[Path, float], str] | None = None
    metric_example: Callable[[Path, int], str] | None = None
    package: str | None = None
    metric_modules: tuple[str, ...] = ()
    rescore_report: Callable[[dict, Path], dict] | None = None
    leaderboard_records: Callable[[dict, dict, list[str]], list[dict]] | None = None
    leaderboard_protocol: Callable[[dict, str], list[str]] | None = None
    inspect_task: Callable[..., object] | None = None
    leaderboard_verifier: Callable[[], object] | None = None
    eval_results: Callable[[], object] | None = None


def load_plugins() -> dict[str, DatasetPlugin]:
    """Return the installed dataset plugins by name, sorted by name.

    A plugin that fails to import is reported on stderr and left out, so that one broken
    dataset package does not take the whole CLI down.
    """
    plugins: dict[str, DatasetPlugin] = {}
    for entry_point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            plugin = entry_point.load()
        except Exception as error:  # noqa: BLE001 - report any import failure, keep going
            print(f"courtbench: dataset plugin {entry_point.name!r} ({entry_point.value}) "
                  f"failed to load: {error}", file=sys.stderr)
            continue
        if not isinstance(plugin, DatasetPlugin):
            warnings.warn(f"entry point {entry_point.name!r} is not a DatasetPlugin: {plugin!r}",
                          stacklevel=2)
            continue
        plugins[plugin.name] = plugin
    return plugins


def plugin_for_folder(folder: Path) -> DatasetPlugin | None:
    """Return the plugin whose dataset a built Hub folder holds, from its card's metadata.

    Builders record ``courtbench_dataset: <name>`` in the card's YAML; ``None`` when the
    folder carries no such mark or the plugin is not installed.
    """
    from courtbench.hub.card import read_card_metadata

    name = read_card_metadata(folder).get("courtbench_dataset")
    return load_plugins().get(name) if name else None


#: Arguments whose paths a command reads; none of them may lie inside its ``--out``.
INPUT_ARGUMENTS = ("source", "applicants", "data", "predictions")


def _input_paths(args: argparse.Namespace) -> list[tuple[str, Path]]:
    found = []
    for name in INPUT_ARGUMENTS:
        value = getattr(args, name, None)
        for path in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(path, Path):
                found.append((f"--{name}", path))
    return found


def check_data_folder(folder: Path, dataset: str) -> None:
    """Refuse (CourtbenchError) a ``--data`` folder that is not a Hub folder of ``dataset``
    built by courtbench (its card's ``courtbench_dataset``), before anything is loaded."""
    from courtbench.hub.card import read_card_metadata

    expected = f"expected a Hub folder built by `courtbench build {dataset}`"
    if not folder.is_dir():
        raise CourtbenchError(f"--data {folder}: {'not a folder' if folder.exists() else 'not found'}"
                              f"; {expected}")
    try:
        name = read_card_metadata(folder).get("courtbench_dataset")
    except CourtbenchError as error:
        raise CourtbenchError(f"--data {folder}: {error}; {expected}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise CourtbenchError(f"--data {folder}: unreadable dataset card ({error}); "
                              f"{expected}") from None
    if name != dataset:
        found = f"a Hub folder of {name}" if name else "not a Hub folder courtbench built"
        raise CourtbenchError(f"--data {folder}: is {found}; {expected}")


#: Arguments that name files, never folders.
FILE_ARGUMENTS = ("--predictions",)


def refuse_folders_as_files(inputs: list[tuple[str, Path]]) -> None:
    """Refuse (CourtbenchError) a folder given to an argument of :data:`FILE_ARGUMENTS`."""
    for argument, path in inputs:
        if argument in FILE_ARGUMENTS and path.is_dir():
            raise CourtbenchError(f"{argument} {path}: is a folder; expected a predictions "
                                  "file (.jsonl or .csv) — give the files inside it, e.g. "
                                  f"{path}/*.csv")


def refuse_output_inside_data(out: Path, data: Path | None) -> None:
    """Refuse (CourtbenchError) an ``--out`` that is, or lies inside, the ``--data`` folder:
    writing there would change the built folder (and its fingerprint) the run reads."""
    if not isinstance(data, Path):
        return
    target, folder = out.resolve(), data.resolve()
    if target == folder or folder in target.parents:
        raise CourtbenchError(f"--out {out}: lies inside --data {data}; writing there would "
                              "change the built dataset (and its fingerprint); write the output "
                              "to another folder")


def guard_output(run: ArgsRunner, output_kind: str | None) -> ArgsRunner:
    """Wrap a plugin command so that, before any work (option values were checked while
    parsing, :mod:`courtbench.option_checks`), an input inside ``--out``, an
    existing ``--out`` that is not a replaceable ``output_kind``
    (:func:`courtbench.hub.atomic.check_replaceable`) and a ``--data`` folder of another
    dataset (:func:`check_data_folder`) are refused."""
    from courtbench.hub.atomic import check_replaceable, refuse_inputs_inside

    @functools.wraps(run)
    def guarded(args: argparse.Namespace) -> int:
        data, dataset = getattr(args, "data", None), getattr(args, "dataset", None)
        if isinstance(data, Path) and isinstance(dataset, str):
            check_data_folder(data, dataset)
        missing = [f"{argument} {path}" for argument, path in _input_paths(args)
                   if not path.exists()]
        if missing:
            raise CourtbenchError(f"{'; '.join(missing)}: not found (nothing was run)")
        refuse_folders_as_files(_input_paths(args))
        out = getattr(args, "out", None)
        if isinstance(out, Path):
            refuse_inputs_inside(out, _input_paths(args))
            refuse_output_inside_data(out, data)
            if output_kind is not None:
                check_replaceable(out, kind=output_kind)
        return run(args)

    return guarded


def add_dataset_subparsers(parser: argparse.ArgumentParser, *, arguments_hook: str,
                           run_hook: str, add_common: ArgumentAdder,
                           output_kind: str | None = None) -> None:
    """Give ``parser`` one sub-parser per installed plugin that implements a command.

    Args:
        parser: the command's parser (``courtbench build``, ``baselines``, ``evaluate``).
        arguments_hook: plugin attribute adding the dataset's options (``add_build_arguments``).
        run_hook: plugin attribute running the command (``build``); plugins where it is
            ``None`` are left out.
        add_common: adds the options every dataset shares for this command (``--out`` …).
        output_kind: the kind of folder ``--out`` is (:mod:`courtbench.hub.atomic`); an
            existing ``--out`` of another kind, or holding foreign files, is refused before
            the plugin runs (see :func:`guard_output`).
    """
    sub = parser.add_subparsers(dest="dataset", metavar="DATASET", required=True)
    for name, plugin in load_plugins().items():
        run = getattr(plugin, run_hook)
        add_arguments = getattr(plugin, arguments_hook)
        if run is None or add_arguments is None:
            continue
        dataset_parser = sub.add_parser(name, help=plugin.summary, description=plugin.summary)
        add_common(dataset_parser)
        add_arguments(dataset_parser)
        dataset_parser.set_defaults(func=guard_output(run, output_kind))
