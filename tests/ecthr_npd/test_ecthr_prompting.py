"""ECtHR-NPD prompted prediction, offline parts: serialisation, prompts, references, parser,
output files. The command against a scripted endpoint is in test_ecthr_predict_cli.py."""

from __future__ import annotations

import datetime as dt
import errno
import json
import math
import os
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from courtbench.errors import CourtbenchError
from ecthr_npd import schema
from ecthr_npd.data import from_canonical
from ecthr_npd.prompting import few_shot_retrieval, outputs, parsing, prompts, serialise
from ecthr_npd.prompting.run import collect
from ecthr_npd.reader import read_case_level
from ecthr_npd.synthetic import write_synthetic

SNAPSHOTS = Path(__file__).parents[1] / "snapshots"
UPDATE_SNAPSHOTS = os.environ.get("COURTBENCH_UPDATE_SNAPSHOTS") == "1"

# One fixed case (label columns as the tables hold them: indices) and two references.
FIXED_CASE = {
    "judgment_date": dt.date(2021, 3, 16),
    "respondent_state": "Turkey",
    "court_formation": 1,  # Committee
    "case_importance": 3,  # low
    "violated_articles": ["P1-1", "6", "13"],
    "violated_articles_count": 3,
    "num_violations_found": 4,
    "violation_type": 1,  # procedural
    "violation_duration_months": 87.5,
    "has_mixed_outcome": False,
    "has_separate_opinion": None,
    "represented": True,
    "num_applicants": 3,
    "hudoc_application_count": 2,
    "applicant_sex": ["male", "female"],
    "applicant_age_group": ["adult"],
    "applicant_birth_years": [1961, 1958, None],
    "applicant_nationality_scope": 0,  # single
    "gdp_per_capita_current_usd": 9586.6,
    "gdp_constant_2015_usd": 1.0324e12,
}
REFERENCE_CASE = {**FIXED_CASE, "judgment_date": dt.date(2017, 5, 2),
                  "violated_articles": ["6"], "violated_articles_count": 1,
                  "num_violations_found": 1, "num_applicants": 1,
                  "hudoc_application_count": 1, "applicant_sex": ["male"],
                  "applicant_birth_years": [1970], "violation_duration_months": None}
FIXED_REFERENCES = (prompts.ReferenceCase(REFERENCE_CASE, 3600.0),
                    prompts.ReferenceCase({**REFERENCE_CASE, "court_formation": 0}, 0.0))


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """A synthetic release of 1,200 cases (the canonical table and its splits)."""
    path = write_synthetic(tmp_path_factory.mktemp("ecthr") / "case_level.csv", n=1200, seed=5)
    table = read_case_level(path)
    return table, from_canonical(table, source=str(path))


# --- serialisation -----------------------------------------------------------------------

def test_fields_cover_exactly_the_permitted_inputs():
    serialised = set(serialise.SERIALISED_COLUMNS)
    omitted = set(serialise.OMITTED)
    assert serialised.isdisjoint(omitted)
    assert serialised | omitted == set(schema.INPUT_COLUMNS)
    assert all(source in serialised for source in serialise.OMITTED.values())
    assert len({f.label for f in serialise.FIELDS}) == len(serialise.FIELDS)


def test_fixed_case_lines():
    assert serialise.case_lines(FIXED_CASE) == [
        "Judgment date: 2021-03-16",
        "Respondent state: Turkey",
        "Court formation: Committee",
        "Case importance (HUDOC): low",
        "Violated articles: Article 6; Article 13; Article 1 of Protocol No. 1",
        "Number of distinct violated articles: 3",
        "Number of violations found: 4",
        "Violation type: procedural",
        "Duration of the violation: 87.5 months",
        "Some complaints found not violated: no",
        "Separate opinion: unknown",
        "Applicant(s) legally represented: yes",
        "Number of applicants: 3",
        "Number of applications: 2",
        "Applicant sex: female, male",
        "Applicant age group: adult",
        "Applicant birth years: 1958, 1961",
        "Applicant nationalities: single",
        "Respondent state's GDP per capita in the judgment year (current USD): USD 9,587",
        "Respondent state's GDP in the judgment year (constant 2015 USD): USD 1,032.4 billion",
    ]


