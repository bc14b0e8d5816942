"""Every shell and Python example of README.md, of the documentation site (docs/**/*.md) and
of the metric cards the site shows (metrics/<name>/README.md) runs as written, offline, or is
listed with the reason it cannot.

The fenced ```bash / ```sh / ```shell / ```console (its ``$ `` lines) and ```python blocks
are read in order (a fence indented inside a list item too). A shell command is one line
(``\\`` continuations joined, comments dropped) run in a fresh copy of one workspace prepared
once per module: tiny synthetic builds of both benchmarks, their baseline predictions and
reports, and a results folder seeded from them; a scripted chat server on 127.0.0.1 stands in
for every LLM endpoint. ``courtbench`` commands run in-process (``courtbench.cli.main``), other
commands through bash with this interpreter's bin folder first on PATH.

Every source is held to the rule a reader pastes by: a command runs exactly as written (no
``[optional]`` parts, which :func:`test_commands_run_as_pasted` refuses) and a Python block
runs alone, in an empty namespace. Doctest blocks of the cards (``>>>``) are run by
tests/metrics/test_metric_common.py, not here. README.md has tests of its own besides: it starts with
the two set-up commands, .ci/run runs its test command, and its links resolve.

What differs from the text is written down here: :data:`SUBSTITUTIONS` (a real release path,
endpoints, sizes made small), :data:`STAND_INS` (files a command reads that come from a
command not run here), :data:`PATCHED` (a slow check covered elsewhere) and :data:`NOT_RUN`
(commands that cannot run offline or in a test, each with the reason). A command in none of
them is run; a command of a tool this file does not know fails the test, and so does an
entry no example uses.
"""

from __future__ import annotations

import fnmatch
import glob
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from fake_chat_server import FakeChatServer, Reply, judgement

from courtbench.cli import main

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
SHELL_LANGUAGES = ("bash", "sh", "shell", "console")
LLM = "http://127.0.0.1:{port}/v1"  # the scripted server; {port} is filled in at run time

