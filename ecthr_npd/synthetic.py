"""A synthetic stand-in for the ECtHR-NPD release, in the release's exact CSV format.

:func:`write_synthetic` writes a ``case_level.csv`` with the release's 33 columns, any number
of rows (default 14,575), deterministic for a given seed. It is calibrated to the aggregates
the benchmark's paper publishes (:data:`PUBLISHED`): split sizes and date ranges, per-split
zero share, positive median, positive p95 and maximum award, court formation, applicant and
violation buckets. Country and article frequencies, award levels, GDP figures and every
other distribution are this module's own rounded, plausible choices (:data:`COUNTRIES`,
:data:`ARTICLES`) — no release data is embedded. The award depends on the articles, the
number of applicants, the respondent state (GDP and a state effect), court formation,
importance and year, so that baselines can beat a constant.

Split and view tags are computed the way ``--recompute`` does (chronological 70/10/20 in the
release's proportions; ID by greedy quota matching; Challenging by rule). Every output passes
:func:`ecthr_npd.reader.read_case_level`. The data are SYNTHETIC: never mistake them for
court records.
"""

from __future__ import annotations

import csv
import datetime as dt
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ecthr_npd import schema
from ecthr_npd.defaults import DEFAULT_ROWS
from ecthr_npd.reader import read_case_level
from ecthr_npd.splits import RELEASE_SPLIT_SIZES, split_sizes
from ecthr_npd.views import recompute_views, scaled_id_size

SPLIT_COUNTS = RELEASE_SPLIT_SIZES

# Published aggregates of the release (its paper), per split train / validation / test.
PUBLISHED = {
    "date_range": {"train": ("1968-06-27", "2019-07-18"),
                   "validation": ("2019-07-23", "2021-12-16"),
                   "test": ("2021-12-16", "2026-03-26")},
    "zero_share": {"train": 0.220, "validation": 0.251, "test": 0.329},
    "positive_median": {"train": 5_000.0, "validation": 7_500.0, "test": 6_500.0},
    "positive_p95": {"train": 46_480.0, "validation": 89_900.0, "test": 60_940.0},
    "max": {"train": 10_697_900.0, "validation": 1_887_300.0, "test": 1_623_500.0},
    # Chamber / Committee / Grand Chamber
    "court_formation": {"train": (0.784, 0.194, 0.022), "validation": (0.337, 0.652, 0.010),
                        "test": (0.244, 0.751, 0.005)},
    # applicants 1 / 2–5 / 6–20 / 21–100 / >100 (validation: own interpolation)
    "applicants": {"train": (0.759, 0.181, 0.052, 0.007, 0.001),
                   "validation": (0.64, 0.25, 0.09, 0.017, 0.003),
                   "test": (0.542, 0.265, 0.142, 0.048, 0.003)},
    # violations found 1 / 2 / 3–5 / >5 (validation: own interpolation)
    "violations": {"train": (0.660, 0.221, 0.109, 0.010),
                   "validation": (0.635, 0.17, 0.18, 0.015),
                   "test": (0.605, 0.128, 0.235, 0.032)},
}


class CountryProfile(NamedTuple):
    """One respondent state's generator profile (own choices, see :data:`COUNTRIES`)."""

    alpha2: str
    state_name: str
    #: relative frequency as respondent (weights are normalised over all states)
    share_weight: float
    gdp_per_capita_2015_usd: float
    population_millions: float
    #: added to the logit of a zero award
    zero_award_logit_shift: float
    #: added to the log (EUR) of a positive award
    award_log_shift: float
    #: change of the log share weight per decade after 2010
    share_trend_per_decade: float


class ArticleProfile(NamedTuple):
    """One Convention article's generator profile (own choices, see :data:`ARTICLES`)."""

    code: str
    #: relative frequency among violated articles
    share_weight: float
    #: added (averaged over a case's articles) to the logit of a zero award
    zero_award_logit_shift: float
    #: added (the largest over a case's articles) to the log (EUR) of a positive award
    award_log_shift: float


