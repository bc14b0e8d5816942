"""courtbench as a new user gets it: sdist → wheel → a fresh virtual environment.

The sdist is built from a copy of the source tree, the wheel from the sdist (the
``python -m build`` route), both offline and without build isolation. The wheel goes into a
fresh ``python -m venv`` with ``pip install --no-deps`` (never editable); the venv finds the
dependencies in this test environment's site-packages through a ``.pth`` file (no download),
but courtbench, ecthr_npd and slds only in its own site-packages. Every command then runs
from a working directory outside the repository with fresh, offline Hugging Face caches:
build both synthetic stand-ins, verify, baselines, evaluate, ``courtbench metrics list`` and
``evaluate.load`` of every installed metric module.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("courtbench", "ecthr_npd", "slds")
NOT_SOURCE = ("build", "dist", "*.egg-info", ".venv", ".git", "__pycache__", "*.pyc",
              ".pytest_cache", ".hypothesis", ".ruff_cache", "demo_out", "out")


def _run(command: list[str], *, cwd: Path, env: dict[str, str] | None = None,
         timeout: float = 300) -> str:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)
    assert done.returncode == 0, (f"{' '.join(map(str, command))} failed ({done.returncode}):\n"
                                  f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done.stdout


def _package_resources() -> list[str]:
    """Every non-Python file the packages must ship (metric-module folders — card, app,
    requirements, prompts — and card templates), as POSIX paths from the repository root;
    and every metric module's scripts."""
    found = []
    found += [p for p in (REPO_ROOT / "cards").glob("*.md")]
    found += [p for p in (REPO_ROOT / "metrics").glob("*/*")
              if p.is_file() and p.parent.name != "_shared" and p.suffix != ".pyc"]
    return sorted(p.relative_to(REPO_ROOT).as_posix() for p in found)


def _site_packages(python: Path) -> Path:
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    return Path(subprocess.run([str(python), "-c", code], capture_output=True, text=True,
                               check=True).stdout.strip())


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> dict:
    """Build sdist and wheel, install the wheel into a fresh venv; returns paths and env."""
    root = tmp_path_factory.mktemp("wheel_smoke")
    source = root / "source"
    # links kept as links, as in a clone: the build must turn them into files
    shutil.copytree(REPO_ROOT, source, symlinks=True, ignore=shutil.ignore_patterns(*NOT_SOURCE))
    dist = root / "dist"
    _run([sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", str(dist),
          str(source)], cwd=root)
    sdist = next(dist.glob("courtbench-*.tar.gz"))
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
          "--no-index", "--wheel-dir", str(dist), str(sdist)], cwd=root)
    wheel = next(dist.glob("courtbench-*.whl"))

    environment = root / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(environment)], cwd=root)
    python = environment / "bin" / "python"
    site = _site_packages(python)
    dependencies = {sysconfig.get_paths()[key] for key in ("purelib", "platlib")}
    (site / "zz_test_dependencies.pth").write_text("".join(f"{p}\n" for p in sorted(dependencies)))
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
          "--no-index", "--quiet", str(wheel)], cwd=root)

    work = root / "work"
    work.mkdir()
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("HF_", "PYTHON", "VIRTUAL_ENV"))}
    hf = root / "hf"
    env.update(PATH=f"{environment / 'bin'}{os.pathsep}{env.get('PATH', '')}",
               HF_HOME=str(hf), HF_DATASETS_CACHE=str(hf / "datasets"),
               HF_MODULES_CACHE=str(hf / "modules"), HF_HUB_OFFLINE="1",
               HF_DATASETS_OFFLINE="1", HF_EVALUATE_OFFLINE="1", PYTHONNOUSERSITE="1",
               MPLBACKEND="Agg", TQDM_DISABLE="1")
    return {"sdist": sdist, "wheel": wheel, "python": python, "site": site, "work": work,
            "env": env, "courtbench": environment / "bin" / "courtbench"}