#: Command prefixes (whitespace collapsed, before ``[optional]`` parts are dropped) → why the
#: command is not run here. Commands of the same tool not listed here are run.
NOT_RUN = {
    "make demo": "installs .venv from the package index (network), then builds both "
                 "full-size synthetic stand-ins (minutes); `courtbench demo` is run by "
                 "tests/toolkit/test_command_demo.py",
    "make test": "installs .venv from the package index (network), then runs this suite "
                 "itself; .ci/run runs it on a clean clone (its call is checked by "
                 "test_ci_runs_the_test_command_the_readme_gives)",
    "make test-models": "installs the model stack from the package index (network), then runs "
                        "this suite's model tier; .ci/run runs it on a clean clone",
    "make coverage": "the test suite itself, under coverage (minutes)",
    "make spaces": "serves every Space and screenshots it with Chromium "
                   "(tests/toolkit/test_spaces_browser.py serves the pages)",
    "make bench": "timing benchmarks (benchmarks/), not a check",
    "make lint": "ruff and the complexity gate, not a behaviour",
    "pip install": "installs from a package index (network)",
    "python -m build": "builds the wheel; tests/toolkit/test_wheel_smoke.py builds and "
                       "installs one",
    "vllm serve": "starts a GPU model server; the scripted server stands in for it",
    "accelerate launch": "launches training on 4 GPUs",
    "torchrun": "launches training on several GPUs / machines",
    "python -m courtbench.spaces": "needs headless Chromium; tests/toolkit/test_spaces_browser.py",
    "cd metrics/npd_regression && python app.py": "serves the page until it is stopped; "
                                                   "tests/toolkit/test_spaces_pages.py serves it",
    "courtbench train": "needs model weights (models/…) and the train extra; "
                        "tests/ecthr_npd/test_train_ecthr.py and tests/slds/test_train_slds.py "
                        "train tiny models",
    "courtbench predict ecthr_npd --data built/ecthr_npd --base-url http://127.0.0.1:8000/v1 "
    "--model Qwen/Qwen2.5-7B-Instruct --prompt react": "the agent needs a tool-calling model; it runs "
        "against a scripted ReAct model in tests/ecthr_npd/test_ecthr_agent.py",
    "courtbench submit report/ --repo-id ORG/courtbench-results --unofficial": "opens a pull "
        "request on the Hub (tests/toolkit/test_leaderboard.py runs --unofficial --dry-run)",
    "courtbench publish results/ --repo-id": "uploads to the Hub",
    "courtbench publish space/ --repo-id": "uploads to the Hub",
    'courtbench publish "$(courtbench metrics path npd_regression)"': "uploads to the Hub "
        "(tests/toolkit/test_publish.py plans metric folders)",
    # the documentation site's own
    "source .venv/bin/activate": "activates the clone's environment; the examples run with "
                                 "this test's interpreter, whose bin folder is first on PATH",
    "courtbench demo": "the whole pipeline of both benchmarks (minutes even at --scale 0.05); "
                       "tests/toolkit/test_command_demo.py runs it",
    "make docs": "builds this site (mkdocs build --strict); .ci/run runs it on a clean clone",
    "courtbench publish built/ecthr_npd --repo-id ORG/ecthr_npd --private": "uploads to the "
        "Hub (its --dry-run twin is run)",
    "courtbench submit report/ --repo-id ORG/courtbench-results --systems": "opens a pull "
        "request on the Hub (its --dry-run twin is run)",
    "courtbench baselines ecthr_npd --data built/ecthr_npd_facts --out preds/dense": "needs "
        "the embedding model models/bge-m3 (tests/ecthr_npd/test_ecthr_text_baselines.py uses a "
        "tiny one)",
    "courtbench baselines ecthr_npd --data built/ecthr_npd_facts --out preds/sparse": "needs "
        "the embedding model models/bge-m3",
    "courtbench predict ecthr_npd --data built/ecthr_npd_facts --base-url "
    "http://127.0.0.1:8000/v1 --model Qwen/Qwen2.5-7B-Instruct --prompt zero_shot --input "
    "facts --tokenizer": "needs the model's tokenizer folder models/Qwen2.5-7B-Instruct "
        "(tests/ecthr_npd/test_ecthr_predict_tokens.py cuts with a small local tokenizer)",
    "courtbench generate slds --data built/slds --config all --splits test --shots 0 "
    "--local-model": "needs the fine-tuned model runs/qwen05b/model (from courtbench train)",
}

#: ``(pattern, replacement, why)``: regular expressions applied in order to a shell command or
#: to a Python block.
SUBSTITUTIONS = [
    (r"^(courtbench build ecthr_npd --synthetic)", r"\1 --n 200", "a tiny stand-in"),
    (r"--recompute", "--recompute --id-size 20", "an ID view that fits 300 cases"),
    (r"--decisions 20000", "--decisions 60", "a tiny stand-in"),
    (r"^(courtbench baselines ecthr_npd .*)$", r"\1 --systems zero,train_median",
     "the two fastest baselines (the others: tests/ecthr_npd/test_ecthr_baselines.py)"),
    (r"^(courtbench evaluate ecthr_npd .*)$", r"\1 --no-figures",
     "figures are tested elsewhere (tests/ecthr_npd/test_ecthr_figures.py)"),
    (r"https?://(127\.0\.0\.1|localhost):(8000|11434)/v1|https://api\.openai\.com/v1", LLM,
     "the scripted chat server instead of vLLM / Ollama / OpenAI"),
    (r"^(courtbench submit report/ --repo-id ORG/courtbench-results --dry-run)$",
     r"\1 --results-folder accepted/",
     "the accepted data from a local results folder instead of the Hub"),
    (r"^(courtbench build ecthr_npd --synthetic .*--n )\d+", r"\g<1>200", "a tiny stand-in"),
    (r"--split-sizes 10217,1461", "--split-sizes 210,30",
     "the release's boundaries scaled to the workspace's 300 cases"),
    (r"--id-size 1000", "--id-size 20", "an ID view that fits 300 cases"),
    (r"--data slds_hub", "--data built/slds", "the workspace's SLDS folder (a card's example)"),
]

