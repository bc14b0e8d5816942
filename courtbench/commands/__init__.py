"""CLI subcommands, one module each.

Every module here defines ``register(subparsers)`` which adds its parser and sets
``func`` (called with the parsed ``argparse.Namespace``, returning an exit code). The CLI
discovers the modules with :func:`pkgutil.iter_modules`, so adding a command means adding
a module, never editing a shared list.
"""