# Own choices, one row per state in CountryProfile's field order: alpha2, state name, share
# weight, GDP per capita 2015 USD, population in millions, zero-award shift (logit), award
# level shift (log EUR), trend of the share per decade after 2010 (log).
COUNTRIES = tuple(CountryProfile(*row) for row in (
    ("ru", "Russian Federation", 20.0, 9_300, 144.0, 0.0, 0.30, 0.3),
    ("ua", "Ukraine", 11.0, 2_100, 45.0, 0.3, -0.25, 0.4),
    ("tr", "Turkey", 10.0, 11_000, 78.0, 0.4, 0.35, 0.0),
    ("pl", "Poland", 7.0, 12_600, 38.0, -0.5, -0.35, -0.8),
    ("hu", "Hungary", 4.5, 12_700, 9.8, -0.2, 0.0, 0.2),
    ("ro", "Romania", 3.5, 8_900, 19.8, -0.6, 0.10, 0.3),
    ("bg", "Bulgaria", 3.5, 7_000, 7.2, -0.3, -0.10, 0.0),
    ("md", "Moldova, Republic of", 3.0, 1_800, 3.5, -1.0, 0.10, 0.0),
    ("si", "Slovenia", 2.5, 20_900, 2.1, -0.8, -0.50, -1.0),
    ("sk", "Slovakia", 2.8, 16_300, 5.4, -0.5, -0.30, 0.0),
    ("hr", "Croatia", 2.6, 11_800, 4.2, 0.0, -0.35, 0.0),
    ("it", "Italy", 2.3, 30_200, 60.0, 0.0, 0.05, 0.0),
    ("gb", "United Kingdom", 2.5, 45_000, 65.0, 1.6, -0.10, -1.2),
    ("at", "Austria", 2.0, 44_200, 8.6, 1.3, -0.20, -0.6),
    ("rs", "Serbia", 1.6, 5_600, 7.1, -0.1, -0.30, 0.2),
    ("az", "Azerbaijan", 1.4, 5_500, 9.6, -0.7, 0.60, 0.3),
    ("de", "Germany", 1.4, 41_100, 81.7, 0.6, 0.0, -0.5),
    ("mk", "North Macedonia", 1.2, 4_900, 2.1, -0.2, -0.60, 0.0),
    ("lt", "Lithuania", 1.2, 14_300, 2.9, -0.4, 0.0, 0.0),
    ("fi", "Finland", 1.1, 42_400, 5.5, -0.3, -0.50, -1.0),
    ("gr", "Greece", 1.0, 18_000, 10.8, 0.0, 0.40, 0.0),
    ("fr", "France", 1.0, 36_600, 66.5, 1.7, 0.25, 0.0),
    ("am", "Armenia", 0.9, 3_600, 2.9, -1.6, -0.20, 0.2),
    ("lv", "Latvia", 0.8, 13_800, 2.0, -0.6, -0.10, 0.0),
    ("nl", "Netherlands", 0.7, 45_200, 16.9, 1.7, -0.10, -0.5),
    ("ba", "Bosnia and Herzegovina", 0.7, 4_700, 3.5, 0.0, -0.10, 0.0),
    ("ge", "Georgia", 0.6, 4_000, 3.7, -0.3, -0.10, 0.5),
    ("ch", "Switzerland", 0.6, 84_800, 8.3, 2.5, -0.40, 0.0),
    ("mt", "Malta", 0.6, 24_900, 0.44, 0.5, -0.10, 0.5),
    ("cz", "Czechia", 0.5, 17_800, 10.5, 1.1, 0.10, 0.0),
    ("cy", "Cyprus", 0.5, 23_400, 0.85, 0.1, 0.20, 0.0),
    ("al", "Albania", 0.5, 3_900, 2.9, 0.6, 0.10, 0.3),
    ("pt", "Portugal", 0.5, 19_200, 10.4, 0.5, -0.20, 0.0),
    ("se", "Sweden", 0.5, 51_500, 9.8, 1.3, -0.10, 0.0),
    ("me", "Montenegro", 0.45, 6_500, 0.62, 0.3, -0.30, 0.2),
    ("ee", "Estonia", 0.45, 17_400, 1.3, -0.7, -0.50, 0.0),
    ("es", "Spain", 0.4, 25_700, 46.4, 1.3, 0.50, 0.0),
    ("be", "Belgium", 0.35, 41_000, 11.3, 1.5, 0.50, 0.0),
    ("no", "Norway", 0.3, 74_400, 5.2, 1.4, 0.90, 0.0),
    ("is", "Iceland", 0.2, 52_900, 0.33, 1.3, 0.0, 0.0),
    ("ie", "Ireland", 0.2, 62_000, 4.7, 0.9, 0.30, 0.0),
    ("dk", "Denmark", 0.15, 53_300, 5.7, 1.0, 0.10, 0.0),
    ("lu", "Luxembourg", 0.08, 101_000, 0.57, 1.5, 0.0, 0.0),
    ("li", "Liechtenstein", 0.07, 167_000, 0.037, 1.0, 0.0, 0.0),
    ("sm", "San Marino", 0.05, 48_000, 0.033, 0.0, -0.20, 0.0),
))

# Own choices, one row per article in ArticleProfile's field order: article code, share
# weight, zero-award shift (logit), award level shift (log).
ARTICLES = tuple(ArticleProfile(*row) for row in (
    ("6", 52.0, 0.15, -0.30), ("3", 13.0, -0.6, 0.75), ("5", 13.0, -0.2, 0.35),
    ("13", 11.0, 0.0, 0.15), ("8", 6.5, 0.1, 0.35), ("P1-1", 6.5, 0.3, -0.05),
    ("2", 4.5, -1.4, 1.70), ("10", 3.3, 0.8, 0.0), ("14", 1.4, 0.8, 0.6),
    ("11", 1.4, 0.3, 0.6), ("34", 0.8, 0.0, 0.6), ("9", 0.4, 0.0, 0.2),
    ("P1-3", 0.4, 0.8, 0.6), ("38", 0.3, -1.0, 1.9), ("P4-2", 0.3, 0.6, 0.0),
    ("7", 0.25, 0.0, 0.5), ("P1-2", 0.15, 0.5, 0.1), ("P7-4", 0.12, 0.3, -0.4),
    ("18", 0.1, -0.5, 1.2), ("P7-2", 0.1, -0.8, -0.2), ("12", 0.07, 1.0, -0.2),
    ("4", 0.05, 0.5, 1.3), ("P4-4", 0.04, -1.0, 1.2), ("25", 0.03, -2.0, 2.2),
    ("P7-1", 0.03, -1.0, 0.0), ("P12-1", 0.02, 2.0, 0.0), ("P6-1", 0.02, -2.0, 3.0),
    ("46", 0.01, 2.0, 0.0), ("P7-3", 0.01, -1.0, 1.8), ("P4-3", 0.01, 0.0, 0.5),
))

