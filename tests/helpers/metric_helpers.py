"""Helpers for the metric-module tests: amount strategies, a fresh-cache ``evaluate`` runner
and a doctest runner for metric cards.

``evaluate`` reads ``HF_MODULES_CACHE`` when it is imported, and other tests may have
imported it already, so loading a module "from a fresh cache" runs in a subprocess whose
environment points every Hugging Face cache into ``tmp_path`` and forbids network access.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from hypothesis import strategies as st

from courtbench.metric_modules import metric_dir
from courtbench.publish.checks import SPACE_SDK_MODULES, module_level_imports

REPO_ROOT = Path(__file__).resolve().parents[2]

#: Euro amounts as the benchmark has them: exact zeros, whole euros, cents, and sub-threshold
#: crumbs (0 < x < 0.5) that still count as zero awards.
amounts = st.one_of(
    st.just(0.0),
    st.integers(0, 2_000_000).map(float),
    st.floats(0, 1e7).map(lambda value: round(value, 2)),
    st.floats(0, 0.49),
)


@st.composite
def amount_pairs(draw, *, min_size=1, max_size=60):
    """(predictions, references): two lists of amounts of one drawn length."""
    n = draw(st.integers(min_size, max_size))
    predictions = draw(st.lists(amounts, min_size=n, max_size=n))
    references = draw(st.lists(amounts, min_size=n, max_size=n))
    return predictions, references


#: Bad values and the repr the error message must quote (all must be rejected).
BAD_VALUES = [
    (None, "None"),
    (float("nan"), "nan"),
    (float("inf"), "inf"),
    (float("-inf"), "-inf"),
    (-1.0, "-1.0"),
    (-3, "-3"),
    ("12", "'12'"),
    ([1.0, 2.0], "[1.0, 2.0]"),
    (True, "True"),
    (False, "False"),
]


def fresh_evaluate_env(tmp_path: Path) -> dict[str, str]:
    """Environment with every Hugging Face cache under ``tmp_path`` and no network."""
    env = dict(os.environ)
    env.update({
        "HF_HOME": str(tmp_path / "hf_home"),
        "HF_MODULES_CACHE": str(tmp_path / "hf_modules"),
        "HF_EVALUATE_CACHE": str(tmp_path / "hf_evaluate"),
        "HF_DATASETS_CACHE": str(tmp_path / "hf_datasets"),
        "HF_HUB_OFFLINE": "1",
        "HF_EVALUATE_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
    })
    return env


#: Code that imports ``evaluate`` as courtbench and the Spaces do (metrics/_shared/
#: evaluate_import.py: without transformers' pipelines, ≈4.7 CPU-s less per interpreter).
#: Put first in a fresh interpreter's code; a later ``import evaluate`` gets that module.
#: The plain ``import evaluate`` of a user is kept by tests/toolkit/test_wheel_smoke.py.
FAST_EVALUATE_PRELUDE = f"""
import importlib.util as _util
_spec = _util.spec_from_file_location(
    "_evaluate_import", {str(REPO_ROOT / "metrics" / "_shared" / "evaluate_import.py")!r})
