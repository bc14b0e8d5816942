"""What a run manifest records besides the recipe: library versions, device, folder hashes."""

from __future__ import annotations

import importlib.metadata
import platform
from pathlib import Path

from courtbench import __version__
from courtbench.errors import CourtbenchError
from courtbench.hub.files import fingerprint, list_files

#: Distributions whose versions decide a run's numbers.
LIBRARIES = ("torch", "transformers", "peft", "accelerate", "tokenizers", "safetensors",
             "bitsandbytes", "datasets", "numpy", "pyarrow")


def library_versions() -> dict[str, str]:
    """Python, courtbench and every installed distribution of :data:`LIBRARIES`."""
    versions = {"python": platform.python_version(), "courtbench": __version__}
    for name in LIBRARIES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions


def folder_hash(folder: Path, option: str) -> dict:
    """``{"path", "sha256", "files", "bytes"}`` of a model folder: sha256 over the sorted
    (path, file sha256) pairs of every file in it (:func:`courtbench.hub.files.fingerprint`).

    Raises:
        CourtbenchError: ``folder`` is not a folder (``option`` names the argument).
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise CourtbenchError(f"{option} {folder}: {'not a folder' if folder.exists() else 'not found'}"
                              "; expected a local model folder (config.json, weights, tokenizer)")
    entries = list_files(folder)
    return {"path": str(folder), "sha256": fingerprint(entries), "files": len(entries),
            "bytes": sum(entry.size for entry in entries)}


def device_info() -> dict:
    """Accelerator, its name and the process count of a distributed launch (torch imported)."""
    import os

    import torch

    cuda = torch.cuda.is_available()
    return {"device": "cuda" if cuda else "cpu",
            "device_name": torch.cuda.get_device_name(0) if cuda else platform.processor(),
            "world_size": int(os.environ.get("WORLD_SIZE", "1")),
            "torch_threads": torch.get_num_threads()}
