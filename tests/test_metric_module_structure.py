"""Structure of the metric modules of engineer D2's scope (issue #13): the code the three
ECtHR-NPD modules must repeat (each loads alone from a Hub Space) is kept in marked regions
whose copies are identical, and no function is longer than 60 lines or more complex than
ruff's C901 limit of 12."""

from __future__ import annotations

import ast
import re
import subprocess
import sys

import pytest

from courtbench.metric_modules import metric_dir

ECTHR = ("npd_regression", "zero_f1", "bootstrap_mae")
CHECKED = (*ECTHR, "headnote_similarity")
MAX_FUNCTION_LINES = 60
MAX_COMPLEXITY = 12

REGION = re.compile(r"^# --- shared validator begin: (?P<name>[^\n]+?) ---\n(?P<body>.*?)"
                    r"^# --- shared validator end: (?P=name) ---$", re.S | re.M)
#: region name -> the modules that must carry it
EXPECTED_REGIONS = {
    "amounts": set(ECTHR),
    "pair and threshold": {"npd_regression", "zero_f1"},
    "overflow rescaling": {"npd_regression", "bootstrap_mae"},
}


def source(name: str) -> str:
    return (metric_dir(name) / f"{name}.py").read_text(encoding="utf-8")


def regions(text: str) -> dict[str, str]:
    """``{region name: body}`` of the shared regions marked in a module's source."""
    found = {match["name"]: match["body"] for match in REGION.finditer(text)}
    assert text.count("# --- shared validator begin:") == len(found), \
        "a shared region has no matching end marker"
    return found


def region_problems(sources: dict[str, str]) -> list[str]:
    """What is wrong with the shared regions of ``{module: source}``: a region missing from a
    module that must carry it, present where it is not expected, or copies that differ."""
    by_module = {name: regions(text) for name, text in sources.items()}
    problems = []
    for region, modules in EXPECTED_REGIONS.items():
        holders = {name for name, found in by_module.items() if region in found}
        if holders != modules:
            problems.append(f"region {region!r} is in {sorted(holders)}, expected "
                            f"{sorted(modules)}")
        elif len({by_module[name][region] for name in modules}) != 1:
            problems.append(f"the copies of region {region!r} differ")
    unknown = {r for found in by_module.values() for r in found} - set(EXPECTED_REGIONS)
    problems.extend(f"unexpected region {r!r}" for r in sorted(unknown))
    return problems


def test_shared_regions_are_where_expected_and_identical():
    assert region_problems({name: source(name) for name in ECTHR}) == []


def test_a_changed_or_missing_copy_is_reported():
    sources = {name: source(name) for name in ECTHR}
    changed = dict(sources, zero_f1=sources["zero_f1"].replace("got {kind}", "got {kind}.", 1))
    assert region_problems(changed) == ["the copies of region 'amounts' differ"]
    start = sources["bootstrap_mae"].index("# --- shared validator begin: overflow")
    end = sources["bootstrap_mae"].index("# --- shared validator end: overflow")
    cut = dict(sources, bootstrap_mae=sources["bootstrap_mae"][:start]
               + sources["bootstrap_mae"][end:].split("\n", 1)[1])
    assert region_problems(cut) == ["region 'overflow rescaling' is in ['npd_regression'], "
                                    "expected ['bootstrap_mae', 'npd_regression']"]


def test_shared_amount_validator_defines_what_the_modules_call():
    body = regions(source("zero_f1"))["amounts"]
    defined = {node.name for node in ast.parse(body).body if isinstance(node, ast.FunctionDef)}
    assert {"_as_amounts", "_check_amount", "_check_example", "_first_bad_element"} <= defined


@pytest.mark.parametrize("name", CHECKED)
def test_no_function_longer_than_60_lines(name):
    tree = ast.parse(source(name))
    long = [(node.name, node.end_lineno - node.lineno + 1) for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]
    assert not long, f"{name}.py: functions over {MAX_FUNCTION_LINES} lines: {long}"


def test_cyclomatic_complexity_at_most_12():
    pytest.importorskip("ruff")
    folders = [str(metric_dir(name) / f"{name}.py") for name in CHECKED]
    process = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "C901",
         "--config", f"lint.mccabe.max-complexity = {MAX_COMPLEXITY}", *folders],
        capture_output=True, text=True, timeout=120)
    assert process.returncode == 0, process.stdout + process.stderr
