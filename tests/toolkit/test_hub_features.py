"""courtbench.hub.features: the two written forms of a Hub folder's features (parquet schema
metadata and the card's ``dataset_info.features``) against ``datasets``' own, and a folder
written from typed Arrow tables against one written from ``datasets.Dataset`` objects."""

from __future__ import annotations

import datetime
import hashlib
from pathlib import Path

import datasets
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from courtbench.hub import ConfigSpec, write_hub_folder
from courtbench.hub.features import TableFeatures, class_label, list_of, value
from courtbench.hub.parquet import arrow_table
from ecthr_npd import facts_build, schema
from slds import schema as slds_schema

SHIPPED = {
    "ecthr_npd canonical": schema.CANONICAL_FEATURES,
    "ecthr_npd model input": schema.features_for(schema.MODEL_INPUT_COLUMNS),
    "ecthr_npd audit": schema.features_for(schema.AUDIT_CONFIG_COLUMNS),
    "ecthr_npd facts": facts_build.FEATURES,
    "slds": slds_schema.FEATURES,
}


def _assert_same_as_datasets(features: TableFeatures) -> None:
    reference = datasets.Features.from_dict(features.to_dict())
    assert features.arrow_schema.equals(reference.arrow_schema, check_metadata=True)
    assert features.arrow_schema.metadata == reference.arrow_schema.metadata  # same JSON bytes
    assert features.yaml_list() == reference._to_yaml_list()
    assert features.to_datasets() == reference
    assert TableFeatures.of(features.arrow_schema.empty_table()) == features


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_features_are_written_as_datasets_writes_them(name):
    _assert_same_as_datasets(SHIPPED[name])


_DTYPES = st.sampled_from(["string", "int32", "int64", "float32", "float64", "bool", "date32"])
_NAMES = st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=4, unique=True)
_LEAF = st.one_of(_DTYPES.map(value), _NAMES.map(class_label))
_FEATURE = st.recursive(_LEAF, lambda inner: inner.map(list_of), max_leaves=3)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True), _FEATURE,
                       min_size=1, max_size=5))
def test_any_supported_features_are_written_as_datasets_writes_them(columns):
    _assert_same_as_datasets(TableFeatures(columns))


@pytest.mark.parametrize("feature, expected", [
    ({"dtype": "string", "_type": "Sequence"}, "expected a Value, ClassLabel or"),
    ({"feature": {"dtype": "int32", "_type": "Value"}, "length": 3, "_type": "List"},
     "variable-length List"),
    ({"dtype": "no_such_type", "_type": "Value"}, "no_such_type"),
])
def test_unsupported_features_are_refused_when_declared(feature, expected):
    with pytest.raises((ValueError, KeyError), match=expected):
        TableFeatures({"column": feature})


def test_a_table_without_features_is_refused_before_writing():
    with pytest.raises(ValueError, match="no 'huggingface' metadata"):
        arrow_table(pa.table({"case_id": ["a"]}))


FEATURES = TableFeatures({
    "case_id": value("string"),
    "label": class_label(["zero", "positive"]),
    "tags": list_of(value("string")),
    "date": value("date32"),
    "amount": value("float64"),
})
ROWS = {
    "case_id": [f"001-{1000 + i}" for i in range(6)],
    "label": [i % 2 for i in range(6)],
    "tags": [[f"art{i}"] * (i % 3) for i in range(6)],
    "date": [datetime.date(2020, 1, 1 + i) for i in range(6)],
    "amount": [float(i * 1000) for i in range(6)],
}


def _folder_digests(folder: Path) -> dict[str, str]:
    return {str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*")) if path.is_file()
            and path.name != ".courtbench.json"}  # the ownership marker names its own folder


def test_a_folder_written_from_arrow_tables_equals_one_written_from_datasets(tmp_path):
    template = tmp_path / "card.md"
    template.write_text("# Toy\n")
    table = pa.table(ROWS, schema=FEATURES.arrow_schema)
    dataset = datasets.Dataset.from_dict(ROWS, features=FEATURES.to_datasets())
    for name, splits in (("arrow", {"train": table.slice(0, 4), "test": table.slice(4)}),
                         ("datasets", {"train": dataset.select(range(4)),
                                       "test": dataset.select([4, 5])})):
        write_hub_folder(tmp_path / name, [ConfigSpec("default", splits, default=True)],
                         card_template=template, card_context={},
                         card_metadata={"courtbench_dataset": "toy"})
    assert _folder_digests(tmp_path / "arrow") == _folder_digests(tmp_path / "datasets")
    assert len(_folder_digests(tmp_path / "arrow")) == 3  # card and two parquet files
