"""metrics/_shared/evaluate_import.py: ``evaluate`` without transformers' pipelines, and
nothing else changed (a fresh interpreter: the tests' own process imported evaluate already)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from metric_helpers import REPO_ROOT, fresh_evaluate_env

pytestmark = pytest.mark.models  # it checks what happens when transformers is installed

HELPER = REPO_ROOT / "metrics" / "_shared" / "evaluate_import.py"

CHECK = f"""
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("helper", {str(HELPER)!r})
helper = importlib.util.module_from_spec(spec)
spec.loader.exec_module(helper)
{{setup}}
evaluate = helper.import_evaluate()
out = {{{{"pipelines_after_evaluate": "transformers.pipelines" in sys.modules,
        "hidden_entry_left": "transformers" in sys.modules and sys.modules["transformers"] is None,
        "same_module": helper.import_evaluate() is evaluate}}}}
metric = evaluate.load("metrics/zero_f1")
out["zero_f1"] = metric.compute(predictions=[0, 800], references=[0, 0])["zero_f1"]
import transformers.utils
out["transformers_usable"] = callable(transformers.utils.is_torch_available)
print(json.dumps(out))
"""


def _run(setup: str, tmp_path) -> dict:
    done = subprocess.run([sys.executable, "-c", CHECK.format(setup=setup)], cwd=REPO_ROOT,
                          env=fresh_evaluate_env(tmp_path), capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_evaluate_loads_metrics_without_the_pipelines_and_transformers_stays_usable(tmp_path):
    pytest.importorskip("transformers")
    out = _run("", tmp_path)
    assert out == {"pipelines_after_evaluate": False, "hidden_entry_left": False,
                   "same_module": True, "zero_f1": out["zero_f1"], "transformers_usable": True}
    assert 0 <= out["zero_f1"] <= 1

