"""ECtHR-NPD synthetic stand-in: format, determinism, calibration, learnable signal."""

from __future__ import annotations

import csv
import hashlib
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from ecthr_npd import schema
from ecthr_npd.composition import bucket
from ecthr_npd.reader import read_case_level
from ecthr_npd.splits import TEST, TRAIN, locked_membership, membership_problems
from ecthr_npd.synthetic import write_synthetic


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


# The release's published aggregates (the benchmark's paper), written out here rather than
# imported from ecthr_npd.synthetic, so that a wrong figure there fails this test.
# Per split: (first date, last date), zero share, positive median, positive p95, max (EUR),
# court formation Chamber / Committee / Grand Chamber.
PAPER = {
    "train": (("1968-06-27", "2019-07-18"), 0.220, 5_000, 46_480, 10_697_900,
              (0.784, 0.194, 0.022)),
    "validation": (("2019-07-23", "2021-12-16"), 0.251, 7_500, 89_900, 1_887_300,
                   (0.337, 0.652, 0.010)),
    "test": (("2021-12-16", "2026-03-26"), 0.329, 6_500, 60_940, 1_623_500,
             (0.244, 0.751, 0.005)),
}
# Applicants 1 / 2-5 / 6-20 / 21-100 / >100 and violations 1 / 2 / 3-5 / >5 (train and test).
PAPER_APPLICANTS = {"train": (0.759, 0.181, 0.052, 0.007, 0.001),
                    "test": (0.542, 0.265, 0.142, 0.048, 0.003)}
PAPER_VIOLATIONS = {"train": (0.660, 0.221, 0.109, 0.010), "test": (0.605, 0.128, 0.235, 0.032)}


def _shares(values: np.ndarray, upper_bounds: tuple[int, ...]) -> np.ndarray:
    """Share of values in (previous bound, bound], the last bucket above every bound."""
    edges = (0, *upper_bounds, np.inf)
    return np.array([((values > low) & (values <= high)).mean()
                     for low, high in zip(edges[:-1], edges[1:], strict=True)])


def test_published_aggregates_per_split(full) -> None:
    path, table = full
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    for name, (dates, zero, median, p95, top, formation) in PAPER.items():
        mine = [r for r in rows if r["split"] == name]
        y = np.array([float(r["y_amount_eur"]) for r in mine])
        positive = y[y > 0]
        assert (min(r["judgment_date"] for r in mine), max(r["judgment_date"] for r in mine)) \
            == dates
        assert (y == 0).mean() == pytest.approx(zero, abs=0.015)
        assert np.median(positive) == pytest.approx(median, rel=0.1)
        assert np.percentile(positive, 95) == pytest.approx(p95, rel=0.1)
        assert y.max() == top
        counts = [sum(r["court_formation"] == f for r in mine)
                  for f in ("Chamber", "Committee", "Grand Chamber")]
        assert np.array(counts) / len(mine) == pytest.approx(formation, abs=0.02)
        if name in PAPER_APPLICANTS:
            applicants = np.array([int(r["num_applicants"]) for r in mine])
            assert _shares(applicants, (1, 5, 20, 100)) == pytest.approx(
                PAPER_APPLICANTS[name], abs=0.02)
            violations = np.array([int(r["num_violations_found"]) for r in mine])
            assert _shares(violations, (1, 2, 5)) == pytest.approx(PAPER_VIOLATIONS[name],
                                                                   abs=0.02)


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
