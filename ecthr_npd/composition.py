"""Composition of splits and views: the eight matching dimensions, total variation, tables.

The protocol (the benchmark's paper) compares a test view with the train+validation
*reference* on eight dimensions: respondent country, case importance, violation type,
applicant-count bucket, violation-count bucket, representation, separate opinion
(categorical: TV = ½ Σ_c |p_ref(c) − p_view(c)|, null counted as its own category) and the top-20 violated articles of
the reference (prevalence: ½ Σ_a |prev_ref(a) − prev_view(a)|). The reported mean TV is the
unweighted mean of the eight; the weights only steer the ID selection. Court formation is
reported beside them as a diagnostic, outside the mean.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ecthr_npd import schema

# (dimension, weight) in the protocol's order; "articles" is the top-20 prevalence dimension.
DIMENSION_WEIGHTS: dict[str, float] = {
    "country": 6.0,
    "case_importance": 5.0,
    "violation_type": 3.0,
    "applicant_bucket": 3.0,
    "violation_bucket": 3.0,
    "represented": 2.0,
    "separate_opinion": 2.0,
    "articles": 2.0,
}
CATEGORICAL_DIMENSIONS = tuple(d for d in DIMENSION_WEIGHTS if d != "articles")
TOP_ARTICLES = 20

APPLICANT_BUCKETS = ("1", "2–5", "6–20", "21–100", ">100")
APPLICANT_EDGES = (1, 5, 20, 100)  # upper bounds (inclusive) of the first four buckets
VIOLATION_BUCKETS = ("1", "2", "3–5", ">5")
VIOLATION_EDGES = (1, 2, 5)
AWARD_BINS = ("0", ">0–10k", "10k–50k", ">50k")
AWARD_EDGES = (0.0, 10_000.0, 50_000.0)  # right-inclusive upper bounds of the first three bins


def bucket(values: np.ndarray, edges: tuple[float, ...]) -> np.ndarray:
    """Bucket index per value: 0 for ``v <= edges[0]``, 1 for ``edges[0] < v <= edges[1]`` …"""
    return np.searchsorted(np.asarray(edges, dtype=float), np.asarray(values, dtype=float),
                           side="left")


def _codes(array: pa.ChunkedArray, labels: list[str], null_label: str = "unknown"
           ) -> tuple[np.ndarray, list[str]]:
    """Integer codes of a label/bool column with nulls as one extra trailing category."""
    data = array.combine_chunks()
    if pa.types.is_boolean(data.type):
        data = pc.cast(data, pa.int64())
    codes = np.asarray(pc.fill_null(data, len(labels)).to_numpy(zero_copy_only=False),
                       dtype=np.int64)
    return codes, [*labels, null_label]


@dataclass(frozen=True)
class Encoded:
    """The matching dimensions of every row of a case table.

    Attributes:
        codes: dimension → integer category per row (length n_rows).
        labels: dimension → category names (index = code).
        articles: all article codes present, sorted.
        article_matrix: (n_rows, n_articles) boolean: row has the article.
        formation: court formation code per row (diagnostic dimension).
        case_ids: the rows' ``case_id``.
    """

    codes: dict[str, np.ndarray]
    labels: dict[str, list[str]]
    articles: list[str]
    article_matrix: np.ndarray
    formation: np.ndarray
    case_ids: np.ndarray


def encode(table: pa.Table) -> Encoded:
    """Encode the eight dimensions (and court formation) of a canonical case table."""
    countries = table.column("country_alpha2").combine_chunks()
    country_labels = sorted(set(countries.to_pylist()))
    country_codes = np.asarray(pc.index_in(countries, pa.array(country_labels)).to_numpy(),
                               dtype=np.int64)
    codes: dict[str, np.ndarray] = {"country": country_codes}
    labels: dict[str, list[str]] = {"country": country_labels}
    codes["case_importance"], labels["case_importance"] = _codes(
        table.column("case_importance"), list(schema.CASE_IMPORTANCE))
    codes["violation_type"], labels["violation_type"] = _codes(
        table.column("violation_type"), list(schema.VIOLATION_TYPES))
    codes["applicant_bucket"] = bucket(table.column("hudoc_application_count").to_numpy(),
                                       APPLICANT_EDGES)
    labels["applicant_bucket"] = list(APPLICANT_BUCKETS)
    codes["violation_bucket"] = bucket(table.column("num_violations_found").to_numpy(),
                                       VIOLATION_EDGES)
    labels["violation_bucket"] = list(VIOLATION_BUCKETS)
    # bool → 0 (no) / 1 (yes) / 2 (unknown)
    codes["represented"], labels["represented"] = _codes(table.column("represented"),
                                                         ["no", "yes"])
    codes["separate_opinion"], labels["separate_opinion"] = _codes(
        table.column("has_separate_opinion"), ["no", "yes"])
    article_lists = table.column("violated_articles").combine_chunks()
    flat = pc.list_flatten(article_lists)
    articles = sorted(set(flat.to_pylist()))
    rows = pc.list_parent_indices(article_lists).to_numpy()
    columns = pc.index_in(flat, pa.array(articles)).to_numpy()
    matrix = np.zeros((table.num_rows, len(articles)), dtype=bool)
    matrix[rows, columns] = True
    formation, _ = _codes(table.column("court_formation"), list(schema.COURT_FORMATIONS))
    return Encoded(codes, labels, articles, matrix, formation,
                   np.asarray(table.column("case_id").to_pylist(), dtype=object))


def shares(codes: np.ndarray, n_categories: int) -> np.ndarray:
    """Share of each category among ``codes`` (zeros when ``codes`` is empty)."""
    counts = np.bincount(codes, minlength=n_categories).astype(float)
    return counts / max(len(codes), 1)


def top_articles(encoded: Encoded, reference: np.ndarray, k: int = TOP_ARTICLES) -> np.ndarray:
    """Column indices (into ``encoded.articles``) of the ``k`` articles most frequent in the
    reference rows; ties broken by article code."""
    counts = encoded.article_matrix[reference].sum(axis=0)
    order = sorted(range(len(encoded.articles)), key=lambda j: (-counts[j], encoded.articles[j]))
    return np.asarray(order[:k], dtype=np.int64)


def total_variation(encoded: Encoded, reference: np.ndarray, view: np.ndarray,
                    article_columns: np.ndarray | None = None) -> dict[str, float]:
    """TV of a view against the reference, per dimension.

    Args:
        encoded: the encoded case table.
        reference, view: boolean row masks.
        article_columns: the top-k article columns (default: :func:`top_articles` of the
            reference).

    Returns:
        ``{dimension: TV}`` for the eight dimensions, plus ``mean`` (unweighted mean of the
        eight), ``weighted_mean`` (weights of :data:`DIMENSION_WEIGHTS`) and the diagnostic
        ``court_formation``. TVs are in [0, 1] (articles: in [0, k/2]).
    """
    if article_columns is None:
        article_columns = top_articles(encoded, reference)
    result: dict[str, float] = {}
    for name in CATEGORICAL_DIMENSIONS:
        n = len(encoded.labels[name])
        codes = encoded.codes[name]
        result[name] = 0.5 * float(np.abs(shares(codes[reference], n)
                                          - shares(codes[view], n)).sum())
    sub = encoded.article_matrix[:, article_columns]
    prevalence_ref = sub[reference].mean(axis=0)
    prevalence_view = sub[view].mean(axis=0) if view.any() else np.zeros(len(article_columns))
    result["articles"] = 0.5 * float(np.abs(prevalence_ref - prevalence_view).sum())
    tvs = [result[name] for name in DIMENSION_WEIGHTS]
    weights = np.asarray(list(DIMENSION_WEIGHTS.values()))
    result["mean"] = float(np.mean(tvs))
    result["weighted_mean"] = float(np.dot(weights, tvs) / weights.sum())
    n = len(schema.COURT_FORMATIONS) + 1
    result["court_formation"] = 0.5 * float(np.abs(shares(encoded.formation[reference], n)
                                                   - shares(encoded.formation[view], n)).sum())
    return result


def composition_rows(table: pa.Table, groups: dict[str, np.ndarray]) -> list[list]:
    """Per-group composition (percent of the group's cases) for the card.

    Args:
        table: canonical case table.
        groups: group name (a split or view) → boolean row mask.

    Returns:
        Rows ``[dimension, category, share in group 1, share in group 2, …]`` with shares in
        [0, 1]: court formation, case importance, applicant bucket (``num_applicants``, as in
        the paper's tables), HUDOC-application bucket (the matching dimension), violation
        bucket and award bins (0 / >0–10k / 10k–50k / >50k EUR).
    """
    encoded = encode(table)
    award_bin = bucket(table.column(schema.TARGET_COLUMN).to_numpy(), AWARD_EDGES)
    applicants = bucket(table.column("num_applicants").to_numpy(), APPLICANT_EDGES)
    dims = [
        ("court formation", encoded.formation, list(schema.COURT_FORMATIONS)),
        ("case importance", encoded.codes["case_importance"], list(schema.CASE_IMPORTANCE)),
        ("applicants", applicants, list(APPLICANT_BUCKETS)),
        ("HUDOC applications", encoded.codes["applicant_bucket"], list(APPLICANT_BUCKETS)),
        ("violations found", encoded.codes["violation_bucket"], list(VIOLATION_BUCKETS)),
        ("award (EUR)", award_bin, list(AWARD_BINS)),
    ]
    rows = []
    for title, codes, labels in dims:
        group_shares = [shares(codes[mask], len(labels) + 1) for mask in groups.values()]
        for index, label in enumerate(labels):
            rows.append([title, label, *(float(s[index]) for s in group_shares)])
    return rows


def target_statistics(table: pa.Table, mask: np.ndarray) -> dict[str, float | int | str | None]:
    """Target statistics of the masked rows.

    Returns:
        ``n``, ``date_min`` / ``date_max`` (ISO), ``zero_n``, ``zero_share`` (in [0, 1]),
        ``positive_median``, ``positive_p95`` (numpy's linear percentile), ``max`` — amounts in
        nominal EUR; ``None`` where undefined (no rows / no positive award).
    """
    y = table.column(schema.TARGET_COLUMN).to_numpy()[mask]
    dates = np.asarray(table.column("judgment_date").to_numpy(zero_copy_only=False))[mask]
    positive = y[y > 0]
    n = int(len(y))
    return {
        "n": n,
        "date_min": str(dates.min()) if n else None,
        "date_max": str(dates.max()) if n else None,
        "zero_n": int((y == 0).sum()),
        "zero_share": float((y == 0).mean()) if n else None,
        "positive_median": float(np.median(positive)) if len(positive) else None,
        "positive_p95": float(np.percentile(positive, 95)) if len(positive) else None,
        "max": float(y.max()) if n else None,
    }
