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

from courtbench.plugins import load_plugins


def _registered(name: str, hook) -> object:
    factory = hook.resolve() if hasattr(hook, "resolve") else hook

    @functools.wraps(factory)
    def create(*args, **kwargs):
        return factory(*args, **kwargs)

    create.__module__ = __name__  # registered under this package: courtbench/<name>
    create.__qualname__ = create.__name__ = name
    return task(name=name)(create)


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