#: What is replaced inside courtbench while the examples run: attribute → (stand-in, why).
PATCHED = {
    "courtbench.publish.checks.metric_load_problems": (
        lambda folder, uploaded, **options: [],
        "publish --all plans every metric module and loads each in a fresh offline "
        "subprocess (minutes); that check runs in tests/toolkit/test_publish.py and "
        "tests/toolkit/test_spaces_static.py"),
}

#: Files in the workspace that the examples read but that come from a command this file
#: does not run (see NOT_RUN): path → what stands in for it.
STAND_INS = {
    "preds/agent/agent.csv": "the train_median baseline (for the agent's file)",
    "runs/modernbert/predictions/modernbert.csv": "the zero baseline (for a trained model's)",
}

#: (source, first command of a block) → the files that must exist after the block: what the
#: text beside it promises ("reports/ecthr_npd/ holds report.md, report.json …").
PROMISED = {
    ("README.md", "courtbench baselines ecthr_npd --data built/ecthr_npd --out preds/ecthr_npd"):
        ["reports/ecthr_npd/report.md", "reports/ecthr_npd/report.json"],
    ("docs/getting-started.md",
     "courtbench build ecthr_npd --synthetic --n 2000 --seed 0 --out built/ecthr_npd"):
        ["reports/ecthr_npd/report.md", "reports/ecthr_npd/report.json"],
}

FACTS = ("The applicant was born in 1961 and lives in Vilnius. He was arrested in 2005 and "
         "detained for 48 hours; the District Court heard 12 witnesses.")


# ----------------------------------------------------------------------------- reading


def fenced_blocks(text: str, *, indented: bool = False) -> list[tuple[int, str, str]]:
    """``(first line, language, body)`` of each fenced block of ``text``; with ``indented``
    also the fences indented inside a list item (their body dedented by the fence's indent)."""
    indent = r"( *)" if indented else r"()"
    return [(text[:m.start()].count("\n") + 1, m.group(2),
             re.sub(rf"^{m.group(1)}", "", m.group(3), flags=re.M))
            for m in re.finditer(rf"^{indent}```(\w*)\n(.*?)^\1```", text, re.S | re.M)]


def _without_comment(line: str) -> str:
    """``line`` up to a ``#`` that starts a shell comment (outside quotes, after a blank)."""
    quote = None
    for index, char in enumerate(line):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index]
    return line


def shell_commands(language: str, body: str) -> list[str]:
    """The command lines of a shell block: continuations joined, comments dropped,
    whitespace collapsed; in a ``console`` block only the ``$ `` lines."""
    lines = body.splitlines()
    if language == "console":
        lines = [line[2:] for line in lines if line.startswith("$ ")]
    joined = "\n".join(lines).replace("\\\n", " ")
    return [" ".join(_without_comment(line).split()) for line in joined.splitlines()
            if _without_comment(line).strip()]


class Block(NamedTuple):
    """One example: where it is, its language and its text."""

    source: str
    line: int
    language: str
    body: str


def example_sources() -> list[Path]:
    """README.md, every page of docs/ (the hooks' folder excluded) and every metric card."""
    pages = sorted(p for p in DOCS.rglob("*.md") if "_hooks" not in p.parts)
    cards = sorted(p for p in (ROOT / "metrics").glob("*/README.md")
                   if not p.parent.name.startswith("_"))
    return [README, *pages, *cards]


def example_blocks() -> list[Block]:
    """Every shell and Python block of :func:`example_sources`, in order; doctest blocks
    (``>>>``) are left to tests/metrics/test_metric_common.py."""
    blocks = []
    for path in example_sources():
        for line, language, body in fenced_blocks(path.read_text(encoding="utf-8"),
                                                   indented=True):
            if (language in SHELL_LANGUAGES or language == "python") and ">>> " not in body:
                blocks.append(Block(path.relative_to(ROOT).as_posix(), line, language, body))
    return blocks


def not_run_reason(command: str) -> str | None:
    return next((why for prefix, why in NOT_RUN.items() if command.startswith(prefix)), None)


def substituted(text: str, port: int) -> str:
    """``text`` with :data:`SUBSTITUTIONS` applied and the scripted server's port."""
    for pattern, replacement, _ in SUBSTITUTIONS:
        text = re.sub(pattern, replacement, text, flags=re.M)
    return text.replace("{port}", str(port))




