"""Train-only empirical priors: award statistics by article, country and article × country.

Computed by courtbench from the ``train`` split of the built folder (never from validation or
test) and bound to the data: :attr:`EmpiricalPriors.sha256` hashes the canonical JSON of every
table together with the data fingerprint, and both go into every observation that shows a
prior, the trace and the manifest.

Statistics of a group of training awards (EUR, nominal): ``count``, ``zero_share`` (share of
awards equal to 0), ``median_eur``, ``p10_eur`` / ``p25_eur`` / ``p75_eur`` / ``p90_eur``
(numpy's linear percentiles), ``positive_median_eur`` (median of the positive awards, ``None``
without any); rounded to cents.

Tables: ``article`` (a case counts once for each of its violated articles), ``country``
(``country_alpha2``), ``article_country`` (key ``ARTICLE|alpha2``), ``applicant_band``
(``hudoc_application_count``: 1 / 2–5 / 6–20 / 21–100 / >100) and ``global``, the
article-weighted prior (every (case, violated article) pair counts once).

Resolution for a target (:meth:`EmpiricalPriors.resolve`), per violated article: the
article × country cell when it has at least ``min_count`` training cases, else the article,
else the country, else the global article-weighted prior.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from ecthr_npd import schema

DEFAULT_MIN_COUNT = 5
FALLBACK_ORDER = ("article_country", "article", "country", "global")
BANDS = ((1, 1, "1"), (2, 5, "2-5"), (6, 20, "6-20"), (21, 100, "21-100"),
         (101, None, ">100"))


def applicant_band(count: int | None) -> str | None:
    """The applicant-count band of a HUDOC application count (``None`` for null)."""
    if count is None:
        return None
    for low, high, name in BANDS:
        if count >= low and (high is None or count <= high):
            return name
    return BANDS[0][2]


def award_statistics(values: list[float] | np.ndarray) -> dict[str, Any]:
    """The statistics of the module docstring for a non-empty group of awards (EUR)."""
    awards = np.asarray(values, dtype=np.float64)
    positive = awards[awards > 0]
    p10, p25, median, p75, p90 = np.percentile(awards, [10, 25, 50, 75, 90])

    def cents(x: float) -> float:
        return round(float(x), 2) + 0.0

    return {"count": int(awards.size), "zero_share": round(float(np.mean(awards == 0)), 4),
            "median_eur": cents(median), "p10_eur": cents(p10), "p25_eur": cents(p25),
            "p75_eur": cents(p75), "p90_eur": cents(p90),
            "positive_median_eur": cents(np.median(positive)) if positive.size else None}


def _tables(train: pa.Table) -> dict[str, dict[str, dict[str, Any]]]:
    awards = train.column(schema.TARGET_COLUMN).to_pylist()
    articles = train.column("violated_articles").to_pylist()
    countries = train.column("country_alpha2").to_pylist()
    counts = train.column("hudoc_application_count").to_pylist()
    groups: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for award, codes, country, count in zip(awards, articles, countries, counts, strict=True):
        groups["country"][country].append(award)
        groups["applicant_band"][applicant_band(count)].append(award)
        for code in sorted({c for c in codes or () if c is not None}):
            groups["article"][code].append(award)
            groups["article_country"][f"{code}|{country}"].append(award)
            groups["global"]["all"].append(award)
    return {name: {key: award_statistics(values) for key, values in sorted(
        groups[name].items(), key=lambda item: str(item[0]))}
        for name in ("article", "country", "article_country", "applicant_band", "global")}


@dataclass
class EmpiricalPriors:
    """The priors of one training split (see the module docstring).

    Args:
        train: the ``train`` split (``violated_articles``, ``country_alpha2``,
            ``hudoc_application_count``, ``y_amount_eur``).
        data_fingerprint: the built folder's fingerprint.
        min_count: the fewest training cases a cell needs to be used.
    """

    train: pa.Table
    data_fingerprint: str
    min_count: int = DEFAULT_MIN_COUNT
    tables: dict = field(init=False)
    sha256: str = field(init=False)

    def __post_init__(self) -> None:
        if self.train.num_rows == 0:
            raise ValueError("the train split is empty: no empirical priors")
        self.tables = _tables(self.train)
        canonical = json.dumps({"data_fingerprint": self.data_fingerprint,
                                "min_count": self.min_count, "tables": self.tables},
                               sort_keys=True, separators=(",", ":"))
        self.sha256 = hashlib.sha256(canonical.encode()).hexdigest()
        del self.train  # only the tables are kept

    def binding(self) -> dict[str, str]:
        """What binds a prior to the data: fingerprint and the priors' sha256."""
        return {"data_fingerprint": self.data_fingerprint, "priors_sha256": self.sha256}

    def _cell(self, table: str, key: str | None) -> dict[str, Any] | None:
        stats = self.tables[table].get(key) if key is not None else None
        return stats if stats is not None and stats["count"] >= self.min_count else None

    def resolve_article(self, article: str, country: str | None) -> dict[str, Any]:
        """One article's prior by the fallback order: ``{"article", "level", "key", stats}``."""
        for level, key in (("article_country", f"{article}|{country}"), ("article", article),
                           ("country", country), ("global", "all")):
            stats = self._cell(level, key) if level != "global" else self.tables["global"]["all"]
            if stats is not None:
                return {"article": article, "level": level, "key": key, **stats}
        raise AssertionError("unreachable: the global prior always exists")  # pragma: no cover

    def resolve(self, articles: list[str], country: str | None) -> dict[str, Any]:
        """The priors of a target: per violated article (fallback order), its country's and
        the global article-weighted prior, with the binding."""
        return {"fallback_order": list(FALLBACK_ORDER), "min_count": self.min_count,
                "per_article": [self.resolve_article(a, country) for a in articles],
                "country": ({"key": country, **self.tables["country"][country]}
                            if country in self.tables["country"] else None),
                "global_article_weighted": self.tables["global"]["all"], **self.binding()}

    def band(self, name: str | None) -> dict[str, Any] | None:
        """Statistics of an applicant-count band (``None`` when no training case has it)."""
        return self.tables["applicant_band"].get(name)

    def benign_amounts(self) -> frozenset:
        """Every amount these tables show (EUR, cents), computed once."""
        cached = self.__dict__.get("_benign")
        if cached is not None:
            return cached
        amounts = set()
        for table in self.tables.values():
            for stats in table.values():
                amounts.update(v for k, v in stats.items() if k.endswith("_eur") and v is not None)
        self.__dict__["_benign"] = frozenset(amounts)
        return self.__dict__["_benign"]
