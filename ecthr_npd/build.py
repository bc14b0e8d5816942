"""Build the ECtHR-NPD Hub folder from the release's CSV (or the synthetic stand-in).

``source CSV ──read+validate──▶ canonical table ──locked (verified) or recomputed membership──▶
configs (default / id / ood / challenging / audit [/ applicants]) ──leakage audit──▶
courtbench.hub.write_hub_folder`` (parquet + card rendered from ``cards/ecthr_npd.md``).
"""

from __future__ import annotations

import csv
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from courtbench import __version__ as courtbench_version
from courtbench.errors import CourtbenchError, SourceError
from courtbench.hub import ConfigSpec, HubFolderReport, write_hub_folder
from courtbench.hub.features import TableFeatures, value
from courtbench.hub.files import sha256_file
from courtbench.resources import card_template
from ecthr_npd import facts_build, schema
from ecthr_npd.audit import column_problems
from ecthr_npd.card import card_context, card_metadata
from ecthr_npd.composition import encode, total_variation
from ecthr_npd.figures import award_distribution_figure
from ecthr_npd.reader import read_applicant_level, read_case_level
from ecthr_npd.splits import (
    TEST,
    TRAIN,
    VALIDATION,
    Membership,
    chronological_order,
    locked_membership,
    membership_problems,
    recompute_split,
)
from ecthr_npd.synthetic import DEFAULT_ROWS, write_synthetic
from ecthr_npd.synthetic_facts import synthetic_facts
from ecthr_npd.views import (  # locked_id_size: re-exported, callers import it from here
    ID_SIZE,
    assigned_id_size,
    locked_id_size,
    recompute_views,
    scaled_id_size,
)

PLUGIN_NAME = "ecthr_npd"
CARD_TEMPLATE = card_template("ecthr_npd")
SPLIT_NAMES = schema.SPLITS


class LeakageError(CourtbenchError):
    """A model-input config would hold an audit column (or one derived from one)."""


@dataclass
class BuildResult:
    """Outcome of :func:`build_folder`.

    Attributes:
        report: what the Hub writer wrote (files, split sizes).
        counts: rows per split and view of the membership used.
        membership_source: ``"locked"`` (the release's, verified) or ``"recomputed"``.
        tv: view → TV per dimension (membership used), see
            :func:`ecthr_npd.composition.total_variation`.
        locked_tv: the release's locked views' TVs when the build recomputed them (else the
            same as ``tv``); ``None`` when the locked tags fail verification.
        split_agreement: share of rows whose recomputed split equals the locked tag (1.0 for
            a locked build; ``None`` when the locked tags fail verification).
        timings: step → seconds.
        id_size_checked: the ID view size the locked tags were verified against; ``None``
            when it was not checked (a recomputed build, or a test split smaller than the
            expected size, see :func:`locked_id_size`).
        facts: one line on the facts configs (records, source, screen result), or ``None``.
    """

    report: HubFolderReport
    counts: dict[str, int]
    membership_source: str
    tv: dict[str, dict[str, float]]
    locked_tv: dict[str, dict[str, float]] | None
    split_agreement: float | None
    timings: dict[str, float] = field(default_factory=dict)
    id_size_checked: int | None = None
    facts: str | None = None


def view_masks(membership: Membership) -> dict[str, np.ndarray]:
    """Row masks of the three test views."""
    return {"id": membership.test_view == schema.TEST_VIEWS.index("ID"),
            "ood": membership.test_view == schema.TEST_VIEWS.index("OOD"),
            "challenging": membership.challenging}


def view_tvs(table: pa.Table, membership: Membership, encoded=None) -> dict[str, dict[str, float]]:
    """TV of the ID, OOD and Challenging views against train+validation, per dimension."""
    encoded = encoded if encoded is not None else encode(table)
    reference = (membership.split == TRAIN) | (membership.split == VALIDATION)
    return {name: total_variation(encoded, reference, mask)
            for name, mask in view_masks(membership).items()}


def _subset(table: pa.Table, rows: np.ndarray, columns: tuple[str, ...]) -> pa.Table:
    """The given rows (in order) and columns, cast to their canonical features' schema."""
    subset = table.select(list(columns)).take(pa.array(rows, type=pa.int64()))
    return subset.cast(schema.features_for(columns).arrow_schema)


