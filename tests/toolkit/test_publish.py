"""courtbench publish: kind detection, pre-flight refusals, the plan, the executor, the CLI.

Offline throughout: the executor is driven by a recording fake API, or by huggingface_hub's
``HfApi`` with its network calls patched. Folders are made here: a tiny dataset folder with
``courtbench.hub.write_hub_folder`` (card without ``courtbench_dataset``, so no plugin audit)
and a minimal evaluate module written from scratch.
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import shutil
from pathlib import Path

import datasets
import huggingface_hub
import pytest
import yaml
from hub_fakes import commit_info
from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi
from huggingface_hub.errors import HfHubHTTPError

import courtbench.plugins
from courtbench import __version__
from courtbench.cli import main
from courtbench.errors import CourtbenchError
from courtbench.hub import ConfigSpec, write_hub_folder
from courtbench.hub.card import dump_yaml, split_card
from courtbench.hub.files import fingerprint
from courtbench.plugins import DatasetPlugin
from courtbench.publish import (
    DATASET,
    METRIC,
    PublishError,
    PublishRefused,
    detect_kind,
    format_plan,
    make_plan,
    publish,
    select_files,
)
from courtbench.publish.checks import dataset_card_problems

# the HTTP library this huggingface_hub raises from (httpx2 in 2.x, httpx in 1.x)
http = importlib.import_module(huggingface_hub.errors.Response.__module__.split(".")[0])
TOKEN = "hf_SeCrEtToKeN0123456789abcdef"
COMMIT_OID = "a" * 40
DATASET_FILES = ["README.md", "award_distribution.png", "data/default/test.parquet",
                 "data/default/train.parquet", "data/recent/test.parquet"]
METRIC_FILES = ["README.md", "app.py", "judge_prompt.txt", "toy_metric.py", "requirements.txt"]


# ----------------------------------------------------------------------------- folders

def _rewrite_card(folder: Path, **changes) -> None:
    """Set (value) or remove (None) YAML keys of ``folder/README.md``."""
    card = folder / "README.md"
    metadata, body = split_card(card.read_text(encoding="utf-8"))
    for key, value in changes.items():
        if value is None:
            metadata.pop(key, None)
        else:
            metadata[key] = value
    card.write_text(f"---\n{dump_yaml(metadata)}---\n\n{body}", encoding="utf-8")


@pytest.fixture(scope="module")
def dataset_folder(tmp_path_factory) -> Path:
    """A two-config Hub folder with a figure, plus stray files that must not be uploaded."""
    root = tmp_path_factory.mktemp("dataset")
    template = root / "card.md.j2"
    template.write_text("# Toy\n{% for c in configs %}- {{ c.name }}: {{ c.splits }}\n{% endfor %}")
    rows = datasets.Dataset.from_dict(
        {"case_id": [f"c{i}" for i in range(6)], "amount": [float(i) for i in range(6)]},
        features=datasets.Features({"case_id": datasets.Value("string"),
                                    "amount": datasets.Value("float64")}))
    folder = root / "toy"
    write_hub_folder(
        folder,
        [ConfigSpec("default", {"train": rows.select(range(4)), "test": rows.select([4, 5])},
                    default=True),
         ConfigSpec("recent", {"test": rows.select([5])})],
        card_template=template, card_context={},
        card_metadata={"pretty_name": "Toy", "license": "cc-by-4.0", "language": ["en"],
                       "courtbench_dataset": "toy"},
        figures={"award_distribution.png": lambda p: p.write_bytes(b"\x89PNG\r\n\x1a\nfake")})
    _rewrite_card(folder, courtbench_dataset=None)  # plugin-free: no audit
    (folder / "notes.txt").write_text("scratch\n")
    (folder / ".cache").mkdir()
    (folder / ".cache" / "state.json").write_text("{}")
    # (a non-parquet file under data/ is refused outright: tests/toolkit/test_failure_modes.py)
    (folder / "plots").mkdir()
    (folder / "plots" / "nested.png").write_bytes(b"png")
    return folder


@pytest.fixture()
def dataset_copy(dataset_folder, tmp_path) -> Path:
    """A private copy of the dataset folder, for tests that damage it."""
    return Path(shutil.copytree(dataset_folder, tmp_path / "toy"))


METRIC_MODULE = '''\
"""Toy metric: mean absolute difference."""

import datasets
import evaluate


def toy_metric(predictions, references):
    """Mean of |prediction - reference|."""
    pairs = zip(predictions, references, strict=True)
    return {"mae": sum(abs(p - r) for p, r in pairs) / len(predictions)}


class ToyMetric(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description="Mean absolute difference.", citation="", inputs_description="",
            features=datasets.Features({"predictions": datasets.Value("float64"),
                                        "references": datasets.Value("float64")}))

    def _compute(self, predictions, references):
        return toy_metric(predictions, references)
'''


def _write_metric(folder: Path, module: str = METRIC_MODULE, card: dict | None = None) -> Path:
    folder.mkdir(parents=True)
    (folder / f"{folder.name}.py").write_text(module)
    card = card if card is not None else {"title": "Toy Metric", "sdk": "gradio",
                                          "sdk_version": "4.44.0", "app_file": "app.py",
                                          "tags": ["evaluate", "metric"]}
    (folder / "README.md").write_text(f"---\n{dump_yaml(card)}---\n\n# Toy metric\n")
    (folder / "app.py").write_text(
        "import evaluate\nfrom evaluate.utils import launch_gradio_widget\n\n"
        f"launch_gradio_widget(evaluate.load({folder.name!r}))\n")
    (folder / "requirements.txt").write_text("evaluate\ndatasets\n")
    (folder / "judge_prompt.txt").write_text("Compare {prediction} with {reference}.\n")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "toy_metric.cpython-311.pyc").write_bytes(b"\x00\x01")
    (folder / "scores.json").write_text("{}")
    (folder / "weights.txt").write_bytes(b"\xff\xfe\x00binary")
    return folder


@pytest.fixture(scope="module")
def metric_folder(tmp_path_factory) -> Path:
    return _write_metric(tmp_path_factory.mktemp("metrics") / "toy_metric")


@pytest.fixture(scope="module")
def dataset_plan(dataset_folder):
    return make_plan(dataset_folder, "org/toy")


@pytest.fixture(scope="module")
def metric_plan(metric_folder):
    return make_plan(metric_folder, "org/toy_metric")


# ----------------------------------------------------------------------------- fake API

class RecordingApi:
    """Records every HfApi call it receives; ``fail`` maps a method name to an exception."""

    def __init__(self, remote_files=(), fail=None):
        self.calls: list[tuple[str, tuple, dict]] = []
        self.remote_files = list(remote_files)
        self.fail = fail or {}

    def _record(self, name, args, kwargs):
        self.calls.append((name, args, kwargs))
        if name in self.fail:
            raise self.fail[name]

    def create_repo(self, *args, **kwargs):
        self._record("create_repo", args, kwargs)
        prefix = "datasets/" if kwargs["repo_type"] == "dataset" else "spaces/"
        return huggingface_hub.RepoUrl(f"https://huggingface.co/{prefix}{args[0]}")

    def create_branch(self, *args, **kwargs):
        self._record("create_branch", args, kwargs)

    def list_repo_files(self, *args, **kwargs):
        self._record("list_repo_files", args, kwargs)
        return list(self.remote_files)

    def create_commit(self, *args, **kwargs):
        self._record("create_commit", args, kwargs)
        return commit_info(f"https://huggingface.co/datasets/{args[0]}",
                           kwargs["commit_message"], oid=COMMIT_OID)


def _http_error(status: int, message: str) -> HfHubHTTPError:
    request = http.Request("POST", "https://huggingface.co/api/repos/create")
    return HfHubHTTPError(message, response=http.Response(status, request=request))


def _operations(call) -> tuple[list[str], list[str]]:
    operations = call[1][1]
    return ([op.path_in_repo for op in operations if isinstance(op, CommitOperationAdd)],
            [op.path_in_repo for op in operations if isinstance(op, CommitOperationDelete)])


# ----------------------------------------------------------------------------- kinds and files

def test_detect_kind(dataset_folder, metric_folder, tmp_path):
    assert detect_kind(dataset_folder) == DATASET
    assert detect_kind(metric_folder) == METRIC
    half = tmp_path / "half_metric"
    half.mkdir()
    (half / "half_metric.py").write_text("")
    (half / "README.md").write_text("---\ntitle: x\n---\n")
    with pytest.raises(CourtbenchError, match=r"missing app\.py, requirements\.txt") as error:
        detect_kind(half)
    assert "YAML 'configs:'" in str(error.value) and "no data/ folder" in str(error.value)
    with pytest.raises(CourtbenchError, match="not a folder"):
        detect_kind(tmp_path / "absent")


def test_select_files_keeps_only_allowed_files(dataset_folder, metric_folder):
    included, excluded = select_files(dataset_folder, DATASET)
    assert included == DATASET_FILES
    assert set(excluded) == {"notes.txt", ".cache/state.json", "plots/nested.png"}
    assert excluded[".cache/state.json"] == "hidden"
    included, excluded = select_files(metric_folder, METRIC)
    assert included == sorted(METRIC_FILES)
    assert set(excluded) == {"__pycache__/toy_metric.cpython-311.pyc", "scores.json",
                             "weights.txt"}
    assert "not UTF-8" in excluded["weights.txt"]


def test_symlinks_are_never_uploaded(dataset_copy, tmp_path):
    secret = tmp_path / "secret.png"
    secret.write_bytes(b"private")
    (dataset_copy / "leak.png").symlink_to(secret)
    included, excluded = select_files(dataset_copy, DATASET)
    assert "leak.png" not in included and excluded["leak.png"] == "symbolic link"


# ----------------------------------------------------------------------------- plans

def _check_entries(folder: Path, plan, expected: list[str]) -> None:
    assert [entry.path for entry in plan.files] == sorted(expected)
    for entry in plan.files:
        content = (folder / entry.path).read_bytes()
        assert entry.size == len(content)
        assert entry.sha256 == hashlib.sha256(content).hexdigest()
    assert plan.fingerprint == fingerprint(list(plan.files))
    assert __version__ in plan.commit_message and plan.fingerprint in plan.commit_message


def test_dataset_plan_lists_exactly_the_allowed_files(dataset_folder, dataset_plan):
    plan = dataset_plan
    _check_entries(dataset_folder, plan, DATASET_FILES)
    assert (plan.kind, plan.repo_type, plan.space_sdk) == ("dataset", "dataset", None)
    assert plan.repo_url == "https://huggingface.co/datasets/org/toy"
    assert any("no plugin audit" in note for note in plan.checks)
    assert any("2 config(s) load offline" in note for note in plan.checks)
    text = format_plan(plan)
    for entry in plan.files:
        assert entry.path in text and entry.sha256 in text and f"{entry.size:,}" in text
    assert plan.commit_message in text and "notes.txt" in text


def test_metric_plan_lists_exactly_the_allowed_files(metric_folder, metric_plan):
    _check_entries(metric_folder, metric_plan, METRIC_FILES)
    assert (metric_plan.repo_type, metric_plan.space_sdk) == ("space", "gradio")
    assert metric_plan.repo_url == "https://huggingface.co/spaces/org/toy_metric"
    assert any("evaluate.load" in note for note in metric_plan.checks)


def test_fingerprint_follows_content(dataset_copy, dataset_plan):
    (dataset_copy / "award_distribution.png").write_bytes(b"\x89PNG\r\n\x1a\n other")
    assert make_plan(dataset_copy, "org/toy").fingerprint != dataset_plan.fingerprint


@pytest.mark.parametrize("repo_id", ["toy", "org/sub/toy", "org/to y", ""])
def test_bad_repo_id_is_refused(dataset_folder, repo_id):
    with pytest.raises(CourtbenchError, match="repo-id"):
        make_plan(dataset_folder, repo_id)


# ----------------------------------------------------------------------------- refusals

def test_refuses_dataset_that_does_not_load(dataset_copy):
    (dataset_copy / "data" / "recent" / "test.parquet").write_bytes(b"not a parquet file")
    with pytest.raises(PublishRefused) as error:
        make_plan(dataset_copy, "org/toy")
    # verify_folder names the config and file; a crash inside it is a refusal as well
    assert len(error.value.problems) == 1 and "parquet" in error.value.problems[0].lower()


def test_refuses_card_pointing_at_missing_files(dataset_copy):
    (dataset_copy / "data" / "default" / "test.parquet").unlink()
    with pytest.raises(PublishRefused, match="refusing to publish this dataset folder") as error:
        make_plan(dataset_copy, "org/toy")
    assert error.value.problems == ["README.md: config 'default' split 'test' path "
                                    "'data/default/test.parquet' does not exist in the folder"]


def test_card_checks_name_every_problem(tmp_path):
    metadata = {"pretty_name": "Toy", "license": "", "dataset_info": [],
                "configs": [{"config_name": "a", "data_files": [
                    {"split": "train", "path": "../outside.parquet"}]},
                            {"data_files": []}]}
    problems = dataset_card_problems(tmp_path, metadata)
    assert problems == [
        "README.md: YAML lacks the required key 'language'",
        "README.md: 'license' is ''; expected a license identifier such as 'cc-by-4.0' "
        "(or a list of them)",
        "README.md: config 'a' split 'train' path '../outside.parquet' points outside the folder",
        "README.md: configs[1] has no 'config_name'",
        "README.md: config None has no 'data_files' list",
    ]


def test_refuses_card_without_license(dataset_copy):
    _rewrite_card(dataset_copy, license=None)
    with pytest.raises(PublishRefused, match="required key 'license'"):
        make_plan(dataset_copy, "org/toy")


def test_refuses_a_source_that_grants_no_licence_unless_allowed(dataset_copy):
    _rewrite_card(dataset_copy, license="other", license_name="no-license-granted")
    with pytest.raises(PublishRefused, match="grants no licence"):
        make_plan(dataset_copy, "org/toy")
    assert make_plan(dataset_copy, "org/toy", allow_unlicensed=True).files


def _fake_plugins(monkeypatch, audit):
    plugin = DatasetPlugin(name="leaky", summary="test plugin", add_build_arguments=lambda p: None,
                           build=lambda args: 0, audit_folder=audit)
    monkeypatch.setattr(courtbench.plugins, "load_plugins", lambda: {"leaky": plugin})


def test_refuses_leaking_config(dataset_copy, monkeypatch):
    audited = []

    def audit(folder):
        audited.append(folder)
        return ["config 'default' exposes the audit column 'y_binary' to models"]

    _fake_plugins(monkeypatch, audit)
    _rewrite_card(dataset_copy, courtbench_dataset="leaky")
    with pytest.raises(PublishRefused) as error:
        make_plan(dataset_copy, "org/toy")
    assert error.value.problems == ["config 'default' exposes the audit column 'y_binary' to models"]
    assert audited == [dataset_copy]
    _fake_plugins(monkeypatch, lambda folder: [])
    plan = make_plan(dataset_copy, "org/toy")
    assert "dataset plugin 'leaky' audit passed" in plan.checks


def test_refuses_card_naming_a_plugin_that_is_not_installed(dataset_copy, monkeypatch):
    monkeypatch.setattr(courtbench.plugins, "load_plugins", lambda: {})
    _rewrite_card(dataset_copy, courtbench_dataset="ghost")
    with pytest.raises(PublishRefused, match="'ghost' but no dataset plugin"):
        make_plan(dataset_copy, "org/toy")


def test_refuses_metric_card_without_space_keys(tmp_path, monkeypatch):
    loads = []
    monkeypatch.setattr("courtbench.publish.checks.metric_load_problems",
                        lambda folder, uploaded: loads.append(uploaded) or [])
    folder = _write_metric(tmp_path / "toy_metric",
                           card={"title": "Toy", "sdk": "streamlit", "app_file": "main.py"})
    with pytest.raises(PublishRefused, match="refusing to publish this metric folder") as error:
        make_plan(folder, "org/toy_metric")
    assert error.value.problems == [
        "README.md: sdk is 'streamlit'; expected 'gradio'",
        "README.md: app_file 'main.py' is not among the uploaded files "
        "(README.md, app.py, judge_prompt.txt, requirements.txt, toy_metric.py)"]
    assert loads == [sorted(METRIC_FILES)]
    _rewrite_card(folder, sdk=None, title=None, app_file=None)
    with pytest.raises(PublishRefused) as error:
        make_plan(folder, "org/toy_metric")
    assert error.value.problems == [f"README.md: YAML lacks the Space key {key!r}"
                                    for key in ("title", "sdk", "app_file")]


@pytest.mark.slow  # each case loads a module with evaluate in a fresh process
@pytest.mark.parametrize("extra_import, message", [
    ("import courtbench_no_such_package\n", "courtbench_no_such_package"),
    ("from courtbench.errors import CourtbenchError\n", "courtbench"),
    ("from .absent_helpers import mean\n", "absent_helpers.py"),
], ids=["missing-package", "imports-repository-package", "needs-a-file-that-is-not-there"])
def test_refuses_metric_that_would_not_load_on_a_space(tmp_path, extra_import, message):
    module = METRIC_MODULE.replace("import evaluate\n", "import evaluate\n" + extra_import)
    folder = _write_metric(tmp_path / "toy_metric", module)
    (folder / "helpers.py").write_text("def mean(values):\n    return sum(values) / len(values)\n")
    assert detect_kind(folder) == METRIC and "helpers.py" not in select_files(folder, METRIC)[0]
    with pytest.raises(PublishRefused) as error:
        make_plan(folder, "org/toy_metric")
    [problem] = error.value.problems
    assert "evaluate.load" in problem and message in problem


def test_sibling_files_the_script_imports_relatively_are_uploaded(tmp_path):
    module = METRIC_MODULE.replace("import evaluate\n", "import evaluate\nfrom .helpers import mean\n")
    folder = _write_metric(tmp_path / "toy_metric", module)
    (folder / "helpers.py").write_text("def mean(values):\n    return sum(values) / len(values)\n")
    (folder / "scratch.py").write_text("x = 1\n")
    included, excluded = select_files(folder, METRIC)
    assert "helpers.py" in included and "scratch.py" in excluded


# ----------------------------------------------------------------------------- executor

def test_publish_dataset_sends_one_commit_with_exact_operations(dataset_plan, capsys, caplog):
    caplog.set_level(logging.DEBUG)
    api = RecordingApi(remote_files=[".gitattributes", "README.md", "data/default/train.parquet",
                                     "data/old/train.parquet", "data/default/train.jsonl",
                                     "old_figure.png", "docs/extra.png", "LICENSE"])
    result = publish(dataset_plan, api=api, token=TOKEN)
    assert [call[0] for call in api.calls] == ["create_repo", "list_repo_files", "create_commit"]
    assert api.calls[0][1:] == (("org/toy",), {"repo_type": "dataset", "private": False,
                                               "exist_ok": True, "space_sdk": None})
    assert api.calls[1][1:] == (("org/toy",), {"repo_type": "dataset", "revision": None})
    commit = api.calls[2]
    added, deleted = _operations(commit)
    assert added == DATASET_FILES
    assert deleted == ["data/default/train.jsonl", "data/old/train.parquet", "old_figure.png"]
    assert commit[2] == {"commit_message": dataset_plan.commit_message,
                         "commit_description": dataset_plan.commit_description,
                         "repo_type": "dataset", "revision": None}
    assert commit[1][0] == "org/toy"
    assert result.commit_id == COMMIT_OID
    assert result.repo_url == "https://huggingface.co/datasets/org/toy"
    assert result.deleted == tuple(deleted)
    captured = capsys.readouterr()
    assert TOKEN not in captured.out + captured.err + caplog.text


def test_publish_metric_to_a_gradio_space_on_a_branch(metric_plan):
    from dataclasses import replace

    plan = replace(metric_plan, revision="staging", private=True)
    api = RecordingApi(remote_files=["README.md", "app.py", "old_helper.py", "old_prompt.txt",
                                     "assets/logo.svg"])
    publish(plan, api=api, token=TOKEN)
    assert [call[0] for call in api.calls] == ["create_repo", "create_branch", "list_repo_files",
                                               "create_commit"]
    assert api.calls[0][2] == {"repo_type": "space", "private": True, "exist_ok": True,
                               "space_sdk": "gradio"}
    assert api.calls[1][1:] == (("org/toy_metric",), {"branch": "staging", "repo_type": "space",
                                                      "exist_ok": True})
    assert api.calls[2][2] == {"repo_type": "space", "revision": "staging"}
    added, deleted = _operations(api.calls[3])
    assert added == sorted(METRIC_FILES) and deleted == ["old_helper.py", "old_prompt.txt"]
    assert api.calls[3][2]["revision"] == "staging"


def test_rejected_token_names_the_step_and_what_to_do(dataset_plan):
    api = RecordingApi(fail={"create_repo": _http_error(401, f"401 Unauthorized (token {TOKEN})")})
    with pytest.raises(PublishError) as error:
        publish(dataset_plan, api=api, token=TOKEN)
    message = str(error.value)
    assert "step 'create repo'" in message and "rejected the token" in message
    assert "HF_TOKEN" in message and "hf auth login" in message and TOKEN not in message
    assert [call[0] for call in api.calls] == ["create_repo"]


def test_network_error_names_the_failed_step(dataset_plan):
    api = RecordingApi(fail={"create_commit": http.ConnectError("connection refused")})
    with pytest.raises(PublishError, match=r"org/toy: step 'commit' failed: ConnectError"):
        publish(dataset_plan, api=api, token=TOKEN)
    api = RecordingApi(fail={"list_repo_files": _http_error(500, "500 Server Error")})
    with pytest.raises(PublishError, match=r"step 'list remote files' failed \(HTTP 500\)"):
        publish(dataset_plan, api=api, token=TOKEN)


def test_file_changed_after_planning_is_not_sent(dataset_copy):
    plan = make_plan(dataset_copy, "org/toy")
    (dataset_copy / "award_distribution.png").write_bytes(b"changed")
    api = RecordingApi()
    with pytest.raises(PublishError, match="changed after it was checked"):
        publish(plan, api=api, token=TOKEN)
    assert "create_commit" not in [call[0] for call in api.calls]


# A scripted Hub behind huggingface_hub's public set_client_factory: the real HfApi builds and
# sends every request (YAML validation, preupload, the NDJSON commit) to this handler. Run in
# a child process, so that the client factory of this one is left as it is.
SCRIPTED_HUB = """
import json, sys
from pathlib import Path

