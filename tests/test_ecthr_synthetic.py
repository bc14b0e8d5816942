"""ECtHR-NPD synthetic stand-in: format, determinism, calibration, learnable signal."""

from __future__ import annotations

import csv
import hashlib
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from ecthr_npd import schema
from ecthr_npd.composition import APPLICANT_EDGES, VIOLATION_EDGES, bucket, target_statistics
from ecthr_npd.reader import read_case_level
from ecthr_npd.splits import TEST, TRAIN, locked_membership, membership_problems
from ecthr_npd.synthetic import PUBLISHED, write_synthetic

SPLITS = dict(enumerate(schema.SPLITS))


@pytest.fixture(scope="module")
def full(tmp_path_factory) -> tuple[Path, pa.Table]:
    path = write_synthetic(tmp_path_factory.mktemp("synthetic") / "case_level.csv")
    return path, read_case_level(path)


def test_full_size_counts_and_membership(full) -> None:
    _, table = full
    membership = locked_membership(table)
    counts = membership.counts()
    assert table.num_rows == 14_575
    assert {k: counts[k] for k in ("train", "validation", "test", "id", "ood")} == {
        "train": 10_217, "validation": 1_461, "test": 2_897, "id": 1_000, "ood": 1_897}
    assert 550 <= counts["challenging"] <= 850  # release: 699
    assert membership_problems(table, membership, id_size=1000) == []


def test_release_format(full) -> None:
    path, _ = full
    text = path.read_text(encoding="ascii")  # ASCII like the release
    assert text.endswith("\n") and "\r" not in text
    with open(path, newline="") as handle:
        header = next(csv.reader(handle))
    assert tuple(header) == schema.HEADER
    assert '"Moldova, Republic of"' in text  # quoting as the release's


def test_published_aggregates_per_split(full) -> None:
    _, table = full
    split = locked_membership(table).split
    for code, name in SPLITS.items():
        stats = target_statistics(table, split == code)
        assert (stats["date_min"], stats["date_max"]) == PUBLISHED["date_range"][name]
        assert stats["zero_share"] == pytest.approx(PUBLISHED["zero_share"][name], abs=0.015)
        assert stats["positive_median"] == pytest.approx(PUBLISHED["positive_median"][name],
                                                         rel=0.1)
        assert stats["positive_p95"] == pytest.approx(PUBLISHED["positive_p95"][name], rel=0.1)
        assert stats["max"] == PUBLISHED["max"][name]
        mask = split == code
        formation = np.bincount(table.column("court_formation").to_numpy()[mask], minlength=3)
        assert formation / mask.sum() == pytest.approx(PUBLISHED["court_formation"][name],
                                                       abs=0.02)
        applicants = bucket(table.column("num_applicants").to_numpy()[mask], APPLICANT_EDGES)
        assert np.bincount(applicants, minlength=5) / mask.sum() == pytest.approx(
            PUBLISHED["applicants"][name], abs=0.02)
        violations = bucket(table.column("num_violations_found").to_numpy()[mask],
                            VIOLATION_EDGES)
        assert np.bincount(violations, minlength=4) / mask.sum() == pytest.approx(
            PUBLISHED["violations"][name], abs=0.02)


def test_deterministic_by_seed_and_any_size(tmp_path: Path) -> None:
    a = write_synthetic(tmp_path / "a.csv", n=500, seed=7)
    b = write_synthetic(tmp_path / "b.csv", n=500, seed=7)
    c = write_synthetic(tmp_path / "c.csv", n=500, seed=8)
    digest = [hashlib.sha256(p.read_bytes()).hexdigest() for p in (a, b, c)]
    assert digest[0] == digest[1] != digest[2]
    for n in (3, 37, 500):
        table = read_case_level(write_synthetic(tmp_path / f"n{n}.csv", n=n, seed=1))
        assert table.num_rows == n
        assert set(locked_membership(table).split.tolist()) == {0, 1, 2}
    with pytest.raises(ValueError, match="at least 3"):
        write_synthetic(tmp_path / "tiny.csv", n=2)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def _group_keys(table: pa.Table) -> np.ndarray:
    """(country, Art. 2 or 3 violated, applicant bucket) per case."""
    articles = table.column("violated_articles").to_pylist()
    serious = ["2" in row or "3" in row for row in articles]
    applicants = bucket(table.column("num_applicants").to_numpy(), (1, 5, 20))
    return np.array([f"{c}|{s}|{b}" for c, s, b in zip(
        table.column("country_alpha2").to_pylist(), serious, applicants, strict=True)])


def test_award_depends_on_inputs_so_a_baseline_beats_a_constant(full) -> None:
    """Median award of the train cases sharing (country, serious article, applicant bucket)
    beats the train median on test MAE."""
    _, table = full
    split = locked_membership(table).split
    keys, y = _group_keys(table), table.column("y_amount_eur").to_numpy()
    train, test = split == TRAIN, split == TEST
    median = float(np.median(y[train]))
    medians = {}
    for key in set(keys[train].tolist()):
        values = y[train][keys[train] == key]
        if len(values) >= 5:
            medians[key] = float(np.median(values))
    predicted = np.array([medians.get(key, median) for key in keys[test]])
    assert np.abs(predicted - y[test]).mean() < 0.95 * np.abs(median - y[test]).mean()


@pytest.mark.realdata
def test_calibration_close_to_the_release_train_aggregates(full, shared_data: Path) -> None:
    """Country and article frequencies and zero rates vs the release's train aggregates."""
    _, table = full
    train = locked_membership(table).split == TRAIN
    folder = shared_data / "ecthr_npd"
    with open(folder / "country_award_distribution_train.csv", newline="") as handle:
        countries = {r["country_alpha2"].lower(): r for r in csv.DictReader(handle)}
    with open(folder / "article_award_distribution_train.csv", newline="") as handle:
        articles = {r["article"]: r for r in csv.DictReader(handle)}
    real_total = sum(int(r["sample_count"]) for r in countries.values())
    alpha2 = np.array(table.column("country_alpha2").to_pylist(), dtype=object)[train]
    y = table.column("y_amount_eur").to_numpy()[train]
    names = sorted(set(countries) | set(alpha2))
    real_share = np.array([int(countries[c]["sample_count"]) / real_total if c in countries
                           else 0.0 for c in names])
    synthetic_share = np.array([(alpha2 == c).mean() for c in names])
    assert 0.5 * np.abs(real_share - synthetic_share).sum() < 0.12
    large = [c for c in countries if int(countries[c]["sample_count"]) >= 200]
    real_zero = [float(countries[c]["zero_rate"]) for c in large]
    synthetic_zero = [float((y[alpha2 == c] == 0).mean()) for c in large]
    assert np.corrcoef(real_zero, synthetic_zero)[0, 1] > 0.5
    lists = [row for row, keep in zip(table.column("violated_articles").to_pylist(), train,
                                      strict=True) if keep]
    real_prevalence = {a: int(r["sample_count"]) / real_total for a, r in articles.items()}
    synthetic_prevalence = {a: np.mean([a in row for row in lists]) for a in articles}
    top = sorted(real_prevalence, key=real_prevalence.get, reverse=True)[:8]
    for article in top:
        assert synthetic_prevalence[article] == pytest.approx(real_prevalence[article],
                                                              abs=0.05), article