def test_sdist_and_wheel_carry_every_package_resource(venv):
    expected = _package_resources()
    assert any(p.endswith("headnote_judge/judge_prompts.py") for p in expected)
    assert sum(p.endswith("/README.md") for p in expected) == 6
    with zipfile.ZipFile(venv["wheel"]) as wheel:
        in_wheel = set(wheel.namelist())
    with tarfile.open(venv["sdist"]) as sdist:
        prefix = venv["sdist"].name.removesuffix(".tar.gz") + "/"
        in_sdist = {name.removeprefix(prefix) for name in sdist.getnames()}
    # the top-level metrics/ and cards/ travel as resources of courtbench.bundled
    assert [p for p in expected if f"courtbench/bundled/{p}" not in in_wheel] == []
    assert [p for p in expected if p not in in_sdist] == []
    assert [p for p in expected if f"courtbench/bundled/{p}" not in in_sdist] == []
    with tarfile.open(venv["sdist"]) as sdist:
        assert [m.name for m in sdist.getmembers() if m.issym()] == []
    # the sdist is a complete source: its tests and the files make and CI use
    assert {"Makefile", "setup.cfg", "tests/conftest.py", "ARCHITECTURE.md"} <= in_sdist


def test_the_venv_imports_the_installed_wheel_not_the_source(venv):
    code = ("import json, courtbench, ecthr_npd, slds; "
            "print(json.dumps([m.__file__ for m in (courtbench, ecthr_npd, slds)]))")
    files = json.loads(_run([str(venv["python"]), "-c", code], cwd=venv["work"],
                            env=venv["env"]))
    for file in files:
        assert Path(file).is_relative_to(venv["site"]), file
        assert not Path(file).is_relative_to(REPO_ROOT), file


def test_smoke_path_from_outside_the_repository(venv):
    run = lambda *args: _run([str(venv["courtbench"]), *args], cwd=venv["work"],  # noqa: E731
                             env=venv["env"])
    run("build", "ecthr_npd", "--synthetic", "--n", "400", "--out", "ecthr")
    run("build", "slds", "--synthetic", "--decisions", "60", "--out", "slds")
    assert "ecthr_npd audit passed" in run("verify", "ecthr")
    assert "slds audit passed" in run("verify", "slds")
    run("baselines", "ecthr_npd", "--data", "ecthr", "--out", "ecthr_predictions",
        "--systems", "train_median,zero,knn")
    run("baselines", "slds", "--data", "slds", "--out", "slds_predictions")
    work = venv["work"]
    run("evaluate", "ecthr_npd", "--data", "ecthr", "--predictions",
        *sorted(str(p) for p in (work / "ecthr_predictions").glob("*.csv")),
        "--out", "ecthr_report", "--resamples", "50")
    run("evaluate", "slds", "--data", "slds", "--predictions",
        *sorted(str(p) for p in (work / "slds_predictions").glob("*.jsonl")),
        "--out", "slds_report", "--resamples", "50")
    for report in ("ecthr_report", "slds_report"):
        assert (work / report / "report.md").is_file()

    listed = [line.split("\t") for line in run("metrics", "list").splitlines()]
    names = [name for name, _, _ in listed]
    assert sorted(names) == sorted(["npd_regression", "zero_f1", "bootstrap_mae",
                                    "summarization_properties", "headnote_similarity",
                                    "headnote_judge"])
    for name, _, folder in listed:
        assert Path(folder).is_relative_to(venv["site"]), folder
        assert run("metrics", "path", name).strip() == folder
    load_all = ("import sys, evaluate\n"
                "for folder in sys.argv[1:]:\n"
                "    module = evaluate.load(folder)\n"
                "    print(type(module).__name__, module.name)\n")
    loaded = _run([str(venv["python"]), "-c", load_all, *(f for _, _, f in listed)],
                  cwd=work, env=venv["env"]).splitlines()
    assert len(loaded) == len(listed)
    assert [line.split()[1] for line in loaded] == names
