"""The structure the architecture promises (ARCHITECTURE.md), checked on the source files.

- ``courtbench/`` knows no dataset: it imports no dataset package and names no dataset, no
  dataset column, no metric module of a dataset and no published figure of one.
- No import cycle among the repository's modules (a static import graph built with ``ast``,
  function-level imports included), and every module imports.
- No command handler builds a fake ``argparse.Namespace`` to call another command, and
  nothing imports from a command module (a command's shared helpers live in a library module).
- Both dataset plugins have the same shape: the same module names for the same jobs.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from courtbench.plugins import ENTRY_POINT_GROUP
from tests import complexity_gate
from tests.conftest import MODEL_STACK

REPO_ROOT = Path(__file__).resolve().parents[2]
TOOLKIT = REPO_ROOT / "courtbench"
DATASET_PACKAGES = ("ecthr_npd", "slds")
PACKAGES = ("courtbench", *DATASET_PACKAGES)

# Files of courtbench/ allowed to name a dataset, each with the reason.
ALLOWED_TO_NAME_A_DATASET: set[str] = set()
# Dataset column names that are plain words any toolkit may use.
GENERIC_COLUMN_NAMES = {"sample_id", "decision", "split", "year", "volume", "url"}


def _python_files(root: Path) -> list[Path]:
    """Every ``.py`` file under ``root`` except the self-contained metric-module folders
    (loaded by path, never imported as part of a package)."""
    return sorted(p for p in root.rglob("*.py")
                  if "metrics" not in p.relative_to(root).parts[:-1]
                  and "__pycache__" not in p.parts)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO_ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _toolkit_files() -> list[Path]:
    return [p for p in _python_files(TOOLKIT)
            if p.relative_to(REPO_ROOT).as_posix() not in ALLOWED_TO_NAME_A_DATASET]


def _imported_modules(path: Path) -> set[str]:
    """Absolute names of every module ``path`` imports, at any depth of the file (for
    ``from a import b``: ``a.b`` when that is a module of the repository, else ``a``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = _module_name(path).rsplit(".", 1)[0] if path.name != "__init__.py" \
        else _module_name(path)
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def _repository_modules() -> dict[str, Path]:
    return {_module_name(p): p for package in PACKAGES
            for p in _python_files(REPO_ROOT / package)}


def test_the_dataset_packages_are_the_installed_plugins():
    """The lists below cover every plugin the repository registers."""
    registered = {e.value.split(".")[0] for e in entry_points(group=ENTRY_POINT_GROUP)}
    assert set(DATASET_PACKAGES) <= registered


def _relative(path: Path) -> str:
    return path.relative_to(REPO_ROOT).as_posix()


def test_no_toolkit_module_imports_a_dataset_package():
    offenders = {_relative(path): sorted(imported & set(DATASET_PACKAGES))
                 for path in _toolkit_files()
                 if (imported := {name.split(".")[0] for name in _imported_modules(path)})
                 & set(DATASET_PACKAGES)}
    assert offenders == {}, ("courtbench reaches datasets only through "
                             f"courtbench.plugins.load_plugins(); these import one: {offenders}")


def _forbidden_words() -> dict[str, str]:
    """Lower-case word → why it names a dataset."""
    import ecthr_npd.schema
    import slds.schema
    from courtbench.plugins import load_plugins

    words = {"ecthr": "dataset name", "slds": "dataset name", "npd": "dataset name",
             "headnote": "SLDS's target", "award": "ECtHR-NPD's target"}
    for name, plugin in load_plugins().items():
        words[name.lower()] = "dataset plugin name"
        words.update({module.lower(): f"metric module of {name}"
                      for module in plugin.metric_modules})
    for column in (*ecthr_npd.schema.HEADER, *slds.schema.FEATURES):
        if column not in GENERIC_COLUMN_NAMES:
            words.setdefault(column.lower(), "dataset column")
    return words


def test_forbidden_words_catch_a_dataset_name():
    """The word list is not empty and finds what it must (a check that could not fail
    otherwise)."""
    words = _forbidden_words()
    assert {"ecthr_npd", "slds", "y_amount_eur", "headnote_language", "npd_regression",
            "zero_f1", "headnote_judge"} <= set(words)
    assert _named_datasets("x = row['y_amount_eur']  # the ECtHR-NPD target", words)
    assert not _named_datasets("sample_id = split_year(url)", words)


def _named_datasets(text: str, words: dict[str, str]) -> list[str]:
    tokens = re.findall(r"[a-z0-9]+(?:_[a-z0-9]+)*", text.lower())
    parts = {part for token in tokens for part in (token, *token.split("_"))}
    return sorted(word for word in words if word in parts or word in tokens)


def test_no_toolkit_module_names_a_dataset():
    """Code, strings, comments and docstrings alike."""
    words = _forbidden_words()
    offenders = {_relative(path): [f"{w!r} ({words[w]})" for w in found]
                 for path in _toolkit_files()
                 if (found := _named_datasets(path.read_text(encoding="utf-8"), words))}
    assert offenders == {}


def _published_figures() -> set[float]:
    """Split sizes and published aggregates of the datasets (numbers a toolkit has no
    reason to hold)."""
    from ecthr_npd.splits import RELEASE_SPLIT_SIZES
    from ecthr_npd.synthetic import PUBLISHED

    figures = {float(n) for n in RELEASE_SPLIT_SIZES} | {float(sum(RELEASE_SPLIT_SIZES))}
    for by_split in PUBLISHED.values():
        for value in by_split.values():
            values = value if isinstance(value, tuple) else (value,)
            figures.update(float(v) for v in values if isinstance(v, float | int))
    return {f for f in figures if f not in (0.0, 1.0)}


def test_no_toolkit_module_holds_a_published_figure():
    figures = _published_figures()
    offenders = {}
    for path in _toolkit_files():
        constants = [node.value for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                     if isinstance(node, ast.Constant) and type(node.value) in (int, float)]
        if held := [c for c in constants if float(c) in figures]:
            offenders[_relative(path)] = held
    assert offenders == {}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _import_graph() -> dict[str, set[str]]:
    modules = _repository_modules()
    return {name: {target for target in _imported_modules(path)
                   if target in modules and target != name}
            for name, path in modules.items()}


def test_cycle_detection_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles():
    graph = _import_graph()
    assert {"ecthr_npd.plugin", "slds.plugin", "courtbench.cli"} <= set(graph)
    assert "courtbench.plugins" in graph["ecthr_npd.plugin"]  # the graph holds real edges
    assert _cycles(graph) == []


def test_every_module_imports():
    """Every module imports; where the model stack is not installed (`make test`), a module
    may fail only for want of one of its packages (the training modules import torch)."""
    failures = {}
    for name in sorted(n for n in _repository_modules() if not n.endswith(".__main__")):
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as error:
            root = (error.name or "").split(".")[0]
            if root not in MODEL_STACK or importlib.util.find_spec(root) is not None:
                failures[name] = f"{type(error).__name__}: {error}"
        except Exception as error:  # every failure listed, not only the first
            failures[name] = f"{type(error).__name__}: {error}"
    assert failures == {}


def test_nothing_imports_from_a_command_module():
    """Command modules (``courtbench/commands/*``, a dataset's ``baselines/run.py``) are entry
    points; what another module needs from one belongs in a library module. Only the
    plugin objects, the CLI and the demos (which run commands in sequence) call them."""
    commands = {name for name in _repository_modules()
                if name.startswith("courtbench.commands.") or name.endswith(".baselines.run")}
    offenders = {}
    for name, path in _repository_modules().items():
        used = sorted(target for target in _imported_modules(path) & commands
                      if target != name and not name.endswith(("plugin", "cli", ".demo", ".demo_text"))
                      and not name.startswith("courtbench.commands"))
        if used:
            offenders[name] = used
    assert offenders == {}


def test_no_handler_builds_a_fake_namespace():
    """A command calls another's plain function, never its handler with a made-up
    ``argparse.Namespace``."""
    offenders = [f"{p.relative_to(REPO_ROOT)}:{number}"
                 for package in PACKAGES for p in _python_files(REPO_ROOT / package)
                 for number, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
                 if "Namespace(" in line]
    assert offenders == []


# job → module (or package) names that do it, the same in every dataset package
JOBS = {"reader(s)": ("reader", "readers"), "schema": ("schema",), "splits": ("splits",),
        "build": ("build",), "card": ("card",), "audit": ("audit",), "read a built folder": ("data",),
        "synthetic": ("synthetic",), "baselines": ("baselines",),
        "evaluation": ("evaluation",), "demo": ("demo",), "plugin": ("plugin",)}


@pytest.mark.parametrize("package", DATASET_PACKAGES)
def test_dataset_packages_have_the_same_shape(package: str):
    root = REPO_ROOT / package
    present = {p.stem for p in root.glob("*.py")} | {p.name for p in root.iterdir()
                                                     if (p / "__init__.py").is_file()}
    missing = [job for job, names in JOBS.items() if not present & set(names)]
    assert missing == [], f"{package} lacks a module for {missing}"
    assert (root / "baselines" / "__init__.py").is_file(), f"{package}/baselines/ is a package"


def test_every_deferred_plugin_hook_resolves_to_a_callable():
    """Plugins name their hooks as "module:attribute" so that loading them imports nothing
    heavy; each name must resolve."""
    import dataclasses

    from courtbench.plugins import deferred, load_plugins

    hooks = {f"{name}.{field.name}": getattr(plugin, field.name)
             for name, plugin in load_plugins().items()
             for field in dataclasses.fields(plugin)
             if isinstance(getattr(plugin, field.name), deferred)}
    assert len(hooks) >= 20
    assert {key: hook.target for key, hook in hooks.items() if not callable(hook.resolve())} == {}


def test_the_complexity_gate_counts_boolean_operators_and_comprehensions(tmp_path):
    tangled = tmp_path / "tangled.py"
    clauses = " and ".join(f"x{i}" for i in range(16))
    tangled.write_text(f"def tangled({', '.join(f'x{i}' for i in range(16))}):\n"
                       f"    return {clauses}\n", encoding="utf-8")
    long_body = tmp_path / "long_body.py"
    long_body.write_text('def long_body():\n    """Docstring lines do not count.\n\n    """\n'
                         + "".join(f"    a{i} = {i}\n" for i in range(61)), encoding="utf-8")
    assert [o.name for o in complexity_gate.file_offenders(tangled, "tangled.py")] == ["tangled"]
    assert [o.body_lines for o in complexity_gate.file_offenders(long_body, "x.py")] == [61]


def test_every_shipped_function_is_at_most_complexity_15_and_60_body_lines():
    pytest.importorskip("radon", reason="radon (dev extra) measures the complexity gate")
    offenders = complexity_gate.offenders(REPO_ROOT)
    assert not offenders, "over the complexity gate (split them):\n" + "\n".join(map(str, offenders))


def test_the_longest_first_test_order_names_existing_files():
    from tests.conftest import LONGEST_FILES_FIRST

    missing = [name for name in LONGEST_FILES_FIRST if not (REPO_ROOT / "tests" / name).is_file()]
    assert not missing, f"tests/conftest.py LONGEST_FILES_FIRST names no such file: {missing}"