def make_configs(table: pa.Table, membership: Membership,
                 applicants: pa.Table | None = None) -> list[ConfigSpec]:
    """The configs: ``default`` (train/validation/test), ``id``, ``ood``, ``challenging``
    (split ``test``), ``audit`` (train/validation/test) and ``applicants`` when given.
    Rows of every split are in chronological (judgment_date, case_id) order."""
    order = chronological_order(table)
    split = membership.split[order]
    rows = {name: order[split == code] for name, code in
            (("train", TRAIN), ("validation", VALIDATION), ("test", TEST))}
    inputs = schema.MODEL_INPUT_COLUMNS
    configs = [ConfigSpec("default", {s: _subset(table, r, inputs) for s, r in rows.items()},
                          default=True)]
    for name, mask in view_masks(membership).items():
        configs.append(ConfigSpec(name, {"test": _subset(table, order[mask[order]], inputs)}))
    configs.append(ConfigSpec("audit", {s: _subset(table, r, schema.AUDIT_CONFIG_COLUMNS)
                                        for s, r in rows.items()}))
    if applicants is not None:
        configs.append(ConfigSpec("applicants", _applicant_splits(table, membership, applicants)))
    return configs


def _applicant_splits(table: pa.Table, membership: Membership,
                      applicants: pa.Table) -> dict[str, pa.Table]:
    """Applicant rows per split of their case, in the case order then file order."""
    position = {case_id: i for i, case_id in enumerate(table.column("case_id").to_pylist())}
    rank = np.empty(table.num_rows, dtype=np.int64)
    rank[chronological_order(table)] = np.arange(table.num_rows)
    case_rows = np.array([position[c] for c in applicants.column("case_id").to_pylist()],
                         dtype=np.int64)
    order = np.lexsort((np.arange(len(case_rows)), rank[case_rows]))
    features = TableFeatures({name: value("float64" if name == "npd_award_eur" else "string")
                              for name in applicants.column_names})
    splits = {}
    for name, code in (("train", TRAIN), ("validation", VALIDATION), ("test", TEST)):
        rows = order[membership.split[case_rows[order]] == code]
        splits[name] = applicants.take(pa.array(rows, type=pa.int64())).cast(
            features.arrow_schema)
    return splits


def empty_split_check(configs: list[ConfigSpec]) -> None:
    """Refuse (CourtbenchError) a config split without rows: ``datasets`` cannot load an empty
    parquet split, so the Hub folder would not verify."""
    empty = [f"{c.name}/{s}" for c in configs for s, d in c.splits.items() if d.num_rows == 0]
    if empty:
        raise CourtbenchError(f"config split(s) {empty} would be empty; expected at least one "
                              "case in every split and view (too small a source, or an ID view "
                              "as large as the test split: lower --id-size)")


def leakage_check(configs: list[ConfigSpec]) -> None:
    """Refuse (LeakageError) when a model-input config holds anything but ``case_id``,
    permitted inputs and ``y_amount_eur``."""
    problems = []
    for config in configs:
        if config.name in ("audit", "applicants"):
            continue
        check = (facts_build.column_problems if config.name in facts_build.FACTS_CONFIGS
                 else column_problems)
        for dataset in config.splits.values():
            problems.extend(check(config.name, dataset.column_names))
    if problems:
        raise LeakageError("leakage audit refused to write:\n  - " + "\n  - ".join(
            sorted(set(problems))))