def test_articles_in_convention_order_and_many_birth_years():
    codes = ["P12-1", "P1-3", "10", "3", "P1-1", "6"]
    assert sorted(codes, key=serialise.article_key) == ["3", "6", "10", "P1-1", "P1-3", "P12-1"]
    record = {**FIXED_CASE, "applicant_birth_years": list(range(1950, 1970)),
              "violated_articles": [], "applicant_sex": [None]}
    text = serialise.serialise_case(record)
    assert "Applicant birth years: 1950–1969 (20 known)" in text
    assert "Violated articles: unknown" in text
    assert "Applicant sex: unknown" in text


def test_serialised_tables_read_labels_by_index(data):
    _, benchmark = data
    records = serialise.case_records(benchmark.splits["test"])
    assert len(records) == benchmark.splits["test"].num_rows
    formations = set(schema.COURT_FORMATIONS)
    for record in records[:50]:
        line = serialise.case_lines(record)[2]
        assert line.removeprefix("Court formation: ") in formations


def planted_sentinels(table: pa.Table, keep: tuple[str, ...] = ()) -> pa.Table:
    """``table`` with a unique sentinel in every column a prompt must never show: every
    non-input column but ``split``, ``judgment_date`` and ``keep``. Train keeps its awards
    (few-shot references show them); held-out cases get award sentinels."""
    split_codes = table.column("split").to_numpy()
    planted = table
    for name in schema.HEADER:
        if name in schema.INPUT_COLUMNS or name in ("split", "judgment_date", *keep):
            continue
        if name == schema.TARGET_COLUMN:
            values = [float(v) if split_codes[i] == 0 else 913_579_000.0 + 1000.0 * i
                      for i, v in enumerate(table.column(name).to_pylist())]
            column = pa.array(values, pa.float64())
        else:
            values = [f"SENTINEL-{name}-{i:05d}" for i in range(table.num_rows)]
            column = pa.array(values, pa.string())
        planted = planted.set_column(planted.column_names.index(name), name, column)
    return planted


def test_no_audit_target_or_bookkeeping_value_reaches_a_prompt(data):
    """Plant a unique sentinel in every non-input column (audit, bookkeeping, target of the
    predicted cases) of tables that hold every release column, render every prompt kind for
    every predicted case, and search the text for every sentinel."""
    table, _ = data
    split_codes = table.column("split").to_numpy()
    # the case ids are bookkeeping: they are planted too (and used as sentinels)
    planted = planted_sentinels(table)
    benchmark = from_canonical(table)
    benchmark.splits = {split: planted.filter(pa.array(split_codes == code))
                        for code, split in enumerate(schema.SPLITS)}
    texts = []
    train = benchmark.splits["train"]
    train_records = serialise.case_records(train)
    index = few_shot_retrieval.ReferenceIndex(train, 5)
    for split in ("validation", "test"):
        held_out = benchmark.splits[split]
        records = serialise.case_records(held_out)
        chosen = index.references(held_out)
        for record, refs in zip(records, chosen, strict=True):
            for kind in prompts.PROMPT_KINDS:
                shown = ([prompts.ReferenceCase(train_records[r.row], r.award_eur) for r in refs]
                         if kind == "few_shot" else [])
                texts.extend(m["content"] for m in prompts.render_messages(kind, record, shown))
    assert len(texts) == 2 * 3 * sum(benchmark.splits[s].num_rows for s in ("validation", "test"))
    corpus = "\n".join(texts)
    assert "SENTINEL" not in corpus
    # the held-out awards 913,579,000 ... 914,779,000, in any spelling
    assert re.search(r"91[34][,.\u00a0 ]?\d{3}[,.\u00a0 ]?\d{3}", corpus) is None


# --- prompts -----------------------------------------------------------------------------

def _snapshot_text(messages) -> str:
    return "".join(f"[{m['role']}]\n{m['content']}\n\n" for m in messages)


