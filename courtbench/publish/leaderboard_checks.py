"""Pre-publication checks of the leaderboard's two folders (see :mod:`courtbench.leaderboard`).

- Space: the card's Space YAML, ``results_repo.txt`` naming ORG/NAME, the record schema, the
  check, the validator and every benchmark's verifier identical to those courtbench submits
  and checks with (so page and submissions agree), and every import of ``app.py`` provided by
  the standard library, gradio, a sibling file or ``requirements.txt``.
- Results: every record recomputed from its predictions and found the same, stored at its own
  path, and the folder loads with ``datasets.load_dataset`` as one table, offline.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from courtbench.hub import read_card_metadata
from courtbench.hub.offline import hub_offline
from courtbench.resources import package_path


def _requirement_names(path: Path) -> set[str]:
    names = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            for separator in "<>=!~[; ":
                line = line.split(separator, 1)[0]
            names.add(line.lower().replace("-", "_"))
    return names


def unprovided_imports(folder: Path, script: str = "app.py") -> list[str]:
    """Top-level modules ``script`` imports that nothing in the Space provides."""
    tree = ast.parse((folder / script).read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            imported.add(node.module.split(".")[0])
    provided = (set(sys.stdlib_module_names) | {"gradio", "__future__"}
                | {p.stem for p in folder.glob("*.py")}
                | _requirement_names(folder / "requirements.txt"))
    return sorted(imported - provided)


def _shipped_space_files() -> dict[str, Path]:
    """The Space's modules that must equal courtbench's own: the record schema, the check,
    the validator, the bootstrap and every installed benchmark's verifier files."""
    from courtbench.leaderboard.verifiers import installed_verifiers

    files = {name: package_path("courtbench", "leaderboard", name)
             for name in ("results_schema.py", "record_check.py", "boundary.py",
                          "paired_bootstrap.py")}
    for spec in installed_verifiers().values():
        files.update(spec.space_files)
    return files


def leaderboard_space_problems(folder: Path, uploaded: Sequence[str],
                               space_card_problems: Callable[[dict, Sequence[str]], list[str]]
                               ) -> list[str]:
    """Why the leaderboard Space folder must not be published (empty: it may).

    ``space_card_problems`` checks the card's Space YAML (the metric Spaces' check).
    """
    problems = space_card_problems(read_card_metadata(folder), uploaded)
    repo_file = folder / "results_repo.txt"
    repo = repo_file.read_text(encoding="utf-8").strip() if repo_file.is_file() else ""
    if repo.count("/") != 1:
        problems.append(f"results_repo.txt: {repo!r}; expected ORG/NAME of the results dataset")
    problems += [f"{name} differs from the one of this courtbench version (or is missing); "
                 "rewrite the folder with `courtbench leaderboard space`"
                 for name, shipped in _shipped_space_files().items()
                 if not (folder / name).is_file()
                 or (folder / name).read_bytes() != shipped.read_bytes()]
    problems += [f"app.py imports {name!r}, which requirements.txt does not provide"
                 for name in unprovided_imports(folder)]
    return problems


def results_folder_problems(folder: Path) -> list[str]:
    """Why the results folder must not be published (empty: it may)."""
    import datasets

    from courtbench.errors import CourtbenchError
    from courtbench.leaderboard.folders import read_results_folder

    try:
        records = read_results_folder(folder)
    except CourtbenchError as error:
        return [str(error)]
    if not records:
        return ["no result records: seed the folder with `courtbench leaderboard init`"]
    try:
        with hub_offline():
            table = datasets.load_dataset(str(folder), split="train")
    except Exception as error:  # noqa: BLE001 - any loader failure is a reason to refuse
        return [f"datasets.load_dataset could not read the folder as one table: "
                f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"]
    if table.num_rows != len(records):
        return [f"datasets.load_dataset read {table.num_rows} rows; the folder has "
                f"{len(records)} records"]
    return []
