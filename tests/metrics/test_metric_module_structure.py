"""Structure of the metric-module folders: what several modules share is written once
(``metrics/_shared/``) and linked into each folder; an assembled
folder (what a wheel, an export or a Space receives) holds real files for every sibling the
script or its page imports, and loads alone. No function is longer than 60 lines or of a
McCabe complexity above 12 (the mccabe package: the reference implementation that ruff's C901
ports; ruff itself is a lint tool, not installed for the tests)."""

from __future__ import annotations

import ast
import hashlib
import os
import re
from collections import defaultdict

import mccabe
import pytest

from courtbench.errors import CourtbenchError
from courtbench.metric_modules import (
    assemble_metric_folder,
    import_metric_script,
    metric_dir,
    module_names,
)
from courtbench.publish.kinds import app_sibling_files, sibling_modules
from courtbench.resources import metrics_root

ECTHR = ("npd_regression", "zero_f1", "bootstrap_mae")
CHECKED = (*ECTHR, "headnote_similarity")
MAX_FUNCTION_LINES = 60
MAX_COMPLEXITY = 12


def source(name: str) -> str:
    return (metric_dir(name) / f"{name}.py").read_text(encoding="utf-8")


def test_files_shared_by_several_modules_are_links_to_one_source():
    by_content = defaultdict(list)
    for name in module_names():
        for path in sorted(metric_dir(name).iterdir()):
            if path.is_file() and path.suffix == ".py":
                by_content[hashlib.sha256(path.read_bytes()).hexdigest()].append(path)
    copies = [paths for paths in by_content.values() if len(paths) > 1]
    assert copies, "the modules share no file at all (expected space_io.py at least)"
    hand_kept = [str(p) for paths in copies for p in paths if not p.is_symlink()]
    assert hand_kept == [], f"hand-kept copies (make them links to one source): {hand_kept}"
    for paths in copies:
        assert len({os.path.realpath(p) for p in paths}) == 1


@pytest.mark.parametrize("name", ["npd_regression", "headnote_judge"])
def test_an_assembled_folder_holds_real_files_and_loads_alone(name, tmp_path):
    written = assemble_metric_folder(metric_dir(name), tmp_path / name)
    folder = tmp_path / name
    assert not [p for p in folder.iterdir() if p.is_symlink()]
    assert sibling_modules(folder) | app_sibling_files(folder) <= set(written)
    assert {f"{name}.py", "README.md", "app.py", "requirements.txt", "space_io.py"} <= set(written)
    module = import_metric_script(folder, f"assembled_{name}")
    assert module.__file__ == str(folder / f"{name}.py")
    assert callable(getattr(module, name))


def test_assembling_refuses_a_link_outside_what_courtbench_ships(tmp_path):
    source_folder = tmp_path / "toy"
    source_folder.mkdir()
    (source_folder / "toy.py").write_text("x = 1\n")
    outside = tmp_path / "outside.py"
    outside.write_text("secret = 1\n")
    (source_folder / "helper.py").symlink_to(outside)
    with pytest.raises(CourtbenchError, match="expected a link to a file under"):
        assemble_metric_folder(source_folder, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_the_shared_amount_checks_define_what_the_modules_import():
    shared = (metrics_root() / "_shared" / "npd_amounts.py").read_text(encoding="utf-8")
    body = ast.parse(shared).body
    defined = {node.name for node in body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    defined |= {target.id for node in body if isinstance(node, ast.Assign)
                for target in node.targets if isinstance(target, ast.Name)}
    for name in ECTHR:
        imported = re.search(r"^from \.npd_amounts import \(?([^)]*?)\)?$", source(name),
                             re.M | re.S)
        assert imported, f"{name}.py does not import the shared amount checks"
        names = {n.strip() for n in imported[1].replace("\n", ",").split(",") if n.strip()}
        assert names <= defined, names - defined


@pytest.mark.parametrize("name", CHECKED)
def test_no_function_longer_than_60_lines(name):
    tree = ast.parse(source(name))
    long = [(node.name, node.end_lineno - node.lineno + 1) for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]
    assert not long, f"{name}.py: functions over {MAX_FUNCTION_LINES} lines: {long}"


def test_cyclomatic_complexity_at_most_12():
    too_complex = {}
    for name in CHECKED:
        visitor = mccabe.PathGraphingAstVisitor()
        visitor.preorder(ast.parse(source(name)), visitor)
        too_complex.update({f"{name}.py: {graph.entity}": graph.complexity()
                            for graph in visitor.graphs.values()
                            if graph.complexity() > MAX_COMPLEXITY})
    assert too_complex == {}