@pytest.mark.parametrize("kind", prompts.PROMPT_KINDS)
def test_rendered_prompt_snapshot(kind):
    shown = FIXED_REFERENCES if kind == "few_shot" else ()
    text = _snapshot_text(prompts.render_messages(kind, FIXED_CASE, shown))
    path = SNAPSHOTS / f"ecthr_npd_prompt_{kind}.txt"
    if UPDATE_SNAPSHOTS:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def test_prompt_contents_and_hashes():
    zero = prompts.render_messages("zero_shot", FIXED_CASE)[1]["content"]
    cot = prompts.render_messages("cot", FIXED_CASE)[1]["content"]
    few = prompts.render_messages("few_shot", FIXED_CASE, FIXED_REFERENCES)[1]["content"]
    case_text = serialise.serialise_case(FIXED_CASE)
    for text in (zero, cot, few):
        assert case_text in text and '{"award_eur": <number>}' in text
    assert "step" not in zero.lower()
    for step in ("Case factors", "Could the award be zero", "Damage assessment",
                 "Applicant aggregation", "Calibration", "Never sum", "never multiply",
                 "brief rationale"):
        assert step in cot and step in few
    assert "Reference" not in cot
    assert few.index("Reference 1:") < few.index("Reference 2:") < few.index("Case:\n")
    assert "Award for non-pecuniary damage: EUR 3,600" in few
    assert "Award for non-pecuniary damage: EUR 0" in few
    assert prompts.render_messages("few_shot", FIXED_CASE)[1]["content"] == cot
    with pytest.raises(ValueError, match="takes no references"):
        prompts.render_messages("cot", FIXED_CASE, FIXED_REFERENCES)
    with pytest.raises(ValueError, match="prompt kind"):
        prompts.render_messages("two_shot", FIXED_CASE)
    hashes = prompts.template_hashes("few_shot")
    assert set(hashes) == {"system.txt", "cot.jinja"}
    assert all(len(h) == 64 for h in hashes.values())
    assert prompts.template_hashes("zero_shot")["system.txt"] == hashes["system.txt"]
    assert prompts.format_eur(1234.5) == "EUR 1,234.50"


# --- few-shot references -------------------------------------------------------------------

def _band(count):
    if count is None:
        return None
    return next(name for low, high, name in ((1, 1, "1"), (2, 5, "2-5"), (6, 20, "6-20"),
                                             (21, 100, "21-100"), (101, None, ">100"))
                if count >= low and (high is None or count <= high))


def reference_ranking(pool: list[dict], target: dict) -> list[int]:
    """A plain re-implementation of Appendix C.6's ranking: eligible pool rows (strictly
    earlier, sharing an article, not the target) sorted by exact article set, Jaccard, same
    state, violation type, applicant band, formation, importance, recency, pool order."""
    codes = {c for c in target["violated_articles"] or () if c is not None}
    keyed = []
    for row, case in enumerate(pool):
        theirs = {c for c in case["violated_articles"] or () if c is not None}
        shared = codes & theirs
        if not shared or case["judgment_date"] >= target["judgment_date"] \
                or case["case_id"] == target["case_id"]:
            continue
        same = [case[c] == target[c] for c in ("respondent_state", "violation_type")]
        same.append(_band(case["hudoc_application_count"])
                    == _band(target["hudoc_application_count"]))
        same += [case[c] == target[c] for c in ("court_formation", "case_importance")]
        keyed.append(((theirs != codes, -round(len(shared) / len(codes | theirs), 9),
                       *(not s for s in same), -case["judgment_date"].toordinal(), row), row))
    return [row for _, row in sorted(keyed)]


def expected_selection(order: list[int], awards, k: int) -> list[int]:
    positives = [row for row in order if awards[row] != 0]
    zeros = [row for row in order if awards[row] == 0]
    if k == 1:
        return (positives or zeros)[:1]
    chosen = set(positives[:k - 1] + zeros[:1]) if zeros else set(positives[:k])
    return [row for row in order if row in chosen]


