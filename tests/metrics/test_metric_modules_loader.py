"""courtbench.metric_modules: metric scripts imported by path, as builders and reports do."""

from __future__ import annotations

import pytest

from courtbench import metric_modules
from courtbench.errors import CourtbenchError


def test_every_metric_folder_imports_by_path():
    names = sorted(metric_modules.metric_folders())
    assert names == sorted(["npd_regression", "zero_f1", "bootstrap_mae", "headnote_judge",
                            "headnote_similarity", "summarization_properties"])
    for name in names:
        module = metric_modules.load_metric_module(name)
        assert module.__file__.endswith(f"{name}.py")


def test_dataclasses_with_postponed_annotations_import(tmp_path):
    folder = tmp_path / "toy_metric"
    folder.mkdir()
    (folder / "toy_metric.py").write_text(
        "from __future__ import annotations\nimport dataclasses\n\n"
        "@dataclasses.dataclass\nclass Result:\n    value: float\n")
    module = metric_modules.import_metric_script(folder, "toy_metric_package")
    assert module.Result(1.0).value == 1.0


def test_unknown_metric_names_the_available_ones():
    with pytest.raises(CourtbenchError, match="available: .*npd_regression"):
        metric_modules.metric_dir("no_such_metric")
