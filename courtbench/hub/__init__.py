"""Hub dataset folders: write, render the card, verify — generic over datasets.

A *Hub folder* is exactly what gets pushed to a Hugging Face dataset repository::

    README.md                      card: YAML (configs, dataset_info, ...) + rendered body
    data/<config>/<split>.parquet  typed features stored in the parquet schema metadata
    *.png                          optional figures

``datasets.load_dataset(folder, config)`` works on it as ``load_dataset("<org>/<name>",
config)`` will on the Hub; no loading script is involved.
"""

from courtbench.hub.atomic import atomic_output_dir
from courtbench.hub.card import read_card_metadata, render_card, split_card
from courtbench.hub.files import FileEntry, list_files
from courtbench.hub.verify import VerifyReport, verify_folder
from courtbench.hub.writer import ConfigSpec, HubFolderReport, write_hub_folder

__all__ = [
    "ConfigSpec",
    "FileEntry",
    "HubFolderReport",
    "VerifyReport",
    "atomic_output_dir",
    "list_files",
    "read_card_metadata",
    "render_card",
    "split_card",
    "verify_folder",
    "write_hub_folder",
]
