"""Verify a Hub dataset folder offline: every config loads and matches its card."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import datasets
import pyarrow.parquet as pq

from courtbench.compat import features_from_yaml
from courtbench.errors import VerificationError
from courtbench.hub.card import CARD_FILE, read_card_metadata
from courtbench.hub.files import FileEntry, list_files
from courtbench.hub.offline import hub_offline


@dataclass
class VerifyReport:
    """Outcome of :func:`verify_folder`: rows per config and split, files, problems found."""

    folder: Path
    split_sizes: dict[str, dict[str, int]] = field(default_factory=dict)
    files: list[FileEntry] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _default_problems(configs: list) -> list[str]:
    """One problem unless exactly one config says ``default: true``."""
    defaults = [c.get("config_name") for c in configs if c.get("default")]
    if len(defaults) == 1:
        return []
    return [f"{CARD_FILE}: expected exactly one config with 'default: true', found {defaults}"]


def _data_file_problems(folder: Path, config: dict, referenced: set[str]) -> list[str]:
    """Problems of one config's ``data_files``; the paths that exist are added to
    ``referenced`` (relative to ``folder``)."""
    problems = []
    name = config.get("config_name")
    for data_file in config.get("data_files") or []:
        path = data_file.get("path") if isinstance(data_file, dict) else None
        if not path or not (folder / path).is_file():
            problems.append(f"{CARD_FILE}: config {name!r} split {data_file!r} points at "
                            "a file that does not exist")
        else:
            referenced.add(path)
    return problems


def _unreferenced_problems(folder: Path, referenced: set[str]) -> list[str]:
    """Parquet files under ``folder/data`` that no config names."""
    data = folder / "data"
    if not data.is_dir():
        return []
    return [f"{relative}: data file not referenced by any config in {CARD_FILE}"
            for relative in (entry.relative_to(folder).as_posix()
                             for entry in data.rglob("*.parquet"))
            if relative not in referenced]


def _card_problems(folder: Path, metadata: dict) -> list[str]:
    """Structural checks of the card's YAML against the files in the folder."""
    configs = metadata.get("configs")
    if not isinstance(configs, list) or not configs:
        return [f"{CARD_FILE}: YAML has no 'configs' list"]
    infos = {i.get("config_name"): i for i in metadata.get("dataset_info") or []}
    problems = _default_problems(configs)
    referenced: set[str] = set()
    for config in configs:
        name = config.get("config_name")
        if name not in infos:
            problems.append(f"{CARD_FILE}: config {name!r} has no 'dataset_info' entry "
                            "(features and split sizes)")
        problems += _data_file_problems(folder, config, referenced)
    return problems + _unreferenced_problems(folder, referenced)


def _file_feature_problems(folder: Path, config: dict, expected: datasets.Features) -> list[str]:
    """Features stored in each parquet file's schema against the card's features."""
    problems = []
    for data_file in config.get("data_files") or []:
        path = folder / data_file["path"]
        if path.is_file():
            try:
                stored = datasets.Features.from_arrow_schema(pq.read_schema(path))
            except Exception as error:  # noqa: BLE001 - an unreadable file is a problem to report
                problems.append(f"{data_file['path']}: not a readable parquet file "
                                f"({type(error).__name__}: {error})")
                continue
            if stored != expected:
                problems.append(f"{data_file['path']}: stored features {stored} differ from the "
                                f"card's {expected} (config {config['config_name']!r})")
    return problems


def _config_problems(folder: Path, config: dict, info: dict, cache_dir: str) -> tuple[dict, list]:
    """Load one config with datasets.load_dataset; compare splits, counts and features."""
    name = config["config_name"]
    expected_features = features_from_yaml(info.get("features", []))
    file_problems = _file_feature_problems(folder, config, expected_features)
    if file_problems:
        return {}, file_problems
    try:
        # no_checks: counts are compared below, with a message that names config and split
        loaded = datasets.load_dataset(str(folder), name, cache_dir=cache_dir,
                                       verification_mode="no_checks")
    except Exception as error:  # noqa: BLE001 - any load failure is a verification problem
        return {}, [f"config {name!r}: load_dataset failed: {type(error).__name__}: {error}"]
    problems = []
    sizes = {split: ds.num_rows for split, ds in loaded.items()}
    expected_sizes = {s["name"]: s["num_examples"] for s in info.get("splits", [])}
    if sizes != expected_sizes:
        problems.append(f"config {name!r}: loaded split sizes {sizes} differ from the card's "
                        f"{expected_sizes}")
    for split, ds in loaded.items():
        if ds.features != expected_features:
            problems.append(f"config {name!r} split {split!r}: features {ds.features} differ "
                            f"from the card's {expected_features}")
    return sizes, problems


def verify_folder(folder: Path, *,
                  audit: Callable[[Path], list[str]] | None = None) -> VerifyReport:
    """Check a Hub folder the way the Hub and the dataset viewer will read it, offline.

    Loads every config declared in the card with ``datasets.load_dataset`` (fresh temporary
    cache, network disabled), compares split names, row counts and features with the card's
    ``dataset_info``, checks that every configured data file exists and every data file is
    configured, runs ``audit(folder)`` (dataset-specific checks such as leakage), and
    computes sha256 per file.

    Raises:
        VerificationError: listing every problem found. The report is attached as
            ``error.report``.
    """
    folder = Path(folder)
    report = VerifyReport(folder)
    metadata = read_card_metadata(folder)
    report.problems.extend(_card_problems(folder, metadata))
    infos = {i.get("config_name"): i for i in metadata.get("dataset_info") or []}
    bars_were_enabled = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()  # one "Generating split" bar per split is noise here
    with tempfile.TemporaryDirectory(prefix="courtbench-verify-") as cache_dir, hub_offline(folder):
        for config in metadata.get("configs") or []:
            name = config.get("config_name")
            if name not in infos:
                continue
            sizes, problems = _config_problems(folder, config, infos[name], cache_dir)
            report.split_sizes[name] = sizes
            report.problems.extend(problems)
    if bars_were_enabled:
        datasets.enable_progress_bars()
    if audit is not None and report.problems:
        # the audit reads the data files; on a folder that does not load it would only crash
        report.problems.append("dataset audit not run: fix the problems above first")
    elif audit is not None:
        report.problems.extend(audit(folder))
    report.files = list_files(folder)
    if report.problems:
        error = VerificationError(f"{folder}: {len(report.problems)} problem(s):\n  - "
                                  + "\n  - ".join(report.problems))
        error.report = report  # type: ignore[attr-defined]
        raise error
    return report
