"""The ECtHR-NPD release's columns: source format, typed features and roles.

One :class:`Column` per column of the release's ``case_level.csv`` (33 columns, in file
order) states how the source text is parsed (``kind``), the closed value set where there is
one, the Hub feature of the canonical typed table (``datasets``' serialised form, see
:mod:`courtbench.hub.features`), and the column's role:

- ``input``: permitted model input (case metadata, merits findings, facts-side applicant
  aggregates, state-year GDP);
- ``target``: ``y_amount_eur`` (nominal euros, ≥ 0, zeros valid);
- ``audit``: withheld from every model-input config (``y_binary``, ``target_status``,
  ``beneficiary_type``, ``has_joint_beneficiary``, applicant-level award fields);
- ``bookkeeping``: ``case_id`` (kept as the row key), split and view tags (expressed by
  config membership, never stored in a model-input config).

Source conventions (the release's data dictionary): ``unknown`` marks a missing value and
becomes null (a whole ``unknown`` field → null; an ``unknown`` member of a ``;``-set → a null
element); booleans are ``yes``/``no`` (``has_joint_beneficiary``: ``yes``/``not_found``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from courtbench.hub.features import TableFeatures, class_label, list_of, value

UNKNOWN = "unknown"
# Column kind → Arrow type alias of its Value feature, or of its List's items.
_VALUE_DTYPES = {"string": "string", "date": "date32", "int": "int32", "float": "float64",
                 "bool": "bool"}
_LIST_DTYPES = {"str_set": "string", "int_set": "int32"}
LIST_SEPARATOR = ";"
CASE_ID_PATTERN = re.compile(r"\d{3}-\d{4,9}", re.ASCII)
ARTICLE_PATTERN = re.compile(r"(?:\d{1,2}|P\d{1,2}-\d{1,2})", re.ASCII)
ALPHA2_PATTERN = re.compile(r"[a-z]{2}")

INPUT, TARGET, AUDIT, BOOKKEEPING = "input", "target", "audit", "bookkeeping"

SPLITS = ("train", "validation", "test")
TEST_VIEWS = ("ID", "OOD", "not_applicable")
COURT_FORMATIONS = ("Chamber", "Committee", "Grand Chamber")
DECISION_BODIES = ("CHAMBER", "COMMITTEE", "GRANDCHAMBER")
FORMATION_OF_BODY = dict(zip(DECISION_BODIES, COURT_FORMATIONS, strict=True))
CASE_IMPORTANCE = ("key_case", "high", "medium", "low")
VIOLATION_TYPES = ("substantive", "procedural", "both", "other")
NATIONALITY_SCOPES = ("single", "multiple")
TARGET_STATUSES = ("retained_label", "corrected_amount", "mixed_head_reference_label",
                   "unresolved_reference_label")
APPLICANT_SEXES = ("female", "male", "mixed")
AGE_GROUPS = ("child", "adolescent", "adult", "elderly")
BENEFICIARY_TYPES = ("applicant", "group", "joint", "organisation")

# Source parsing kinds, handled by ecthr_npd.reader.
#   string      free text (pattern-checked where ``pattern`` is set)
#   label       one of ``values`` (ClassLabel); ``nullable`` → ``unknown`` allowed
#   date        ISO yyyy-mm-dd → date32
#   int / float numbers (``nullable`` → ``unknown`` allowed), ``minimum`` checked
#   bool        yes/no (``true_false`` overrides the two spellings)
#   str_set     ';'-separated set of ``values`` (or ``pattern``) → list of strings
#   int_set     ';'-separated set of integers → list of int32


@dataclass(frozen=True)
class Column:
    """One release column.

    Attributes:
        name: header name in ``case_level.csv``.
        kind: source parsing kind (see above).
        role: ``input`` / ``target`` / ``audit`` / ``bookkeeping``.
        values: the closed value set (labels in ClassLabel order, or allowed set members).
        nullable: whether ``unknown`` (null) is allowed.
        pattern: regular expression a string (or set member) must fully match.
        minimum: smallest allowed number.
        true_false: the (true, false) spellings of a boolean.
        description: one line for the card.
    """

    name: str
    kind: str
    role: str
    description: str
    values: tuple[str, ...] = ()
    nullable: bool = False
    pattern: re.Pattern | None = None
    minimum: float | None = None
    true_false: tuple[str, str] = ("yes", "no")

    @property
    def feature(self) -> dict:
        """The column's Hub feature in the canonical typed table (``datasets``' serialised
        form: ``{"dtype": "string", "_type": "Value"}``, ...)."""
        if self.kind == "label":
            return class_label(self.values)
        if self.kind in _VALUE_DTYPES:
            return value(_VALUE_DTYPES[self.kind])
        if self.kind in _LIST_DTYPES:
            return list_of(value(_LIST_DTYPES[self.kind]))
        raise ValueError(f"column {self.name!r}: unknown kind {self.kind!r}")


COLUMNS: tuple[Column, ...] = (
    Column("case_id", "string", BOOKKEEPING, "HUDOC itemid of the judgment (row key)",
           pattern=CASE_ID_PATTERN),
    Column("split", "label", BOOKKEEPING, "chronological split", values=SPLITS),
    Column("test_view", "label", BOOKKEEPING, "ID / OOD test view", values=TEST_VIEWS),
    Column("test_challenging_view", "bool", BOOKKEEPING, "member of the Challenging test view"),
    Column("judgment_date", "date", INPUT, "date of the judgment"),
    Column("judgment_year", "int", INPUT, "year of the judgment", minimum=1959),
    Column("respondent_state", "string", INPUT, "respondent state (English name)"),
    Column("country_alpha2", "string", INPUT, "respondent state, ISO 3166-1 alpha-2 (lower case)",
           pattern=ALPHA2_PATTERN),
    Column("hudoc_decision_body", "label", INPUT, "HUDOC decision body", values=DECISION_BODIES),
    Column("court_formation", "label", INPUT, "court formation", values=COURT_FORMATIONS),
    Column("is_grand_chamber", "bool", INPUT, "judgment of the Grand Chamber"),
    Column("case_importance", "label", INPUT, "HUDOC importance level", values=CASE_IMPORTANCE),
    Column("has_separate_opinion", "bool", INPUT, "a judge wrote a separate opinion",
           nullable=True),
    Column("represented", "bool", INPUT, "applicant(s) legally represented", nullable=True),
    Column("hudoc_application_count", "int", INPUT, "number of HUDOC application numbers",
           minimum=1),
    Column("num_applicants", "int", INPUT, "case-level applicant-count proxy", minimum=1),
    Column("num_violations_found", "int", INPUT, "number of violation findings", minimum=1),
    Column("has_mixed_outcome", "bool", INPUT, "merits partly not violated (not about the award)"),
    Column("violated_articles", "str_set", INPUT, "set of violated Convention/Protocol articles",
           pattern=ARTICLE_PATTERN),
    Column("violated_articles_count", "int", INPUT, "number of distinct violated articles",
           minimum=1),
    Column("violation_type", "label", INPUT, "substantive / procedural / both / other",
           values=VIOLATION_TYPES, nullable=True),
    Column("violation_duration_months", "float", INPUT, "duration of the violation in months",
           nullable=True, minimum=0),
    Column("applicant_sex", "str_set", INPUT, "set of applicant sexes", values=APPLICANT_SEXES,
           nullable=True),
    Column("applicant_age_group", "str_set", INPUT, "set of applicant age groups",
           values=AGE_GROUPS, nullable=True),
    Column("applicant_birth_years", "int_set", INPUT, "set of applicant birth years",
           nullable=True, minimum=1000),
    Column("applicant_nationality_scope", "label", INPUT, "single / multiple nationalities",
           values=NATIONALITY_SCOPES, nullable=True),
    Column("beneficiary_type", "str_set", AUDIT, "set of award beneficiary types (award side)",
           values=BENEFICIARY_TYPES, nullable=True),
    Column("has_joint_beneficiary", "bool", AUDIT, "a joint award beneficiary was found",
           nullable=True, true_false=("yes", "not_found")),
    Column("gdp_per_capita_current_usd", "float", INPUT,
           "respondent state's GDP per capita, current USD, judgment year (raw)",
           nullable=True, minimum=0),
    Column("gdp_constant_2015_usd", "float", INPUT,
           "respondent state's GDP, constant 2015 USD, judgment year (raw)",
           nullable=True, minimum=0),
    Column("y_amount_eur", "float", TARGET, "non-pecuniary damage award, nominal EUR", minimum=0),
    Column("y_binary", "int", AUDIT, "int(y_amount_eur > 0)", minimum=0),
    Column("target_status", "label", AUDIT, "provenance of the target label",
           values=TARGET_STATUSES),
)

COLUMN_BY_NAME = {column.name: column for column in COLUMNS}
HEADER = tuple(column.name for column in COLUMNS)
TARGET_COLUMN = "y_amount_eur"
ID_COLUMN = "case_id"
#: The value column of a predictions file (one non-negative EUR amount per case).
PREDICTION_COLUMN = "prediction"
INPUT_COLUMNS = tuple(c.name for c in COLUMNS if c.role == INPUT)
AUDIT_COLUMNS = tuple(c.name for c in COLUMNS if c.role == AUDIT)
BOOKKEEPING_COLUMNS = tuple(c.name for c in COLUMNS if c.role == BOOKKEEPING)

# Columns of a model-input config, in order: the key, the permitted inputs, the target.
MODEL_INPUT_COLUMNS = (ID_COLUMN, *INPUT_COLUMNS, TARGET_COLUMN)
# Columns of the ``audit`` config: the key and every audit column.
AUDIT_CONFIG_COLUMNS = (ID_COLUMN, *AUDIT_COLUMNS)

# The companion applicant table (one row per applicant source record): every award field is
# audit-side, and the whole table only ever appears in the ``applicants`` (audit) config.
APPLICANT_KEY = "case_id"
APPLICANT_AWARD_COLUMNS = ("npd_award_eur", "npd_award_scope", "npd_award_status")

# Names that are derived from audit columns (or from the target in a way that only the audit
# side may hold). The leakage audit refuses any of them in a model-input config, as it refuses
# any column whose name embeds an audit column's name.
DERIVED_FROM_AUDIT: dict[str, tuple[str, ...]] = {
    "is_zero_award": ("y_binary",),
    "zero_award": ("y_binary",),
    "zero_award_rationale": ("target_status",),
    "zero_reason": ("target_status",),
    "has_positive_award": ("y_binary",),
    "beneficiary_count": ("beneficiary_type",),
    "n_beneficiaries": ("beneficiary_type",),
    "joint_beneficiary": ("has_joint_beneficiary",),
    "npd_award_eur": APPLICANT_AWARD_COLUMNS,
    "npd_award_scope": APPLICANT_AWARD_COLUMNS,
    "npd_award_status": APPLICANT_AWARD_COLUMNS,
    "applicant_award_sum": APPLICANT_AWARD_COLUMNS,
}

ZERO_AWARD_RATIONALES = ("finding_sufficient", "no_claim", "unsubstantiated",
                         "rule_60_non_compliance", "domestic_award_covers",
                         "applicant_deceased_no_heir")


def features_for(names: tuple[str, ...] | list[str]) -> TableFeatures:
    """The features of the named canonical columns, in the given order
    (:meth:`TableFeatures.to_datasets` gives them as ``datasets.Features``)."""
    return TableFeatures({name: COLUMN_BY_NAME[name].feature for name in names})


CANONICAL_FEATURES = features_for(HEADER)
