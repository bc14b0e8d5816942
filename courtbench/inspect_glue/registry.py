"""The ``inspect_ai`` entry point: every dataset's task as ``courtbench/<name>``.

Inspect loads this module (``[project.entry-points.inspect_ai] courtbench = ...``) when a
task named ``courtbench/...`` is asked for; it registers, for each installed dataset plugin
with an ``inspect_task`` hook (:func:`courtbench.plugins.load_plugins`), a task of the
plugin's name whose parameters are the hook's (``-T name=value``)::

    inspect eval courtbench/<name> --model <provider/model> -T data=<folder> ...

The hook is a ``deferred("package.module:function")`` returning an Inspect ``Task``; it is
imported here, so a dataset's task module keeps its heavy imports inside the function.
"""

from __future__ import annotations

import functools
import sys

from inspect_ai import task
from inspect_ai.util import registry_info

from courtbench.plugins import load_plugins

PREFIX = "courtbench"


def _wrapper(name: str, factory):
    @functools.wraps(factory)
    def create(*args, **kwargs):
        return factory(*args, **kwargs)

    create.__module__ = __name__
    create.__qualname__ = create.__name__ = name
    return create


def _registered(name: str, hook) -> object:
    """``hook``'s task registered as ``courtbench/<name>``. Inspect prefixes the package
    itself when it sees courtbench as an installed package; run from a clone's root it finds
    the source tree's egg-info instead and does not, so the prefix is then given here."""
    factory = hook.resolve() if hasattr(hook, "resolve") else hook
    created = task(name=name)(_wrapper(name, factory))
    if registry_info(created).name != f"{PREFIX}/{name}":
        created = task(name=f"{PREFIX}/{name}")(_wrapper(name, factory))
    return created


def register_tasks() -> dict[str, object]:
    """Register every plugin's task; returns them by name (also module attributes)."""
    tasks = {}
    for name, plugin in load_plugins().items():
        if plugin.inspect_task is not None:
            tasks[name] = _registered(name, plugin.inspect_task)
    module = sys.modules[__name__]
    for name, created in tasks.items():
        setattr(module, name, created)
    return tasks


TASKS = register_tasks()
