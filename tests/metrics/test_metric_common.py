"""Checks every metric module must pass, run over one registry of the six modules
(scikit-learn's ``test_common.py`` style).

All six are loaded with ``evaluate.load("metrics/<name>")`` in ONE fresh interpreter with
fresh, offline Hugging Face caches (loading ``evaluate`` costs seconds; once is enough). In
that interpreter each module is run through the same invariances, and the results come back
as JSON to be compared here with the module's plain function:

- the evaluate wrapper's ``compute`` equals the plain function on the same input;
- ``add_batch`` in two halves, then ``compute``, equals one ``compute``;
- two identical calls give identical results (determinism, seeds included);
- where the metric is a function of the multiset of pairs, reversing the order of the
  cases changes nothing;
- a bad value is refused with ``ValueError`` naming the argument and the first bad index
  (``<argument>[<index>] = <value>: expected ...``), in both the plain function and the
  wrapper;
- a text with a lone surrogate is refused by ``add_batch`` in one line naming the argument
  and the item, before evaluate's Arrow writer (pyarrow) sees it;
- the card's ``>>>`` examples run (doctests, with the module's names in scope);
- one behaviour for a wrong call in all six, plain function and wrapper (``compute``,
  ``add_batch``, ``add``) alike: an unknown keyword or an input not passed is a
  ``TypeError`` naming it (Python's own error for a wrong call, which the plain functions
  raise by themselves), a bad value a ``ValueError`` — so a caller can tell a mistake in the
  call from a bad input. Before, the ECtHR-NPD wrappers raised ``TypeError`` and the SLDS ones
  a ``ValueError`` ("predictions: expected a list of strings, got NoneType").
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from metric_helpers import run_fresh

from courtbench.metric_modules import load_metric_module, metric_dir, module_names

AMOUNTS = {"predictions": [0.0, 900.0, 5200.0, 48000.0, 0.3, 12000.0],
           "references": [0.0, 1000.0, 5000.0, 50000.0, 0.0, 10000.0]}
TEXTS = {"predictions": ["Art. 8 ZGB: Beweislast.", "Le recours est rejeté.",
                         "Art. 1 OR, consid. 2."],
         "references": ["Art. 8 ZGB: Beweislast des Klägers.", "Le recours est admis.",
                        "Art. 1 OR; E. 2 und 3."],
         "prediction_languages": ["de", "fr", "de"]}
SOURCES = {"sources": ["Das Gericht weist die Beschwerde ab. Die Kosten trägt der Kläger.",
                       "Le Tribunal fédéral admet le recours. Les frais sont mis à la charge.",
                       "Il ricorso è respinto. Le spese sono a carico del ricorrente."],
           "summaries": ["Beschwerde abgewiesen.", "Le recours est admis.", "Ricorso respinto."],
           "source_languages": ["de", "fr", "it"], "summary_languages": ["de", "fr", "it"]}

#: name -> (evaluate config or None, inputs, options, order invariant, (argument, index, bad))
#: ``inputs`` are the evaluate features; ``options`` keyword options of compute. The judge
#: needs an endpoint, so only its loading and input checks run here (its scoring is tested
#: against a local server in test_metric_headnote_judge.py).
REGISTRY = {
    "npd_regression": (None, AMOUNTS, {}, True, ("predictions", 2, -1.0)),
    "zero_f1": (None, AMOUNTS, {}, True, ("references", 1, float("nan"))),
    "bootstrap_mae": (None, {"predictions1": AMOUNTS["predictions"],
                             "predictions2": [3200.0] * 6, "references": AMOUNTS["references"]},
                      {"n_resamples": 200, "seed": 4}, False, ("predictions2", 5, None)),
    "headnote_similarity": (None, TEXTS, {"bootstrap_resamples": 20}, False,
                            ("predictions", 1, None)),
    "summarization_properties": (None, SOURCES, {"seed": 3}, False, ("sources", 2, 7)),
    "headnote_judge": (None, {"predictions": ["Art. 8 ZGB.", None],
                              "references": ["Art. 8 ZGB.", "Art. 9 ZGB."],
                              "headnote_languages": ["de", "de"],
                              "decision_languages": ["de", "de"]},
                       {"base_url": "http://127.0.0.1:9/v1", "model": "m", "progress": False}, None, ("predictions", 1, None)),
}
SCORED = [name for name, entry in REGISTRY.items() if entry[3] is not None]

FRESH = """
import copy, doctest, json, os, sys, traceback
import evaluate

