"""Synthetic SLDS stand-in: wide rows in German, French and Italian, labelled synthetic.

Each decision has a facts part ("Sachverhalt" / "Faits" / "Fatti", paragraphs A., B., …)
and numbered considerations (1., 2., 2.1, …) made of sentences planned from the parallel
vocabulary in :mod:`slds.synthetic_vocabulary`, citing articles in each language's style
("Art. 8 Abs. 1 BV", "art. 8 al. 1 Cst.", "art. 8 cpv. 1 Cost.") and earlier considerations.
Its three headnotes open with the cited articles and a topic, then recombine subjects,
predicates, objects and continuations of the decision's own sentences into new sentences,
each citing the consideration it comes from ("(E. 2.1)", "(consid. 2.1)").

Calibration to the published SLDS shape (tokens as counted by spaCy blank tokenizers of the
text's language; generation budgets use the cheaper :func:`count_tokens` and convert with
:data:`BUDGET_PER_TOKEN` and :data:`HEADNOTE_FACTOR`):

- decision length: log-normal, median :data:`DECISION_MEDIAN_TOKENS` (2,971), σ 0.75,
  clipped to [400, 45,000] tokens (long right tail);
- compression ratio (decision / headnote tokens): log-normal around
  :data:`COMPRESSION_RATIO` (26), σ 0.3, mean over all rows ≈ 26; headnotes ≥ 25 tokens;
- decision language: DE 68 %, FR 27 %, IT 5 %;
- years: train 1954–2021 (uniform), validation 2022, test 2023–2024, with the published
  split proportions (:data:`PUBLISHED_SPLIT_DECISIONS`) scaled to the requested number of
  decisions; validation and test hold at least one decision per language.

Everything is drawn from one ``numpy.random.Generator(seed)``: same seed, same rows.
Decision ids start with ``SYN-`` and URLs with ``synthetic://``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from slds import synthetic_vocabulary as vocab
from slds.law_areas import PARTS_FROM_1995, PARTS_UNTIL_1994, volume_number
from slds.schema import LANGUAGES
from slds.splits import SplitBoundaries

DECISION_MEDIAN_TOKENS = 2971
DECISION_SIGMA = 0.75
DECISION_TOKEN_RANGE = (400, 45_000)
COMPRESSION_RATIO = 26.0
COMPRESSION_SIGMA = 0.3
MIN_HEADNOTE_TOKENS = 25
LANGUAGE_SHARES = {"de": 0.68, "fr": 0.27, "it": 0.05}
FIRST_YEAR = 1954
PUBLISHED_SPLIT_DECISIONS = {"train": 19_926, "validation": 201, "test": 304}
"""Decisions per split of the published SLDS: the de_* configs' 13,550 / 137 / 207 rows
(German decisions) divided by the German share 0.68."""

FACTS_SHARE = 0.2
SENTENCES_PER_CONSIDERATION = (4, 12)
PLAN_POOL_SIZE = 1_200
FACTS_POOL_SIZE = 600
PART_WEIGHTS_UNTIL_1994 = {"Ia": 0.22, "Ib": 0.2, "II": 0.2, "III": 0.08, "IV": 0.15, "V": 0.15}
PART_WEIGHTS_FROM_1995 = {"I": 0.14, "II": 0.3, "III": 0.24, "IV": 0.18, "V": 0.14}
BUDGET_PER_TOKEN = 1.04
"""Generation budget (regex tokens) per target token (spaCy blank tokenizer): the regex also
splits "Art.", "A.A." and elisions, which spaCy keeps whole. Calibrated on 2 × 1,000 decisions."""
HEADNOTE_FACTOR = 0.89
"""Headnote budget factor: headnotes are planned once and rendered in de, fr and it, whose
spaCy token counts differ (French and Italian run longer); this factor brings the mean
compression ratio over all nine pairs to ≈ 26. Calibrated on 2 × 1,000 decisions."""
LEAD_TOKENS_PER_ARTICLE = 7  # "Art. 8 Abs. 1 BV;"
TOPIC_TOKENS = 6
LABEL_TOKENS = 3  # "2.1" -> 2, 1 and the dot
CROSS_REFERENCE_TOKENS = 8
TOKEN = re.compile(r"\w+|[^\w\s]")


def count_tokens(text: str) -> int:
    """Number of word and punctuation tokens (``\\w+|[^\\w\\s]``) in ``text``."""
    return len(TOKEN.findall(text))


@dataclass(frozen=True)
class _Plan:
    """One body sentence as indices into the vocabulary (renders in all three languages)."""

    group: str
    subject: int
    predicate: int
    obj: int
    continuation: int
    article: tuple[int, int, int] | None  # (statute index, article number, paragraph)


def _article(group: str, article: tuple[int, int, int], lang: int) -> str:
    statute, number, paragraph = article
    law = vocab.STATUTES[group][statute][lang]
    return vocab.ARTICLE_FORMAT[lang].format(n=number, p=paragraph, law=law)


def _render(plan: _Plan, lang: int) -> str:
    text = (f"{vocab.SUBJECTS[plan.subject][lang]} {vocab.PREDICATES[plan.predicate][lang]} "
            f"{vocab.OBJECTS[plan.group][plan.obj][lang]}")
    if plan.article is not None:
        text += " " + vocab.ARTICLE_PHRASE[lang].format(article=_article(plan.group,
                                                                         plan.article, lang))
    return f"{text}, {vocab.CONTINUATIONS[plan.continuation][lang]}."


class _PlanPool:
    """Body-sentence plans of one vocabulary group, pre-rendered in the three languages."""

    def __init__(self, group: str, rng: np.random.Generator) -> None:
        self.group = group
        n = PLAN_POOL_SIZE
        statutes = len(vocab.STATUTES[group])
        has_article = rng.random(n) < 0.45
        self.plans = [
            _Plan(group, int(s), int(p), int(o), int(c),
                  (int(st), int(num), int(par)) if art else None)
            for s, p, o, c, art, st, num, par in zip(
                rng.integers(len(vocab.SUBJECTS), size=n),
                rng.integers(len(vocab.PREDICATES), size=n),
                rng.integers(len(vocab.OBJECTS[group]), size=n),
                rng.integers(len(vocab.CONTINUATIONS), size=n),
                has_article, rng.integers(statutes, size=n), rng.integers(1, 400, size=n),
                rng.integers(1, 5, size=n), strict=True)
        ]
        self.text = [[_render(plan, lang) for plan in self.plans] for lang in range(3)]
        self.tokens = [np.array([count_tokens(t) for t in texts]) for texts in self.text]


def _allocate_splits(n: int) -> list[int]:
    """Decisions per split (train, validation, test) for ``n`` decisions."""
    total = sum(PUBLISHED_SPLIT_DECISIONS.values())
    validation = max(3, round(n * PUBLISHED_SPLIT_DECISIONS["validation"] / total))
    test = max(3, round(n * PUBLISHED_SPLIT_DECISIONS["test"] / total))
    if n < validation + test + 1:
        raise ValueError(f"decisions={n}: expected at least {validation + test + 1} so that "
                         "train, validation and test each get decisions in every language")
    return [n - validation - test, validation, test]


def _languages(count: int, rng: np.random.Generator, *, cover_all: bool) -> list[str]:
    drawn = list(rng.choice(LANGUAGES, size=count, p=[LANGUAGE_SHARES[x] for x in LANGUAGES]))
    if cover_all:
        drawn[:3] = LANGUAGES  # validation/test: every language present (one-shot per pair)
    return [str(x) for x in drawn]


def _part(year: int, rng: np.random.Generator) -> str:
    weights = PART_WEIGHTS_FROM_1995 if year >= 1995 else PART_WEIGHTS_UNTIL_1994
    parts = list(weights)
    return str(parts[rng.choice(len(parts), p=list(weights.values()))])


class SyntheticGenerator:
    """Draws synthetic wide rows; one instance per seed (see :func:`generate_wide_rows`)."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.pools = {group: _PlanPool(group, self.rng) for group in vocab.OBJECTS}
        self.facts_text, self.facts_tokens = self._facts_pool()

    def _facts_pool(self) -> tuple[list[list[str]], list[np.ndarray]]:
        """Facts sentences per language with a ``{y}`` slot for the year (one token)."""
        rng = self.rng
        n = FACTS_POOL_SIZE
        months = [m.split() for m in vocab.MONTHS]
        draws = zip(rng.integers(len(vocab.FILINGS), size=n), rng.integers(len(vocab.COURTS), size=n),
                    rng.integers(len(vocab.PARTIES), size=n), rng.integers(1, 29, size=n),
                    rng.integers(12, size=n), rng.integers(1, 6, size=n), strict=True)
        texts: list[list[str]] = [[], [], []]
        for filing, court, party, day, month, years_before in draws:
            for lang in range(3):
                rest = vocab.FILINGS[filing][lang].format(party=vocab.PARTIES[party],
                                                          court=vocab.COURTS[court][lang])
                texts[lang].append(vocab.DATE_FORMAT[lang].format(
                    d=day, m=months[lang][month], y=f"{{y{years_before}}}", rest=rest))
        tokens = [np.array([count_tokens(t.replace("{y", "").replace("}", "")) for t in texts[lang]])
                  for lang in range(3)]
        return texts, tokens

    def _facts(self, lang_index: int, year: int, budget: int) -> list[str]:
        """Paragraphs A., B., … of dated filings, about ``budget`` tokens, before ``year``."""
        rng = self.rng
        tokens = self.facts_tokens[lang_index]
        estimate = int(budget / max(1.0, float(tokens.mean()))) + 2
        indices = rng.integers(len(tokens), size=estimate)
        indices = indices[: int(np.searchsorted(np.cumsum(tokens[indices]), budget)) + 1]
        sizes = rng.integers(2, 6, size=len(indices))  # sentences per paragraph
        years = {f"y{k}": year - k for k in range(1, 6)}
        out: list[str] = []
        position = paragraph = 0
        while position < len(indices):
            out.append(f"{chr(ord('A') + paragraph % 26)}.")
            for index in indices[position:position + int(sizes[paragraph])]:
                out.append(self.facts_text[lang_index][index].format(**years))
            position += int(sizes[paragraph])
            paragraph += 1
        return out

    def _considerations(self, pools: list[_PlanPool], lang_index: int, year: int,
                        budget: int) -> tuple[list[str], list[tuple[_PlanPool, int, str]]]:
        """Return the considerations' text pieces and (pool, plan index, label) per sentence."""
        rng = self.rng
        pieces: list[str] = [vocab.CONSIDERATIONS_HEADING[lang_index] + ":"]
        used_plans: list[tuple[_PlanPool, int, str]] = []
        used = 0
        main, sub = 1, 0
        labels: list[str] = []
        while used < budget:
            label = f"{main}.{sub}" if sub else f"{main}."
            pieces.append(label)
            label = label.rstrip(".")
            labels.append(label)
            pool = pools[int(rng.integers(len(pools)))]
            count = int(rng.integers(*SENTENCES_PER_CONSIDERATION))
            indices = rng.integers(len(pool.plans), size=count)
            sizes = np.cumsum(pool.tokens[lang_index][indices]) + used + LABEL_TOKENS
            indices = indices[: int(np.searchsorted(sizes, budget)) + 1]  # stop at the budget
            for index in indices:
                pieces.append(pool.text[lang_index][index])
                used_plans.append((pool, int(index), label))
            used += int(pool.tokens[lang_index][indices].sum()) + LABEL_TOKENS
            if used >= budget:
                break
            if len(labels) > 1 and rng.random() < 0.3:
                earlier = labels[int(rng.integers(len(labels) - 1))]
                pieces.append(vocab.CROSS_REFERENCE[lang_index].format(c=earlier))
                used += CROSS_REFERENCE_TOKENS
            if rng.random() < 0.35:
                cited_year = int(rng.integers(FIRST_YEAR, year + 1))
                citation = vocab.CASE_CITATION[lang_index].format(
                    v=volume_number(cited_year), part=_part(cited_year, rng),
                    page=int(rng.integers(1, 700)), c=f"{int(rng.integers(1, 8))}.{int(rng.integers(1, 5))}")
                pieces.append(citation)
                used += count_tokens(citation)
            if rng.random() < (0.6 if sub else 0.7):
                sub += 1
            else:
                main, sub = main + 1, 0
        return pieces, used_plans

    def _headnotes(self, used_plans: list[tuple[_PlanPool, int, str]], target: int
                   ) -> list[str]:
        """The decision's headnotes in de, fr, it: one plan rendered in the three languages
        (the official headnotes are translations of each other)."""
        rng = self.rng
        cited = [(pool, pool.plans[i].article) for pool, i, _ in used_plans
                 if pool.plans[i].article is not None][: int(rng.integers(1, 4))]
        first_pool, first_index, _ = used_plans[0]
        topic_head = int(rng.integers(len(vocab.TOPIC_HEADS)))
        topic_object = first_pool.plans[first_index].obj
        sentences: list[tuple[_Plan, str]] = []
        used = LEAD_TOKENS_PER_ARTICLE * len(cited) + TOPIC_TOKENS
        while used < target or not sentences:  # at least one sentence citing a consideration
            a, b, c = (used_plans[int(i)] for i in rng.integers(len(used_plans), size=3))
            plan_a = a[0].plans[a[1]]
            plan = _Plan(a[0].group, plan_a.subject, b[0].plans[b[1]].predicate, plan_a.obj,
                         c[0].plans[c[1]].continuation, None)
            sentences.append((plan, a[2]))
            used += int(a[0].tokens[0][a[1]]) + 4  # a sentence's size plus "(E. x.y)"
        headnotes = []
        for lang in range(3):
            articles = [_article(pool.group, article, lang) for pool, article in cited]
            lead = "; ".join(a[0].upper() + a[1:] for a in articles)
            topic = (f"{vocab.TOPIC_HEADS[topic_head][lang]} "
                     f"{vocab.OBJECTS[first_pool.group][topic_object][lang]}.")
            prefix = vocab.CONSIDERATION_PREFIX[lang]
            parts = [f"{lead}; {topic}" if lead else topic]
            parts.extend(_render(plan, lang)[:-1] + f" ({prefix} {label})."
                         for plan, label in sentences)
            headnotes.append(" ".join(parts))
        return headnotes

    def decision(self, year: int, language: str, part: str, page: int) -> dict[str, Any]:
        """One wide row (decision, three headnotes, metadata): BGE ``year``, ``part``, page."""
        rng = self.rng
        lang_index = LANGUAGES.index(language)
        area = (PARTS_FROM_1995 if year >= 1995 else PARTS_UNTIL_1994)[part]
        pools = [self.pools[g] for g in vocab.AREA_GROUPS[area]]
        low, high = DECISION_TOKEN_RANGE
        tokens = int(np.clip(rng.lognormal(np.log(DECISION_MEDIAN_TOKENS), DECISION_SIGMA),
                             low, high) * BUDGET_PER_TOKEN)
        ratio = float(rng.lognormal(np.log(COMPRESSION_RATIO), COMPRESSION_SIGMA))
        heading = vocab.FACTS_HEADING[lang_index].format(page=page + 1)
        reference = f"{volume_number(year)}-{part}-{page}"
        facts = self._facts(lang_index, year, int(tokens * FACTS_SHARE))
        considerations, used_plans = self._considerations(
            pools, lang_index, year, tokens - int(tokens * FACTS_SHARE))
        headnote_tokens = max(MIN_HEADNOTE_TOKENS, round(tokens / ratio * HEADNOTE_FACTOR))
        row: dict[str, Any] = {
            "decision_id": f"SYN-{reference}",
            "decision": " ".join([heading, *facts, *considerations]),
            "decision_language": language,
        }
        headnotes = self._headnotes(used_plans, headnote_tokens)
        for headnote_language, headnote in zip(LANGUAGES, headnotes, strict=True):
            row[f"headnote_{headnote_language}"] = headnote
        row.update(law_area=None, year=year, volume=part,
                   url=f"synthetic://slds/{reference}")
        return row


