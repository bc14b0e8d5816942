"""The whitelisted actions: names, argument schemas (OpenAI tool definitions) and handlers.

A handler takes the episode's :class:`CaseContext` and the validated arguments and returns
the raw observation payload (a dict), which the controller passes through
:func:`ecthr_npd.agent.redaction.redact`; an :class:`ActionError` becomes an error
observation. ``final_predict`` is validated here (:func:`check_final`); the controller ends
the episode with it. ``leakage_check`` scans the conversation held by the context.

Values of cases are shown as the prompted runner writes them
(:mod:`ecthr_npd.prompting.serialise`): only permitted input columns are ever read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from courtbench.boundary import BoundaryError, check_amount
from ecthr_npd import schema
from ecthr_npd.agent.knowledge import FAMILIES, MAX_MODULE_CHARS, KnowledgeBase
from ecthr_npd.agent.leakage import LeakageScanner
from ecthr_npd.agent.priors import EmpiricalPriors, applicant_band
from ecthr_npd.agent.references import TrainPool
from ecthr_npd.prompting.serialise import FIELDS, readable

PERMITTED = tuple(c for c in schema.INPUT_COLUMNS)
ZERO_DECISIONS = ("zero", "positive")
AGGREGATION_SCALES = ("single", "per_applicant_total", "not_applicable")
UNCERTAINTIES = ("low", "medium", "high")
MAX_RATIONALE_CHARS = 2000


class ActionError(Exception):
    """An action that cannot be carried out: its message is the error observation."""


@dataclass
class Resources:
    """What every episode shares: priors, knowledge base, training pool and records."""

    priors: EmpiricalPriors
    knowledge: KnowledgeBase
    pool: TrainPool
    train_records: list[dict[str, Any]]
    top_k: int


@dataclass
class CaseContext:
    """One episode's state as the handlers see it.

    ``record``: the target's permitted inputs (and ``case_id``); ``day``: its judgment date
    in days since 1970-01-01; ``messages``: the conversation so far (for ``leakage_check``);
    ``retrieved``: case id → pool row of the references retrieved so far; ``priors_used`` and
    ``modules_loaded``: what the trace records; ``observed``: ``(action, redacted payload)``
    of every observation sent so far (what the leakage gate scans); ``scanner`` /
    ``lenient_scanner``: the gate's scanners (every positive award / training awards exempt,
    :mod:`ecthr_npd.agent.gate`); ``target_features``: the target's permitted inputs as text.
    """

    case_id: str
    split: str
    record: dict[str, Any]
    day: int
    resources: Resources
    scanner: LeakageScanner
    messages: list = field(default_factory=list)
    retrieved: dict[str, int] = field(default_factory=dict)
    priors_used: list = field(default_factory=list)
    modules_loaded: list = field(default_factory=list)
    observed: list = field(default_factory=list)
    lenient_scanner: LeakageScanner | None = None
    target_features: dict = field(default_factory=dict)

    @property
    def articles(self) -> list[str]:
        return sorted({c for c in self.record["violated_articles"] or () if c is not None})


def _fields(context_fields: list[str] | None) -> tuple[tuple[str, ...], list[str]]:
    """Requested fields → (permitted ones, refusal notes by position; never the name)."""
    if not context_fields:
        return PERMITTED, []
    allowed = tuple(dict.fromkeys(f for f in context_fields if f in PERMITTED))
    refused = [f"field {i + 1} of the request: not a permitted input (withheld or unknown)"
               for i, f in enumerate(context_fields) if f not in PERMITTED]
    return allowed, refused


def inspect_case(context: CaseContext, args: dict) -> dict:
    knowledge = context.resources.knowledge
    return {"features": readable(context.record, tuple(f.column for f in FIELDS)),
            "violated_article_codes": context.articles,
            "modules_for_these_articles": [m.name for m in knowledge.search(context.articles)
                                           if m.family != "policy"]}


def query_target_information(context: CaseContext, args: dict) -> dict:
    allowed, refused = _fields(args.get("fields"))
    return {"values": readable(context.record, allowed), "refused": refused}


def search_modules(context: CaseContext, args: dict) -> dict:
    articles = args.get("articles") or context.articles
    found = context.resources.knowledge.search(articles, query=args.get("query", ""),
                                               family=args.get("family"))
    return {"articles": articles, "modules": [m.entry() for m in found]}


def load_module(context: CaseContext, args: dict) -> dict:
    module = context.resources.knowledge.modules.get(args["name"])
    if module is None:
        raise ActionError(f"no module named {args['name']!r}; search_modules lists them")
    context.modules_loaded.append({"name": module.name, "sha256": module.sha256})
    text = module.text
    if len(text) > MAX_MODULE_CHARS:
        text = text[:MAX_MODULE_CHARS] + f"\n[... cut at {MAX_MODULE_CHARS} characters]"
    return {**module.entry(), "sha256": module.sha256, "text": text}


def resolve_empirical_priors(context: CaseContext, args: dict) -> dict:
    articles = args.get("articles") or context.articles
    country = args.get("country") or context.record["country_alpha2"]
    resolved = context.resources.priors.resolve(articles, country)
    context.priors_used.append({"articles": articles, "country": country,
                                "levels": [p["level"] for p in resolved["per_article"]]})
    return resolved


def _reference(context: CaseContext, ranked) -> dict:
    record = context.resources.train_records[ranked.row]
    return {"case_id": record[schema.ID_COLUMN],
            **readable(record, ("judgment_date", "respondent_state", "violated_articles",
                                "violation_type", "court_formation", "case_importance",
                                "hudoc_application_count", "num_applicants")),
            "award_eur": float(context.resources.pool.awards[ranked.row]),
            "match": {"exact_article_set": ranked.exact_article_set,
                      "article_jaccard": ranked.article_jaccard, **ranked.same}}


def retrieve_train_references(context: CaseContext, args: dict) -> dict:
    top_k = context.resources.top_k
    k = args.get("k", top_k)
    if not 1 <= k <= top_k:
        raise ActionError(f"k must be between 1 and {top_k}")
    ranked = context.resources.pool.references(context.record, context.day, k,
                                               balanced=bool(args.get("balanced", False)))
    for reference in ranked:
        context.retrieved[context.resources.pool.case_ids[reference.row]] = reference.row
    return {"pool": "train, judged strictly earlier, sharing a violated article",
            "balanced": bool(args.get("balanced", False)),
            "references": [_reference(context, r) for r in ranked]}


def query_reference_features(context: CaseContext, args: dict) -> dict:
    row = context.retrieved.get(args["case_id"])
    if row is None:
        raise ActionError("that case is not among the training references retrieved for this "
                          "case (retrieve_train_references lists them); no other case is shown")
    allowed, refused = _fields(args.get("fields"))
    record = context.resources.train_records[row]
    return {"case_id": record[schema.ID_COLUMN], "features": readable(record, allowed),
            "refused": refused}


def assess_aggregation_pattern(context: CaseContext, args: dict) -> dict:
    record = context.record
    band = applicant_band(record["hudoc_application_count"])
    applicants = record["num_applicants"] or 1
    violations = record["num_violations_found"] or 1
    return {"num_applicants": applicants, "hudoc_application_count":
            record["hudoc_application_count"], "applicant_band": band,
            "num_violations_found": violations,
            "violated_articles_count": record["violated_articles_count"],
            "multi_applicant": applicants > 1, "multi_violation": violations > 1,
            "training_prior_of_band": context.resources.priors.band(band),
            "note": "awards are not sums over violations nor products of a per-applicant "
                    "figure by default; compare with references of the same band"}


def leakage_check(context: CaseContext, args: dict) -> dict:
    from ecthr_npd.agent.gate import scan_texts

    hits = []
    for index, (action, payload) in enumerate(context.observed):
        strict, lenient = scan_texts(action, payload, context)
        found = context.scanner.scan_text(strict)
        if context.lenient_scanner is not None:
            found += context.lenient_scanner.scan_text(lenient)
        hits += [{"observation": index + 1, "kind": h["kind"]} for h in found]
    return {"passed": not hits, "hits": hits, "scanned": context.scanner.scanned}


def check_final(args: dict) -> dict:
    """The validated ``final_predict`` arguments (``award_eur`` as float, an amount by the
    boundary validator: finite, >= 0, at most its ceiling)."""
    try:
        award = check_amount(args["award_eur"], "final_predict award_eur")
    except BoundaryError as error:
        raise ActionError(str(error)) from None
    decision = args.get("zero_decision")
    if decision is not None and (decision == "zero") != (award == 0):
        raise ActionError("zero_decision contradicts award_eur (zero exactly when award_eur "
                          "is 0)")
    if len(args.get("rationale_summary", "")) > MAX_RATIONALE_CHARS:
        raise ActionError(f"rationale_summary is longer than {MAX_RATIONALE_CHARS} characters")
    return {**args, "award_eur": float(award) + 0.0}


@dataclass(frozen=True)
class Action:
    """One whitelisted action: its description and JSON-schema ``parameters``, its handler."""

    name: str
    description: str
    parameters: dict
    handler: Callable[[CaseContext, dict], dict] | None

    def tool(self) -> dict:
        """The OpenAI tool definition."""
        return {"type": "function", "function": {"name": self.name,
                                                 "description": self.description,
                                                 "parameters": self.parameters}}


def _object(properties: dict | None = None, required: tuple[str, ...] = ()) -> dict:
    return {"type": "object", "properties": properties or {}, "required": list(required),
            "additionalProperties": False}


_STRINGS = {"type": "array", "items": {"type": "string"}}
_FEATURES = {"type": "array", "items": {"type": "string"},
             "description": "permitted input column names; all when omitted"}

ACTIONS: tuple[Action, ...] = (
    Action("inspect_case", "The target case's permitted features and the knowledge modules "
           "covering its violated articles.", _object(), inspect_case),
    Action("query_target_information", "Chosen permitted features of the target case.",
           _object({"fields": _FEATURES}), query_target_information),
    Action("search_modules", "List knowledge-base modules covering the given articles "
           "(default: the target's), optionally by family and words of their title.",
           _object({"articles": _STRINGS, "query": {"type": "string"},
                    "family": {"type": "string", "enum": list(FAMILIES)}}), search_modules),
    Action("load_module", "The text of one knowledge-base module.",
           _object({"name": {"type": "string"}}, ("name",)), load_module),
    Action("resolve_empirical_priors", "Training-split award statistics for the target's "
           "articles and state: article x country, else article, else country, else the "
           "global article-weighted prior.",
           _object({"articles": _STRINGS, "country": {"type": "string"}}),
           resolve_empirical_priors),
    Action("retrieve_train_references", "Earlier training cases sharing a violated article, "
           "ranked by similarity, with their awards.",
           _object({"k": {"type": "integer"}, "balanced": {"type": "boolean"}}),
           retrieve_train_references),
    Action("query_reference_features", "Permitted features of one retrieved training "
           "reference (never an award).",
           _object({"case_id": {"type": "string"}, "fields": _FEATURES}, ("case_id",)),
           query_reference_features),
    Action("assess_aggregation_pattern", "Applicants, applications and violations of the "
           "target and the training prior of its applicant band.", _object(),
           assess_aggregation_pattern),
    Action("leakage_check", "Audit the conversation so far for withheld information.",
           _object(), leakage_check),
    Action("final_predict", "The final answer; ends the case.",
           _object({"award_eur": {"type": "number"},
                    "zero_decision": {"type": "string", "enum": list(ZERO_DECISIONS)},
                    "aggregation_scale": {"type": "string", "enum": list(AGGREGATION_SCALES)},
                    "uncertainty": {"type": "string", "enum": list(UNCERTAINTIES)},
                    "rationale_summary": {"type": "string"}}, ("award_eur",)), None),
)
ACTION_BY_NAME = {action.name: action for action in ACTIONS}
FINAL = "final_predict"


def tools() -> list[dict]:
    """Every action as an OpenAI tool definition, in :data:`ACTIONS` order."""
    return [action.tool() for action in ACTIONS]


def _valid(value: Any, spec: dict) -> bool:
    kind = spec["type"]
    if kind == "string":
        return isinstance(value, str) and ("enum" not in spec or value in spec["enum"])
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    return isinstance(value, list) and all(_valid(v, spec["items"]) for v in value)


def check_arguments(action: Action, arguments: Any) -> dict:
    """``arguments`` checked against the action's schema; ActionError naming the problem."""
    if not isinstance(arguments, dict):
        raise ActionError(f"{action.name}: arguments must be a JSON object")
    schema_ = action.parameters
    unknown = sorted(set(arguments) - set(schema_["properties"]))
    missing = [name for name in schema_["required"] if name not in arguments]
    if unknown or missing:
        raise ActionError(f"{action.name}: " + "; ".join(
            ([f"{len(unknown)} unknown argument(s)"] if unknown else [])
            + ([f"missing {', '.join(missing)}"] if missing else [])))
    for name, value in arguments.items():
        if not _valid(value, schema_["properties"][name]):
            raise ActionError(f"{action.name}: argument {name} has the wrong type or value")
    return arguments