# Own choice: relative number of judgments per year within train (a ramp to the 2006–2010
# peak, a plateau after).
_TRAIN_YEAR_WEIGHTS = {**dict.fromkeys(range(1968, 1990), 0.03),
                       **dict.fromkeys(range(1990, 1999), 0.15), 1999: 0.5,
                       **dict.fromkeys(range(2000, 2003), 1.2), 2003: 2.3, 2004: 2.3, 2005: 3.9,
                       **dict.fromkeys(range(2006, 2011), 7.3),
                       **dict.fromkeys(range(2011, 2016), 5.2),
                       **dict.fromkeys(range(2016, 2020), 6.2)}
_SPLIT_NAMES = schema.SPLITS


def _judgment_days(start: str, end: str) -> list[dt.date]:
    """Tuesdays and Thursdays (the Court's delivery days) from ``start`` to ``end`` inclusive,
    with both endpoints always included."""
    first, last = dt.date.fromisoformat(start), dt.date.fromisoformat(end)
    days = [first + dt.timedelta(d) for d in range((last - first).days + 1)]
    chosen = [d for d in days if d.weekday() in (1, 3)]
    return sorted({first, last, *chosen})


def _dates(rng: np.random.Generator, split: str, n: int) -> list[dt.date]:
    """``n`` sorted judgment dates within the split's published range (endpoints included)."""
    start, end = PUBLISHED["date_range"][split]
    days = _judgment_days(start, end)
    if split == "train":
        per_year: dict[int, int] = {}
        for day in days:
            per_year[day.year] = per_year.get(day.year, 0) + 1
        weights = np.array([_TRAIN_YEAR_WEIGHTS[d.year] / per_year[d.year] for d in days])
    else:
        weights = np.ones(len(days))
    picked = list(rng.choice(len(days), size=n, p=weights / weights.sum()))
    if n >= 2:
        picked[0], picked[1] = 0, len(days) - 1
    elif n == 1:
        picked[0] = 0
    return sorted(days[i] for i in picked)


def _categorical(rng: np.random.Generator, probabilities: np.ndarray,
                 uniforms: np.ndarray | None = None) -> np.ndarray:
    """One draw per row of a (rows, categories) probability matrix (rows sum to 1), by inverse
    CDF of ``uniforms`` (fresh uniforms when not given)."""
    cumulative = np.cumsum(probabilities, axis=1)
    cumulative /= cumulative[:, -1:]
    if uniforms is None:
        uniforms = rng.random(len(probabilities))
    return (uniforms[:, None] > cumulative).sum(axis=1)


def _in_bucket(rng: np.random.Generator, buckets: np.ndarray, ranges: list[tuple[int, int]]
               ) -> np.ndarray:
    """A count per row inside its bucket's (low, high) range, log-uniform (small counts more
    frequent)."""
    low = np.array([ranges[b][0] for b in buckets], dtype=float)
    high = np.array([ranges[b][1] for b in buckets], dtype=float)
    values = np.exp(np.log(low) + rng.random(len(buckets)) * (np.log(high + 1) - np.log(low)))
    return np.minimum(np.floor(values), high).astype(np.int64)


def _calibrate_intercept(score: np.ndarray, target: float) -> float:
    """Intercept a so that mean(sigmoid(score + a)) = target (bisection)."""
    low, high = -20.0, 20.0
    for _ in range(60):
        middle = (low + high) / 2
        if np.mean(1 / (1 + np.exp(-(score + middle)))) < target:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def _nice(amounts: np.ndarray) -> np.ndarray:
    """Round awards to two significant digits (three above 100k), at least 100 EUR."""
    amounts = np.maximum(amounts, 100.0)
    digits = np.floor(np.log10(amounts)) - np.where(amounts >= 100_000, 2, 1)
    step = 10.0 ** digits
    return np.round(amounts / step) * step


def _calibrate_amounts(level: np.ndarray, noise: np.ndarray, median: float, p95: float
                       ) -> np.ndarray:
    """Positive awards exp(level + b + s·noise) with b and s chosen so that the median and the
    95th percentile (before rounding) equal ``median`` and ``p95``."""
    target_ratio = np.log(p95 / median)
    low, high = 0.01, 5.0
    for _ in range(50):
        scale = (low + high) / 2
        logs = level + scale * noise
        ratio = np.percentile(logs, 95) - np.median(logs)
        low, high = (scale, high) if ratio < target_ratio else (low, scale)
    logs = level + scale * noise
    return np.exp(logs - np.median(logs) + np.log(median))


