"""The benchmark's data as the baselines and the report see it: splits, test views, fingerprint.

:func:`load_benchmark` reads a Hub folder written by ``courtbench build ecthr_npd`` with
``datasets.load_dataset`` (offline, fresh temporary cache): the ``default`` config's
``train`` / ``validation`` / ``test`` splits (columns ``MODEL_INPUT_COLUMNS``: ``case_id``,
the permitted inputs, ``y_amount_eur``) and the case ids of the ``id``, ``ood`` and
``challenging`` test views. :func:`from_canonical` builds the same object from the release's
canonical typed table (:func:`ecthr_npd.reader.read_case_level`), for tests and benchmarks
that skip the Hub folder.

Tables are ``pyarrow.Table`` with the canonical types: ClassLabel columns hold label indices
(int), sets are list columns, ``judgment_date`` is date32.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from courtbench.errors import CourtbenchError
from courtbench.hub.files import fingerprint, list_files
from ecthr_npd import schema

SPLITS = schema.SPLITS
# Report name of each test view → the Hub config that holds it (split ``test``).
VIEW_CONFIGS = {"ID": "id", "OOD": "ood", "Challenging": "challenging"}


@dataclass
class BenchmarkData:
    """One built benchmark in memory.

    Attributes:
        splits: ``train`` / ``validation`` / ``test`` → table of ``MODEL_INPUT_COLUMNS``.
        views: ``ID`` / ``OOD`` / ``Challenging`` → test case ids in that view.
        fingerprint: sha256 over the folder's files (or over the canonical table's bytes).
        source: where the data came from (folder path or description).
        facts: case_id → facts text, when loaded (``load_benchmark(..., facts=True)``).
    """

    splits: dict[str, pa.Table]
    views: dict[str, list[str]]
    fingerprint: str
    source: str
    facts: dict[str, str] | None = None

    def ids(self, split: str) -> list[str]:
        """Case ids of one split, in table order."""
        return self.splits[split].column(schema.ID_COLUMN).to_pylist()

    def target(self, split: str) -> np.ndarray:
        """``y_amount_eur`` of one split as float64, in table order (EUR)."""
        return self.splits[split].column(schema.TARGET_COLUMN).to_numpy().astype(np.float64)

    def all_ids(self) -> list[str]:
        """Every case id, train then validation then test."""
        return [case_id for split in SPLITS for case_id in self.ids(split)]


def inputs_only(table: pa.Table) -> pa.Table:
    """``table`` without the target column: what a baseline may see of a case to predict."""
    if schema.TARGET_COLUMN in table.column_names:
        return table.drop_columns([schema.TARGET_COLUMN])
    return table


def _check_columns(table: pa.Table, where: str) -> None:
    missing = [c for c in schema.MODEL_INPUT_COLUMNS if c not in table.column_names]
    if missing:
        raise CourtbenchError(f"{where}: columns {missing} are missing; expected the "
                              f"model-input columns {list(schema.MODEL_INPUT_COLUMNS)}")


def load_benchmark(folder: Path, *, facts: bool = False) -> BenchmarkData:
    """Load a built ECtHR-NPD Hub folder (see the module docstring); with ``facts`` also the
    ``facts`` config's text of every case (:func:`load_facts`).

    Raises:
        CourtbenchError: the folder is missing, or a config/split/column is absent.
    """
    import datasets

    from courtbench.hub.offline import hub_offline

    folder = Path(folder)
    if not (folder / "README.md").is_file():
        raise CourtbenchError(f"--data {folder}: not a Hub folder (no README.md); build one with "
                              "`courtbench build ecthr_npd`")
    bars = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()
    try:
        with tempfile.TemporaryDirectory(prefix="courtbench-ecthr-") as cache, hub_offline(folder):
            try:
                default = datasets.load_dataset(str(folder), "default", cache_dir=cache)
                views = {}
                for view, config in VIEW_CONFIGS.items():
                    loaded = datasets.load_dataset(str(folder), config, cache_dir=cache)
                    views[view] = loaded["test"][schema.ID_COLUMN]
            except (ValueError, FileNotFoundError, KeyError) as error:
                raise CourtbenchError(f"--data {folder}: cannot load the ECtHR-NPD configs "
                                      f"(default, id, ood, challenging): {error}") from error
            splits = {}
            for split in SPLITS:
                if split not in default:
                    raise CourtbenchError(f"--data {folder}: config 'default' has no split "
                                          f"{split!r}; found {sorted(default)}")
                table = default[split].data.table
                _check_columns(table, f"{folder} default/{split}")
                splits[split] = table.select(list(schema.MODEL_INPUT_COLUMNS)).combine_chunks()
    finally:
        if bars:
            datasets.enable_progress_bars()
    texts = load_facts(folder) if facts else None
    return BenchmarkData(splits, views, fingerprint(list_files(folder)), str(folder), texts)


def load_facts(folder: Path) -> dict[str, str]:
    """case_id → ``facts_text`` of every split of the folder's ``facts`` config (read from its
    parquet files, which ``courtbench verify`` checks against the card).

    Raises:
        CourtbenchError: the folder has no facts config (built without ``--facts``).
    """
    import pyarrow.parquet as pq

    files = sorted((Path(folder) / "data" / "facts").glob("*.parquet"))
    if not files:
        raise CourtbenchError(f"--data {folder}: no 'facts' config; the text systems need a "
                              "folder built with --facts reviewed_facts.jsonl (or --synthetic)")
    texts: dict[str, str] = {}
    for path in files:
        table = pq.read_table(path, columns=[schema.ID_COLUMN, "facts_text"])
        texts.update(zip(table.column(0).to_pylist(), table.column(1).to_pylist(), strict=True))
    return texts


def from_canonical(table: pa.Table, source: str = "<canonical table>") -> BenchmarkData:
    """Split a canonical typed table (schema.CANONICAL_FEATURES) into a :class:`BenchmarkData`.

    Split from the ``split`` column; ID/OOD from ``test_view``; Challenging from
    ``test_challenging_view``. The fingerprint hashes the table's IPC bytes.
    """
    import hashlib

    split_names = schema.COLUMN_BY_NAME["split"].values
    view_names = schema.COLUMN_BY_NAME["test_view"].values
    split_codes = table.column("split").to_numpy()
    splits = {}
    for code, name in enumerate(split_names):
        mask = pa.array(split_codes == code)
        splits[name] = table.filter(mask).select(list(schema.MODEL_INPUT_COLUMNS)).combine_chunks()
    test = table.filter(pa.array(split_codes == split_names.index("test")))
    test_ids = np.asarray(test.column(schema.ID_COLUMN).to_pylist(), dtype=object)
    test_view = test.column("test_view").to_numpy()
    challenging = pc.fill_null(test.column("test_challenging_view"), False).to_numpy(
        zero_copy_only=False)
    views = {
        "ID": list(test_ids[test_view == view_names.index("ID")]),
        "OOD": list(test_ids[test_view == view_names.index("OOD")]),
        "Challenging": list(test_ids[challenging]),
    }
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    digest = hashlib.sha256(sink.getvalue().to_pybytes()).hexdigest()
    return BenchmarkData(splits, views, digest, source)
