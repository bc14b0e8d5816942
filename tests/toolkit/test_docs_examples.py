"""Every shell and Python example of the documentation site (docs/**/*.md) and of the metric
cards it shows runs as pasted, offline.

The machinery, the workspace and the lists of what is substituted or not run (each with its
reason) are tests/toolkit/test_readme_examples.py's; this file only runs the site's and the cards'
examples, so that they and the README's run on different cores (each file builds its own
small workspace once).
"""

from __future__ import annotations

import pytest

from tests.toolkit.test_readme_examples import (  # noqa: F401 - fixtures used by name
    _block_id,
    example_blocks,
    llm_server,
    monkeypatch_module,
    run_example,
    workspace,
)


@pytest.mark.parametrize("block", [b for b in example_blocks() if b.source != "README.md"], ids=_block_id)
def test_docs_example_runs(block, workspace, llm_server, tmp_path, monkeypatch, capsys):  # noqa: F811
    run_example(block, workspace, llm_server, tmp_path, monkeypatch, capsys)