# ----------------------------------------------------------------------------- the workspace


def _cli(*argv: str) -> None:
    assert main(list(argv)) == 0, argv


def _reviewed_facts(case_level: Path, out: Path) -> None:
    from ecthr_npd.facts import ACCEPTED
    from ecthr_npd.reader import read_case_level

    with out.open("w", encoding="utf-8") as handle:
        for case_id in read_case_level(case_level).column("case_id").to_pylist():
            handle.write(json.dumps({
                "case_id": case_id, "facts_text": FACTS, "review_status": ACCEPTED,
                "source_document_sha256": hashlib.sha256(case_id.encode()).hexdigest(),
                "source_anchor": "FACTS paragraphs 1-20"}) + "\n")


def _slds_rows(built: Path) -> pa.Table:
    """Every row of the built SLDS folder's default config (the published long rows)."""
    return pa.concat_tables(pq.read_table(path) for path in
                            sorted((built / "data" / "default").glob("*.parquet")))


def _entscheidsuche_responses(rows: pa.Table, out: Path) -> None:
    """One entscheidsuche.ch search response per decision of ``rows``: a BGE hit with the
    decision text and its headnotes (``abstract``)."""
    out.mkdir()
    decisions: dict[str, dict] = {}
    for row in rows.to_pylist():
        decision = decisions.setdefault(row["decision_id"], {**row, "abstract": {}})
        decision["abstract"][row["headnote_language"]] = "Regeste\n<br>" + row["headnote"]
    for index, decision in enumerate(decisions.values()):
        source = {"date": f"{decision['year']}-03-01", "hierarchy": ["CH", "CH_BGE"],
                  "reference": [f"BGE {decision['year'] - 1874} {decision['volume']} {index + 1}"],
                  "language": decision["decision_language"], "abstract": decision["abstract"],
                  "attachment": {"content": decision["decision"],
                                 "content_url": f"https://example.org/{index}.html"}}
        hit = {"_id": f"CH_BGE_{index}", "_index": "entscheidsuche.v2-ch_bge", "_source": source}
        (out / f"response_{index}.json").write_text(
            json.dumps({"took": 1, "hits": {"hits": [hit]}}), encoding="utf-8")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory, monkeypatch_module) -> Path:
    """The folder every block starts from (copied per block)."""
    from ecthr_npd.synthetic import write_synthetic

    root = tmp_path_factory.mktemp("readme") / "workspace"
    root.mkdir()
    monkeypatch_module.chdir(root)
    write_synthetic(root / "case_level.csv", n=300, seed=2)
    _cli("build", "ecthr_npd", "--synthetic", "--n", "200", "--out", "built/ecthr_npd")
    _cli("build", "slds", "--synthetic", "--decisions", "60", "--seed", "0", "--out", "built/slds")
    _cli("baselines", "ecthr_npd", "--data", "built/ecthr_npd", "--out", "preds/ecthr_npd",
         "--systems", "zero,train_median")
    _cli("baselines", "slds", "--data", "built/slds", "--out", "preds/slds")
    _cli("evaluate", "ecthr_npd", "--data", "built/ecthr_npd", "--predictions",
         *sorted(glob.glob("preds/ecthr_npd/*.csv")), "--out", "ecthr_report", "--no-figures")
    _cli("evaluate", "slds", "--data", "built/slds", "--predictions",
         *sorted(glob.glob("preds/slds/*.jsonl")), "--out", "slds_report")
    _cli("leaderboard", "init", "accepted", "--reference-report", "ecthr_report",
         "--reference-report", "slds_report")
    Path("preds/agent").mkdir()
    shutil.copyfile("preds/ecthr_npd/train_median.csv", "preds/agent/agent.csv")
    (root / "metrics").symlink_to(ROOT / "metrics")  # a card's evaluate.load("metrics/<name>")
    Path("runs/modernbert/predictions").mkdir(parents=True)
    shutil.copyfile("preds/ecthr_npd/zero.csv", "runs/modernbert/predictions/modernbert.csv")
    shutil.copyfile("preds/slds/lead.jsonl", "preds.jsonl")
    _reviewed_facts(root / "case_level.csv", root / "reviewed_facts.jsonl")
    rows = _slds_rows(root / "built" / "slds")
    pq.write_table(rows, root / "slds.parquet")
    _entscheidsuche_responses(rows, root / "responses")
    return root


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def _answer(request: dict, attempt: int) -> Reply:
    """The scripted model: a judge verdict, an ECtHR award, or a headnote."""
    text = "\n".join(str(m.get("content")) for m in request["messages"])
    if "Generated headnote, as a JSON string:" in text:
        return Reply(judgement([3, 2, 3, 2, 3]))
    if "EUR" in text or "award" in text.lower():
        return Reply(json.dumps({"award_eur": 4000}))
    return Reply("Art. 8 BV; Rechtsgleichheit (E. 2).")