def build_folder(out_dir: Path, source: Path, *, applicants_path: Path | None = None,
                 recompute: bool = False, id_size: int = ID_SIZE,
                 split_sizes: tuple[int, int] | None = None,
                 synthetic: dict[str, Any] | None = None, facts_path: Path | None = None,
                 facts: Any = None, facts_screen: str = "refuse") -> BuildResult:
    """Build the Hub folder ``out_dir`` from a ``case_level.csv``.

    Args:
        out_dir: destination (replaced atomically; nothing is left behind on failure).
        source: the release's ``case_level.csv`` (or the synthetic stand-in's).
        applicants_path: optional ``applicant_level.csv`` (adds the ``applicants`` config).
        recompute: assign splits (70/10/20 by (date, case_id), or ``split_sizes``) and views
            (ID of ``id_size`` by greedy quota matching, OOD, Challenging) from scratch;
            otherwise the locked tags are verified and kept: chronological split, ID and OOD
            partitioning test, ID of ``id_size`` cases (:func:`locked_id_size`: not checked
            when test holds fewer cases) and the Challenging rule.
        id_size: with ``recompute`` the ID view size to assign (at most the test split);
            otherwise the size the locked ID view must have (default 1,000, the release's).
        split_sizes: (train, validation) counts for ``recompute`` instead of 70/10/20.
        synthetic: provenance of a synthetic source (``generator``, ``n``, ``seed``); marks the
            card as SYNTHETIC.
        facts_path: the reviewed-facts JSON Lines file (adds the facts configs, see
            :mod:`ecthr_npd.facts_build`); validated against the cohort and screened for
            leakage before anything is written.
        facts: instead of ``facts_path``, a :class:`ecthr_npd.facts.FactsInput` or a callable
            of the canonical table returning one (the synthetic stand-in's text).
        facts_screen: ``refuse`` (default: findings stop the build; their report is written
            beside ``out_dir``), ``warn`` (write the text as it is) or ``mask`` (replace each
            flagged passage); the findings report goes into the folder, the card counts them.

    Raises:
        SourceError: invalid source, or locked tags that fail verification (the message names
            the file and the expected and found counts).
        CourtbenchError: ``id_size`` below 1.
        LeakageError: a model-input config would hold an audit-side column.
        FactsLeakageError: the text screen found award passages (``facts_screen="refuse"``).
    """
    if id_size < 1:
        raise CourtbenchError(f"id_size={id_size}: expected an ID view of at least 1 case")
    timings: dict[str, float] = {}
    start = time.perf_counter()
    source = Path(source)
    table = read_case_level(source)
    applicants = (read_applicant_level(applicants_path, table.column("case_id").to_pylist())
                  if applicants_path is not None else None)
    facts_input, screen = facts_build.prepare(table, facts_path, facts, facts_screen,
                                               out_dir=out_dir)
    timings["read"] = time.perf_counter() - start

    step = time.perf_counter()
    chosen = _choose_membership(table, source, recompute=recompute, id_size=id_size,
                                split_sizes=split_sizes)
    membership = chosen.membership
    timings["splits_views"] = time.perf_counter() - step
    figure = award_distribution_figure(table, membership, synthetic=synthetic is not None)

    step = time.perf_counter()
    configs = facts_build.with_facts(make_configs(table, membership, applicants), facts_input)
    empty_split_check(configs)
    leakage_check(configs)
    provenance = {
        "source_file": source.name,
        "source_sha256": sha256_file(source),
        "membership": chosen.source_kind,
        "builder": f"courtbench {courtbench_version} (ecthr_npd)",
        **({"synthetic": True, **synthetic} if synthetic else {"synthetic": False}),
        **({"facts": facts_build.provenance(facts_input, screen)} if facts_input else {}),
    }
    context = card_context(table, membership, tv=chosen.tv, locked_tv=chosen.locked_tv,
                           membership_source=chosen.source_kind, synthetic=synthetic,
                           has_applicants=applicants is not None)
    context["facts"] = (facts_build.card_context(facts_input, screen) if facts_input
                        else None)
    metadata = card_metadata(table.num_rows, provenance, synthetic=synthetic is not None)
    timings["configs"] = time.perf_counter() - step

    step = time.perf_counter()
    report = write_hub_folder(
        Path(out_dir), configs, card_template=CARD_TEMPLATE, card_context=context,
        card_metadata=metadata,
        figures={"award_distribution.png": figure},
        extra_files=facts_build.report_files(screen))
    timings["write"] = time.perf_counter() - step
    timings["total"] = time.perf_counter() - start
    facts_line = (None if facts_input is None else
                  f"{len(facts_input.records):,} reviewed texts from {facts_input.source}; "
                  f"leakage screen ({screen.mode}): {len(screen.findings):,} finding(s), "
                  f"listed in {facts_build.REPORT_FILE}")
    return BuildResult(report, membership.counts(), chosen.source_kind, chosen.tv,
                       chosen.locked_tv, chosen.agreement, timings, chosen.id_size_checked,
                       facts_line)


@dataclass
class _ChosenMembership:
    """The membership a build uses and what the build report says about it (see
    :class:`BuildResult` for the fields)."""

    membership: Membership
    source_kind: str
    tv: dict[str, dict[str, float]]
    locked_tv: dict[str, dict[str, float]] | None
    agreement: float | None
    id_size_checked: int | None


