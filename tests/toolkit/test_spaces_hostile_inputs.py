"""Hostile page inputs (issue #32, "Metrics and pages"), called as the pages' own handlers
with their status box (``space_io.guarded``, exactly what a button runs), each page module
imported from its folder as a Space runs it. Through a served page (gradio's number boxes,
the API) the same cases run in test_spaces_pages.py.

Every hostile input gives one line naming the place and the value, clears the outputs of the
previous run (a stale result would read as the answer to the failed input), and never a
traceback; a plot that cannot be drawn never turns a computed result into an error.
"""

from __future__ import annotations

import importlib
import math
import sys

import pytest

from courtbench.metric_modules import metric_folders

gr = pytest.importorskip("gradio", reason="extra 'spaces' not installed")
pytestmark = pytest.mark.slow  # imports gradio and builds the pages


@pytest.fixture(scope="module")
def pages():
    """``{name: app module}``: every page imported from its folder (its own space_io)."""
    loaded = {}
    saved_path = list(sys.path)
    for name, folder in metric_folders().items():
        for module in ("app", "space_io"):
            sys.modules.pop(module, None)
        sys.path.insert(0, str(folder))
        try:
            loaded[name] = importlib.import_module("app")
        finally:
            sys.path[:] = saved_path
    for module in ("app", "space_io"):
        sys.modules.pop(module, None)
    return loaded


def handler(page, function, n_outputs):
    """The guarded handler a page's button runs: ``(*outputs, status)``."""
    return page.space_io.guarded(function, n_outputs)


def status_of(outputs):
    status = outputs[-1]
    assert "\n" not in status and "Traceback" not in status, status
    return status


def table(rows):
    return rows


# ----------------------------------------------------------------------------- zero_f1


def test_zero_f1_cases_by_class_use_the_metrics_own_rule(pages):
    page = pages["zero_f1"]
    rows = [[0.5, 0.5], [0.5, 1000], [1000, 0.5], [1000, 1000]]
    summary, result, confusion, status = handler(page, page.from_table, 3)(rows, 0.5)
    assert status == "Done."
    assert result["support"] == result["predicted_zeros"] == 2  # 0.5 EUR is a zero award
    assert confusion == [["predicted zero", 1, 1], ["predicted non-zero", 1, 1]]
    counts = sum(cell for row in confusion for cell in row[1:])
    assert counts == len(rows)


def test_zero_f1_labels_say_at_or_below(pages):
    page = pages["zero_f1"]
    labels = [block.label for block in page.demo.blocks.values() if getattr(block, "label", None)]
    threshold = [label for label in labels if label.startswith("zero_threshold")]
    assert threshold and all("at or below" in label for label in threshold)
    assert any(label == "Cases by class (zero = at or below the threshold)" for label in labels)
    assert not any("below it an amount" in label for label in labels)


# ----------------------------------------------------------------------------- bootstrap_mae

ROWS = [[0, 3200, 0], [900, 3200, 1000], [5200, 3200, 5000], [48000, 3200, 50000],
        [0, 3200, 0], [12000, 3200, 10000]]


def run_bootstrap(page, rows, *options):
    return handler(page, page.from_table, 3)(rows, *(options or ("paired (default)", 0.05,
                                                                 1000, 12345)))


def test_bootstrap_1e308_is_refused_by_name_and_the_stale_result_cleared(pages):
    page = pages["bootstrap_mae"]
    good = run_bootstrap(page, ROWS)
    assert good[-1] == "Done." and good[1]["verdict"] == "1 better"
    huge = [row[:] for row in ROWS]
    huge[2][0] = 1e308
    outputs = run_bootstrap(page, huge)
    assert status_of(outputs) == (
        "Error: predictions1[2] = 1e+308: expected an amount of money >= 0 and <= "
        "1,000,000,000,000 (table row 3)")
    assert outputs[:-1] == (None, None, None)  # the previous result is gone


