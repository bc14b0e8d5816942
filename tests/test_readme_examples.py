"""The README's pipeline block runs as written (on a tiny synthetic build, publish dry-run)."""

from __future__ import annotations

import glob
import re
import shlex
from pathlib import Path

from courtbench.cli import main

README = Path(__file__).resolve().parent.parent / "README.md"


def pipeline_block() -> list[str]:
    """The command lines of the first ```bash block under "## The pipeline"."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## The pipeline"):]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    return [line.split("#", 1)[0].strip() for line in block.splitlines()
            if line.strip() and not line.startswith("#")]


def _argv(line: str, cwd: Path) -> list[str]:
    words = shlex.split(line)
    assert words[0] == "courtbench", line
    words = words[1:]
    if words[:2] == ["build", "ecthr_npd"]:  # the tiny synthetic stand-in, not the release
        at = words.index("--source")
        words[at:at + 2] = ["--synthetic", "--n", "200"]
    if words[0] == "baselines":
        words += ["--systems", "zero,train_median"]
    if words[0] == "evaluate":
        words += ["--no-figures"]
    expanded = []
    for word in words:
        matches = sorted(glob.glob(str(cwd / word))) if "*" in word else []
        expanded += [str(Path(m)) for m in matches] or [
            str(cwd / word) if "/" in word and not word.startswith("ORG/") else word]
    return expanded


def test_the_readme_pipeline_block_runs_on_a_tiny_synthetic_build(tmp_path, capsys):
    lines = pipeline_block()
    assert [shlex.split(line)[1] for line in lines] == ["build", "verify", "baselines",
                                                       "evaluate", "publish"]
    for line in lines:
        assert main(_argv(line, tmp_path)) == 0, (line, capsys.readouterr().err)
    assert (tmp_path / "reports" / "ecthr_npd" / "report.md").is_file()
