"""Column types of a Hub dataset without importing ``datasets``.

A Hub folder states its features twice: in every parquet file's schema metadata (key
``huggingface``, the JSON ``{"info": {"features": {...}}}`` that ``datasets`` reads back) and in
the card's ``dataset_info.features`` YAML list (what the dataset viewer shows). ``datasets``
writes both from its ``Features`` class, but importing ``datasets`` takes about a second (it
pulls in pandas, fsspec and an HTTP stack) — more than the whole work of building a Hub
folder of fifteen thousand rows.

:class:`TableFeatures` holds the features in ``datasets``' own serialised form (one dict per
column, as ``datasets.Features.to_dict()`` gives it) and writes both forms from it for the
feature types courtbench's datasets use: ``Value``, ``ClassLabel`` and ``List`` of those.
``datasets`` is imported only when a caller asks for a real ``datasets.Features``
(:meth:`TableFeatures.to_datasets`). ``tests/toolkit/test_hub_features.py`` checks the Arrow schema,
the JSON and the YAML against ``datasets``' own for every config of both datasets.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import pyarrow as pa

#: Schema-metadata key under which ``datasets`` stores a table's features.
METADATA_KEY = b"huggingface"
#: Arrow type of a ClassLabel column (label indices).
CLASS_LABEL_ARROW_TYPE = pa.int64()


def value(dtype: str) -> dict[str, Any]:
    """A ``Value`` feature of Arrow type alias ``dtype`` (``string``, ``int32``, ``float64``,
    ``bool``, ``date32``, ...)."""
    pa.type_for_alias(dtype)  # an unknown alias raises here, not when the file is written
    return {"dtype": dtype, "_type": "Value"}


def class_label(names: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """A ``ClassLabel`` feature over ``names`` (stored as int64 label indices)."""
    return {"names": list(names), "_type": "ClassLabel"}


def list_of(feature: dict[str, Any]) -> dict[str, Any]:
    """A variable-length ``List`` of ``feature``."""
    return {"feature": feature, "_type": "List"}


def _kind(feature: Mapping[str, Any]) -> str:
    kind = feature.get("_type")
    if kind == "List" and set(feature) - {"feature", "_type"}:
        kind = "fixed-length List"  # a "length" key: not a type courtbench writes
    if kind not in ("Value", "ClassLabel", "List"):
        raise ValueError(f"feature {dict(feature)!r}: expected a Value, ClassLabel or "
                         "variable-length List feature")
    return kind


def arrow_type(feature: Mapping[str, Any]) -> pa.DataType:
    """The Arrow type of one feature: ``Value`` by its alias, ``ClassLabel`` int64, ``List`` a
    list of its item's type."""
    kind = _kind(feature)
    if kind == "Value":
        return pa.type_for_alias(feature["dtype"])
    if kind == "ClassLabel":
        return CLASS_LABEL_ARROW_TYPE
    return pa.list_(arrow_type(feature["feature"]))


def _yaml_type(feature: Mapping[str, Any]) -> tuple[str, Any]:
    """``(key, value)`` of one feature in the card's YAML: ``("dtype", "string")``,
    ``("dtype", {"class_label": {"names": {"0": ...}}})`` or ``("list", <item>)``."""
    kind = _kind(feature)
    if kind == "Value":
        return "dtype", feature["dtype"]
    if kind == "ClassLabel":
        return "dtype", {"class_label": {"names": {str(index): name for index, name
                                                   in enumerate(feature["names"])}}}
    item_key, item = _yaml_type(feature["feature"])
    return "list", item if item_key == "dtype" else {item_key: item}


class TableFeatures(Mapping[str, dict]):
    """Column name → feature (``datasets``' serialised dict form), in column order.

    Args:
        features: column name → feature dict (see :func:`value`, :func:`class_label`,
            :func:`list_of`); each is checked to be a supported type.
    """

    def __init__(self, features: Mapping[str, Mapping[str, Any]]) -> None:
        self._features = {name: dict(feature) for name, feature in features.items()}
        for feature in self._features.values():
            arrow_type(feature)

    @classmethod
    def of(cls, split: Any) -> TableFeatures:
        """The features of a split: a ``pyarrow.Table`` whose schema carries them (see
        :meth:`arrow_schema`), or anything with a ``features`` attribute holding
        :class:`TableFeatures` or a ``datasets.Features`` (a ``datasets.Dataset``)."""
        if isinstance(split, pa.Table):
            return cls.from_arrow_schema(split.schema)
        features = split.features
        return features if isinstance(features, TableFeatures) else cls(features.to_dict())

    @classmethod
    def from_arrow_schema(cls, schema: pa.Schema) -> TableFeatures:
        """The features stored in ``schema``'s metadata; ValueError when it has none."""
        stored = (schema.metadata or {}).get(METADATA_KEY)
        if stored is None:
            raise ValueError(f"Arrow schema {schema.names}: no {METADATA_KEY.decode()!r} "
                             "metadata; expected a table cast to TableFeatures.arrow_schema")
        return cls(json.loads(stored)["info"]["features"])

    def __getitem__(self, name: str) -> dict:
        return self._features[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._features)

    def __len__(self) -> int:
        return len(self._features)

    def __repr__(self) -> str:
        return f"TableFeatures({self._features!r})"

    def select(self, names: list[str] | tuple[str, ...]) -> TableFeatures:
        """The named columns' features, in the given order."""
        return TableFeatures({name: self._features[name] for name in names})

    def to_dict(self) -> dict[str, dict]:
        """A copy of the serialised form (``datasets.Features.to_dict()`` of the same)."""
        return json.loads(json.dumps(self._features))

    @property
    def arrow_schema(self) -> pa.Schema:
        """The Arrow schema with the features in its ``huggingface`` metadata, byte for byte
        as ``datasets.Features.arrow_schema`` writes it."""
        metadata = json.dumps({"info": {"features": self._features}})
        return pa.schema([pa.field(name, arrow_type(feature))
                          for name, feature in self._features.items()],
                         metadata={METADATA_KEY: metadata})

    def yaml_list(self) -> list[dict[str, Any]]:
        """The card's ``dataset_info.features`` list: ``{"name": ..., "dtype" | "list": ...}``
        per column, as ``datasets`` writes it into a card for the same features."""
        entries = []
        for name, feature in self._features.items():
            key, item = _yaml_type(feature)
            entries.append({"name": name, key: item})
        return entries

    def to_datasets(self) -> Any:
        """The same features as a ``datasets.Features`` (imports ``datasets``)."""
        import datasets

        return datasets.Features.from_dict(self.to_dict())