def test_bootstrap_amounts_at_the_ceiling_are_computed_and_drawn(pages):
    page = pages["bootstrap_mae"]
    ceiling = [row[:] for row in ROWS]
    ceiling[2][0] = 1e12
    summary, result, figure, status = run_bootstrap(page, ceiling)
    assert status == "Done." and figure is not None
    assert result == page.metric.bootstrap_mae(
        predictions1=[r[0] for r in ceiling], predictions2=[r[1] for r in ceiling],
        references=[r[2] for r in ceiling])


def test_a_plot_never_turns_a_result_into_an_error(pages, monkeypatch):
    page = pages["bootstrap_mae"]

    def broken(*arguments):
        raise OverflowError("Maximum allowed size exceeded")  # what matplotlib said for 1e308

    monkeypatch.setattr(page, "distribution_figure", broken)
    summary, result, figure, status = run_bootstrap(page, ROWS)
    assert result["verdict"] == "1 better" and figure is None and summary
    assert status == ("Done. Note: a plot could not be drawn (OverflowError: Maximum allowed "
                      "size exceeded); the numbers are complete.")


@pytest.mark.parametrize(("options", "message"), [
    (("paired (default)", 0.05, 1000, 1.5),
     "seed = 1.5: expected an integer seed in [0, 4,294,967,295] (a whole number)"),
    (("paired (default)", 0.05, 1000, -1), "seed = -1: expected an integer seed"),
    (("paired (default)", 0.05, 1000, 2**32), "seed = 4294967296: expected an integer seed"),
    (("paired (default)", 0.05, 10**9, 1), "n_resamples = 1000000000: expected a number of "
                                           "resamples (this page's cap"),
    (("paired (default)", 0.05, 2.5, 1), "n_resamples = 2.5: expected a number of resamples"),
    (("paired (default)", 0.05, math.nan, 1), "n_resamples = nan: expected a number of "
                                              "resamples"),
    (("paired (default)", 1.5, 1000, 1), "alpha = 1.5: expected a significance level"),
    (("paired (default)", math.inf, 1000, 1), "alpha = inf: expected a finite significance level"),
])
def test_bootstrap_options_go_through_the_validator(pages, options, message):
    outputs = run_bootstrap(pages["bootstrap_mae"], ROWS, *options)
    assert status_of(outputs).startswith("Error: " + message)
    assert outputs[:-1] == (None, None, None)


@pytest.mark.parametrize(("cell", "message"), [
    (math.nan, "predictions1[1] = nan: expected a finite amount of money"),
    (-1, "predictions1[1] = -1.0: expected an amount of money"),
    ("12abc", "table row 2, column 'system 1' = '12abc': expected a number"),
    (10**400, "predictions1[1] = <an integer of about 400 digits>"),
    (None, "table row 2, column 'system 1' = None: expected a number"),
])
def test_bootstrap_hostile_cells(pages, cell, message):
    rows = [row[:] for row in ROWS]
    rows[1][0] = cell
    outputs = run_bootstrap(pages["bootstrap_mae"], rows)
    assert status_of(outputs).startswith("Error: " + message)


# ----------------------------------------------------------------------------- npd_regression


@pytest.mark.parametrize(("rows", "threshold", "message"), [
    ([[1e308, 1e308, ""], [1000, 1500, ""]], 0.5,
     "predictions[0] = 1e+308: expected an amount of money >= 0"),
    ([[1, 1, ""]], 0, "zero_threshold = 0.0: expected an amount in EUR > 0"),
    ([[1, 1, ""]], math.nan, "zero_threshold = nan: expected a finite"),
    ([[1, 1, ""]], 1e13, "zero_threshold = 10000000000000.0: expected an amount in EUR"),
    ([], 0.5, "the table is empty"),
])
def test_npd_regression_hostile_inputs(pages, rows, threshold, message):
    page = pages["npd_regression"]
    outputs = handler(page, page.from_table, 4)(rows, threshold)
    assert status_of(outputs).startswith("Error: " + message)
    assert outputs[:-1] == (None,) * 4


