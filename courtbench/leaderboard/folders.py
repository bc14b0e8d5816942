"""The two Hub folders of the leaderboard: the results dataset and the Space that shows it.

- results folder: ``README.md`` (card: what a record holds, the ``datasets`` features, one
  ``default`` config over ``results/**/*.json``, and the pins the check trusts: accepted data,
  gold files and reference rows), ``results/<benchmark>/<system>.json`` and
  ``gold/<benchmark>/<fingerprint>.json`` (the accepted data's gold values); a new one starts
  with the reference baselines of every report it is given.
- Space folder: the Gradio app shipped in :mod:`courtbench.spaces.leaderboard` (``app.py``,
  ``results_schema.py``, ``record_check.py``, ``boundary.py``, ``paired_bootstrap.py``,
  ``requirements.txt``, ``README.md``), each benchmark's verifier (``verifier_<name>.py`` and
  what it needs), plus ``results_repo.txt`` naming the results repository it reads.
"""

from __future__ import annotations

import hashlib
import shutil
import sys
from pathlib import Path
from typing import Any

import yaml

from courtbench.errors import CourtbenchError
from courtbench.hub.atomic import atomic_output_dir
from courtbench.leaderboard.protocol import ACCEPTED_KEY
from courtbench.leaderboard.record_check import (
    Checker,
    dumps_gold,
    gold_path,
    predictions_digest,
)
from courtbench.leaderboard.records import reference_records
from courtbench.leaderboard.results_schema import (
    FEATURES_YAML,
    GOLD_KEY,
    REFERENCES_KEY,
    SCHEMA_VERSION,
    dumps_record,
    record_path,
)
from courtbench.leaderboard.verifiers import installed_verifiers, verifier_modules
from courtbench.resources import package_path

SPACE_FILES = ("app.py", "results_schema.py", "record_check.py", "boundary.py",
               "paired_bootstrap.py", "requirements.txt", "README.md")
RESULTS_REPO_FILE = "results_repo.txt"

CARD_BODY = """
# courtbench leaderboard results

One JSON file per submitted system, `results/<benchmark>/<system>.json`, each a single
line holding one record of schema `{schema}` (defined and validated by
`results_schema.py` of the leaderboard Space and of courtbench). A record carries its
predictions; `gold/<benchmark>/<fingerprint>.json` holds the gold values of each accepted
data release, so anyone can recompute every number of every record (`courtbench leaderboard
check`, and the leaderboard Space at every load, refuse a record whose numbers do not come
out the same). Records are added by pull requests opened with `courtbench submit REPORT_DIR
--repo-id <this repo>`, which re-scores the report's predictions against the dataset it names
first.

```python
from datasets import load_dataset
results = load_dataset("<this repo>", split="train")   # one row per system
```

Reference baselines (`reference: true`) are written only by `courtbench leaderboard init` and
listed in this card (`{references_key}`); `data_kind` says whether a row was computed on the
real release or on courtbench's synthetic stand-in — only rows with the same
`data_fingerprint` are comparable.

The accepted data is pinned in this card (`{accepted_key}`: benchmark → data fingerprint →
data kind; `{gold_key}`: the sha256 of each gold file), written by `courtbench leaderboard
init` from the reference reports and changed only by this repository's owner. `courtbench
submit` refuses records whose data fingerprint is not listed, or that were not scored with the
benchmark's protocol (`split`, `resamples`, `options_json`), or whose run was incomplete or
filled with a fallback; with `--unofficial` the last two kinds are recorded with
`leaderboard_table: unofficial` and the reason, shown in a separate, labelled table.
"""


def results_card(accepted: dict[str, dict[str, str]] | None = None,
                 gold: dict[str, dict[str, str]] | None = None,
                 references: dict[str, dict[str, str]] | None = None) -> str:
    """The results repository's card: YAML (config, features, marker, accepted data
    ``{benchmark: {fingerprint: data_kind}}``, gold pins ``{benchmark: {fingerprint:
    sha256}}``, reference rows ``{benchmark: {system: predictions digest}}``) and the
    description."""
    metadata = {
        "pretty_name": "courtbench leaderboard results",
        "tags": ["leaderboard", "courtbench"],
        "courtbench_results": SCHEMA_VERSION,
        ACCEPTED_KEY: accepted or {},
        GOLD_KEY: gold or {},
        REFERENCES_KEY: references or {},
        "configs": [{"config_name": "default", "data_files": [
            {"split": "train", "path": "results/**/*.json"}]}],
        "dataset_info": {"features": FEATURES_YAML},
    }
    front = yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True)
    body = CARD_BODY.format(schema=SCHEMA_VERSION, accepted_key=ACCEPTED_KEY,
                            gold_key=GOLD_KEY, references_key=REFERENCES_KEY)
    return f"---\n{front}---\n{body}"


def accepted_from_records(records: list[dict[str, Any]]) -> dict[str, dict[str, str]]:
    """``{benchmark: {fingerprint: data_kind}}`` of the reference records."""
    accepted: dict[str, dict[str, str]] = {}
    for record in records:
        accepted.setdefault(record["benchmark"], {})[record["data_fingerprint"]] = \
            record["data_kind"]
    return accepted


