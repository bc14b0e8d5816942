"""courtbench.compat: pins the dependency behaviour courtbench relies on beyond public APIs.

When an upgrade of datasets or huggingface_hub changes one of these, this file fails and
names the adapter to fix.
"""

from __future__ import annotations

import os

import datasets
import pytest
from huggingface_hub.errors import HfHubHTTPError

from courtbench import compat

FEATURES = datasets.Features({
    "case_id": datasets.Value("string"),
    "amount": datasets.Value("float64"),
    "year": datasets.Value("int64"),
    "label": datasets.ClassLabel(names=["no", "yes"]),
    "articles": datasets.List(datasets.Value("string")),
})
# The card form the Hub reads (dataset_info.features), as written into every built card.
CARD_YAML = [
    {"name": "case_id", "dtype": "string"},
    {"name": "amount", "dtype": "float64"},
    {"name": "year", "dtype": "int64"},
    {"name": "label", "dtype": {"class_label": {"names": {"0": "no", "1": "yes"}}}},
    {"name": "articles", "list": "string"},
]


def test_features_from_yaml_reads_the_card_form():
    assert compat.features_from_yaml(CARD_YAML) == FEATURES
    assert compat.features_from_yaml([]) == datasets.Features()


def test_http_error_base_covers_status_and_connection_errors():
    import importlib

    base = compat.http_error_base()
    assert issubclass(HfHubHTTPError, base) and base is not HfHubHTTPError
    # the HTTP library huggingface_hub uses (httpx, or its fork httpx2)
    http = importlib.import_module(base.__module__.split(".")[0])
    assert base is http.HTTPError
    for name in ("ConnectError", "ReadTimeout", "RemoteProtocolError"):
        assert issubclass(getattr(http, name), base), name
    assert not issubclass(ValueError, base)


def test_available_cores_uses_the_affinity_mask(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 3, 5}, raising=False)
    assert compat.available_cores() == 3


def test_available_cores_falls_back_to_cpu_count(monkeypatch):
    """macOS and Windows have no os.sched_getaffinity."""
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 6)
    assert compat.available_cores() == 6
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert compat.available_cores() == 1


@pytest.mark.parametrize("path", ["courtbench", "ecthr_npd", "slds"])
def test_no_private_dependency_names_outside_compat(repo_root, path):
    """The private names compat wraps are used nowhere else."""
    private = ("_from_yaml_list", "_to_yaml_list", "__mro__", "sched_getaffinity")
    offenders = [f"{p.relative_to(repo_root)}: {name}"
                 for p in (repo_root / path).rglob("*.py")
                 if p.name != "compat.py" and "metrics" not in p.relative_to(repo_root).parts
                 for name in private if name in p.read_text(encoding="utf-8")]
    assert offenders == []