def test_npd_regression_label_says_at_or_below(pages):
    labels = [block.label for block in pages["npd_regression"].demo.blocks.values()
              if getattr(block, "label", None)]
    assert any(label.startswith("zero_threshold (EUR): an amount at or below it")
               for label in labels)


# ----------------------------------------------------------------------------- SLDS pages


def test_headnote_similarity_hostile_inputs(pages):
    page = pages["headnote_similarity"]
    run = handler(page, page.from_table, 4)
    source = page.NO_SOURCE
    good = [["Art. 6 VG; Genugtuung.", "Art. 6 VG; Genugtuungsanspruch."]]
    assert run(good, "de", source, "unicode", "13a", 100, 0)[-1] == "Done."
    cases = [
        ([["ok", "bad \ud800"]], 100, 0, "references[0] = 'bad \\ud800': expected a headnote with "
                                         "valid Unicode (a lone surrogate U+D800 at character 4)"),
        ([["ok", "\u200b \u00a0"]], 100, 0, "references[0] = "),
        ([["nul\x00", "gold"]], 100, 0, "predictions[0] = 'nul\\x00': expected a headnote with "
                                        "no NUL character"),
        (good, 10**9, 0, "bootstrap_resamples = 1000000000: expected a number of bootstrap "
                         "resamples (this page's cap"),
        (good, 100, 1.5, "seed = 1.5: expected an integer seed"),
    ]
    for rows, resamples, seed, message in cases:
        outputs = run(rows, "de", source, "unicode", "13a", resamples, seed)
        assert status_of(outputs).startswith("Error: " + message), outputs[-1]
        assert outputs[:-1] == (None,) * 4


def test_summarization_properties_hostile_inputs(pages):
    page = pages["summarization_properties"]
    run = handler(page, page.from_table, 5)
    good = [["Das Gericht weist die Beschwerde ab.", "Beschwerde abgewiesen."]]
    assert run(good, "de", "de", 100, 10, 0)[-1].startswith("Done.")
    cases = [
        ([["Das Gericht \ud800 weist ab.", "ab"]], 100, 10, 0,
         "sources[0] = 'Das Gericht \\ud800 weist ab.': expected a decision with valid Unicode"),
        (good, 100, 10**9, 0, "formulaicness_subsets = 1000000000: expected a number of "
                              "subsets in [1, 1,000]"),
        (good, 1000, 1000, 0, "formulaicness_subsets = 1,000 with subsets of 1,000: this page "
                              "compares at most 200,000 headnote pairs"),
        (good, 100, 10, 1.5, "seed = 1.5: expected an integer seed"),
        (good, 1.5, 10, 0, "formulaicness_subset_size = 1.5: expected headnotes per subset"),
    ]
    for rows, size, subsets, seed, message in cases:
        outputs = run(rows, "de", "de", size, subsets, seed)
        assert status_of(outputs).startswith("Error: " + message), outputs[-1]
        assert outputs[:-1] == (None,) * 5


def test_judge_page_refuses_before_any_request(pages, monkeypatch):
    page = pages["headnote_judge"]
    monkeypatch.setenv("JUDGE_ENDPOINTS", "http://127.0.0.1:9/v1")
    run = handler(page, page.from_table, 3)
    good = [["Art. 8 ZGB; Beweislast.", "Art. 8 ZGB; Beweislast (E. 3)."]]
    endpoint = ["http://127.0.0.1:9/v1", "m", "key"]
    cases = [
        (good, "DE", [256, 0, 2, 0, 10, False], "headnote_languages[0] = 'DE': expected one of "
                                                "'de', 'fr', 'it'"),
        (good, "de", [256, 1.5, 2, 0, 10, False], "seed = 1.5: expected an integer seed"),
        (good, "de", [256, 0, 10**6, 0, 10, False], "concurrency = 1000000: expected an "
                                                    "integer concurrency (this page's cap)"),
        (good, "de", [256, 0, 2, 0, math.inf, False], "timeout = inf: expected a finite number"),
        ([["ok", "lone \udfff"]], "de", [256, 0, 2, 0, 10, False],
         "references[0] = 'lone \\udfff': expected a headnote with valid Unicode"),
    ]
    for rows, language, options, message in cases:
        outputs = run(rows, language, "fr", *endpoint, *options)
        assert status_of(outputs).startswith("Error: " + message), outputs[-1]
        assert outputs[:-1] == (None,) * 3