def generate_wide_rows(decisions: int, *, seed: int = 0,
                       boundaries: SplitBoundaries | None = None) -> list[dict[str, Any]]:
    """:func:`iter_wide_rows` as a list."""
    return list(iter_wide_rows(decisions, seed=seed, boundaries=boundaries))


def iter_wide_rows(decisions: int, *, seed: int = 0,
                   boundaries: SplitBoundaries | None = None) -> Iterator[dict[str, Any]]:
    """Yield ``decisions`` synthetic wide rows one by one, deterministic in ``seed``.

    Args:
        decisions: number of decisions (≥ 7: train plus ≥ 3 validation and ≥ 3 test).
        seed: seed of the single random generator.
        boundaries: split years; validation decisions get the validation years, test
            decisions the test years (defaults: 2022 and 2023–2024).

    Returns:
        Wide rows: decision_id, decision, decision_language, headnote_de, headnote_fr,
        headnote_it, law_area (``None``: derived from part and year), year, volume (part),
        url — ready for :func:`slds.readers.wide.melt_wide_records`.
    """
    bounds = boundaries or SplitBoundaries()
    generator = SyntheticGenerator(seed)
    rng = generator.rng
    n_train, n_validation, n_test = _allocate_splits(decisions)
    years = (
        list(rng.integers(FIRST_YEAR, bounds.last_train_year + 1, size=n_train))
        + list(rng.integers(bounds.last_train_year + 1, bounds.last_validation_year + 1,
                            size=n_validation))
        + list(rng.integers(bounds.last_validation_year + 1, bounds.last_test_year + 1,
                            size=n_test))
    )
    languages = (_languages(n_train, rng, cover_all=False)
                 + _languages(n_validation, rng, cover_all=True)
                 + _languages(n_test, rng, cover_all=True))
    pages: dict[tuple[int, str], int] = {}
    for year, language in zip(years, languages, strict=True):
        part = _part(int(year), rng)
        # Pages run on within a (volume, part): unique, BGE-like references.
        page = pages.get((int(year), part), 1)
        pages[(int(year), part)] = page + int(rng.integers(5, 20))
        yield generator.decision(int(year), language, part, page)
