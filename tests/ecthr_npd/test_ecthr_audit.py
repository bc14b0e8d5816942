"""ECtHR-NPD leakage audit: model-input configs hold only case_id, inputs and the target."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from courtbench.errors import VerificationError
from courtbench.hub import verify_folder
from ecthr_npd import build, schema
from ecthr_npd.audit import audit_folder, column_problems, derived_source
from ecthr_npd.build import LeakageError, build_folder, leakage_check, make_configs
from ecthr_npd.reader import read_case_level
from ecthr_npd.splits import locked_membership
from ecthr_npd.synthetic import write_synthetic


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    return write_synthetic(tmp_path_factory.mktemp("leak") / "case_level.csv", n=400, seed=5)


def test_permitted_columns_pass() -> None:
    assert column_problems("default", schema.MODEL_INPUT_COLUMNS) == []


@pytest.mark.parametrize("column", [*schema.AUDIT_COLUMNS, *schema.APPLICANT_AWARD_COLUMNS])
def test_audit_columns_are_refused(column: str) -> None:
    [problem] = column_problems("id", ["case_id", column])
    assert f"column {column!r} is an audit column" in problem


@pytest.mark.parametrize(("column", "source"), [
    ("is_zero_award", "y_binary"), ("zero_reason", "target_status"),
    ("beneficiary_type_count", "beneficiary_type"), ("log_npd_award_eur", "npd_award_eur"),
    ("y_binary_smoothed", "y_binary"), ("finding_sufficient", "finding_sufficient"),
])
def test_columns_derived_from_audit_columns_are_refused(column: str, source: str) -> None:
    assert derived_source(column) == source
    [problem] = column_problems("ood", [column])
    assert column in problem and source in problem


def test_tags_and_unknown_columns_are_refused() -> None:
    problems = column_problems("default", ["split", "test_view", "shoe_size"])
    assert "split/view tag" in problems[0] and "split/view tag" in problems[1]
    assert "'shoe_size' is not a permitted input" in problems[2]


def test_builder_refuses_to_write_a_leaking_config(source: Path, tmp_path: Path,
                                                   monkeypatch) -> None:
    table = read_case_level(source)
    configs = make_configs(table, locked_membership(table))
    leakage_check(configs)  # clean configs pass
    leaky = configs[1].splits["test"].append_column(
        "y_binary", configs[1].splits["test"]["y_amount_eur"])
    configs[1] = type(configs[1])(configs[1].name, {"test": leaky})
    with pytest.raises(LeakageError, match=r"config 'id': column 'y_binary' is an audit column"):
        leakage_check(configs)
    # through the whole build: a model-input column list that includes an audit column
    monkeypatch.setattr(build.schema, "MODEL_INPUT_COLUMNS",
                        (*schema.MODEL_INPUT_COLUMNS, "target_status"))
    out = tmp_path / "out"
    with pytest.raises(LeakageError, match="target_status"):
        build_folder(out, source)
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_audit_folder_reads_the_parquet_schemas(source: Path, tmp_path: Path) -> None:
    out = tmp_path / "built"
    build_folder(out, source)
    assert audit_folder(out) == []
    path = out / "data" / "challenging" / "test.parquet"
    table = pq.read_table(path)
    pq.write_table(table.append_column("has_joint_beneficiary",
                                       pa.array([None] * table.num_rows, pa.bool_())), path)
    problems = audit_folder(out)
    assert problems == ["data/challenging/test.parquet: config 'challenging': column "
                        "'has_joint_beneficiary' is an audit column; expected only case_id, "
                        "permitted inputs and y_amount_eur"]
    with pytest.raises(VerificationError, match="has_joint_beneficiary"):
        verify_folder(out, audit=audit_folder)


def test_audit_folder_without_data(tmp_path: Path) -> None:
    assert "no parquet files" in audit_folder(tmp_path)[0]