def test_page_and_metric_share_one_validator(pages):
    """The page's own checks and the metric's are one module (one BoundaryError class), so a
    refusal reads the same wherever it is raised."""
    for name, page in pages.items():
        metric = getattr(page, "metric", None) or getattr(page, "measurement", None) \
            or page.judge
        assert sys.modules[f"{metric.__package__}.boundary"] is page.space_io.boundary, name


# ----------------------------------------------------------------------------- every page

#: page -> (the options after the table of ``from_table``, number of outputs).
TABLE_RUNS = {
    "zero_f1": ((0.5,), 3),
    "npd_regression": ((0.5,), 4),
    "bootstrap_mae": (("paired (default)", 0.05, 1000, 12345), 3),
    "headnote_similarity": (("de", "(none: group by headnote language)", "unicode", "13a", 100,
                             0), 4),
    "summarization_properties": (("de", "de", 100, 10, 0), 5),
    "headnote_judge": (("de", "fr", "http://127.0.0.1:9/v1", "m", "key", 256, 0, 2, 0, 10,
                        False), 3),
}


def test_the_registry_covers_every_page(pages):
    assert sorted(TABLE_RUNS) == sorted(pages)


@pytest.mark.parametrize("name", sorted(TABLE_RUNS))
@pytest.mark.parametrize("rows", [[], [[None, None, None]], [["\ud800", "x", "x"]]],
                         ids=["empty", "blank row", "surrogate"])
def test_every_page_clears_its_result_on_an_error(pages, name, rows, monkeypatch):
    """The same rule on every page: any error is one line in the status box and every output
    of the previous run is cleared (None), so nothing stale reads as the answer."""
    monkeypatch.setenv("JUDGE_ENDPOINTS", "http://127.0.0.1:9/v1")
    page = pages[name]
    options, n_outputs = TABLE_RUNS[name]
    if name == "headnote_similarity":
        options = (options[0], page.NO_SOURCE, *options[2:])
    width = len(page.COLUMNS) if hasattr(page, "COLUMNS") else 2
    table = [row[:width] for row in rows]
    outputs = handler(page, page.from_table, n_outputs)(table, *options)
    assert status_of(outputs).startswith("Error: "), outputs[-1]
    assert outputs[:-1] == (None,) * n_outputs


@pytest.mark.parametrize("name", sorted(TABLE_RUNS))
def test_every_button_of_every_page_runs_through_the_guard(pages, name):
    """No page wires a handler of its own that could leave a traceback or a stale result: each
    event of the page is a ``space_io.guarded`` handler."""
    functions = [block.fn for block in pages[name].demo.fns.values() if block.fn is not None]
    # the page's computations (gradio's own example loader and the card toggle compute nothing)
    computing = [fn for fn in functions if fn.__name__.startswith("from_")]
    assert sorted(fn.__name__ for fn in computing) == ["from_files", "from_table"]
    assert all(fn.__code__.co_qualname == "guarded.<locals>.handler" for fn in computing)


