"""Pre-flight checks: everything a folder must pass, offline, before anything is sent.

Dataset folder:
    the card's YAML has the required keys, a license, and every ``configs[].data_files[].path``
    exists; then :func:`courtbench.hub.verify_folder` loads every config offline, compares
    row counts and features with the card and runs the dataset plugin's audit (found from
    the card's ``courtbench_dataset``; a card without that key gets no audit, and the notes
    say so; a card naming a plugin that is not installed is refused).
Metric folder:
    the card's YAML has the Space keys (``title``, ``sdk: gradio``, ``app_file`` naming an
    uploaded file); every uploaded Python file imports at module level only what the Space
    will have (the standard library, gradio from the SDK, packages in ``requirements.txt``,
    sibling files; read with ``ast``, no environment is built); and the module loads with
    ``evaluate.load`` in a fresh subprocess from a copy of exactly the files to upload, with
    an empty temporary ``HF_MODULES_CACHE``, the network switched off and the repository's
    own packages unimportable.

A failing folder raises :class:`PublishRefused` listing every problem found.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from courtbench import evaluate_import
from courtbench.errors import CourtbenchError, VerificationError
from courtbench.hub import read_card_metadata, verify_folder
from courtbench.plugins import plugin_for_folder
from courtbench.publish.kinds import (
    CARD_FILE,
    DATASET,
    LEADERBOARD,
    METRIC,
    RESULTS,
    TARGETS,
    file_problems,
)
from courtbench.publish.leaderboard_checks import (
    leaderboard_space_problems,
    results_folder_problems,
)
from courtbench.publish.pyimports import module_level_imports

REQUIRED_DATASET_KEYS = ("pretty_name", "license", "language", "configs", "dataset_info")
REQUIRED_SPACE_KEYS = ("title", "sdk", "app_file")
METRIC_LOAD_TIMEOUT_S = 600.0

# Run in a child process: a fresh interpreter and module cache, like a first load on a Space,
# where nothing of this repository exists; importing one of its packages is an error there.
_LOAD_SCRIPT = """\
import importlib.util
import sys

REPOSITORY_PACKAGES = set(sys.argv[3:])  # courtbench and the installed dataset packages


class _BlockRepositoryPackages:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in REPOSITORY_PACKAGES:
            raise ImportError(f"the metric imports {name!r}, a package of the courtbench "
                              "repository; a metric module must be self-contained")
        return None


sys.meta_path.insert(0, _BlockRepositoryPackages())
# evaluate imported as the Space's page imports it (evaluate_import.py, given by its path)
spec = importlib.util.spec_from_file_location("_courtbench_evaluate_import", sys.argv[2])
helper = importlib.util.module_from_spec(spec)
spec.loader.exec_module(helper)
evaluate = helper.import_evaluate()

