"""Force Hugging Face libraries offline for the duration of a block."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from unittest import mock

from courtbench.errors import CourtbenchError, shorten_message


@contextmanager
def hub_offline(folder: Path | str | None = None) -> Iterator[None]:
    """Make ``datasets`` and ``huggingface_hub`` refuse network access inside the block.

    The libraries read ``HF_HUB_OFFLINE`` once at import time, so setting the environment
    variable later has no effect; this patches the module-level flags they consult.

    A data file that is not readable (not parquet, truncated, a schema that contradicts
    the card) surfaces from ``datasets`` as a generation or Arrow error deep in its stack;
    inside the block it becomes one :class:`CourtbenchError` naming ``folder`` (the Hub
    folder being loaded, when given).
    """
    import datasets.config
    import huggingface_hub.constants
    import pyarrow
    from datasets.exceptions import DatasetGenerationError

    with ExitStack() as stack:
        stack.enter_context(mock.patch.object(datasets.config, "HF_HUB_OFFLINE", True))
        stack.enter_context(mock.patch.object(huggingface_hub.constants, "HF_HUB_OFFLINE", True))
        try:
            yield
        except (DatasetGenerationError, pyarrow.ArrowException) as error:
            cause = error.__cause__ or error
            where = str(folder) if folder is not None else "Hub folder"
            raise CourtbenchError(
                f"{where}: cannot be loaded: a data file is not readable parquet or does not "
                f"match the card ({type(cause).__name__}: {shorten_message(str(cause), 300)}); "
                "run `courtbench verify` on it, or rebuild it") from None