@pytest.mark.parametrize(("name", "rows", "options", "n_outputs"), [
    ("npd_regression", [[0, 0, ""], [1000, 1500, ""], [40000, 60000, ""]], (0.5,), 4),
    ("bootstrap_mae", ROWS, ("paired (default)", 0.05, 1000, 12345), 3),
])
def test_a_plotting_failure_on_any_page_keeps_the_result(pages, monkeypatch, name, rows, options,
                                                         n_outputs):
    page = pages[name]

    def broken(*arguments, **keywords):
        raise OverflowError("Maximum allowed size exceeded")

    monkeypatch.setattr(page.plt, "subplots", broken)
    outputs = handler(page, page.from_table, n_outputs)(rows, *options)
    assert outputs[-1].startswith("Done. Note: a plot could not be drawn (OverflowError: "
                                  "Maximum allowed size exceeded); the numbers are complete")
    assert outputs[0] and isinstance(outputs[1], dict) and outputs[1]["n"] == len(rows)
    assert all(figure is None for figure in outputs[2:-1])


@pytest.mark.parametrize("extreme", [5e-324, 1e-300, 1e12])
def test_extreme_valid_amounts_are_computed_and_the_plot_never_fails_the_result(pages, extreme):
    """Amounts the validator accepts at both ends of its range: the metric computes; the plot
    is drawn or noted, never an error."""
    for name, rows, options, n_outputs in (
            ("bootstrap_mae", [[extreme, 0, 0], [0, extreme, extreme], [1, 2, 3]],
             ("paired (default)", 0.05, 200, 1), 3),
            ("npd_regression", [[extreme, 0, ""], [0, extreme, ""], [1, 2, ""]], (0.5,), 4)):
        page = pages[name]
        outputs = handler(page, page.from_table, n_outputs)(rows, *options)
        assert status_of(outputs).startswith("Done."), outputs[-1]
        assert isinstance(outputs[1], dict)


def _labels(page):
    return [block.label for block in page.demo.blocks.values()
            if isinstance(block, gr.Number) and block.label]


@pytest.mark.parametrize(("name", "parameter", "caps"), [
    ("bootstrap_mae", "n_resamples", ("MAX_RESAMPLES", "MAX_DRAWS")),
    ("headnote_similarity", "bootstrap_resamples", ("MAX_RESAMPLES",)),
    ("summarization_properties", "formulaicness_subsets", ("PAGE_MAX_PAIRS",)),
    ("headnote_judge", "concurrency", ("MAX_CONCURRENCY",)),
    ("headnote_judge", "max_retries", ("MAX_RETRIES",)),
    ("headnote_judge", "max_tokens", ("MAX_TOKENS",)),
])
def test_every_work_parameter_label_shows_the_pages_cap(pages, name, parameter, caps):
    page = pages[name]
    label = next(label for label in _labels(page) if label.startswith(parameter))
    for cap in caps:
        value = getattr(page, cap)
        assert f"{value:,}" in label or f"{value}" in label, (label, cap, value)


def test_the_page_caps_are_at_most_the_modules(pages):
    """A page may only lower a module's cap: the module's own refusal stays the last word."""
    bootstrap, similarity = pages["bootstrap_mae"], pages["headnote_similarity"]
    properties, judge = pages["summarization_properties"], pages["headnote_judge"]
    assert bootstrap.MAX_RESAMPLES <= bootstrap.metric.MAX_RESAMPLES
    assert bootstrap.MAX_DRAWS <= bootstrap.metric.MAX_DRAWS
    assert similarity.MAX_RESAMPLES <= similarity.metric.MAX_BOOTSTRAP_RESAMPLES
    assert properties.PAGE_MAX_PAIRS <= properties.measurement.MAX_FORMULAICNESS_PAIRS
    limits = judge.judge.LIMITS
    assert judge.MAX_CONCURRENCY <= limits["concurrency"][1]
    assert judge.MAX_RETRIES <= limits["max_retries"][1]
    assert judge.MAX_TOKENS <= limits["max_tokens"][1]
    assert judge.MAX_TIMEOUT_S <= judge.judge.MAX_TIMEOUT_SECONDS
