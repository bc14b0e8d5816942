"""The synthetic SLDS stand-in: deterministic, three languages in each language's citation
style, headnotes that cite the decision's articles and considerations, calibrated shape."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest
import spacy

from slds.law_areas import is_valid_part
from slds.synthetic import LANGUAGE_SHARES, generate_wide_rows


@pytest.fixture(scope="module")
def rows():
    return generate_wide_rows(250, seed=11)


def test_deterministic_by_seed():
    assert generate_wide_rows(20, seed=11) == generate_wide_rows(20, seed=11)
    assert generate_wide_rows(20, seed=12) != generate_wide_rows(20, seed=11)


def test_labelled_synthetic_and_valid_references(rows):
    assert all(r["decision_id"].startswith("SYN-") for r in rows)
    assert all(r["url"].startswith("synthetic://") for r in rows)
    assert len({r["decision_id"] for r in rows}) == len(rows)
    assert all(is_valid_part(r["volume"], r["year"]) for r in rows)
    assert all(r["decision_id"].split("-")[1] == str(r["year"] - 1874) for r in rows)


def test_years_and_split_shape(rows):
    years = Counter(r["year"] for r in rows)
    assert min(years) >= 1954 and max(years) == 2024
    validation = [r for r in rows if r["year"] == 2022]
    test = [r for r in rows if r["year"] in (2023, 2024)]
    assert {r["decision_language"] for r in validation} == {"de", "fr", "it"}
    assert {r["decision_language"] for r in test} == {"de", "fr", "it"}
    assert len(validation) == 3 and len(test) == 4  # 201 / 304 of 20,431, scaled, ≥ 3


def test_language_mix(rows):
    counts = Counter(r["decision_language"] for r in rows)
    for language, share in LANGUAGE_SHARES.items():
        assert abs(counts[language] / len(rows) - share) < 0.08


STYLE = {"de": (r"Art\. \d+ Abs\. \d+ [A-Z]", r"\(E\. \d+(\.\d+)?\)", "Sachverhalt"),
         "fr": (r"art\. \d+ al\. \d+ [A-Z]", r"\(consid\. \d+(\.\d+)?\)", "Faits"),
         "it": (r"art\. \d+ cpv\. \d+ [A-Z]", r"\(consid\. \d+(\.\d+)?\)", "Fatti")}


def test_language_styles(rows):
    for row in rows[:60]:
        language = row["decision_language"]
        article, consideration, heading = STYLE[language]
        assert row["decision"].startswith(heading)
        assert re.search(r" 1\. ", row["decision"])  # numbered considerations
        for headnote_language, (h_article, h_consideration, _) in STYLE.items():
            headnote = row[f"headnote_{headnote_language}"]
            assert re.search(h_consideration, headnote)
            assert re.search(h_article, headnote, flags=re.IGNORECASE) or not re.search(
                article, row["decision"])


def test_headnotes_reuse_decision_wording_but_are_not_copied(rows):
    row = next(r for r in rows if r["decision_language"] == "de")
    headnote = row["headnote_de"]
    sentences = re.findall(r"((?:Die|Der|Das) [^,.;]+?), [^()]+ \(E\. ([\d.]+)\)\.", headnote)
    assert sentences
    for clause, label in sentences:
        assert " ".join(clause.split()[:2]) in row["decision"]  # the decision's subjects
        assert re.search(rf" {re.escape(label)}\.? ", row["decision"])  # cited consideration
    assert headnote not in row["decision"]


def test_calibration_with_spacy_tokens(rows):
    nlp = {x: spacy.blank(x) for x in ("de", "fr", "it")}
    sample = rows[:120]
    decision_tokens = np.array([len(nlp[r["decision_language"]].tokenizer(r["decision"]))
                                for r in sample])
    ratios = [decision_tokens[i] / len(nlp[x].tokenizer(r[f"headnote_{x}"]))
              for i, r in enumerate(sample) for x in ("de", "fr", "it")]
    assert 2971 * 0.8 < np.median(decision_tokens) < 2971 * 1.2
    assert decision_tokens.max() > 3 * np.median(decision_tokens)  # long tail
    assert 26 * 0.8 < np.mean(ratios) < 26 * 1.2


def test_too_few_decisions():
    with pytest.raises(ValueError, match="decisions=5: expected at least 7"):
        generate_wide_rows(5)
