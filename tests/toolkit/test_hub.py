"""courtbench.hub: writing, card rendering and verification of Hub dataset folders."""

from __future__ import annotations

import datetime
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import pytest
import yaml

from courtbench.errors import CourtbenchError, VerificationError
from courtbench.hub import ConfigSpec, read_card_metadata, verify_folder, write_hub_folder
from courtbench.hub.card import split_card
from courtbench.hub.parquet import row_group_rows
from courtbench.tables import markdown_table

FEATURES = datasets.Features({
    "case_id": datasets.Value("string"),
    "label": datasets.ClassLabel(names=["zero", "positive"]),
    "tags": datasets.List(datasets.Value("string")),
    "date": datasets.Value("date32"),
    "amount": datasets.Value("float64"),
})


def _dataset(n: int = 6) -> datasets.Dataset:
    return datasets.Dataset.from_dict({
        "case_id": [f"001-{1000 + i}" for i in range(n)],
        "label": [i % 2 for i in range(n)],
        "tags": [[f"art{i}"] * (i % 3) for i in range(n)],
        "date": [datetime.date(2020, 1, 1 + i) for i in range(n)],
        "amount": [float(i * 1000) for i in range(n)],
    }, features=FEATURES)


@pytest.fixture()
def template(tmp_path: Path) -> Path:
    path = tmp_path / "card.md"
    path.write_text("# {{ title }}\n{% for c in configs %}- {{ c.name }}: {{ c.splits }}\n{% endfor %}"
                    "{{ markdown_table(['n'], [[total | thousands]]) }}\n")
    return path


def _configs() -> list[ConfigSpec]:
    ds = _dataset()
    return [ConfigSpec("default", {"train": ds.select(range(4)), "test": ds.select([4, 5])},
                       default=True),
            ConfigSpec("recent", {"test": ds.select([5])})]


def _write(out: Path, template: Path, **kwargs):
    return write_hub_folder(out, kwargs.pop("configs", _configs()), card_template=template,
                            card_context={"title": "Toy", "total": 12345},
                            card_metadata={"pretty_name": "Toy", "license": "cc-by-4.0",
                                           "courtbench_dataset": "toy"}, **kwargs)


def test_written_folder_loads_and_verifies(tmp_path, template):
    out = tmp_path / "toy"
    report = _write(out, template)
    assert report.split_sizes == {"default": {"train": 4, "test": 2}, "recent": {"test": 1}}
    assert [f.path for f in report.files] == ["README.md", "data/default/test.parquet",
                                              "data/default/train.parquet", "data/recent/test.parquet"]
    loaded = datasets.load_dataset(str(out), "default")
    assert loaded["train"].features == FEATURES
    assert loaded["test"]["case_id"] == ["001-1004", "001-1005"]
    verified = verify_folder(out)
    assert verified.split_sizes == report.split_sizes
    metadata = read_card_metadata(out)
    assert metadata["configs"][0] == {"config_name": "default", "default": True, "data_files": [
        {"split": "train", "path": "data/default/train.parquet"},
        {"split": "test", "path": "data/default/test.parquet"}]}
    _, body = split_card((out / "README.md").read_text())
    assert "# Toy" in body and "| 12,345 |" in body


def test_parquet_keeps_features_without_the_card(tmp_path, template):
    out = tmp_path / "toy"
    _write(out, template)
    schema = pq.read_schema(out / "data/default/train.parquet")
    assert datasets.Features.from_arrow_schema(schema) == FEATURES


def test_build_is_byte_deterministic(tmp_path, template):
    first = _write(tmp_path / "a", template).files
    second = _write(tmp_path / "b", template).files
    assert first == second


def test_failed_build_leaves_no_folder(tmp_path, template):
    def broken_figure(path: Path) -> None:
        raise RuntimeError("plot failed")

    with pytest.raises(RuntimeError, match="plot failed"):
        _write(tmp_path / "toy", template, figures={"f.png": broken_figure})
    assert list(tmp_path.iterdir()) == [template]


def test_failed_rebuild_keeps_previous_folder(tmp_path, template):
    out = tmp_path / "toy"
    before = _write(out, template).files
    with pytest.raises(KeyboardInterrupt):
        _write(out, template, figures={"f.png": lambda p: (_ for _ in ()).throw(KeyboardInterrupt)})
    assert verify_folder(out).files == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["card.md", "toy"]


def test_figure_without_plot_extra_is_skipped(tmp_path, template):
    def needs_matplotlib(path: Path) -> None:
        raise ImportError("No module named 'matplotlib'")

    report = _write(tmp_path / "toy", template, figures={"f.png": needs_matplotlib})
    assert report.figures_skipped == ["f.png"]


def test_undefined_template_variable_is_an_error(tmp_path):
    template = tmp_path / "card.md"
    template.write_text("{{ missing_statistic }}")
    with pytest.raises(Exception, match="missing_statistic"):
        _write(tmp_path / "toy", template)
    assert not (tmp_path / "toy").exists()


