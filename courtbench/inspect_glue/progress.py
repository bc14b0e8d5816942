"""A tqdm bar over the samples of an Inspect run (courtbench runs Inspect with its own display
off): an Inspect hook counts finished samples into the bar that :func:`progress` opens."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from inspect_ai.hooks import Hooks, SampleEnd, TaskStart, hooks

_bar = None


@hooks(name="courtbench_progress", description="courtbench's progress bar over samples")
class _Progress(Hooks):
    def enabled(self) -> bool:
        return _bar is not None

    async def on_task_start(self, data: TaskStart) -> None:
        if _bar is not None:
            dataset = data.spec.dataset
            _bar.reset(total=len(dataset.sample_ids or ()) or dataset.samples or None)

    async def on_sample_end(self, data: SampleEnd) -> None:
        if _bar is not None:
            _bar.update(1)


@contextlib.contextmanager
def progress(desc: str, *, disable: bool = False) -> Iterator[None]:
    """A tqdm bar (stderr) counting the samples of the Inspect runs inside the block."""
    global _bar
    from tqdm import tqdm

    bar = tqdm(desc=desc, unit="sample", disable=disable, dynamic_ncols=True)
    _bar = None if disable else bar
    try:
        yield
    finally:
        _bar = None
        bar.close()
