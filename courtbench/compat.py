"""Adapters to behaviour of dependencies and platforms that no public API offers.

Every use of a dependency's non-public name lives here, one small function each, and
``tests/toolkit/test_compat.py`` pins what courtbench relies on, so that an upgrade that changes it
fails there (not deep inside a build). ``pyproject.toml`` caps those dependencies below their
next major version.

- :func:`features_from_yaml`: the ``datasets`` features of a dataset card's
  ``dataset_info.features`` list (``datasets.Features._from_yaml_list``; the card's form is
  written by :class:`courtbench.hub.features.TableFeatures`, tested against ``datasets``).
- :func:`http_error_base`: the HTTP library's base error class that ``huggingface_hub``
  raises for connection failures and timeouts.
- :func:`available_cores`: CPUs this process may use (``os.sched_getaffinity`` exists on
  Linux only).
- :func:`set_client_headers`: extra HTTP headers on an Inspect OpenAI-compatible model's
  client, kept out of the arguments Inspect writes to its log (``ModelAPI.model_args``, read
  again by ``initialize()`` when the client is rebuilt).
"""

from __future__ import annotations

import os
from typing import Any


def features_from_yaml(items: list[dict[str, Any]]) -> Any:
    """The ``datasets.Features`` of a card's ``dataset_info.features`` list (inverse of
    :meth:`courtbench.hub.features.TableFeatures.yaml_list`)."""
    import datasets

    return datasets.Features._from_yaml_list(items)


def http_error_base() -> type[Exception]:
    """The class every ``huggingface_hub`` HTTP failure derives from — status errors
    (``HfHubHTTPError``) as well as connection failures and timeouts: the HTTP library's own
    base error (``httpx.HTTPError``, or ``httpx2.HTTPError`` for huggingface_hub 2)."""
    from huggingface_hub.errors import HfHubHTTPError

    return HfHubHTTPError.__mro__[1]


def available_cores() -> int:
    """CPUs this process may use: its affinity mask where the platform has one (Linux),
    else ``os.cpu_count()``; at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS, Windows
        return max(1, os.cpu_count() or 1)


def set_client_headers(model: Any, headers: dict[str, str]) -> None:
    """Send ``headers`` with every request of an Inspect ``openai-api`` ``model`` without
    recording them: they go into the provider's client arguments (``model.api.model_args``,
    which the client is built from), not the model's arguments that the log records."""
    model.api.model_args = {**model.api.model_args,
                            "default_headers": {**model.api.model_args.get("default_headers", {}),
                                                **headers}}
    model.api.initialize()