def test_references_follow_appendix_c6(data):
    _, benchmark = data
    train, test = benchmark.splits["train"], benchmark.splits["test"]
    pool = train.select(["case_id", *schema.INPUT_COLUMNS]).to_pylist()
    targets = test.select(["case_id", *schema.INPUT_COLUMNS]).to_pylist()
    awards = benchmark.target("train")
    for k in (1, 3, 5):
        chosen = few_shot_retrieval.retrieve_references(train, test, k)
        zero_counts = []
        for target, refs in zip(targets, chosen, strict=True):
            order = reference_ranking(pool, target)
            assert [r.row for r in refs] == expected_selection(order, awards, k)
            assert [r.award_eur for r in refs] == [awards[r.row] for r in refs]
            assert [r.rank for r in refs] == sorted(order.index(r.row) for r in refs)
            zero_counts.append(sum(r.award_eur == 0 for r in refs))
        assert max(zero_counts) <= 1  # exactly one zero-award reference, never more
        if k > 1:
            assert sum(zero_counts) > len(targets) / 2


@settings(max_examples=60, deadline=None)
@given(st.lists(st.booleans(), min_size=0, max_size=12), st.integers(1, 7))
def test_selection_keeps_exactly_one_zero(zero_flags, k):
    order = np.arange(len(zero_flags))
    zero = np.asarray(zero_flags, dtype=bool)
    picked = few_shot_retrieval.select(order, zero, k)
    rows = [row for _, row in picked]
    assert rows == sorted(rows) and len(rows) <= k
    awards = np.where(zero, 0.0, 1.0)
    assert rows == expected_selection(list(order), awards, k)
    if k > 1 and zero.any():
        assert sum(zero[rows]) == 1
    assert sum(zero[rows]) <= 1 or not (~zero).any() and k == 1


def test_reference_rules_on_a_handmade_pool(data):
    _, benchmark = data
    train = benchmark.splits["train"].slice(0, 40)
    n = train.num_rows
    pool = train.set_column(train.column_names.index("violated_articles"), "violated_articles",
                            pa.array([["6"]] * n, pa.list_(pa.string())))
    target = pool.slice(0, 1)
    target = target.set_column(target.column_names.index("judgment_date"), "judgment_date",
                               pa.array([dt.date(2100, 1, 1)], pa.date32()))
    target = target.set_column(0, schema.ID_COLUMN, pa.array(["999-99999"]))

    def with_awards(awards):
        return pool.set_column(pool.column_names.index(schema.TARGET_COLUMN),
                               schema.TARGET_COLUMN, pa.array(awards, pa.float64()))

    ranking = few_shot_retrieval.retrieve_references(with_awards(np.full(n, 5000.0)), target, n)[0]
    assert len(ranking) == n and [r.rank for r in ranking] == list(range(n))
    awards = np.full(n, 5000.0)
    awards[[ranking[-1].row, ranking[-2].row]] = 0.0  # the two least similar are zero awards
    three = few_shot_retrieval.retrieve_references(with_awards(awards), target, 3)[0]
    assert [r.row for r in three] == [ranking[0].row, ranking[1].row, ranking[-2].row]
    assert [r.award_eur for r in three] == [5000.0, 5000.0, 0.0]
    early = target.set_column(target.column_names.index("judgment_date"), "judgment_date",
                              pa.array([dt.date(1900, 1, 1)], pa.date32()))
    assert few_shot_retrieval.retrieve_references(with_awards(awards), early, 3) == [[]]
    with pytest.raises(ValueError, match="k=0"):
        few_shot_retrieval.retrieve_references(pool, target, 0)


@pytest.mark.realdata
def test_real_prompts_carry_at_most_one_zero_reference(shared_data):
    """Before Appendix C.6's rule, 1,760 of the release's 4,358 few-shot prompts carried more
    than one zero-award reference; now none does, and every prompt with an eligible zero-award
    case has exactly one."""
    benchmark = from_canonical(read_case_level(shared_data / "ecthr_npd" / "case_level.csv"))
    index = few_shot_retrieval.ReferenceIndex(benchmark.splits["train"], 5)
    chosen = (index.references(benchmark.splits["validation"])
              + index.references(benchmark.splits["test"]))
    zeros = [sum(r.award_eur == 0 for r in refs) for refs in chosen]
    assert len(chosen) == 4358 and max(zeros) == 1
    assert sum(z == 1 for z in zeros) >= 4300