def _format_number(value: float) -> str:
    """``15600.0`` → ``"15600"``, ``202.34`` → ``"202.34"`` (the release's style)."""
    return f"{value:.12g}" if value != int(value) else str(int(value))


@dataclass(frozen=True)
class _Timeline:
    """When each case was decided: ``split`` (0 train, 1 validation, 2 test; int array),
    ``year`` (judgment year; int array)."""

    split: np.ndarray
    year: np.ndarray


@dataclass(frozen=True)
class _Bench:
    """How each case was heard: ``formation`` (index into ``schema.COURT_FORMATIONS``) and
    ``importance`` (index into ``schema.CASE_IMPORTANCE``); int arrays."""

    formation: np.ndarray
    importance: np.ndarray

    @property
    def grand_chamber(self) -> np.ndarray:
        """Whether each case was heard by the Grand Chamber (bool array)."""
        return self.formation == 2

    @property
    def committee(self) -> np.ndarray:
        """Whether each case was heard by a Committee (bool array)."""
        return self.formation == 1


@dataclass(frozen=True)
class _Respondent:
    """Each case's respondent state as the award sees it: ``gdp_per_capita`` (current USD)
    and the state's ``zero_award_logit_shift`` and ``award_log_shift`` (float arrays)."""

    gdp_per_capita: np.ndarray
    zero_award_logit_shift: np.ndarray
    award_log_shift: np.ndarray


@dataclass(frozen=True)
class _Counts:
    """Per case: number of applicants, of HUDOC applications and of violations found (int
    arrays)."""

    applicants: np.ndarray
    applications: np.ndarray
    violations: np.ndarray


@dataclass(frozen=True)
class _Violated:
    """Per case: ``distinct`` violated articles (int), their mean ``zero_effect`` (logit) and
    largest ``award_effect`` (log EUR), ``procedural_only`` (only Articles 6 and 13; bool)."""

    distinct: np.ndarray
    zero_effect: np.ndarray
    award_effect: np.ndarray
    procedural_only: np.ndarray


_Columns = dict[str, list[str]]

_APPLICANT_RANGES = [(1, 1), (2, 5), (6, 20), (21, 100), (101, 2500)]
_VIOLATION_RANGES = [(1, 1), (2, 2), (3, 5), (6, 15)]
# (label, cases per release of 14,575), assigned to positive awards in this order
_FLAGGED_TARGETS = (("corrected_amount", 2), ("mixed_head_reference_label", 3),
                    ("unresolved_reference_label", 2))


def _yes_no(flags: np.ndarray) -> list[str]:
    """Boolean array → ``"yes"`` / ``"no"`` strings."""
    return ["yes" if flag else "no" for flag in flags]


def _split_rows(split: np.ndarray) -> Iterator[tuple[str, np.ndarray]]:
    """Yield (split name, row indices of that split) for train, validation, test."""
    for index, name in enumerate(_SPLIT_NAMES):
        yield name, np.flatnonzero(split == index)