def _choose_membership(table: pa.Table, source: Path, *, recompute: bool, id_size: int,
                       split_sizes: tuple[int, int] | None) -> _ChosenMembership:
    """Verify the locked tags; keep them, or (``recompute``) assign splits and views afresh
    and verify those. Raises as :func:`build_folder` says."""
    encoded = encode(table)
    locked = locked_membership(table)
    # a recompute replaces the locked tags: they are only compared, their ID size unchecked
    id_size_checked = None if recompute else locked_id_size(locked.counts()["test"], id_size)
    locked_problems = membership_problems(table, locked, id_size=id_size_checked)
    locked_tv = None if locked_problems else view_tvs(table, locked, encoded)
    if recompute:
        _check_split_sizes(split_sizes, table.num_rows, source)
        split = recompute_split(table, sizes=split_sizes)
        membership = recompute_views(table, split, id_size=id_size, encoded=encoded)
        expected_id = assigned_id_size(id_size, int((split == TEST).sum()))
        source_kind = "recomputed"
    else:
        if locked_problems:
            raise SourceError(source, "locked split/view tags fail verification: "
                              + "; ".join(locked_problems)
                              + " (use --recompute to assign them from scratch; --id-size "
                              "sets the expected ID view size)")
        membership, source_kind, expected_id = locked, "locked", id_size_checked
    problems = membership_problems(table, membership, id_size=expected_id)
    if problems:  # a recomputed membership must pass the same checks
        raise CourtbenchError(f"recomputed membership fails verification: {problems}")
    agreement = (None if locked_problems
                 else float(np.mean(membership.split == locked.split)))
    return _ChosenMembership(membership, source_kind, view_tvs(table, membership, encoded),
                             locked_tv, agreement, id_size_checked)


def _check_split_sizes(split_sizes: tuple[int, int] | None, n_cases: int, source: Path) -> None:
    """Refuse (CourtbenchError) explicit split sizes that leave a split empty."""
    if split_sizes is not None and (min(split_sizes) < 1 or sum(split_sizes) >= n_cases):
        train, validation = split_sizes
        raise CourtbenchError(
            f"--split-sizes {train},{validation}: expected train and validation counts of "
            f"at least 1 that leave at least one test case; the source {source.name} has "
            f"{n_cases:,} cases")


def build_synthetic(out_dir: Path, *, n: int = DEFAULT_ROWS, seed: int = 0,
                    id_size: int | None = None) -> BuildResult:
    """Write the synthetic stand-in (n cases, seed; ID view of ``id_size``, default scaled from
    1,000) to a temporary CSV and build from it, keeping (and verifying) its tags — the ID view
    against that same size."""
    with tempfile.TemporaryDirectory(prefix="ecthr-npd-synthetic-") as tmp:
        source = write_synthetic(Path(tmp) / "case_level.csv", n=n, seed=seed, id_size=id_size)
        if id_size is None:  # write_synthetic's default: 1,000 scaled by the test split's share
            with open(source, encoding="utf-8", newline="") as handle:
                n_test = sum(row["split"] == "test" for row in csv.DictReader(handle))
            id_size = scaled_id_size(n_test)
        return build_folder(out_dir, source, id_size=id_size,
                            synthetic={"generator": "ecthr_npd.synthetic", "n": n, "seed": seed},
                            facts=lambda table: synthetic_facts(table, seed=seed))


def format_report(result: BuildResult) -> str:
    """The build report: counts, TVs (mean and per dimension), timings, files."""
    lines = [f"ECtHR-NPD build ({result.membership_source} membership) → "
             f"{result.report.out_dir}"]
    lines.append("  counts: " + ", ".join(f"{k} {v:,}" for k, v in result.counts.items()))
    if result.membership_source == "locked":
        size = (f"ID view of {result.id_size_checked:,} cases" if result.id_size_checked
                else f"ID view size not checked (test split of {result.counts['test']:,} cases "
                     "is smaller than --id-size)")
        lines.append(f"  locked tags verified: chronological split, ID/OOD partition of test, "
                     f"{size}, Challenging rule")
    if result.membership_source == "recomputed" and result.split_agreement is not None:
        lines.append(f"  recomputed split equals the locked split on "
                     f"{result.split_agreement:.2%} of the cases")
    for title, tvs in (("views", result.tv),
                       ("locked views", result.locked_tv
                        if result.membership_source == "recomputed" else None)):
        if tvs is None:
            continue
        for view, values in tvs.items():
            lines.append(f"  {title} {view}: mean TV {values['mean']:.4f} (weighted "
                         f"{values['weighted_mean']:.4f}; court formation "
                         f"{values['court_formation']:.4f})")
    if result.facts:
        lines.append(f"  facts: {result.facts}")
    lines.append("  timings: " + ", ".join(f"{k} {v:.2f} s" for k, v in result.timings.items()))
    for entry in result.report.files:
        lines.append(f"  {entry.sha256[:16]}  {entry.size:>10,}  {entry.path}")
    if result.report.figures_skipped:
        lines.append(f"  figures skipped: {result.report.figures_skipped}")
    return "\n".join(lines)
