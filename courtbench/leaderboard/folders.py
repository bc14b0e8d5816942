"""The two Hub folders of the leaderboard: the results dataset and the Space that shows it.

- results folder: ``README.md`` (card: what a record holds, the ``datasets`` features, one
  ``default`` config over ``results/**/*.json``) and ``results/<benchmark>/<system>.json``;
  a new one starts with the reference baselines of every report it is given.
- Space folder: the Gradio app shipped in :mod:`courtbench.spaces.leaderboard` (``app.py``,
  ``results_schema.py``, ``requirements.txt``, ``README.md``) plus ``results_repo.txt``
  naming the results repository it reads.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import yaml

from courtbench.errors import CourtbenchError
from courtbench.hub.atomic import atomic_output_dir
from courtbench.leaderboard.protocol import ACCEPTED_KEY
from courtbench.leaderboard.records import verified_records
from courtbench.leaderboard.results_schema import (
    FEATURES_YAML,
    SCHEMA_VERSION,
    dumps_record,
    read_record_folder,
    record_path,
)
from courtbench.resources import package_path

SPACE_FILES = ("app.py", "results_schema.py", "paired_bootstrap.py", "requirements.txt", "README.md")
RESULTS_REPO_FILE = "results_repo.txt"

CARD_BODY = """
# courtbench leaderboard results

One JSON file per submitted system, `results/<benchmark>/<system>.json`, each a single
line holding one record of schema `{schema}` (defined and validated by
`results_schema.py` of the leaderboard Space and of courtbench). Records are added by pull
requests opened with `courtbench submit REPORT_DIR --repo-id <this repo>`, which re-scores the
report's predictions against the dataset it names and refuses the submission when the data
fingerprint, the metric signature or any number differs.

```python
from datasets import load_dataset
results = load_dataset("<this repo>", split="train")   # one row per system
```

Reference baselines (`reference: true`) are the first rows; `data_kind` says whether a row
was computed on the real release or on courtbench's synthetic stand-in — only rows with the
same `data_fingerprint` are comparable.

The accepted data is pinned in this card (`{accepted_key}`: benchmark → data fingerprint →
data kind), written by `courtbench leaderboard init` from the reference reports and changed
only by this repository's owner. `courtbench submit` refuses records whose data fingerprint is
not listed, or that were not scored with the benchmark's protocol (`split`, `resamples`,
`options_json`); with `--unofficial` they are recorded with `leaderboard_table:
unofficial` and the reason, to be shown in a separate, labelled "unofficial data" table.
"""


def results_card(accepted: dict[str, dict[str, str]] | None = None) -> str:
    """The results repository's card: YAML (config, features, marker, accepted data
    ``{benchmark: {fingerprint: data_kind}}``) and the description."""
    metadata = {
        "pretty_name": "courtbench leaderboard results",
        "tags": ["leaderboard", "courtbench"],
        "courtbench_results": SCHEMA_VERSION,
        ACCEPTED_KEY: accepted or {},
        "configs": [{"config_name": "default", "data_files": [
            {"split": "train", "path": "results/**/*.json"}]}],
        "dataset_info": {"features": FEATURES_YAML},
    }
    front = yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True)
    body = CARD_BODY.format(schema=SCHEMA_VERSION, accepted_key=ACCEPTED_KEY)
    return f"---\n{front}---\n{body}"


def accepted_from_records(records: list[dict[str, Any]]) -> dict[str, dict[str, str]]:
    """``{benchmark: {fingerprint: data_kind}}`` of the reference records."""
    accepted: dict[str, dict[str, str]] = {}
    for record in records:
        accepted.setdefault(record["benchmark"], {})[record["data_fingerprint"]] = \
            record["data_kind"]
    return accepted


def _reference_records(report_dirs: list[Path]) -> list[dict[str, Any]]:
    records = []
    for report_dir in report_dirs:
        found = [r for r in verified_records(report_dir) if r["reference"]]
        if not found:
            raise CourtbenchError(f"{report_dir}: no reference baseline in this report")
        records += found
    paths = [record_path(r) for r in records]
    repeated = sorted({p for p in paths if paths.count(p) > 1})
    if repeated:
        raise CourtbenchError(f"two reports give {', '.join(repeated)}; give one report per "
                              "benchmark")
    return records


def write_results_folder(out_dir: Path, report_dirs: list[Path]) -> list[str]:
    """Write a new results folder seeded with the reference baselines of ``report_dirs``.

    Returns the record paths written. Refuses a non-empty ``out_dir`` courtbench did not
    write as a results folder.
    """
    records = _reference_records(report_dirs)
    with atomic_output_dir(out_dir, kind="leaderboard results folder",
                           is_ours=is_results_folder) as tmp:
        (tmp / "README.md").write_text(results_card(accepted_from_records(records)),
                                       encoding="utf-8")
        for record in records:
            path = tmp / record_path(record)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(dumps_record(record), encoding="utf-8")
    return [record_path(r) for r in records]


def is_results_folder(folder: Path) -> bool:
    """Whether ``folder`` is a results folder (its card carries the results marker)."""
    card = Path(folder) / "README.md"
    return card.is_file() and "courtbench_results:" in card.read_text(encoding="utf-8")


def read_results_folder(folder: Path) -> list[dict[str, Any]]:
    """Every record under ``folder/results``, validated as the leaderboard Space validates
    them (:func:`results_schema.read_record_folder`); CourtbenchError lists refused files."""
    if not (Path(folder) / "README.md").is_file():
        raise CourtbenchError(f"{folder}: not a results folder (no README.md); create one with "
                              "`courtbench leaderboard init`")
    records, refused = read_record_folder(Path(folder))
    if refused:
        listed = "; ".join(f"{name}: {reason}" for name, reason in refused[:5])
        more = f" (and {len(refused) - 5} more)" if len(refused) > 5 else ""
        raise CourtbenchError(f"{folder}: {len(refused)} invalid result record(s): {listed}{more}")
    return records


def write_space_folder(out_dir: Path, results_repo: str) -> None:
    """Write the leaderboard Space folder reading ``results_repo`` (ORG/NAME)."""
    if results_repo.count("/") != 1 or not all(results_repo.split("/")):
        raise CourtbenchError(f"--results-repo {results_repo!r}: expected ORG/NAME")
    source = package_path("courtbench", "spaces", "leaderboard")
    with atomic_output_dir(out_dir, kind="leaderboard Space folder",
                           is_ours=lambda f: (f / RESULTS_REPO_FILE).is_file()) as tmp:
        for name in SPACE_FILES:
            shutil.copyfile(source / name, tmp / name)
        (tmp / RESULTS_REPO_FILE).write_text(results_repo + "\n", encoding="utf-8")