_helper = _util.module_from_spec(_spec)
_spec.loader.exec_module(_helper)
_helper.import_evaluate()
"""


def run_fresh(code: str, tmp_path: Path):
    """Run ``code`` in a new interpreter (cwd = repository root, fresh caches, offline) and
    return the JSON value it prints on its last line of standard output."""
    process = subprocess.run(
        [sys.executable, "-c", FAST_EVALUATE_PRELUDE + textwrap.dedent(code)],
        cwd=REPO_ROOT, env=fresh_evaluate_env(tmp_path), capture_output=True, text=True,
        timeout=300,
    )
    assert process.returncode == 0, f"subprocess failed:\n{process.stdout}\n{process.stderr}"
    return json.loads(process.stdout.strip().splitlines()[-1])


def run_module_checks(check_code: str) -> dict:
    """Run ``check_code`` (which must leave a JSON-serialisable ``result``) in this process
    with the repository root as working directory, so that ``evaluate.load("metrics/<name>")``
    finds the module; return ``{"check": result}``. Loading from a fresh cache in a new
    interpreter, and the cards' examples, are checked once for every module in
    test_metric_common.py."""
    namespace: dict = {}
    previous = os.getcwd()
    os.chdir(REPO_ROOT)
    try:
        exec(textwrap.dedent(check_code), namespace)
    finally:
        os.chdir(previous)
    return {"check": json.loads(json.dumps(namespace["result"]))}


def card_front_matter(name: str) -> dict:
    """The YAML front matter of ``metrics/<name>/README.md``."""
    import yaml

    text = (metric_dir(name) / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n"), "card must open with YAML front matter"
    return yaml.safe_load(text.split("---\n", 2)[1])


def check_module_folder(name: str, imported_packages: set[str]) -> None:
    """Assert the folder layout and Space metadata of ``metrics/<name>``.

    ``imported_packages`` are the top-level modules the script imports from PyPI;
    requirements.txt must list exactly those (PyPI names compared with "-" read as "_", as
    ``rouge-score`` provides ``rouge_score``; comment lines ignored).
    """
    folder = metric_dir(name)
    for file in (f"{name}.py", "README.md", "requirements.txt", "app.py"):
        assert (folder / file).is_file(), f"metrics/{name}/{file} is missing"
    meta = card_front_matter(name)
    for key in ("title", "emoji", "colorFrom", "colorTo", "sdk", "sdk_version", "app_file",
                "pinned", "tags"):
        assert key in meta, f"card front matter lacks {key!r}"
    assert meta["sdk"] == "gradio" and meta["app_file"] == "app.py"
    headings = [line.lstrip("#").strip().lower()
                for line in (folder / "README.md").read_text(encoding="utf-8").splitlines()
                if line.startswith("#")]
    for section in ("description", "how to use", "inputs", "output", "examples", "limitations",
                    "citation"):
        assert any(section in heading for heading in headings), f"card lacks a {section!r} section"
    requirements = {line.split(">")[0].split("=")[0].strip().lower().replace("-", "_")
                    for line in (folder / "requirements.txt").read_text().splitlines()
                    if line.strip() and not line.lstrip().startswith("#")}
    # the Space's page (app.py and its sibling helpers) may need packages the script does not
    app_packages = {module for file in folder.glob("*.py") if file.name != f"{name}.py"
                    for _, module in module_level_imports(file.read_text(encoding="utf-8"), file.name)}
    app_packages -= {*sys.stdlib_module_names, *SPACE_SDK_MODULES, *(f.stem for f in folder.glob("*.py"))}
    assert requirements == imported_packages | app_packages
    source = (folder / f"{name}.py").read_text(encoding="utf-8")
    top_level = {line.split()[1].split(".")[0] for line in source.splitlines()
                 if line.startswith(("import ", "from ")) and not line.startswith("from .")}
    stdlib = set(sys.stdlib_module_names)
    assert top_level - stdlib == imported_packages, "script imports must match requirements.txt"
    for line in source.splitlines():
        if line.startswith("import "):
            assert "," not in line, f"one import per line (evaluate parses them): {line!r}"


def run_card_examples(name: str, namespace: dict) -> tuple[int, int]:
    """Run the ``>>>`` examples in the Python code blocks of ``metrics/<name>/README.md`` in
    this process with ``namespace`` as globals; returns ``(tries, failures)``."""
    import doctest

    card = (metric_dir(name) / "README.md").read_text(encoding="utf-8")
    examples = "\n".join(block.split("```", 1)[0]
                         for block in card.split("```python")[1:] if ">>>" in block)
    test = doctest.DocTestParser().get_doctest(examples, dict(namespace), f"{name} card", None, 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    return runner.tries, runner.failures