@pytest.fixture(scope="module")
def llm_server():
    with FakeChatServer(_answer) as server:
        yield server


# ----------------------------------------------------------------------------- running


def _free_copied_output(argv: list[str], copied: set[str]) -> None:
    """Remove the workspace's copy at ``--out`` before a command writes there: courtbench
    replaces only outputs written at that very path, and a copy is not (in the reader's own
    folder the earlier command wrote it there)."""
    if "--out" not in argv[:-1]:
        return
    out = os.path.normpath(argv[argv.index("--out") + 1])
    if out in copied:
        copied.discard(out)
        shutil.rmtree(out) if Path(out).is_dir() else Path(out).unlink()


def _run_shell(command: str, folder: Path, copied: set[str]) -> None:
    if command.startswith("courtbench ") and not re.search(r"[$|&;<>`\"']", command):
        argv = []
        for word in shlex.split(command)[1:]:
            argv += sorted(glob.glob(word)) or [word] if "*" in word else [word]
        _free_copied_output(argv, copied)
        try:
            status = main(argv)
        except SystemExit as done:  # --help, --version
            status = done.code or 0
        assert status == 0, command
        return
    bin_folder = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bin_folder + os.pathsep + os.environ.get("PATH", ""),
           "PYTHONPATH": str(README.parent), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    done = subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"


def _block_id(block: Block) -> str:
    return f"{block.source}:{block.line}:{block.language}"


@pytest.mark.parametrize("block", [b for b in example_blocks() if b.source == "README.md"],
                         ids=_block_id)
def test_readme_example_runs(block, workspace, llm_server, tmp_path, monkeypatch, capsys):
    run_example(block, workspace, llm_server, tmp_path, monkeypatch, capsys)


def run_example(block: Block, workspace: Path, llm_server, tmp_path: Path, monkeypatch,
                capsys) -> None:
    """Run one example in a fresh copy of ``workspace`` (the documentation's examples run
    through this too, from tests/toolkit/test_docs_examples.py, so that both files share the two
    cores)."""
    folder = tmp_path / "w"
    shutil.copytree(workspace, folder, symlinks=True)
    monkeypatch.chdir(folder)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-readme-test-not-a-key")
    for attribute, (stand_in, _) in PATCHED.items():
        monkeypatch.setattr(attribute, stand_in)
    port = int(llm_server.url.rsplit(":", 1)[1].split("/")[0])
    where = f"{block.source}:{block.line}"
    if block.language == "python":
        source = substituted(block.body, port)
        exec(compile(source, where, "exec"), {"__name__": "__example__"})  # noqa: S102
        capsys.readouterr()
        return
    commands = shell_commands(block.language, block.body)
    ran = [c for c in commands if not_run_reason(c) is None]
    if not ran:
        reasons = "; ".join(sorted({not_run_reason(c) for c in commands}))
        pytest.skip(f"{where}: no command here runs in this test ({reasons})")
    copied = {os.path.relpath(path, workspace) for path in glob.glob(f"{workspace}/**",
                                                                      recursive=True)}
    for command in ran:
        _run_shell(substituted(command, port), folder, copied)
        capsys.readouterr()
    for promised in PROMISED.get((block.source, commands[0]), []):
        assert (folder / promised).is_file(), promised


#: Commands run here (any other tool must be in NOT_RUN).
KNOWN_TOOLS = ("courtbench ", "python -c ")


