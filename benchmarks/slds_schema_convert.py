"""Convert an SLDS Hub folder built before the int64/string schema change and compare it with
a build of today's code: the proof that streaming changed nothing but the schema.

``python -m benchmarks.slds_schema_convert OLD NEW`` reads every parquet file of OLD,
converts ``sample_id`` (``<decision_id>/<headnote_language>`` text -> the derived int64 id)
and ``law_area`` (ClassLabel index -> its name), writes the result through the build's own
:class:`courtbench.hub.streaming.ParquetStreamWriter` into a scratch folder and compares the
files byte for byte with NEW's; then compares the cards: the YAML without dataset_info
features and byte sizes (which the schema change changes), and the body line by line,
printing the lines that differ (expected: the sample_id and law_area descriptions and notes). Exit code 0 when every parquet file matches.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import sys
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from courtbench.hub.card import split_card
from courtbench.hub.streaming import ParquetStreamWriter
from slds.law_areas import LAW_AREAS
from slds.schema import COLUMNS, FEATURES, derived_sample_id


def convert_table(table: pa.Table) -> pa.Table:
    """An old-schema table in the new schema (same rows, same order)."""
    ids = []
    for text in table["sample_id"].to_pylist():
        decision_id, _, headnote_language = text.rpartition("/")
        ids.append(derived_sample_id(decision_id, headnote_language))
    areas = [LAW_AREAS[label] for label in table["law_area"].to_pylist()]
    columns = {name: table[name] for name in COLUMNS}
    columns["sample_id"] = pa.array(ids, type=pa.int64())
    columns["law_area"] = pa.array(areas, type=pa.string())
    return pa.table(columns, schema=FEATURES.arrow_schema)


def _without_schema(metadata: dict) -> dict:
    """Card YAML without what the schema change changes: features and byte sizes."""
    metadata = copy.deepcopy(metadata)
    for info in metadata.get("dataset_info", []):
        info.pop("features", None)
        info.pop("dataset_size", None)
        for split in info.get("splits", []):
            split.pop("num_bytes", None)
    return metadata


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def compare(old: Path, new: Path) -> int:
    old_files = sorted(p.relative_to(old) for p in old.rglob("*.parquet"))
    new_files = sorted(p.relative_to(new) for p in new.rglob("*.parquet"))
    if old_files != new_files:
        print(f"different parquet file lists: only old {set(old_files) - set(new_files)}, "
              f"only new {set(new_files) - set(old_files)}")
        return 1
    mismatches = 0
    with tempfile.TemporaryDirectory() as scratch:
        for relative in old_files:
            converted = Path(scratch) / relative
            with ParquetStreamWriter(converted, FEATURES.arrow_schema) as writer:
                writer.write(convert_table(pq.read_table(old / relative)))
            same = _sha256(converted) == _sha256(new / relative)
            mismatches += not same
            print(f"{'identical' if same else 'DIFFERENT'}  {relative}")
    print(f"{len(old_files) - mismatches} of {len(old_files)} parquet files byte-identical "
          "after conversion")
    old_yaml, old_body = split_card((old / "README.md").read_text(encoding="utf-8"))
    new_yaml, new_body = split_card((new / "README.md").read_text(encoding="utf-8"))
    same_yaml = _without_schema(old_yaml) == _without_schema(new_yaml)
    print("card YAML:", "identical except dataset_info features and num_bytes" if same_yaml
          else "DIFFERENT beyond features and num_bytes")
    changed = [line for line in difflib.unified_diff(old_body.splitlines(),
                                                     new_body.splitlines(), "old", "new", n=0,
                                                     lineterm="")
               if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    print(f"card body: {len(changed)} changed lines")
    print("\n".join(changed))
    print("figure", "identical" if _sha256(old / "length_distribution.png") ==
          _sha256(new / "length_distribution.png") else "DIFFERENT")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(compare(Path(sys.argv[1]), Path(sys.argv[2])))
