"""Hub dataset folders: write, render the card, verify — generic over datasets.

A *Hub folder* is exactly what gets pushed to a Hugging Face dataset repository::

    README.md                      card: YAML (configs, dataset_info, ...) + rendered body
    data/<config>/<split>.parquet  typed features stored in the parquet schema metadata
    *.png                          optional figures

``datasets.load_dataset(folder, config)`` works on it as ``load_dataset("<org>/<name>",
config)`` will on the Hub; no loading script is involved.
"""

from __future__ import annotations

import importlib
from typing import Any

# Each name is imported from its module when first used: the writer needs pyarrow and jinja2,
# the verifier ``datasets`` (about a second to import), and a command that only names a
# constant of :mod:`courtbench.hub.atomic` should pay for neither.
_EXPORTS = {
    "ConfigSpec": "courtbench.hub.writer",
    "FileEntry": "courtbench.hub.files",
    "HubFolderReport": "courtbench.hub.writer",
    "VerifyReport": "courtbench.hub.verify",
    "atomic_output_dir": "courtbench.hub.atomic",
    "list_files": "courtbench.hub.files",
    "read_card_metadata": "courtbench.hub.card",
    "render_card": "courtbench.hub.card",
    "split_card": "courtbench.hub.card",
    "verify_folder": "courtbench.hub.verify",
    "write_hub_folder": "courtbench.hub.writer",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