def unlisted(commands: list[str]) -> list[str]:
    """Commands neither of a tool run here nor in :data:`NOT_RUN`."""
    return [c for c in commands if not_run_reason(c) is None and not c.startswith(KNOWN_TOOLS)]


def test_a_new_example_of_an_unknown_tool_is_caught_and_console_output_is_not_a_command():
    commands = shell_commands("bash", "docker run courtbench  # new\npip install x\n"
                                      "courtbench metrics \\\n    list\n")
    assert commands == ["docker run courtbench", "pip install x", "courtbench metrics list"]
    assert unlisted(commands) == ["docker run courtbench"]
    assert shell_commands("console", "$ courtbench metrics list\nnpd_regression ...\n") == [
        "courtbench metrics list"]


def test_every_command_is_run_or_listed_with_its_reason():
    blocks = example_blocks()
    commands = [c for b in blocks if b.language != "python"
                for c in shell_commands(b.language, b.body)]
    unknown = unlisted(commands)
    assert not unknown, ("commands neither run here nor listed in NOT_RUN (add the "
                         "reason): " + "; ".join(unknown))
    unused = [prefix for prefix in NOT_RUN if not any(c.startswith(prefix) for c in commands)]
    assert not unused, f"NOT_RUN entries no example uses any more: {unused}"
    sources = [b.body for b in blocks if b.language == "python"]
    sources += [c for c in commands if not_run_reason(c) is None]
    unused = [pattern for pattern, _, _ in SUBSTITUTIONS
              if not any(re.search(pattern, source, re.M) for source in sources)]
    assert not unused, f"SUBSTITUTIONS no example uses any more: {unused}"
    words = {word for c in commands for word in c.split()}
    missing = [path for path in STAND_INS if not any(fnmatch.fnmatch(path, w) for w in words)]
    assert not missing, f"STAND_INS no command reads: {missing}"
    firsts = {(b.source, shell_commands(b.language, b.body)[0]) for b in blocks
              if b.language != "python" and shell_commands(b.language, b.body)}
    assert not set(PROMISED) - firsts, f"PROMISED blocks no source has: {set(PROMISED) - firsts}"


def test_commands_run_as_pasted():
    """A command of the README, the site or a card has no ``[optional]`` part and no ``...``:
    pasted as written it runs (``build ecthr_npd --synthetic [--n 14575 --seed 0]`` would
    not)."""
    pasted_wrong = [f"{b.source}:{b.line}: {c}" for b in example_blocks()
                    if b.language != "python"
                    for c in shell_commands(b.language, b.body)
                    if re.search(r"(^|\s)\[", c) or "..." in c.split() or "…" in c]
    assert not pasted_wrong, "; ".join(pasted_wrong)


def test_fences_inside_list_items_are_read():
    text = "- an item:\n\n  ```bash\n  courtbench metrics list\n  ```\n"
    assert fenced_blocks(text) == []
    assert fenced_blocks(text, indented=True) == [(3, "bash", "courtbench metrics list\n")]


def test_the_pipeline_block_is_build_verify_baselines_evaluate_publish():
    text = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    section = text[text.index("## The pipeline"):]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    assert [shlex.split(c)[1] for c in shell_commands("bash", block)] == [
        "build", "verify", "baselines", "evaluate", "publish"]
    assert ("docs/getting-started.md", shell_commands("bash", block)[0]) in PROMISED


# ----------------------------------------------------------------------------- README.md itself

README_MAX_LINES = 150
SET_UP = ["make demo", "make test"]