# --- parser --------------------------------------------------------------------------------

@pytest.mark.parametrize("answer, value, method", [
    ('{"award_eur": 12000}', 12000.0, "json"),
    ('Steps...\n```json\n{"award_eur": 7500.5}\n```', 7500.5, "json"),
    ('{"award_eur": 100} then revised: {"award_eur": 250}', 250.0, "json"),
    ('{"award_eur": "EUR 3,000"}', 3000.0, "json"),
    ('{"award_eur": "4 500 euros."}', 4500.0, "json"),
    ('{"award_eur": 0}', 0.0, "json"),
    ("{'award_eur': 4000,}", 4000.0, "key"),
    ('{"award_eur": 9000', 9000.0, "key"),
    ("The award would be EUR 12,000.", 12000.0, "currency"),
    ("12 000 €", 12000.0, "currency"),
    ("12\u00a0000 €", 12000.0, "currency"),
    ("€12k", 12000.0, "currency"),
    ("EUR 1.5 million", 1.5e6, "currency"),
    ("EUR 1.125 million", 1.125e6, "currency"),
    ("EUR 1,125 million", 1.125e9, "currency"),
    ("1.234,5 euros", 1234.5, "currency"),
    ("EUR 12.000", 12000.0, "currency"),
    ("between EUR 2,000 and EUR 3,500", 3500.0, "currency"),
    ("a range of 5,000-10,000 EUR", 10000.0, "currency"),
    ("In 2019 the Court awarded 6,500 euros", 6500.0, "currency"),
    ("12000", 12000.0, "bare"),
    ("0.", 0.0, "bare"),
])
def test_parser_examples(answer, value, method):
    parsed = parsing.parse_award(answer)
    assert (parsed.value, parsed.method, parsed.error) == (value, method, None)


@pytest.mark.parametrize("answer, error", [
    (None, "empty answer"),
    ("   ", "empty answer"),
    ('{"award_eur": -5}', "negative"),
    ('{"award_eur": NaN}', "not finite"),
    ('{"award_eur": Infinity}', "not finite"),
    ('{"award_eur": 1e400}', "not finite"),
    ('{"award_eur": null}', "null"),
    ('{"award_eur": true}', "true"),
    ('{"award_eur": "a lot"}', "string"),
    ('{"award_eur": "EUR 3,000 to 5,000"}', "string"),
    ('{"award_eur": "-EUR 300"}', "negative"),
    ('{"award_eur": [1]}', "list"),
    ("-€500", "negative"),
    ("EUR -500", "negative"),
    ("award_eur: -3", "negative"),
    ("I cannot predict this award.", "no award_eur JSON object"),
    ("Article 6 was violated in 3 ways", "no award_eur JSON object"),
])
def test_parser_failures(answer, error):
    parsed = parsing.parse_award(answer)
    assert parsed.value is None and error in parsed.error


FILLER = st.text(st.characters(blacklist_characters="{}0123456789€", blacklist_categories=("Cs", "Nd")),
                 max_size=60).filter(lambda t: "eur" not in t.lower() and "award" not in t.lower())


@settings(max_examples=100, deadline=None)
@given(value=st.floats(min_value=0, max_value=1e12, allow_nan=False), before=FILLER,
       after=FILLER)
def test_json_object_round_trips_inside_text(value, before, after):
    answer = before + json.dumps({"award_eur": value}) + after
    parsed = parsing.parse_award(answer)
    assert parsed.value == value and parsed.method == "json"
    assert parsed.rationale == (before + after).strip() or "```" in before + after


GROUPINGS = {",": ",", ".": ".", " ": " ", "nbsp": "\u00a0", "'": "'"}


def _grouped(n: int, separator: str) -> str:
    return f"{n:,}".replace(",", separator)


@settings(max_examples=100, deadline=None)
@given(n=st.integers(min_value=0, max_value=10**12),
       separator=st.sampled_from(sorted(GROUPINGS.values())),
       style=st.sampled_from(["EUR {}", "{} EUR", "€{}", "{} €", "{} euros", "EUR{}"]),
       before=FILLER)
