"""Prompt templates of ``courtbench generate slds`` (package data, read with importlib.resources).

``headnote_system.txt`` is the system message; ``headnote_user.txt`` the user message, with
the placeholders ``{decision}`` (the decision text) and ``{language}`` (German, French or
Italian: the headnote language). ``--system-prompt`` / ``--user-prompt`` replace them.
"""
