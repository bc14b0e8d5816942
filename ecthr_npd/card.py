"""The ECtHR-NPD card: YAML metadata and the template context computed from the data.

Tables are pre-formatted here (percentages, thousands) so that the template
``cards/ecthr_npd.md`` only lays them out.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from courtbench import tables
from ecthr_npd import schema
from ecthr_npd.composition import DIMENSION_WEIGHTS, composition_rows, target_statistics
from ecthr_npd.splits import TEST, TRAIN, VALIDATION, Membership

RELEASE_URL = "https://github.com/YanyiPU/ECtHR-NPD"
DIMENSION_TITLES = {
    "country": "respondent country",
    "case_importance": "case importance",
    "violation_type": "violation type",
    "applicant_bucket": "HUDOC applications (1 / 2–5 / 6–20 / 21–100 / >100)",
    "violation_bucket": "violations found (1 / 2 / 3–5 / >5)",
    "represented": "representation",
    "separate_opinion": "separate opinion",
    "articles": "top-20 violated articles (prevalence)",
}
ZERO_AWARD_TAXONOMY = (
    ("finding_sufficient", "the finding of a violation is itself just satisfaction"),
    ("no_claim", "no (valid) claim for non-pecuniary damage was made"),
    ("unsubstantiated", "the claim was rejected as unsubstantiated or without causal link"),
    ("rule_60_non_compliance", "the claim was out of time or not itemised (Rule 60)"),
    ("domestic_award_covers", "domestic redress already compensated the damage"),
    ("applicant_deceased_no_heir", "the applicant died and no heir pursued the claim"),
)
CITATION = """@misc{ecthr_npd,
  title        = {{ECtHR-NPD}: Predicting Non-Pecuniary Damage Awards of the European Court of Human Rights},
  author       = {{The ECtHR-NPD authors}},
  howpublished = {\\url{https://github.com/YanyiPU/ECtHR-NPD}},
  note         = {Dataset release; cite the paper named in the release's README}
}"""


def size_category(n: int) -> str:
    """The Hub's ``size_categories`` value for ``n`` rows."""
    bounds = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
              (1_000_000, "100K<n<1M")]
    return next((label for bound, label in bounds if n < bound), "1M<n<10M")


def card_metadata(n_rows: int, provenance: dict[str, Any], *, synthetic: bool) -> dict[str, Any]:
    """The card's YAML keys (before ``configs`` / ``dataset_info``)."""
    if synthetic:
        license_keys = {"license": "apache-2.0"}
    else:
        license_keys = {
            "license": "other",
            "license_name": "no-license-granted",
            "license_link": RELEASE_URL,
            "license_details": "The ECtHR-NPD authors' release grants no licence. This folder "
                               "may be used for research and testing; it may not be "
                               "redistributed without the authors' permission.",
        }
    return {
        "pretty_name": "ECtHR-NPD (SYNTHETIC stand-in)" if synthetic
        else "ECtHR-NPD: non-pecuniary damage awards of the ECtHR",
        **license_keys,
        "language": ["en"],
        "task_categories": ["tabular-regression"],
        "tags": ["legal", "ecthr", "human-rights", "damages", "zero-inflated", "court-decisions",
                 *(["synthetic"] if synthetic else [])],
        "size_categories": [size_category(n_rows)],
        "courtbench_dataset": "ecthr_npd",
        "provenance": provenance,
    }


def _euros(value: float | None) -> str:
    return tables.thousands(value)


def card_context(table: pa.Table, membership: Membership, *, tv: dict, locked_tv: dict | None,
                 membership_source: str, synthetic: dict | None,
                 has_applicants: bool) -> dict[str, Any]:
    """Template variables for ``cards/ecthr_npd.md``.

    Keys: ``synthetic`` (provenance dict or None), ``counts``, ``membership_source``,
    ``column_rows`` (name, type, role, description), ``composition_headers/rows``,
    ``target_headers/rows``, ``tv_headers/rows`` (views × dimensions, plus the locked views'
    when recomputed), ``weights``, ``zero_taxonomy``, ``citation``, ``has_applicants``.
    """
    groups = {"train": membership.split == TRAIN, "validation": membership.split == VALIDATION,
              "test": membership.split == TEST}
    view_masks = {"ID": membership.test_view == schema.TEST_VIEWS.index("ID"),
                  "OOD": membership.test_view == schema.TEST_VIEWS.index("OOD"),
                  "Challenging": membership.challenging}
    composition = [[dim, cat, *(tables.percent(s) for s in shares)]
                   for dim, cat, *shares in composition_rows(table, {**groups, **view_masks})]
    target_rows = []
    for name, mask in {**groups, **view_masks}.items():
        stats = target_statistics(table, mask)
        target_rows.append([name, tables.thousands(stats["n"]),
                            f"{stats['date_min']} – {stats['date_max']}",
                            tables.thousands(stats["zero_n"]), tables.percent(stats["zero_share"]),
                            _euros(stats["positive_median"]), _euros(stats["positive_p95"]),
                            _euros(stats["max"])])
    dims = list(DIMENSION_WEIGHTS)
    tv_rows = []
    for prefix, tvs in (("", tv), ("locked ", locked_tv if membership_source == "recomputed"
                                   else None)):
        for view, values in (tvs or {}).items():
            tv_rows.append([prefix + {"id": "ID", "ood": "OOD"}.get(view, "Challenging"),
                            *(tables.fixed(values[d], 4) for d in dims),
                            tables.fixed(values["mean"], 4),
                            tables.fixed(values["court_formation"], 4)])
    roles = {schema.INPUT: "input", schema.TARGET: "target", schema.AUDIT: "audit (withheld)",
             schema.BOOKKEEPING: "bookkeeping"}
    column_rows = [[f"`{c.name}`", _feature_text(c.feature), roles[c.role], c.description]
                   for c in schema.COLUMNS]
    return {
        "synthetic": synthetic,
        "counts": membership.counts(),
        "n_cases": table.num_rows,
        "membership_source": membership_source,
        "column_rows": column_rows,
        "input_columns": list(schema.INPUT_COLUMNS),
        "audit_columns": list(schema.AUDIT_COLUMNS),
        "composition_headers": ["dimension", "category", *groups, *view_masks],
        "composition_rows": composition,
        "target_headers": ["split / view", "n", "dates", "zero n", "zero %", "positive median €",
                           "positive p95 €", "max €"],
        "target_rows": target_rows,
        "tv_headers": ["view", *(DIMENSION_TITLES[d].split(" (")[0] for d in dims), "mean TV",
                       "court formation"],
        "tv_rows": tv_rows,
        "weights": [(DIMENSION_TITLES[d], f"{w:g}") for d, w in DIMENSION_WEIGHTS.items()],
        "zero_taxonomy": ZERO_AWARD_TAXONOMY,
        "citation": CITATION,
        "release_url": RELEASE_URL,
        "has_applicants": has_applicants,
    }


def _feature_text(feature: dict) -> str:
    """A short type name of a Hub feature (:mod:`courtbench.hub.features`): ``string``,
    ``ClassLabel(key_case, high, …)``, ``list<string>``."""
    if feature["_type"] == "ClassLabel":
        return "ClassLabel(" + ", ".join(feature["names"]) + ")"
    if feature["_type"] == "List":
        return f"list<{_feature_text(feature['feature'])}>"
    return feature["dtype"]
