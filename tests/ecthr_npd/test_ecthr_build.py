"""ECtHR-NPD Hub folder: build, verify, determinism, atomicity, CLI, the real release."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import datasets
import pytest

from courtbench import cli
from courtbench.errors import CourtbenchError, SourceError
from courtbench.hub import read_card_metadata, verify_folder
from courtbench.hub.offline import hub_offline
from ecthr_npd import build as build_module
from ecthr_npd import schema
from ecthr_npd.audit import audit_folder
from ecthr_npd.build import build_folder, build_synthetic
from ecthr_npd.plugin import PLUGIN
from ecthr_npd.synthetic import write_synthetic

CONFIGS = ["default", "id", "ood", "challenging", "audit"]
# the synthetic stand-in also carries its SYNTHETIC facts text
SYNTHETIC_CONFIGS = [*CONFIGS, "facts", "facts_id", "facts_ood", "facts_challenging"]


@pytest.fixture(scope="module")
def synthetic_full(tmp_path_factory):
    """The synthetic stand-in at full size, built once for the module."""
    out = tmp_path_factory.mktemp("build") / "ecthr_npd"
    return out, build_synthetic(out)


def test_synthetic_full_size_builds_and_verifies(synthetic_full) -> None:
    out, result = synthetic_full
    assert result.counts["train"] == 10_217 and result.counts["id"] == 1_000
    assert result.id_size_checked == 1_000  # the locked ID view is verified at the full size
    report = verify_folder(out, audit=audit_folder)
    assert list(report.split_sizes) == SYNTHETIC_CONFIGS
    assert report.split_sizes["default"] == {"train": 10_217, "validation": 1_461, "test": 2_897}
    assert report.problems == []
    metadata = read_card_metadata(out)
    assert metadata["courtbench_dataset"] == "ecthr_npd"
    assert metadata["provenance"]["synthetic"] is True
    assert metadata["pretty_name"].endswith("(SYNTHETIC stand-in)")
    assert "synthetic" in metadata["tags"]
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "SYNTHETIC STAND-IN — NOT COURT DATA" in card
    assert (out / "award_distribution.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_model_input_configs_hold_only_permitted_columns(synthetic_full, tmp_path) -> None:
    out, _ = synthetic_full
    with hub_offline():
        challenging = datasets.load_dataset(str(out), "challenging", split="test",
                                            cache_dir=str(tmp_path))
        audit = datasets.load_dataset(str(out), "audit", split="test", cache_dir=str(tmp_path))
    assert challenging.column_names == list(schema.MODEL_INPUT_COLUMNS)
    assert challenging.features == schema.features_for(schema.MODEL_INPUT_COLUMNS).to_datasets()
    assert audit.column_names == list(schema.AUDIT_CONFIG_COLUMNS)
    assert audit.features == schema.features_for(schema.AUDIT_CONFIG_COLUMNS).to_datasets()


def test_build_is_byte_deterministic(tmp_path: Path) -> None:
    first = build_synthetic(tmp_path / "a", n=1200, seed=4).report.files
    second = build_synthetic(tmp_path / "b", n=1200, seed=4).report.files
    assert [(f.path, f.sha256) for f in first] == [(f.path, f.sha256) for f in second]


def test_interrupted_build_leaves_no_folder(tmp_path: Path, monkeypatch) -> None:
    source = write_synthetic(tmp_path / "case_level.csv", n=300, seed=2)
    parent = tmp_path / "built"
    parent.mkdir()
    calls = {"n": 0}
    real_draw = build_module.award_distribution_figure

    def interrupted(*args, **kwargs):
        draw = real_draw(*args, **kwargs)

        def fail(path: Path) -> None:
            calls["n"] += 1
            draw(path)
            raise KeyboardInterrupt  # as if the user pressed Ctrl-C while the PNG was written
        return fail

    monkeypatch.setattr(build_module, "award_distribution_figure", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build_folder(parent / "out", source)
    assert calls["n"] == 1
    assert list(parent.iterdir()) == []
    # an existing folder survives a failed rebuild untouched
    monkeypatch.setattr(build_module, "award_distribution_figure", real_draw)
    build_folder(parent / "out", source)
    before = sorted(p.name for p in (parent / "out").rglob("*"))
    monkeypatch.setattr(build_module, "award_distribution_figure", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build_folder(parent / "out", source)
    assert sorted(p.name for p in (parent / "out").rglob("*")) == before
    assert [p.name for p in parent.iterdir()] == ["out"]


def test_invalid_source_or_locked_tags_write_nothing(tmp_path: Path) -> None:
    source = write_synthetic(tmp_path / "case_level.csv", n=300, seed=2)
    lines = source.read_text().splitlines(keepends=True)
    # move the earliest train case to validation: the locked split is no longer chronological
    lines[1] = lines[1].replace(",train,", ",validation,", 1)
    broken = tmp_path / "broken.csv"
    broken.write_text("".join(lines))
    with pytest.raises(SourceError, match="not chronological.*--recompute"):
        build_folder(tmp_path / "out", broken)
    assert not (tmp_path / "out").exists()
    result = build_folder(tmp_path / "out", broken, recompute=True, id_size=30)
    assert result.membership_source == "recomputed" and result.locked_tv is None
    with pytest.raises(CourtbenchError, match=r"'ood/test'\] would be empty"):
        build_folder(tmp_path / "too_big", source, recompute=True, id_size=10_000)


def _relabel_one_id_case(source: Path, target: Path) -> str:
    """Copy ``source`` to ``target`` with its first ID case relabelled OOD; returns its id."""
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    row = next(i for i, line in enumerate(lines) if ",test,ID," in line)
    lines[row] = lines[row].replace(",test,ID,", ",test,OOD,", 1)
    target.write_text("".join(lines), encoding="utf-8")
    return lines[row].split(",", 1)[0]


def test_locked_build_verifies_the_id_view_size(tmp_path: Path) -> None:
    source = write_synthetic(tmp_path / "case_level.csv", n=300, seed=2, id_size=20)
    result = build_folder(tmp_path / "ok", source, id_size=20)
    assert result.counts["id"] == 20 and result.id_size_checked == 20
    # a test split (60 cases) smaller than the default 1,000: the size cannot be checked
    result = build_folder(tmp_path / "unchecked", source)
    assert result.id_size_checked is None
    assert "ID view size not checked (test split of 60 cases" in build_module.format_report(result)
    tampered = tmp_path / "tampered.csv"
    _relabel_one_id_case(source, tampered)
    with pytest.raises(SourceError) as caught:
        build_folder(tmp_path / "out", tampered, id_size=20)
    message = str(caught.value)
    assert message.startswith(f"{tampered}: locked split/view tags fail verification")
    assert "ID view has 19 cases, expected 20 (found test 60 = ID 19 + OOD 41)" in message
    assert "--id-size" in message
    assert not (tmp_path / "out").exists()
    # the plugin passes --id-size to locked verification (it is not ignored without --recompute)
    with pytest.raises(SourceError, match="ID view has 19 cases, expected 20"):
        PLUGIN.build(_namespace(source=tampered, id_size=20, out=tmp_path / "cli"))
    assert not (tmp_path / "cli").exists()
    assert PLUGIN.build(_namespace(source=tampered, id_size=19, out=tmp_path / "cli")) == 0
    with pytest.raises(CourtbenchError, match="id_size=0"):
        build_folder(tmp_path / "zero", source, id_size=0)


@pytest.mark.realdata
def test_release_with_one_id_case_relabelled_ood_is_refused(shared_data: Path,
                                                             tmp_path: Path) -> None:
    source = shared_data / "ecthr_npd" / "case_level.csv"
    if not source.is_file():
        pytest.skip(f"{source} is absent")
    tampered = tmp_path / "case_level.csv"
    case_id = _relabel_one_id_case(source, tampered)
    assert case_id
    with pytest.raises(SourceError) as caught:
        build_folder(tmp_path / "out", tampered)
    message = str(caught.value)
    assert message.startswith(f"{tampered}: locked split/view tags fail verification")
    assert ("ID view has 999 cases, expected 1,000 (found test 2,897 = ID 999 + OOD 1,898)"
            in message)
    assert not (tmp_path / "out").exists()


def test_applicants_config(tmp_path: Path) -> None:
    source = write_synthetic(tmp_path / "case_level.csv", n=300, seed=2)
    ids = [line.split(",", 1)[0] for line in source.read_text().splitlines()[1:]]
    applicants = tmp_path / "applicant_level.csv"
    applicants.write_text("case_id,applicant_type,npd_award_eur,npd_award_scope,"
                          "npd_award_status\n" + "".join(
                              f"{case_id},individual,{1000 * (i % 3)},individual,awarded\n"
                              for i, case_id in enumerate(ids)))
    out = tmp_path / "out"
    result = build_folder(out, source, applicants_path=applicants)
    assert sum(result.report.split_sizes["applicants"].values()) == 300
    report = verify_folder(out, audit=audit_folder)
    assert "applicants" in report.split_sizes


def test_cli_build_and_verify(tmp_path: Path, capsys) -> None:
    out = tmp_path / "cli"
    assert cli.main(["build", "ecthr_npd", "--synthetic", "--n", "400", "--seed", "1",
                     "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "counts: train" in printed and "mean TV" in printed and "timings:" in printed
    assert cli.main(["verify", str(out)]) == 0
    assert PLUGIN.audit_folder(out) == []


@pytest.mark.realdata
def test_real_samples_build_with_recompute(shared_data: Path, tmp_path: Path) -> None:
    folder = shared_data / "ecthr_npd"
    source = tmp_path / "samples.csv"
    train = (folder / "case_level.sample_train_2010.csv").read_text()
    test = (folder / "case_level.sample_test_2025.csv").read_text().split("\n", 1)[1]
    source.write_text(train + test)
    with pytest.raises(CourtbenchError, match="default/validation"):
        build_folder(tmp_path / "locked", source)  # the samples hold no validation case
    result = build_folder(tmp_path / "out", source, recompute=True, id_size=15)
    assert result.counts["train"] + result.counts["validation"] + result.counts["test"] == 137
    verify_folder(tmp_path / "out", audit=audit_folder)
    metadata = read_card_metadata(tmp_path / "out")
    assert metadata["license"] == "other" and metadata["license_name"] == "no-license-granted"
    assert metadata["provenance"]["synthetic"] is False


@pytest.mark.realdata
@pytest.mark.slow
def test_full_release_builds_loads_and_verifies(shared_data: Path, tmp_path: Path) -> None:
    source = shared_data / "ecthr_npd" / "case_level.csv"
    if not source.is_file():
        pytest.skip(f"{source} is absent")
    out = tmp_path / "ecthr_npd"
    result = build_folder(out, source)
    assert result.counts == {"train": 10_217, "validation": 1_461, "test": 2_897,
                             "id": 1_000, "ood": 1_897, "challenging": 699}
    report = verify_folder(out, audit=audit_folder)
    assert report.split_sizes["challenging"] == {"test": 699}
    with hub_offline():
        challenging = datasets.load_dataset(str(out), "challenging", split="test",
                                            cache_dir=str(tmp_path / "cache"))
    assert challenging.num_rows == 699 and "y_binary" not in challenging.column_names
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "| train | 10,217 | 1968-06-27 – 2019-07-18 | 2,248 | 22.0% | 5,000 |" in card
    assert "| court formation | Chamber | 78.4% | 33.7% | 24.4% |" in card
    assert "| ID | 0.0650 |" in card
    recomputed = build_folder(tmp_path / "recomputed", source, recompute=True,
                              split_sizes=(10_217, 1_461))
    assert recomputed.split_agreement == 1.0
    assert recomputed.tv["id"]["mean"] <= recomputed.locked_tv["id"]["mean"]
    shutil.rmtree(tmp_path / "recomputed")


def test_demo_build_step_builds_and_verifies_a_scaled_stand_in(tmp_path: Path) -> None:
    from ecthr_npd.demo import build_demo

    summary = build_demo(tmp_path, 0.03)
    assert summary.startswith("ecthr_npd (SYNTHETIC, n=437)")
    assert verify_folder(tmp_path / "ecthr_npd", audit=audit_folder).problems == []


def test_cli_refuses_contradictory_options(tmp_path: Path) -> None:
    with pytest.raises(CourtbenchError, match="--split-sizes needs --recompute"):
        PLUGIN.build(_namespace(source=tmp_path / "x.csv", split_sizes=(10, 2)))
    with pytest.raises(CourtbenchError, match="--synthetic takes only --n, --seed and --id-size"):
        PLUGIN.build(_namespace(synthetic=True, recompute=True))
    with pytest.raises(CourtbenchError, match="--id-size 0: expected at least 1"):
        PLUGIN.build(_namespace(source=tmp_path / "x.csv", id_size=0))


def test_cli_id_size_reaches_the_synthetic_stand_in(tmp_path: Path, capsys) -> None:
    assert PLUGIN.build(_namespace(synthetic=True, n=300, seed=2, id_size=20,
                                   out=tmp_path / "out")) == 0
    printed = capsys.readouterr().out
    assert "id 20," in printed and "ID view of 20 cases" in printed


def _namespace(**overrides) -> argparse.Namespace:
    """Parsed ``courtbench build ecthr_npd`` options with ``overrides`` applied."""
    parser = argparse.ArgumentParser()
    PLUGIN.add_build_arguments(parser)
    args = parser.parse_args(["--synthetic"])
    args.synthetic = False
    args.out = Path("/nonexistent/out")
    for key, value in overrides.items():
        setattr(args, key, value)
    return args
