"""Force Hugging Face libraries offline for the duration of a block."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from unittest import mock


@contextmanager
def hub_offline() -> Iterator[None]:
    """Make ``datasets`` and ``huggingface_hub`` refuse network access inside the block.

    The libraries read ``HF_HUB_OFFLINE`` once at import time, so setting the environment
    variable later has no effect; this patches the module-level flags they consult.
    """
    import datasets.config
    import huggingface_hub.constants

    with ExitStack() as stack:
        stack.enter_context(mock.patch.object(datasets.config, "HF_HUB_OFFLINE", True))
        stack.enter_context(mock.patch.object(huggingface_hub.constants, "HF_HUB_OFFLINE", True))
        yield
