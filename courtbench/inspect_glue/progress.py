"""A tqdm bar over the samples of an Inspect run (courtbench runs Inspect with its own display
off): :func:`with_progress` adds a last solver step that counts each finished sample."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from inspect_ai.solver import Generate, TaskState, chain, solver


@solver
def _tick(bar):
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        bar.update(1)
        return state

    return solve


@contextlib.contextmanager
def with_progress(task, total: int, desc: str, *, disable: bool = False) -> Iterator[None]:
    """Within the block, ``task``'s solver ends with a step counting finished samples into a
    tqdm bar (stderr) of ``total`` samples; the solver is restored afterwards."""
    from tqdm import tqdm

    bar = tqdm(total=total, desc=desc, unit="sample", disable=disable, dynamic_ncols=True)
    original = task.solver
    task.solver = chain(original, _tick(bar))
    try:
        yield
    finally:
        task.solver = original
        bar.close()