def test_readme_is_short_and_starts_with_the_two_set_up_commands():
    """Nothing but the title and one sentence before ``make demo`` and ``make test``: a
    newcomer sets up before reading anything else."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES
    first = example_blocks()[0]
    assert first.source == "README.md"
    assert shell_commands(first.language, first.body) == SET_UP
    before = [line for line in text.splitlines()[:first.line - 1] if line.strip()]
    assert before[0].startswith("# ") and not before[0].startswith("##"), before
    assert not re.search(r"[.!?]\s+\S", " ".join(before[1:])), f"more than one sentence: {before}"


def test_ci_runs_the_test_command_the_readme_gives():
    """.ci/run (CI on a clean clone) runs exactly the README's test command first, so that what
    CI checks is what a newcomer runs; then the documentation site and the model tier."""
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    make_lines = [line for line in lines if line.startswith("make ")]
    assert make_lines == [SET_UP[1], "make docs", "make test-models"]
    assert SET_UP[1] in README.read_text(encoding="utf-8")


def markdown_links(text: str) -> list[str]:
    """The targets of the inline links ``[text](target)`` of ``text``, outside code spans,
    fenced blocks and HTML comments."""
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", "", text)
    return re.findall(r"\]\(([^)\s]+)\)", text)


def heading_anchors(text: str) -> set[str]:
    """The anchors of a Markdown page's headings as MkDocs' toc extension makes them (lower
    case, punctuation dropped, spaces to hyphens)."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    anchors = set()
    for heading in re.findall(r"^#{1,6}\s+(.*?)\s*$", text, re.M):
        slug = re.sub(r"[^\w\s-]", "", heading.replace("`", "").lower()).strip()
        anchors.add(re.sub(r"[\s-]+", "-", slug))
    return anchors


def test_markdown_links_and_anchors_are_read_as_mkdocs_reads_them():
    text = ("See [a](docs/a.md#the-llm-judge), `[b](no.md)`, [c](https://x.org).\n"
            "<!-- [d](gone.md) -->\n```bash\n[e](code.md)\n```\n")
    assert markdown_links(text) == ["docs/a.md#the-llm-judge", "https://x.org"]
    assert heading_anchors("# Models\n## The LLM judge\n### ECtHR-NPD: predict awards\n") == {
        "models", "the-llm-judge", "ecthr-npd-predict-awards"}


def test_readme_links_resolve():
    """Every relative link of README.md names a file of the clone (the docs pages, so that they
    work on GitHub and in a clone without the built site), and its #anchor a heading there."""
    links = [link for link in markdown_links(README.read_text(encoding="utf-8"))
             if not re.match(r"[a-z]+:", link)]
    assert len(links) >= 15, links
    broken = []
    for link in links:
        path, _, anchor = link.partition("#")
        target = README.parent / path
        if not target.is_file():
            broken.append(f"{link}: no file {path}")
        elif anchor and anchor not in heading_anchors(target.read_text(encoding="utf-8")):
            broken.append(f"{link}: no heading #{anchor} in {path}")
    assert not broken, "; ".join(broken)


def _written_paths(command: str) -> list[str]:
    """What a command writes in the reader's folder: ``--out``/``--cache`` values, the
    folder ``leaderboard init|space`` and ``metrics export`` write, a ``>`` redirection."""
    words = command.split()
    written = [words[i + 1] for i, w in enumerate(words[:-1]) if w in ("--out", "--cache", ">")]
    for prefix, position in (("courtbench leaderboard init ", 3),
                             ("courtbench leaderboard space ", 3),
                             ("courtbench metrics export ", 4)):
        if command.startswith(prefix) and len(words) > position:
            written.append(words[position])
    # absolute paths, variables, options and placeholders (DIR) are not the reader's files
    return [w for w in written if not w.startswith(("/", "$", "-"))
            and not Path(w).parts[0].isupper()]


def test_every_output_of_the_examples_is_ignored_by_git():
    """A reader who runs the examples in a clone gets no untracked files: every top-level
    folder or file the examples write is in .gitignore."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    commands = [c for b in example_blocks() if b.language != "python"
                for c in shell_commands(b.language, b.body)]
    tops = sorted({Path(w).parts[0] + ("/x" if len(Path(w).parts) > 1 or not Path(w).suffix
                                       else "") for c in commands for w in _written_paths(c)})
    assert len(tops) >= 8, tops
    done = subprocess.run(["git", "check-ignore", "--no-index", "--verbose", "--non-matching",
                           *tops], cwd=ROOT, capture_output=True, text=True)
    not_ignored = [line.split("\t")[-1] for line in done.stdout.splitlines()
                   if line.startswith("::")]
    assert not not_ignored, f"written by the examples but not in .gitignore: {not_ignored}"