REGISTRY = json.loads({registry})

def bad_copy(inputs, argument, index, value):
    changed = copy.deepcopy(inputs)
    changed[argument][index] = value
    return changed

def error_of(call):
    try:
        call()
    except ValueError as error:
        return str(error)
    return None

def card_doctests(name, namespace):
    card = os.path.join("metrics", name, "README.md")
    lines = open(card, encoding="utf-8").read().splitlines()
    text = chr(10).join("" if line.startswith("```") else line for line in lines)
    test = doctest.DocTestParser().get_doctest(text, dict(namespace), name, card, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report = []
    runner.run(test, out=report.append)
    return {{"attempted": runner.tries, "failed": runner.failures, "report": "".join(report)}}

def check(name, config, inputs, options, order_invariant, bad):
    module = evaluate.load(os.path.join("metrics", name), config)
    out = {{"module": type(module).__module__}}
    out["error"] = error_of(lambda: module.compute(**bad_copy(inputs, *bad), **options))
    if order_invariant is not None:
        out["direct"] = module.compute(**inputs, **options)
        out["again"] = module.compute(**inputs, **options)
        half = len(next(iter(inputs.values()))) // 2
        module.add_batch(**{{k: v[:half] for k, v in inputs.items()}})
        module.add_batch(**{{k: v[half:] for k, v in inputs.items()}})
        out["batched"] = module.compute(**options)
        if order_invariant:
            out["reversed"] = module.compute(**{{k: v[::-1] for k, v in inputs.items()}},
                                             **options)
    # the card's examples see the module's own names, as a reader of the card does
    out["card"] = card_doctests(name, vars(sys.modules[type(module).__module__]))
    out["calls"] = wrong_calls(module, inputs, options)
    first = next(iter(inputs))
    if isinstance(inputs[first][0], str):  # a text metric: a lone surrogate, before pyarrow
        batch = {{k: v for k, v in bad_copy(inputs, first, 0, "lone \\ud800").items()
                 if k in module.feature_names()}}  # the judge's languages are options
        out["surrogate"] = outcome(lambda: module.add_batch(**batch))
    return out

def outcome(call):
    try:
        call()
    except Exception as error:
        return [type(error).__name__, str(error)]
    return None

# what each wrong call raises: an unknown keyword and a misspelled input (compute,
# add_batch, add) and a missing input
def wrong_calls(module, inputs, options):
    first = next(iter(inputs))
    misspelled = dict(inputs)
    misspelled[first[:-1]] = misspelled.pop(first)
    singular = {{"predictions": "prediction", "references": "reference"}}
    one = {{singular.get(k, k): v[0] for k, v in inputs.items()}}
    missing = {{k: v for k, v in inputs.items() if k != first}}
    return {{"compute_unknown": outcome(lambda: module.compute(**inputs, **options, bogus=1)),
            "compute_misspelled": outcome(lambda: module.compute(**misspelled, **options)),
            "compute_missing": outcome(lambda: module.compute(**missing, **options)),
            "add_batch_unknown": outcome(lambda: module.add_batch(**inputs, bogus=1)),
            "add_unknown": outcome(lambda: module.add(**one, bogus=1))}}

results = {{}}
for name, entry in REGISTRY.items():
    try:
        results[name] = check(name, *entry)
    except Exception:
        results[name] = {{"crash": traceback.format_exc()}}
print(json.dumps(results))
"""


def _plain(name):
    return getattr(load_metric_module(name), name)


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """Every registered module through ``evaluate.load`` in one fresh, offline interpreter."""
    registry = {name: [config, inputs, options, invariant, list(bad)]
                for name, (config, inputs, options, invariant, bad) in REGISTRY.items()}
    code = FRESH.format(registry=repr(json.dumps(registry)))
    tmp = tmp_path_factory.mktemp("fresh_modules")
    results = run_fresh(textwrap.dedent(code), tmp)
    results["_cache"] = str(tmp / "hf_modules")
    return results


def test_the_registry_covers_every_metric_module():
    assert sorted(REGISTRY) == module_names()


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_loads_offline_from_a_fresh_cache(fresh, name):
    got = fresh[name]
    assert "crash" not in got, got.get("crash")
    assert got["module"].startswith("evaluate_modules.")
    assert list(Path(fresh["_cache"]).rglob(f"{name}.py")), "not loaded through evaluate's cache"


@pytest.mark.parametrize("name", SCORED)
def test_wrapper_equals_the_plain_function(fresh, name):
    _, inputs, options, _, _ = REGISTRY[name]
    assert fresh[name]["direct"] == json.loads(json.dumps(_plain(name)(**inputs, **options)))


@pytest.mark.parametrize("name", SCORED)
def test_add_batch_in_halves_equals_one_compute(fresh, name):
    assert fresh[name]["batched"] == fresh[name]["direct"]


@pytest.mark.parametrize("name", SCORED)
def test_identical_calls_give_identical_results(fresh, name):
    assert fresh[name]["again"] == fresh[name]["direct"]


@pytest.mark.parametrize("name", [n for n in SCORED if REGISTRY[n][3]])
def test_case_order_does_not_matter(fresh, name):
    reversed_result = fresh[name]["reversed"]
    direct = fresh[name]["direct"]
    assert reversed_result.keys() == direct.keys()
    for key, value in direct.items():
        if isinstance(value, float):
            assert reversed_result[key] == pytest.approx(value, rel=1e-12, abs=1e-12), key
        else:
            assert reversed_result[key] == value, key


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_a_bad_value_is_named_by_argument_and_index(fresh, name):
    _, inputs, options, _, (argument, index, value) = REGISTRY[name]
    prefix = f"{argument}[{index}] = {value!r}: expected"
    assert fresh[name]["error"] is not None and fresh[name]["error"].startswith(prefix), \
        fresh[name]["error"]
    changed = {key: list(values) for key, values in inputs.items()}
    changed[argument][index] = value
    with pytest.raises(ValueError) as error:
        _plain(name)(**changed, **options)
    assert str(error.value).startswith(prefix)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_card_examples_run(fresh, name):
    card = fresh[name]["card"]
    assert card["failed"] == 0, card["report"]
    text = (metric_dir(name) / "README.md").read_text(encoding="utf-8")
    assert card["attempted"] >= min(text.count(">>> "), 1), "the card's examples did not run"


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_a_wrong_call_is_a_type_error_in_every_module(fresh, name):
    """One rule across the six wrappers: TypeError naming the wrong keyword or the missing
    input, never a ValueError about a None."""
    calls = fresh[name]["calls"]
    for case, (kind, message) in calls.items():
        assert kind == "TypeError", (case, kind, message)
        assert "\n" not in message
    assert "'bogus'" in calls["compute_unknown"][1]
    first = next(iter(REGISTRY[name][1]))
    assert f"{first[:-1]!r}" in calls["compute_misspelled"][1]
    assert f"missing required argument {first!r}" in calls["compute_missing"][1]


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_a_wrong_keyword_is_a_type_error_in_every_plain_function(name):
    _, inputs, options, _, _ = REGISTRY[name]
    with pytest.raises(TypeError, match="bogus"):
        _plain(name)(**inputs, **options, bogus=1)


@pytest.mark.parametrize("name", [n for n, entry in REGISTRY.items()
                                  if isinstance(next(iter(entry[1].values()))[0], str)])
def test_a_lone_surrogate_is_refused_before_pyarrow_in_every_text_metric(fresh, name):
    kind, message = fresh[name]["surrogate"]
    first = next(iter(REGISTRY[name][1]))
    assert kind == "BoundaryError", (kind, message)
    assert message.startswith(f"{first}[0] = 'lone \\ud800': expected") and "\n" not in message
    assert "lone surrogate U+D800 at character 5" in message
