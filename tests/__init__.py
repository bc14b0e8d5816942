"""The test suite, grouped by area: ecthr_npd/, slds/, metrics/, toolkit/ (courtbench itself).

A package so that the area folders, named like the repository's packages, never shadow them on
``sys.path``; shared helper modules live in ``helpers/`` (on ``sys.path`` through setup.cfg's
``pythonpath``), shared data in ``data/`` and ``snapshots/``.
"""
