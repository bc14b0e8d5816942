"""``courtbench baselines slds``: write the model-free baselines' predictions for a Hub folder.

Each system gets ``<system>.jsonl`` with one ``{"sample_id", "prediction"}`` object per row of
the chosen splits of the ``default`` config, sorted by sample_id, plus ``settings.json``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import datasets
from tqdm.auto import tqdm

from courtbench import __version__, option_checks
from courtbench.hub.atomic import atomic_output_dir
from courtbench.jsonio import dumps_strict
from slds.baselines.extractive import BASELINES, DEFAULT_BUDGET
from slds.data import read_split


def predict(rows: datasets.Dataset, system: str, *, budget: int) -> list[dict[str, str]]:
    """One prediction per row: ``[{"sample_id", "prediction"}]`` sorted by sample_id."""
    generate = BASELINES[system]
    outputs = [{"sample_id": sample_id, "prediction": generate(decision, budget=budget)}
               for sample_id, decision in tqdm(zip(rows["sample_id"], rows["decision"],
                                                   strict=True),
                                               total=rows.num_rows, desc=system, unit="doc")]
    return sorted(outputs, key=lambda row: row["sample_id"])


def write_jsonl(path: Path, records: list[dict]) -> None:
    """JSON Lines, UTF-8, one object per line (deterministic: keys in insertion order)."""
    with open(path, "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def run_baselines_on(data: Path, out: Path, *, systems: list[str], splits: list[str],
                     budget: int = DEFAULT_BUDGET) -> int:
    """Write ``<system>.jsonl`` for every system and ``settings.json`` into the predictions
    folder ``out`` (replaced atomically), for the rows of ``splits`` of the ``default`` config
    of the Hub folder ``data``; ``budget`` is in whitespace tokens. Returns the row count."""
    rows = read_split(data, splits, columns=("decision",))
    with atomic_output_dir(out, kind="predictions folder",
                           is_ours=lambda folder: (folder / "settings.json").is_file()) as tmp:
        for system in systems:
            write_jsonl(tmp / f"{system}.jsonl", predict(rows, system, budget=budget))
        settings = {"systems": systems, "splits": splits, "budget_tokens": budget,
                    "tokens": "whitespace", "courtbench": __version__, "data": str(data)}
        (tmp / "settings.json").write_text(
            dumps_strict(settings, what="settings.json", indent=2) + "\n", encoding="utf-8")
    return rows.num_rows


def run_baselines(args: argparse.Namespace) -> int:
    """CLI entry point: predictions of every requested system into ``args.out``."""
    count = run_baselines_on(args.data, args.out, systems=args.systems, splits=args.splits,
                             budget=args.budget)
    print(f"wrote {len(args.systems)} prediction files for {count:,} rows to {args.out}")
    return 0


def add_baseline_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--systems", nargs="+", choices=sorted(BASELINES), default=sorted(BASELINES),
                        help="baselines to run (default: all)")
    parser.add_argument("--splits", nargs="+", default=["test"],
                        help="splits of the default config to predict (default: test)")
    parser.add_argument("--budget", type=option_checks.count(
                            option_checks.MAX_LENGTH, what="a number of tokens"), default=DEFAULT_BUDGET,
                        help=f"token budget per headnote (default {DEFAULT_BUDGET})")