module = evaluate.load(sys.argv[1])
print(type(module).__name__, module.name)
"""


class PublishRefused(CourtbenchError):
    """A folder failed pre-flight checks; ``problems`` lists them, nothing was sent."""

    def __init__(self, folder: Path, kind: str, problems: Sequence[str]) -> None:
        self.folder = Path(folder)
        self.kind = kind
        self.problems = list(problems)
        super().__init__(f"{folder}: refusing to publish this {kind} folder, "
                         f"{len(self.problems)} problem(s):\n  - " + "\n  - ".join(self.problems))


def _is_nonempty_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


NO_LICENSE_NAME = "no-license-granted"


def repository_packages() -> list[str]:
    """``courtbench`` and the packages of the installed dataset plugins, sorted: what a metric
    module may not import (none of them exists on a Space)."""
    from courtbench.plugins import load_plugins

    return sorted({"courtbench", *(p.package for p in load_plugins().values() if p.package)})


def dataset_card_problems(folder: Path, metadata: Mapping[str, Any], *,
                          allow_unlicensed: bool = False) -> list[str]:
    """Problems of a dataset card's YAML: required keys, license, configured data files.

    Args:
        folder: the dataset folder (paths in ``configs`` are relative to it).
        metadata: the card's YAML front matter.
        allow_unlicensed: accept a card whose source grants no licence
            (``license_name: no-license-granted``, as some court-data releases); publishing
            such data redistributes it, which only a rights holder may do.

    Returns:
        One message per problem, naming the key, config or path; empty when the card passes.
    """
    problems = [f"{CARD_FILE}: YAML lacks the required key {key!r}"
                for key in REQUIRED_DATASET_KEYS if key not in metadata]
    problems += _license_problems(metadata, allow_unlicensed)
    configs = metadata.get("configs")
    if "configs" in metadata and not (isinstance(configs, list) and configs):
        problems.append(f"{CARD_FILE}: 'configs' is {configs!r}; expected a non-empty list")
        configs = []
    root = folder.resolve()
    for index, config in enumerate(configs or []):
        problems += _config_entry_problems(folder, root, index, config)
    return problems


def _is_license_value(value: Any) -> bool:
    """A license identifier, or a non-empty list of them."""
    return _is_nonempty_text(value) or (isinstance(value, list) and bool(value)
                                        and all(_is_nonempty_text(item) for item in value))


def _license_problems(metadata: Mapping[str, Any], allow_unlicensed: bool) -> list[str]:
    """A malformed ``license``, and a source granting no licence unless that is allowed."""
    problems = []
    license_ = metadata.get("license")
    if "license" in metadata and not _is_license_value(license_):
        problems.append(f"{CARD_FILE}: 'license' is {license_!r}; expected a license "
                        "identifier such as 'cc-by-4.0' (or a list of them)")
    if metadata.get("license_name") == NO_LICENSE_NAME and not allow_unlicensed:
        problems.append(f"{CARD_FILE}: the source grants no licence (license_name: "
                        f"{NO_LICENSE_NAME}); publishing would redistribute it. Pass "
                        "--allow-unlicensed only if you hold the right to share it")
    return problems


def _config_entry_problems(folder: Path, root: Path, index: int, config: Any) -> list[str]:
    """Problems of ``configs[index]``: its name, its ``data_files`` list and each file's path
    (``root``: the resolved folder, which every path must stay inside)."""
    problems = []
    name = config.get("config_name") if isinstance(config, dict) else None
    if not _is_nonempty_text(name):
        problems.append(f"{CARD_FILE}: configs[{index}] has no 'config_name'")
    data_files = config.get("data_files") if isinstance(config, dict) else None
    if not isinstance(data_files, list) or not data_files:
        return [*problems, f"{CARD_FILE}: config {name!r} has no 'data_files' list"]
    for entry in data_files:
        problem = _data_file_problem(folder, root, name, entry)
        if problem:
            problems.append(problem)
    return problems


def _data_file_problem(folder: Path, root: Path, name: Any, entry: Any) -> str | None:
    """Why one ``data_files`` entry of config ``name`` does not name a file in the folder."""
    path = entry.get("path") if isinstance(entry, dict) else None
    split = entry.get("split") if isinstance(entry, dict) else None
    if not _is_nonempty_text(path):
        return f"{CARD_FILE}: config {name!r} split {split!r} has no 'path'"
    target = (folder / path).resolve()
    if not target.is_relative_to(root):
        return (f"{CARD_FILE}: config {name!r} split {split!r} path {path!r} "
                "points outside the folder")
    if not target.is_file():
        return (f"{CARD_FILE}: config {name!r} split {split!r} path {path!r} "
                "does not exist in the folder")
    return None


def check_dataset(folder: Path, *, allow_unlicensed: bool = False) -> list[str]:
    """Run the dataset pre-flight checks; return notes on what was checked.

    Raises:
        PublishRefused: the card or the data fails; the card is checked first and the
            (slower) load and audit only run on a card that passes.
    """
    folder = Path(folder)
    try:
        metadata = read_card_metadata(folder)
    except VerificationError as error:
        raise PublishRefused(folder, DATASET, [str(error)]) from error
    problems = dataset_card_problems(folder, metadata, allow_unlicensed=allow_unlicensed)
    plugin_name = metadata.get("courtbench_dataset")
    plugin = plugin_for_folder(folder) if plugin_name else None
    if plugin_name and plugin is None:
        problems.append(f"{CARD_FILE}: courtbench_dataset is {plugin_name!r} but no dataset "
                        "plugin of that name is installed, so its audit cannot run")
    if problems:
        raise PublishRefused(folder, DATASET, problems)
    audit = plugin.audit_folder if plugin is not None else None
    try:
        report = verify_folder(folder, audit=audit)
    except VerificationError as error:
        report = getattr(error, "report", None)
        raise PublishRefused(folder, DATASET,
                             report.problems if report else [str(error)]) from error
    except CourtbenchError as error:  # a load that failed, with the folder named
        raise PublishRefused(folder, DATASET, [str(error)]) from error
    except Exception as error:  # noqa: BLE001 - a crash while verifying is a refusal too
        raise PublishRefused(folder, DATASET, [
            f"verification crashed: {type(error).__name__}: {error}"]) from error
    sizes = "; ".join(f"{config}: " + ", ".join(f"{split} {n:,}" for split, n in splits.items())
                      for config, splits in report.split_sizes.items())
    notes = [f"{len(report.split_sizes)} config(s) load offline and match the card ({sizes})"]
    if audit is not None:
        notes.append(f"dataset plugin {plugin.name!r} audit passed")
    elif plugin is not None:
        notes.append(f"dataset plugin {plugin.name!r} defines no audit: none run")
    else:
        notes.append("card has no 'courtbench_dataset': no plugin audit run")
    return notes


def metric_card_problems(metadata: Mapping[str, Any], uploaded: Sequence[str]) -> list[str]:
    """Problems of a metric card's Space YAML.

    Args:
        metadata: the card's YAML front matter.
        uploaded: the files that will be uploaded (``app_file`` must be one of them).

    Returns:
        One message per problem; empty when the card passes.
    """
    problems = [f"{CARD_FILE}: YAML lacks the Space key {key!r}"
                for key in REQUIRED_SPACE_KEYS if not _is_nonempty_text(metadata.get(key))]
    sdk = metadata.get("sdk")
    expected_sdk = TARGETS[METRIC].space_sdk
    if _is_nonempty_text(sdk) and sdk != expected_sdk:
        problems.append(f"{CARD_FILE}: sdk is {sdk!r}; expected {expected_sdk!r}")
    app_file = metadata.get("app_file")
    if _is_nonempty_text(app_file) and app_file not in uploaded:
        problems.append(f"{CARD_FILE}: app_file {app_file!r} is not among the uploaded files "
                        f"({', '.join(uploaded)})")
    return problems


#: Modules a Gradio Space has without requirements.txt: the SDK's gradio and its client.
SPACE_SDK_MODULES = frozenset({"gradio", "gradio_client"})
#: Import names that differ from the PyPI name (normalised) of the distribution providing them.
IMPORT_TO_DISTRIBUTION = {"yaml": "pyyaml", "sklearn": "scikit_learn", "PIL": "pillow",
                          "bs4": "beautifulsoup4", "cv2": "opencv_python",
                          "dateutil": "python_dateutil"}


def _distribution_key(name: str) -> str:
    """A PyPI name normalised for comparison (PEP 503, with "_" for the separators)."""
    return re.sub(r"[-_.]+", "_", name).lower()


def requirement_names(text: str) -> set[str]:
    """Normalised distribution names listed in a requirements.txt (comments, blank lines and
    pip options skipped; extras, markers and version specifiers dropped)."""
    names = set()
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", line)
        if match:
            names.add(_distribution_key(match.group(0)))
    return names


def space_import_problems(folder: Path, uploaded: Sequence[str]) -> list[str]:
    """Problems of the imports of the Space's Python files against what the Space provides.

    Checked: the uploaded ``*.py`` files except the metric script ``<folder name>.py`` (which
    :func:`metric_load_problems` loads for real): ``app.py`` and its sibling helpers. A
    Gradio Space installs ``requirements.txt`` and the SDK's gradio; the files can import
    the standard library, those packages and each other (top-level ``*.py`` uploaded beside
    them). A requirement provides an import when their normalised names agree (``rouge-score``
    provides ``rouge_score``) or :data:`IMPORT_TO_DISTRIBUTION` maps one to the other.

    Returns:
        One message per unprovided import, naming the file, line and module.
    """
    folder = Path(folder)
    requirements_file = folder / "requirements.txt"
    provided = (requirement_names(requirements_file.read_text(encoding="utf-8"))
                if "requirements.txt" in uploaded and requirements_file.is_file() else set())
    siblings = {Path(path).stem for path in uploaded if "/" not in path and path.endswith(".py")}
    problems = []
    for path in uploaded:
        if path.endswith(".py") and path != f"{folder.name}.py":
            problems += _file_import_problems(folder, path, provided, siblings)
    return problems


def _file_import_problems(folder: Path, path: str, provided: set[str],
                          siblings: set[str]) -> list[str]:
    """Module-level imports of ``folder/path`` that neither the standard library, the SDK,
    a sibling file (``siblings``: module names) nor a requirement (``provided``) provides."""
    try:
        imports = module_level_imports((folder / path).read_text(encoding="utf-8"), path)
    except (SyntaxError, UnicodeDecodeError) as error:
        return [f"{path}: cannot be parsed as Python ({error})"]
    problems = []
    for line, module in imports:
        if (module in sys.stdlib_module_names or module in SPACE_SDK_MODULES
                or module in siblings or module == "__future__"):
            continue
        distribution = IMPORT_TO_DISTRIBUTION.get(module, module)
        if _distribution_key(distribution) not in provided:
            problems.append(f"{path} line {line}: imports {module!r}, which neither "
                            "requirements.txt, the gradio SDK, the standard library nor a "
                            "sibling file provides; add its PyPI package to requirements.txt")
    return problems


def metric_load_problems(folder: Path, uploaded: Sequence[str], *,
                         timeout_s: float = METRIC_LOAD_TIMEOUT_S) -> list[str]:
    """Load the metric from exactly its uploadable files, in a fresh offline subprocess.

    The ``uploaded`` files are copied into an empty ``<scratch>/<name>/`` folder, which is
    loaded with ``evaluate.load`` under an empty temporary ``HF_MODULES_CACHE``, network off
    and the repository's packages unimportable: what the Space will have, and nothing more.

    Args:
        folder: the metric folder.
        uploaded: paths relative to ``folder`` of the files that will be uploaded.
        timeout_s: seconds before the load is abandoned (reported as a problem).

    Returns:
        Empty when it loads; otherwise one message with the tail of the child's stderr.
    """
    folder = Path(folder)
    with tempfile.TemporaryDirectory(prefix="courtbench-publish-load-") as scratch:
        copy = Path(scratch) / folder.name
        for path in uploaded:
            (copy / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(folder / path, copy / path)
        env = {key: value for key, value in os.environ.items()
               if key not in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN")}
        env.update(HF_MODULES_CACHE=str(Path(scratch) / "modules"),
                   HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_EVALUATE_OFFLINE="1")
        command = [sys.executable, "-c", _LOAD_SCRIPT, str(copy), evaluate_import.__file__,
                   *repository_packages()]
        try:
            done = subprocess.run(command, cwd=scratch, env=env, capture_output=True,
                                  text=True, timeout=timeout_s, check=False)
        except subprocess.TimeoutExpired:
            return [f"evaluate.load of {folder}'s uploadable files did not finish within "
                    f"{timeout_s:g} s"]
    if done.returncode != 0:
        return [f"evaluate.load of {folder}'s uploadable files ({', '.join(uploaded)}) fails "
                f"from a fresh module cache, offline: {_traceback_summary(done.stderr, copy, folder)}"]
    return []


def _traceback_summary(stderr: str, copy: Path, folder: Path) -> str:
    """The exception line of a child's traceback, plus the deepest line of the metric script.

    Paths inside the scratch copy are shown as ``<uploaded files>/...``.
    """
    lines = [line.strip() for line in stderr.strip().splitlines() if line.strip()]
    if not lines:
        return "the subprocess failed without a message"
    script = re.compile(rf'File "[^"]*[/\\]{re.escape(folder.name)}\.py", line (\d+)')
    frames = [match.group(1) for line in lines if (match := script.search(line))]
    where = f" [{folder.name}.py line {frames[-1]}]" if frames else ""
    return lines[-1].replace(str(copy), "<uploaded files>") + where


def check_metric(folder: Path, uploaded: Sequence[str]) -> list[str]:
    """Run the metric pre-flight checks; return notes on what was checked.

    Raises:
        PublishRefused: listing card and load problems together.
    """
    folder = Path(folder)
    try:
        problems = metric_card_problems(read_card_metadata(folder), uploaded)
    except VerificationError as error:
        problems = [str(error)]
    problems.extend(space_import_problems(folder, uploaded))
    problems.extend(metric_load_problems(folder, uploaded))
    if problems:
        raise PublishRefused(folder, METRIC, problems)
    return ["card has the Space keys (title, sdk: gradio, app_file)",
            "the uploaded Python files import only the standard library, gradio, sibling "
            "files and packages in requirements.txt",
            "its uploadable files load with evaluate.load from a fresh module cache, offline, "
            "without the repository's packages"]


def preflight(folder: Path, kind: str, uploaded: Sequence[str], *,
              allow_unlicensed: bool = False) -> list[str]:
    """Run the checks for ``kind`` on ``folder``; return notes, raise :class:`PublishRefused`.

    Symbolic links and non-parquet data files are refused first, each by its path."""
    problems = file_problems(folder, kind)
    if problems:
        raise PublishRefused(Path(folder), kind, problems)
    if kind == DATASET:
        return check_dataset(folder, allow_unlicensed=allow_unlicensed)
    if kind == METRIC:
        return check_metric(folder, uploaded)
    if kind in (LEADERBOARD, RESULTS):
        problems = (leaderboard_space_problems(folder, uploaded, metric_card_problems)
                    if kind == LEADERBOARD else results_folder_problems(folder))
        if problems:
            raise PublishRefused(folder, kind, problems)
        return [f"{kind} folder checked: card, records and schema"]
    raise ValueError(f"kind is {kind!r}; expected {DATASET!r} or {METRIC!r}")