def test_currency_amounts_with_any_thousands_separator(n, separator, style, before):
    answer = before + " " + style.format(_grouped(n, separator))
    parsed = parsing.parse_award(answer)
    assert parsed.value == float(n) and parsed.method == "currency"


@settings(max_examples=100, deadline=None)
@given(n=st.integers(min_value=1, max_value=999), scale=st.sampled_from(
    [("k", 1e3), ("K", 1e3), (" thousand", 1e3), ("m", 1e6), (" million", 1e6)]))
def test_scaled_amounts(n, scale):
    word, factor = scale
    assert parsing.parse_award(f"€{n}{word}").value == n * factor


@settings(max_examples=100, deadline=None)
@given(n=st.integers(min_value=1, max_value=10**9), style=st.sampled_from(
    ["-€{}", "−EUR {}", "EUR -{}", "-{} EUR", '{{"award_eur": -{}}}', "award_eur = -{}"]))
def test_negative_amounts_fail(n, style):
    parsed = parsing.parse_award(style.format(n))
    assert parsed.value is None and "negative" in parsed.error


@settings(max_examples=150, deadline=None)
@given(answer=st.text(max_size=200))
def test_parser_never_raises_and_returns_a_valid_award_or_a_reason(answer):
    parsed = parsing.parse_award(answer)
    if parsed.value is None:
        assert parsed.error
    else:
        assert math.isfinite(parsed.value) and parsed.value >= 0 and parsed.error is None
        assert parsed.method in parsing.METHODS


# --- output files --------------------------------------------------------------------------

def test_outputs_refuse_foreign_files_and_replace_their_own(tmp_path):
    paths = outputs.OutputPaths.for_out(tmp_path / "preds" / "llm.csv")
    assert paths.responses.name == "llm.responses.jsonl"
    assert paths.manifest.name == "llm.csv.manifest.json"
    assert paths.default_cache.name == "llm.cache.sqlite"
    outputs.check_replaceable(paths)  # nothing there yet
    outputs.write_outputs(paths, predictions=outputs.predictions_csv([("001-1", 5.0)]),
                          responses=outputs.jsonl([{"case_id": "001-1"}]), manifest={"x": 1})
    assert paths.predictions.read_text() == "case_id,prediction\n001-1,5.0\n"
    manifest = json.loads(paths.manifest.read_text())
    assert manifest["courtbench_output"]["kind"] == outputs.KIND
    assert manifest["courtbench_output"]["file"] == "llm.csv"
    assert manifest["responses"]["file"] == "llm.responses.jsonl" and manifest["x"] == 1
    outputs.check_replaceable(paths)  # ours: may be replaced
    assert sorted(p.name for p in paths.predictions.parent.iterdir()) == [
        "llm.csv", "llm.csv.manifest.json", "llm.responses.jsonl"]  # no temporary file left
    paths.responses.write_text("edited by hand\n")  # changed since: no longer replaced
    with pytest.raises(CourtbenchError, match="llm.responses.jsonl exists and was not written"):
        outputs.check_replaceable(paths)
    outputs.check_replaceable(paths, overwrite=True)

    foreign = outputs.OutputPaths.for_out(tmp_path / "mine.csv")
    foreign.predictions.write_text("my data\n")
    with pytest.raises(CourtbenchError, match="mine.csv: the file exists and was not written"):
        outputs.check_replaceable(foreign)
    foreign.predictions.unlink()
    foreign.manifest.write_text(json.dumps({"command": "something else"}))
    with pytest.raises(CourtbenchError, match="mine.csv.manifest.json exists and was not written"):
        outputs.check_replaceable(foreign)
    foreign.manifest.unlink()
    foreign.responses.write_text("my notes\n")
    with pytest.raises(CourtbenchError, match="mine.responses.jsonl exists"):
        outputs.check_replaceable(foreign)
    cache = tmp_path / "cache.csv"
    with pytest.raises(CourtbenchError, match="input"):
        outputs.check_replaceable(outputs.OutputPaths.for_out(cache), inputs=[cache])
    for bad in ("preds/llm.jsonl", "preds/llm"):
        with pytest.raises(CourtbenchError, match="ending in .csv"):
            outputs.OutputPaths.for_out(tmp_path / bad)


