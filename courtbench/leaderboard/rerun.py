"""What a report must carry so that its numbers can be recomputed and checked.

Every ``courtbench evaluate`` report stores a ``rerun`` block in its provenance::

    {"dataset": "<plugin name>", "data": "<built folder>", "data_fingerprint": "<sha256>",
     "predictions": {"<system>": {"path": "...", "sha256": "..."}},
     "options": {...evaluation options...}, "modules": ["<metric module>", ...],
     "metric_signature": "..."}

``courtbench submit`` recomputes the fingerprint, the prediction hashes and the signature
from the files and refuses the report when any differs.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from courtbench import __version__
from courtbench.hub.files import fingerprint, list_files, sha256_file
from courtbench.metric_modules import metric_dir


def metric_signature(options: Mapping[str, Any], modules: Iterable[str]) -> str:
    """A string that changes whenever the evaluation's options or metric code change.

    ``opts:<sha256 of the options as sorted JSON, 12 hex>|<module>:<sha256 of its script, 12
    hex>|…|courtbench:<version>``.
    """
    parts = ["opts:" + hashlib.sha256(json.dumps(options, sort_keys=True, default=str)
                                      .encode()).hexdigest()[:12]]
    for name in sorted(modules):
        parts.append(f"{name}:{sha256_file(metric_dir(name) / f'{name}.py')[:12]}")
    parts.append(f"courtbench:{__version__}")
    return "|".join(parts)


def rerun_block(dataset: str, data_dir: Path, predictions: Mapping[str, Path],
                options: Mapping[str, Any], modules: Iterable[str], *,
                data_fingerprint: str | None = None) -> dict[str, Any]:
    """The provenance block that lets ``courtbench submit`` recompute a report.

    Args:
        dataset: the plugin's name.
        data_dir: the built Hub folder the predictions were scored against.
        predictions: system name → predictions file.
        options: every evaluation option that changes a number (JSON-serialisable).
        modules: names of the metric modules the evaluation used.
        data_fingerprint: ``data_dir``'s fingerprint when the caller already computed it in
            this run (it hashes every file of the folder); computed here otherwise.
    """
    if data_fingerprint is None:
        data_fingerprint = fingerprint(list_files(Path(data_dir)))
    return {
        "dataset": dataset,
        "data": str(Path(data_dir).resolve()),
        "data_fingerprint": data_fingerprint,
        "predictions": {name: {"path": str(Path(path).resolve()), "sha256": sha256_file(path)}
                        for name, path in predictions.items()},
        "options": dict(options),
        "modules": sorted(modules),
        "metric_signature": metric_signature(options, modules),
    }