import huggingface_hub
from huggingface_hub import HfApi

from courtbench.publish import make_plan, publish

folder, token, oid = sys.argv[1:]
http = __import__(huggingface_hub.errors.Response.__module__.split(".")[0])
seen = []


def handler(request):
    path = request.url.path
    body = request.content.decode()
    seen.append({"method": request.method, "path": path, "body": body})
    if path == "/api/validate-yaml":
        return http.Response(200, json={"errors": [], "warnings": []})
    if "/preupload/" in path:
        files = [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False}
                 for f in json.loads(body)["files"]]
        return http.Response(200, json={"files": files})
    if "/commit/" in path:
        return http.Response(200, json={"commitOid": oid, "pullRequestUrl": None,
                                        "commitUrl": "https://huggingface.co/datasets/org/toy"
                                                     "/commit/" + oid})
    return http.Response(404, json={"error": "not scripted: " + path})


huggingface_hub.set_client_factory(lambda: http.Client(transport=http.MockTransport(handler)))
api = HfApi(token=token)
api.create_repo = lambda repo_id, **kw: huggingface_hub.RepoUrl(
    "https://huggingface.co/datasets/" + repo_id)
api.list_repo_files = lambda repo_id, **kw: ["data/old/x.parquet"]
result = publish(make_plan(Path(folder), "org/toy"), api=api, token=token)
print(json.dumps({"commit_id": result.commit_id, "requests": seen}))
"""


@pytest.mark.slow
def test_real_hfapi_against_a_scripted_hub(dataset_plan):
    """huggingface_hub's own create_commit accepts the operations; YAML validation included."""
    import json
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "HF_TOKEN")}
    done = subprocess.run([sys.executable, "-c", SCRIPTED_HUB, str(dataset_plan.folder), TOKEN,
                           COMMIT_OID], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr
    sent = json.loads(done.stdout.splitlines()[-1])
    assert sent["commit_id"] == COMMIT_OID
    by_step = {}
    for request in sent["requests"]:
        step = request["path"].rstrip("/").split("/")[-2 if "/api/datasets/" in request["path"]
                                                       else -1]
        by_step.setdefault(step, []).append(request)
    validated = json.loads(by_step["validate-yaml"][0]["body"])
    assert validated["content"] == (dataset_plan.folder / "README.md").read_text(encoding="utf-8")
    assert validated["repoType"] == "dataset"
    assert sorted(f["path"] for r in by_step["preupload"]
                  for f in json.loads(r["body"])["files"]) == DATASET_FILES
    (commit,) = by_step["commit"]
    assert commit["path"] == "/api/datasets/org/toy/commit/main"
    lines = [json.loads(line) for line in commit["body"].splitlines()]
    assert lines[0]["key"] == "header"
    assert lines[0]["value"]["summary"] == dataset_plan.commit_message
    assert [line["value"]["path"] for line in lines[1:]] == DATASET_FILES + ["data/old/x.parquet"]
    assert [line["key"] for line in lines[1:]] == ["file"] * len(DATASET_FILES) + ["deletedFile"]
    assert TOKEN not in done.stdout


# ----------------------------------------------------------------------------- CLI

@pytest.fixture()
def no_network(monkeypatch):
    """Replace every public HfApi method with one that records the call."""
    calls = []
    for name in dir(HfApi):
        if not name.startswith("_") and callable(getattr(HfApi, name)):
            monkeypatch.setattr(HfApi, name,
                                lambda *a, _name=name, **k: calls.append(_name))
    return calls


def test_dry_run_prints_the_plan_and_sends_nothing(dataset_folder, no_network, monkeypatch,
                                                    capsys):
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    assert main(["publish", str(dataset_folder), "--repo-id", "org/toy", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert no_network == []
    assert "org/toy (dataset)" in out and "kind:     dataset" in out
    for path in DATASET_FILES:
        assert path in out
    assert hashlib.sha256((dataset_folder / "README.md").read_bytes()).hexdigest() in out
    assert f"courtbench {__version__}: publish dataset toy" in out and TOKEN not in out


def test_all_dry_run_plans_datasets_and_metrics(dataset_folder, metric_folder, no_network,
                                                monkeypatch, capsys):
    monkeypatch.setattr("courtbench.commands.publish.load_plugins", lambda: {"toy": object()})
    # the metric's load check is exercised above; here only the --all wiring is under test
    monkeypatch.setattr("courtbench.publish.checks.metric_load_problems",
                        lambda folder, uploaded: [])
    assert main(["publish", "--all", "--org", "org", "--datasets-dir", str(dataset_folder.parent),
                 "--metrics-dir", str(metric_folder.parent), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert no_network == []
    assert "2 plan(s)" in out
    assert "org/toy (dataset)" in out and "org/toy_metric (space, sdk gradio)" in out


def test_all_refuses_when_a_dataset_was_not_built(dataset_folder, metric_folder, monkeypatch,
                                                  capsys):
    monkeypatch.setattr("courtbench.commands.publish.load_plugins",
                        lambda: {"toy": object(), "slds": object()})
    assert main(["publish", "--all", "--org", "org", "--datasets-dir", str(dataset_folder.parent),
                 "--metrics-dir", str(metric_folder.parent), "--dry-run"]) == 1
    assert "dataset 'slds' has no built folder" in capsys.readouterr().err


def test_real_run_prints_url_and_commit_and_never_the_token(dataset_folder, monkeypatch, capsys,
                                                           caplog):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    made = []

    def fake_hfapi(token):
        made.append(token)
        return RecordingApi()

    monkeypatch.setattr("courtbench.commands.publish.HfApi", fake_hfapi)
    assert main(["publish", str(dataset_folder), "--repo-id", "org/toy"]) == 0
    captured = capsys.readouterr()
    assert made == [TOKEN]
    assert "https://huggingface.co/datasets/org/toy" in captured.out
    assert COMMIT_OID in captured.out
    assert TOKEN not in captured.out + captured.err + caplog.text


def test_missing_token_says_what_to_do(dataset_folder, monkeypatch, capsys):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setattr(huggingface_hub, "get_token", lambda: None)
    monkeypatch.setattr("courtbench.commands.publish.HfApi",
                        lambda token: pytest.fail("HfApi built without a token"))
    assert main(["publish", str(dataset_folder), "--repo-id", "org/toy"]) == 1
    err = capsys.readouterr().err
    assert "set the HF_TOKEN environment variable or run `hf auth login`" in err


@pytest.mark.parametrize("argv", [
    ["publish", "--all", "--org", "org"],
    ["publish", "some_dir"],
    ["publish", "some_dir", "--repo-id", "org/x", "--all", "--org", "o", "--datasets-dir", "d"],
])
def test_argument_combinations_are_checked(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2


def test_card_yaml_of_written_folder_is_plugin_free(dataset_folder):
    """Guards the fixture: the tests above rely on a card without 'courtbench_dataset'."""
    metadata = yaml.safe_load((dataset_folder / "README.md").read_text().split("---\n")[1])
    assert "courtbench_dataset" not in metadata and metadata["license"] == "cc-by-4.0"


def test_rerun_after_a_failed_commit_sends_the_same_commit(dataset_plan):
    """A failed commit leaves nothing committed: rerunning sends the same single commit."""
    failing = RecordingApi(fail={"create_commit": _http_error(502, "502 Bad Gateway")})
    with pytest.raises(PublishError):
        publish(dataset_plan, api=failing, token=TOKEN)
    retry = RecordingApi()
    publish(dataset_plan, api=retry, token=TOKEN)
    assert [c[0] for c in retry.calls] == ["create_repo", "list_repo_files", "create_commit"]
    assert _operations(retry.calls[2])[0] == DATASET_FILES


def test_all_targets_checks_folder_kinds(dataset_folder, metric_folder, monkeypatch):
    from courtbench.commands.publish import all_targets

    monkeypatch.setattr("courtbench.commands.publish.load_plugins", lambda: {})
    with pytest.raises(CourtbenchError, match="not a folder"):
        all_targets("org", dataset_folder.parent / "absent", metric_folder.parent)
    with pytest.raises(CourtbenchError, match="a metric folder inside .*; expected a dataset"):
        all_targets("org", metric_folder.parent, metric_folder.parent)
    assert all_targets("org", dataset_folder.parent, metric_folder.parent) == [
        (dataset_folder, "org/toy"), (metric_folder, "org/toy_metric")]