@pytest.mark.parametrize("configs, message", [
    ([], "at least one"),
    ([ConfigSpec("a", {"train": _dataset()}), ConfigSpec("b", {"train": _dataset()})], "default=True"),
    ([ConfigSpec("a", {"Train!": _dataset()}, default=True)], "split name"),
])
def test_bad_configs_are_refused(tmp_path, template, configs, message):
    with pytest.raises(ValueError, match=message):
        _write(tmp_path / "toy", template, configs=configs)


def _edit_card(out: Path, edit) -> None:
    text = (out / "README.md").read_text()
    metadata, body = split_card(text)
    edit(metadata)
    (out / "README.md").write_text("---\n" + yaml.safe_dump(metadata, sort_keys=False) + "---\n" + body)


def test_verify_reports_count_mismatch(tmp_path, template):
    out = tmp_path / "toy"
    _write(out, template)
    _edit_card(out, lambda m: m["dataset_info"][0]["splits"][0].update(num_examples=99))
    with pytest.raises(VerificationError, match="split sizes"):
        verify_folder(out)


def test_verify_reports_feature_mismatch(tmp_path, template):
    out = tmp_path / "toy"
    _write(out, template)
    _edit_card(out, lambda m: m["dataset_info"][1]["features"].pop())
    with pytest.raises(VerificationError, match="features"):
        verify_folder(out)


def test_verify_reports_missing_and_unreferenced_files(tmp_path, template):
    out = tmp_path / "toy"
    _write(out, template)
    (out / "data/recent/test.parquet").rename(out / "data/recent/old.parquet")
    with pytest.raises(VerificationError) as error:
        verify_folder(out)
    assert "does not exist" in str(error.value)
    assert "data/recent/old.parquet: data file not referenced" in str(error.value)


def test_verify_runs_the_audit(tmp_path, template):
    out = tmp_path / "toy"
    _write(out, template)
    with pytest.raises(VerificationError, match="audit says no"):
        verify_folder(out, audit=lambda folder: ["audit says no"])


def test_row_groups_are_bounded_by_bytes():
    table = datasets.Dataset.from_dict({"text": ["x" * 10_000] * 100}).data.table
    assert row_group_rows(table, max_bytes=50_000) == 4
    assert row_group_rows(table, max_bytes=10**9, max_rows=30) == 30


def test_markdown_table_marks_missing_values():
    assert markdown_table(["a", "b"], [["x|y", None]]) == "| a | b |\n| :--- | ---: |\n| x\\|y | — |"
    with pytest.raises(ValueError, match=r"rows\[0\] has 1 cells, expected 2"):
        markdown_table(["a", "b"], [["x"]])


def test_verify_reports_a_corrupt_parquet_file(tmp_path, template):
    out = tmp_path / "toy"
    _write(out, template)
    (out / "data/recent/test.parquet").write_bytes(b"not parquet")
    with pytest.raises(VerificationError, match="data/recent/test.parquet: not a readable parquet"):
        verify_folder(out)


def test_card_links_only_figures_that_were_drawn(tmp_path):
    template = tmp_path / "card.md"
    template.write_text("{% for f in ['a.png', 'b.png'] %}{{ f }}:{{ f in figures_written }} "
                        "{% endfor %}")

    def draw(path: Path) -> None:
        path.write_bytes(b"png")

    def no_matplotlib(path: Path) -> None:
        raise ImportError("No module named 'matplotlib'")

    _write(tmp_path / "toy", template, figures={"a.png": draw, "b.png": no_matplotlib})
    assert "a.png:True b.png:False" in (tmp_path / "toy/README.md").read_text()


def test_row_groups_stay_under_the_byte_bound_with_clustered_long_rows(tmp_path):
    from courtbench.hub.parquet import row_groups

    texts = ["x" * 10] * 90 + ["y" * 20_000] * 10  # long documents clustered at the end
    table = datasets.Dataset.from_dict({"text": texts}).data.table
    groups = row_groups(table, max_bytes=50_000)
    assert sum(length for _, length in groups) == 100
    assert [offset for offset, _ in groups] == sorted(offset for offset, _ in groups)
    assert all(table.slice(o, n).nbytes <= 50_000 or n == 1 for o, n in groups)


def test_written_row_groups_are_bounded(tmp_path, template, monkeypatch):
    from courtbench.hub import parquet

    monkeypatch.setattr(parquet, "MAX_ROW_GROUP_ROWS", 2)
    _write(tmp_path / "toy", template)
    metadata = pq.ParquetFile(tmp_path / "toy/data/default/train.parquet").metadata
    assert [metadata.row_group(i).num_rows for i in range(metadata.num_row_groups)] == [2, 2]


def test_an_unrelated_folder_is_never_replaced(tmp_path, template):
    out = tmp_path / "precious"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    with pytest.raises(CourtbenchError, match="refusing to replace"):
        _write(out, template)
    assert (out / "notes.txt").read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["card.md", "precious"]


def test_an_empty_folder_or_a_previous_build_is_replaced(tmp_path, template):
    out = tmp_path / "toy"
    out.mkdir()
    _write(out, template)
    _write(out, template)
    assert verify_folder(out).split_sizes["recent"] == {"test": 1}