def references_from_records(records: list[dict[str, Any]]) -> dict[str, dict[str, str]]:
    """``{benchmark: {system: predictions digest}}`` of the reference records."""
    pinned: dict[str, dict[str, str]] = {}
    for record in records:
        pinned.setdefault(record["benchmark"], {})[record["system"]] = predictions_digest(record)
    return pinned


def _reference_records(report_dirs: list[Path]) -> tuple[list[dict], dict[str, bytes], dict]:
    """Reference records of every report, the gold files by path, what was left out."""
    records, golds, left_out = [], {}, {}
    for report_dir in report_dirs:
        found, skipped, gold = reference_records(report_dir)
        records += found
        golds[gold_path(gold["benchmark"], gold["data_fingerprint"])] = dumps_gold(gold)
        if skipped:
            left_out[str(report_dir)] = skipped
    paths = [record_path(r) for r in records]
    repeated = sorted({p for p in paths if paths.count(p) > 1})
    if repeated:
        raise CourtbenchError(f"two reports give {', '.join(repeated)}; give one report per "
                              "benchmark")
    return records, golds, left_out


def write_results_folder(out_dir: Path, report_dirs: list[Path]
                         ) -> tuple[list[str], dict[str, dict[str, str]]]:
    """Write a new results folder seeded with the reference baselines of ``report_dirs``.

    Returns the record paths written and, per report, the systems left out with why (a
    system that is not one of the benchmark's reference baselines). Refuses a non-empty
    ``out_dir`` courtbench did not write as a results folder.
    """
    records, golds, left_out = _reference_records(report_dirs)
    pins: dict[str, dict[str, str]] = {}
    for path, data in golds.items():
        _, benchmark, name = path.split("/")
        pins.setdefault(benchmark, {})[name.removesuffix(".json")] = \
            hashlib.sha256(data).hexdigest()
    with atomic_output_dir(out_dir, kind="leaderboard results folder",
                           is_ours=is_results_folder) as tmp:
        (tmp / "README.md").write_text(
            results_card(accepted_from_records(records), pins, references_from_records(records)),
            encoding="utf-8")
        for path, data in golds.items():
            (tmp / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp / path).write_bytes(data)
        for record in records:
            path = tmp / record_path(record)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(dumps_record(record), encoding="utf-8")
    return [record_path(r) for r in records], left_out


def is_results_folder(folder: Path) -> bool:
    """Whether ``folder`` is a results folder (its card carries the results marker)."""
    card = Path(folder) / "README.md"
    return card.is_file() and "courtbench_results:" in card.read_text(encoding="utf-8")


def check_results_folder(folder: Path, checker: Checker | None = None
                         ) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """``(records, refused)``: every record under ``folder/results`` whose every number
    comes out the same when recomputed from its predictions (the leaderboard Space's check,
    :class:`record_check.Checker`), and ``(file, reason)`` per refused file."""
    from courtbench.hub import read_card_metadata

    if not (Path(folder) / "README.md").is_file():
        raise CourtbenchError(f"{folder}: not a results folder (no README.md); create one with "
                              "`courtbench leaderboard init`")
    card = read_card_metadata(Path(folder))
    checker = checker or Checker(verifier_modules())
    return checker.check_folder(Path(folder), card, progress=_progress)


def _progress(paths: list[Path]):
    from tqdm import tqdm

    return tqdm(paths, desc="recomputing records", unit="file", disable=None, file=sys.stderr)


def read_results_folder(folder: Path) -> list[dict[str, Any]]:
    """Every record of ``folder`` (:func:`check_results_folder`); CourtbenchError listing the
    refused files (the first five, each with its reason)."""
    records, refused = check_results_folder(folder)
    if refused:
        listed = "; ".join(f"{name}: {reason}" for name, reason in refused[:5])
        more = f" (and {len(refused) - 5} more)" if len(refused) > 5 else ""
        raise CourtbenchError(f"{folder}: {len(refused)} invalid result record(s): {listed}{more}")
    return records


def _space_requirements(base: str, extra: list[str]) -> str:
    lines = [line for line in base.splitlines() if line.strip()]
    known = {line.split(">")[0].split("=")[0].split("<")[0].strip().lower() for line in lines}
    for line in extra:
        name = line.split(">")[0].split("=")[0].split("<")[0].strip().lower()
        if name not in known:
            lines.append(line)
            known.add(name)
    return "\n".join(lines) + "\n"


def write_space_folder(out_dir: Path, results_repo: str) -> None:
    """Write the leaderboard Space folder reading ``results_repo`` (ORG/NAME), with the
    verifier of every installed benchmark."""
    from courtbench.publish.repo_id import check_repo_id

    check_repo_id(results_repo, option="--results-repo")
    source = package_path("courtbench", "spaces", "leaderboard")
    specs = installed_verifiers()
    with atomic_output_dir(out_dir, kind="leaderboard Space folder",
                           is_ours=lambda f: (f / RESULTS_REPO_FILE).is_file()) as tmp:
        for name in SPACE_FILES:
            shutil.copyfile(source / name, tmp / name)
        for spec in specs.values():
            for name, path in spec.space_files.items():
                shutil.copyfile(path, tmp / name)
        (tmp / "requirements.txt").write_text(_space_requirements(
            (source / "requirements.txt").read_text(encoding="utf-8"),
            [line for spec in specs.values() for line in spec.space_requirements]),
            encoding="utf-8")
        (tmp / RESULTS_REPO_FILE).write_text(results_repo + "\n", encoding="utf-8")