def _identity_columns(rng: np.random.Generator, n: int) -> tuple[_Columns, _Timeline]:
    """Case id, split, judgment date and year of ``n`` cases in chronological order.

    Splits get the release's proportions (at least one case each); dates are drawn per split
    within its published range; case ids increase with gaps of 1 to at most 60.
    """
    total = sum(SPLIT_COUNTS)
    sizes = split_sizes(n, tuple(c / total for c in SPLIT_COUNTS))
    if min(sizes) == 0:
        sizes = (n - 2, 1, 1)
    split = np.repeat(np.arange(3), sizes)
    dates: list[dt.date] = []
    for name, size in zip(_SPLIT_NAMES, sizes, strict=True):
        dates.extend(_dates(rng, name, size))
    year = np.array([d.year for d in dates])
    step = max(1, min(60, 800_000 // n))
    case_numbers = 100_000 + np.cumsum(rng.integers(1, step + 1, size=n))
    columns = {"case_id": [f"001-{k}" for k in case_numbers],
               "split": [_SPLIT_NAMES[s] for s in split],
               "judgment_date": [d.isoformat() for d in dates],
               "judgment_year": [str(y) for y in year]}
    return columns, _Timeline(split=split, year=year)


def _formation_probabilities(split_name: str, year: np.ndarray) -> np.ndarray:
    """(cases, 3) Chamber / Committee / Grand Chamber probabilities of one split's cases
    decided in ``year``: the published shares, except that in train the Committee sits only
    from 2010 (Protocol 14), with its share concentrated on those years (at most 0.95)."""
    chamber, committee, grand = PUBLISHED["court_formation"][split_name]
    if split_name != "train":
        return np.tile([chamber, committee, grand], (len(year), 1))
    late = year >= 2010
    p_committee = np.where(late, min(0.95, committee / max(late.mean(), 1e-9)), 0.0)
    return np.column_stack([1 - grand - p_committee, p_committee, np.full(len(year), grand)])


def _formation_columns(rng: np.random.Generator, timeline: _Timeline
                       ) -> tuple[_Columns, np.ndarray]:
    """Court formation, HUDOC decision body and Grand Chamber flag per case; also returns
    the formation (index into ``schema.COURT_FORMATIONS``; int array)."""
    formation = np.empty(len(timeline.split), dtype=np.int64)
    for name, rows in _split_rows(timeline.split):
        formation[rows] = _categorical(rng, _formation_probabilities(name, timeline.year[rows]))
    columns = {"court_formation": [schema.COURT_FORMATIONS[f] for f in formation],
               "hudoc_decision_body": [schema.DECISION_BODIES[f] for f in formation],
               "is_grand_chamber": _yes_no(formation == 2)}
    return columns, formation


def _respondent_columns(rng: np.random.Generator, year: np.ndarray
                        ) -> tuple[_Columns, _Respondent]:
    """Respondent state, its alpha-2 code and GDP figures (USD) per case decided in ``year``.

    States are drawn by :attr:`CountryProfile.share_weight`, drifting per decade after 2010;
    GDP per capita (current USD) grows from the 2015 figure, GDP in constant 2015 USD is GDP
    per capita 2015 × population, both with a yearly trend.
    """
    weights = np.array([c.share_weight for c in COUNTRIES])
    trend = np.array([c.share_trend_per_decade for c in COUNTRIES])
    drift = np.clip((year - 2010) / 10, 0, None)[:, None] * trend[None, :]
    country = _categorical(rng, weights[None, :] * np.exp(drift))
    profiles = [COUNTRIES[c] for c in country]
    gdp_2015 = np.array([p.gdp_per_capita_2015_usd for p in profiles], dtype=float)
    population = np.array([p.population_millions for p in profiles]) * 1e6
    growth = np.where(gdp_2015 < 15_000, 0.045, 0.025)
    gdp_per_capita = gdp_2015 * np.exp(growth * (year - 2015)) * (1 + 0.04 * np.sin(year + country))
    gdp_constant = gdp_2015 * population * np.exp(0.02 * (year - 2015))
    columns = {"respondent_state": [p.state_name for p in profiles],
               "country_alpha2": [p.alpha2 for p in profiles],
               "gdp_per_capita_current_usd": [f"{v:.12g}" for v in gdp_per_capita],
               "gdp_constant_2015_usd": [f"{v:.12g}" for v in gdp_constant]}
    respondent = _Respondent(
        gdp_per_capita=gdp_per_capita,
        zero_award_logit_shift=np.array([p.zero_award_logit_shift for p in profiles]),
        award_log_shift=np.array([p.award_log_shift for p in profiles]))
    return columns, respondent


def _importance_column(rng: np.random.Generator, formation: np.ndarray
                       ) -> tuple[_Columns, np.ndarray]:
    """HUDOC importance per case, by court formation (Grand Chamber cases are mostly key
    cases, Committee cases mostly low); also returns it (index into
    ``schema.CASE_IMPORTANCE``; int array)."""
    n = len(formation)
    # all three draws are made for every case, in this order, whatever its formation
    if_grand = _categorical(rng, np.tile([0.85, 0.1, 0.05, 0.0], (n, 1)))
    if_committee = _categorical(rng, np.tile([0.0, 0.0, 0.03, 0.97], (n, 1)))
    if_chamber = _categorical(rng, np.tile([0.03, 0.05, 0.28, 0.64], (n, 1)))
    importance = np.where(formation == 2, if_grand,
                          np.where(formation == 1, if_committee, if_chamber))
    return {"case_importance": [schema.CASE_IMPORTANCE[i] for i in importance]}, importance


def _buckets_per_split(rng: np.random.Generator, split: np.ndarray, published_key: str,
                       uniforms: np.ndarray) -> np.ndarray:
    """Bucket index per case from the split's published bucket shares
    (``PUBLISHED[published_key]``), by inverse CDF of the given ``uniforms`` (no draw)."""
    buckets = np.empty(len(split), dtype=np.int64)
    for name, rows in _split_rows(split):
        shares = np.tile(PUBLISHED[published_key][name], (len(rows), 1))
        buckets[rows] = _categorical(rng, shares, uniforms[rows])
    return buckets


def _count_columns(rng: np.random.Generator, split: np.ndarray) -> tuple[_Columns, _Counts]:
    """Numbers of applicants, HUDOC applications and violations found per case.

    Applicant and violation counts fall in the split's published buckets; cases with many
    applicants tend to have more violations: the two buckets share their uniform draw 80% of
    the time (own choice).
    """
    n = len(split)
    applicant_uniforms = rng.random(n)
    shares_uniform = rng.random(n) < 0.8
    violation_uniforms = np.where(shares_uniform, applicant_uniforms, rng.random(n))
    applicant_buckets = _buckets_per_split(rng, split, "applicants", applicant_uniforms)
    violation_buckets = _buckets_per_split(rng, split, "violations", violation_uniforms)
    applicants = _in_bucket(rng, applicant_buckets, _APPLICANT_RANGES)
    # several applicants share one HUDOC application far more often in older cases (own choice)
    joined = rng.random(n) < np.array([0.55, 0.2, 0.05])[split]
    separate_applications = 1 + np.floor(rng.random(n) * applicants).astype(np.int64)
    applications = np.where(applicants == 1, 1, np.where(joined, 1, separate_applications))
    violations = _in_bucket(rng, violation_buckets, _VIOLATION_RANGES)
    columns = {"num_applicants": [str(a) for a in applicants],
               "hudoc_application_count": [str(a) for a in applications],
               "num_violations_found": [str(v) for v in violations]}
    return columns, _Counts(applicants=applicants, applications=applications,
                            violations=violations)


def _article_columns(rng: np.random.Generator, violations: np.ndarray
                     ) -> tuple[_Columns, _Violated]:
    """Violated articles (``;``-joined codes) and their count per case.

    A case has at most as many distinct articles as violations found (at most 8), drawn by
    :attr:`ArticleProfile.share_weight` without replacement (Gumbel top-k).
    """
    n = len(violations)
    article_weights = np.array([a.share_weight for a in ARTICLES])
    distinct = np.where(violations == 1, 1,
                        np.minimum(1 + rng.binomial(violations - 1, 0.85), 8))
    keys = np.log(article_weights)[None, :] + rng.gumbel(size=(n, len(ARTICLES)))
    ranked = np.argsort(-keys, axis=1)
    article_sets = [[ARTICLES[j] for j in ranked[i, :distinct[i]]] for i in range(n)]
    columns = {"violated_articles": [";".join(a.code for a in row) for row in article_sets],
               "violated_articles_count": [str(k) for k in distinct]}
    violated = _Violated(
        distinct=distinct,
        zero_effect=np.array([sum(a.zero_award_logit_shift for a in row) / len(row)
                              for row in article_sets]),
        award_effect=np.array([max(a.award_log_shift for a in row) for row in article_sets]),
        procedural_only=np.array([all(a.code in ("6", "13") for a in row)
                                  for row in article_sets]))
    return columns, violated


def _format_months(months: np.ndarray, fractional: np.ndarray, unknown: np.ndarray
                   ) -> list[str]:
    """Durations in months as the release writes them: ``"unknown"``, a whole number, or up
    to four decimals where ``fractional``."""
    return ["unknown" if hidden else (f"{m:.4f}".rstrip("0").rstrip(".") if f else str(int(m)))
            for hidden, m, f in zip(unknown, months, fractional, strict=True)]


def _violation_detail_columns(rng: np.random.Generator, procedural_only: np.ndarray
                              ) -> _Columns:
    """Violation type and violation duration (months; half ``unknown``) per case; cases
    finding only procedural articles are mostly ``procedural`` and last longer."""
    n = len(procedural_only)
    if_procedural = _categorical(rng, np.tile([0.2, 0.72, 0.08], (n, 1)))
    if_substantive = _categorical(rng, np.tile([0.8, 0.08, 0.12], (n, 1)))
    vtype = np.where(procedural_only, if_procedural, if_substantive)
    vtype_names = np.array(schema.VIOLATION_TYPES[:3], dtype=object)[vtype]
    rare = rng.random(n)
    vtype_names[rare < 0.0002] = "unknown"
    vtype_names[(rare >= 0.0002) & (rare < 0.00035)] = "other"
    months = np.exp(rng.normal(np.where(procedural_only, 4.0, 3.0), 1.0))
    fractional = rng.random(n) < 0.1
    unknown = rng.random(n) < 0.5
    return {"violation_type": list(vtype_names),
            "violation_duration_months": _format_months(months, fractional, unknown)}


def _flag_columns(rng: np.random.Generator, bench: _Bench) -> tuple[_Columns, np.ndarray]:
    """Separate opinion, legal representation and mixed outcome flags per case, by court
    formation; also returns ``represented`` (bool array)."""
    grand_chamber, committee = bench.grand_chamber, bench.committee
    n = len(bench.formation)
    separate = rng.random(n) < np.where(grand_chamber, 0.75, np.where(committee, 0.005, 0.14))
    represented = rng.random(n) < np.where(committee, 0.62, 0.78)
    mixed = rng.random(n) < np.where(grand_chamber, 0.3, np.where(committee, 0.03, 0.14))
    columns = {"has_separate_opinion": _yes_no(separate), "represented": _yes_no(represented),
               "has_mixed_outcome": _yes_no(mixed)}
    return columns, represented


def _applicant_columns(rng: np.random.Generator, applicants: np.ndarray, year: np.ndarray
                       ) -> _Columns:
    """Applicant sex, age group, birth years, nationality scope and award beneficiaries per
    case with ``applicants`` applicants decided in ``year``."""
    columns = _applicant_aggregates(rng, applicants, year)
    nationality = rng.random(len(applicants))
    columns["applicant_nationality_scope"] = [
        "unknown" if u < 0.24 else ("multiple" if u < 0.255 else "single") for u in nationality]
    columns["beneficiary_type"], columns["has_joint_beneficiary"] = _beneficiaries(rng, applicants)
    return columns


def _split_amounts(split_name: str, zero_score: np.ndarray, level: np.ndarray,
                   noise: np.ndarray, zero_draw: np.ndarray) -> np.ndarray:
    """Awards (EUR) of one split's cases: zero with probability sigmoid(zero_score + shift),
    the shift matching the published zero share; the positive awards calibrated to the
    published median and p95, rounded, capped at the published maximum, which the case of
    highest ``level + noise`` receives."""
    shift = _calibrate_intercept(zero_score, PUBLISHED["zero_share"][split_name])
    p_zero = 1 / (1 + np.exp(-(zero_score + shift)))
    positive = np.flatnonzero(zero_draw >= p_zero)
    amounts = np.zeros(len(zero_score))
    if len(positive) == 0:
        return amounts
    top = PUBLISHED["max"][split_name]
    values = _calibrate_amounts(level[positive], noise[positive],
                                PUBLISHED["positive_median"][split_name],
                                PUBLISHED["positive_p95"][split_name])
    values = np.minimum(_nice(values), top)
    values[np.argmax(level[positive] + noise[positive])] = top
    amounts[positive] = values
    return amounts


def _award_columns(rng: np.random.Generator, timeline: _Timeline, bench: _Bench,
                   respondent: _Respondent, counts: _Counts, violated: _Violated,
                   represented: np.ndarray) -> tuple[_Columns, np.ndarray]:
    """The target: award (EUR) and whether it is positive, per case; also returns the
    amounts (float array).

    The logit of a zero award and the log level of a positive one depend on GDP per capita,
    the state, the articles, representation, court formation, importance, the number of
    applicants and the year; both get noise.
    """
    n = len(timeline.split)
    grand_chamber, committee = bench.grand_chamber, bench.committee
    log_gdp = np.log(respondent.gdp_per_capita / 15_000)
    zero_noise = rng.normal(0, 0.4, n)
    zero_score = (0.4 * log_gdp + respondent.zero_award_logit_shift + violated.zero_effect
                  + 0.9 * ~represented + 0.5 * grand_chamber - 0.3 * committee + zero_noise)
    level = (0.35 * log_gdp + respondent.award_log_shift + 0.45 * np.log(counts.applicants)
             + violated.award_effect + 0.12 * (violated.distinct - 1) + 0.5 * grand_chamber
             - 0.3 * committee + 0.3 * (bench.importance == 0) + 0.015 * (timeline.year - 2010))
    noise = rng.standard_normal(n)
    zero_draw = rng.random(n)
    amounts = np.zeros(n)
    for name, rows in _split_rows(timeline.split):
        amounts[rows] = _split_amounts(name, zero_score[rows], level[rows], noise[rows],
                                       zero_draw[rows])
    columns = {"y_amount_eur": [_format_number(a) for a in amounts],
               "y_binary": [str(int(a > 0)) for a in amounts]}
    return columns, amounts


def _target_status_column(rng: np.random.Generator, amounts: np.ndarray) -> _Columns:
    """Target status per case from the ``amounts`` (EUR): a few random positive awards (the
    release's counts of corrected and reference labels, scaled to the number of cases) are
    flagged, the rest are ``retained_label``."""
    status = np.full(len(amounts), "retained_label", dtype=object)
    flagged = rng.permutation(np.flatnonzero(amounts > 0))
    cursor = 0
    for label, per_release in _FLAGGED_TARGETS:
        count = int(round(per_release * len(amounts) / DEFAULT_ROWS))
        status[flagged[cursor:cursor + count]] = label
        cursor += count
    return {"target_status": list(status)}


def _view_columns(split: np.ndarray, grand_chamber: np.ndarray, counts: _Counts,
                  violated: _Violated) -> _Columns:
    """Test views (every test case ``OOD`` for now) and the Challenging view: test cases of
    the Grand Chamber, or with several applications and several articles. No draw."""
    challenging = (split == 2) & (grand_chamber | ((counts.applications > 1)
                                                   & (violated.distinct > 1)))
    return {"test_view": ["OOD" if s == 2 else "not_applicable" for s in split],
            "test_challenging_view": _yes_no(challenging)}


def generate(n: int = DEFAULT_ROWS, seed: int = 0) -> dict[str, list[str]]:
    """Synthetic release columns as raw CSV strings (``test_view`` not yet assigned: every test
    row is tagged ``OOD``; :func:`write_synthetic` computes the ID view).

    Args:
        n: number of cases (≥ 3 so that every split has a case).
        seed: seed of the numpy generator; the same (n, seed) gives the same rows.

    Returns:
        column name → one string per case, in ``schema.HEADER`` order.
    """
    if n < 3:
        raise ValueError(f"n={n}: expected at least 3 cases (one per split)")
    rng = np.random.default_rng(seed)
    # the column groups draw from one generator: their order fixes the output
    out, timeline = _identity_columns(rng, n)
    columns, formation = _formation_columns(rng, timeline)
    out.update(columns)
    columns, respondent = _respondent_columns(rng, timeline.year)
    out.update(columns)
    columns, importance = _importance_column(rng, formation)
    out.update(columns)
    bench = _Bench(formation=formation, importance=importance)
    columns, counts = _count_columns(rng, timeline.split)
    out.update(columns)
    columns, violated = _article_columns(rng, counts.violations)
    out.update(columns)
    out.update(_violation_detail_columns(rng, violated.procedural_only))
    columns, represented = _flag_columns(rng, bench)
    out.update(columns)
    out.update(_applicant_columns(rng, counts.applicants, timeline.year))
    columns, amounts = _award_columns(rng, timeline, bench, respondent, counts, violated,
                                      represented)
    out.update(columns)
    out.update(_target_status_column(rng, amounts))
    out.update(_view_columns(timeline.split, bench.grand_chamber, counts, violated))
    return {name: out[name] for name in schema.HEADER}


def _applicant_aggregates(rng: np.random.Generator, applicants: np.ndarray, year: np.ndarray
                          ) -> dict[str, list[str]]:
    """Sex, age-group and birth-year sets from up to six simulated applicants per case."""
    n = len(applicants)
    shown = np.minimum(applicants, 6)
    present = np.arange(6)[None, :] < shown[:, None]
    sex = _categorical(rng, np.tile([0.68, 0.28, 0.04], (n * 6, 1))).reshape(n, 6)
    ages = np.clip(rng.normal(47, 16, size=(n, 6)), 3, 95).astype(int)
    group = np.searchsorted([14, 18, 65], ages, side="right")  # child/adolescent/adult/elderly
    births = year[:, None] - ages
    sex_unknown, group_unknown, birth_unknown, unknown_member, mixed = rng.random((5, n))
    sex_names = ("male", "female", "unknown")
    group_names = ("child", "adolescent", "adult", "elderly")
    out: dict[str, list[str]] = {"applicant_sex": [], "applicant_age_group": [],
                                 "applicant_birth_years": []}
    for i in range(n):
        row = present[i]
        sexes = {sex_names[v] for v in sex[i, row]}
        if applicants[i] > 50 and mixed[i] < 0.1:
            sexes.add("mixed")
        out["applicant_sex"].append(
            "unknown" if sex_unknown[i] < 0.3 else ";".join(sorted(sexes)))
        out["applicant_age_group"].append(
            "unknown" if group_unknown[i] < 0.18
            else ";".join(sorted({group_names[g] for g in group[i, row]})))
        years = {str(b) for b in births[i, row]}
        if shown[i] > 1 and unknown_member[i] < 0.1:
            years.add("unknown")
        hidden = birth_unknown[i] < (0.9 if group_unknown[i] < 0.18 else 0.03)
        out["applicant_birth_years"].append("unknown" if hidden else ";".join(sorted(years)))
    return out


def _beneficiaries(rng: np.random.Generator, applicants: np.ndarray
                   ) -> tuple[list[str], list[str]]:
    """Award-side beneficiary sets and the joint-beneficiary flag (audit columns)."""
    kinds, joint = [], []
    for count, u, v in zip(applicants, rng.random(len(applicants)), rng.random(len(applicants)),
                           strict=True):
        if u < 0.17:
            kinds.append("unknown")
            joint.append("unknown")
            continue
        if v < 0.015:
            members = {"organisation"}
        elif count > 1 and v < 0.05:
            members = {"applicant", "group"}
        elif count > 1 and v < 0.065:
            members = {"applicant", "joint"}
        else:
            members = {"applicant"}
        kinds.append(";".join(sorted(members)))
        joint.append("yes" if "joint" in members else "not_found")
    return kinds, joint


def _write_csv(path: Path, columns: dict[str, list[str]]) -> None:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(schema.HEADER)
        writer.writerows(zip(*(columns[name] for name in schema.HEADER), strict=True))


def write_synthetic(path: str | Path, n: int = DEFAULT_ROWS, seed: int = 0,
                    id_size: int | None = None) -> Path:
    """Write a synthetic ``case_level.csv`` to ``path`` (atomically) and return the path.

    Args:
        path: destination file.
        n: number of cases (default 14,575, the release's size).
        seed: generator seed; the same (n, seed) gives byte-identical files.
        id_size: size of the ID view; default 1,000 scaled by the test split's share of the
            release's test split (1,000 at the full size).

    The file passes :func:`ecthr_npd.reader.read_case_level`; its split and view tags are
    those ``--recompute`` assigns.
    """
    path = Path(path)
    columns = generate(n, seed)
    with tempfile.TemporaryDirectory(prefix=".synthetic-", dir=path.parent) as tmp:
        draft = Path(tmp) / "case_level.csv"
        _write_csv(draft, columns)
        table = read_case_level(draft)
        split = np.asarray(table.column("split").to_numpy(), dtype=np.int64)
        n_test = int((split == 2).sum())
        if id_size is None:
            id_size = scaled_id_size(n_test)
        membership = recompute_views(table, split, id_size=id_size)
        columns["test_view"] = [schema.TEST_VIEWS[v] for v in membership.test_view]
        _write_csv(draft, columns)
        draft.replace(path)
    return path