def test_an_interrupted_write_keeps_the_previous_files(tmp_path, monkeypatch):
    paths = outputs.OutputPaths.for_out(tmp_path / "llm.csv")
    outputs.write_outputs(paths, predictions="old\n", responses="old\n", manifest={})
    before = {p: p.read_bytes() for p in paths.all()}

    def broken(*_args, **_kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    import courtbench.output_files as output_files
    monkeypatch.setattr(output_files, "_write_bytes", broken)
    with pytest.raises(CourtbenchError, match=r"llm.responses.jsonl: no space left .* bytes needed"):
        outputs.write_outputs(paths, predictions="new\n", responses="new\n", manifest={})
    assert {p: p.read_bytes() for p in paths.all()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in paths.all())


# --- collecting answers ----------------------------------------------------------------------

def test_collect_counts_fills_and_lists_failures():
    from courtbench.inspect_glue.outcomes import SampleOutcome

    def outcome(i, status=None, value=None, *, error=None, answer="x", method="json"):
        score = None if error else {"value": 0.0, "answer": None, "explanation": None,
                                    "metadata": {"prediction": value, "status": status,
                                                 "reason": None if status == "ok" else "why",
                                                 "source": "model" if status == "ok" else None,
                                                 "parse_method": method}}
        return SampleOutcome(f"001-{i}", {"split": "test", "references": []}, answer, None,
                             "stop", {"total_tokens": 1}, error, score)

    results = [outcome(0, "ok", 100.0), outcome(1, "ok", 2000.0, method="currency"),
               outcome(2, "answer_failed"), outcome(3, "ok", 300.0),
               outcome(4, "answer_failed"), outcome(5, error="HTTP 500 after the retries"),
               outcome(6, "ok", 1.0, answer="y" * 50)]
    rows, records, failures, counts = collect(results, fallback="train_median",
                                              fallback_value=3200.0, max_answer_chars=20)
    assert rows == [("001-0", 100.0), ("001-1", 2000.0), ("001-2", 3200.0), ("001-3", 300.0),
                    ("001-4", 3200.0), ("001-5", 3200.0), ("001-6", 3200.0)]
    assert [f["case_id"] for f in failures] == ["001-2", "001-4", "001-5", "001-6"]
    assert failures[2] == {"case_id": "001-5", "split": "test", "failure": "request_failed",
                           "reason": "HTTP 500 after the retries"}
    assert failures[3]["failure"] == "too_large"
    assert (counts["ok"], counts["answer_failed"], counts["request_failed"],
            counts["filled"], counts["written"]) == (3, 2, 1, 4, 7)
    assert (counts["parsed_json"], counts["parsed_currency"]) == (2, 1)
    rows, records, failures, counts = collect(results, fallback="none", fallback_value=3200.0)
    assert [case_id for case_id, _ in rows] == ["001-0", "001-1", "001-3", "001-6"]
    assert records[5]["prediction"] is None and counts["filled"] == 0
    json.dumps(records, allow_nan=False)  # the responses file is plain JSON


@pytest.mark.realdata
def test_real_release_rows_serialise(shared_data):
    """Every real sample row renders every field; the articles line names as many distinct
    articles as the release counts."""
    for name in ("case_level.sample_train_2010.csv", "case_level.sample_test_2025.csv"):
        table = read_case_level(shared_data / "ecthr_npd" / name)
        for record in serialise.case_records(table):
            lines = serialise.case_lines(record)
            assert [line.split(": ", 1)[0] for line in lines] == [f.label for f in
                                                                  serialise.FIELDS]
            articles = lines[4].removeprefix("Violated articles: ").split("; ")
            assert len(articles) == record["violated_articles_count"]
            assert all(re.fullmatch(r"Article \d+( of Protocol No\. \d+)?", a) for a in articles)
