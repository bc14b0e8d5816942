"""The bootstrap_mae Space: compare two systems' MAE (or bound one system's) on a Gradio page.

Inputs: a pasted table (system 1, system 2, reference; system 2 unused by ``single``) or
uploaded predictions files (``case_id``, ``prediction``; CSV or JSON Lines as
``courtbench evaluate`` reads) with a references file (``case_id``, ``reference``). The
numbers come from :func:`bootstrap_mae.bootstrap_mae` / :func:`bootstrap_mae.bootstrap_mae_single`,
loaded from the script beside this file; the histogram shows the same replicates
(:func:`bootstrap_mae.bootstrap_replicates` with the same seed).
"""

import gradio as gr
import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import space_io

matplotlib.use("Agg")  # figures are rendered to images for the page, never shown in a window

metric = space_io.load_metric("bootstrap_mae")

COLUMNS = ["system 1", "system 2", "reference"]
CONFIGS = ["paired (default)", "single"]
#: The page's caps, below the module's own (1,000,000 resamples, 2e9 resampled cases): at
#: most this many resamples, and at most MAX_DRAWS resampled values (cases × resamples) per
#: run, so one visitor cannot occupy the Space for minutes.
MAX_RESAMPLES = 100_000
MAX_DRAWS = 20_000_000
EXAMPLE = [[0, 3200, 0], [900, 3200, 1000], [5200, 3200, 5000], [48000, 3200, 50000],
           [0, 3200, 0], [12000, 3200, 10000]]


def _resamples(value, n):
    """n_resamples within the page's caps; ``gr.Error`` saying the cap otherwise."""
    resamples = space_io.count(value, "n_resamples", low=2, high=MAX_RESAMPLES,
                               what="a number of resamples (this page's cap; run the module "
                                    "locally for more)")
    if resamples * max(n, 1) > MAX_DRAWS:
        raise space_io.page_error(f"n_resamples = {resamples:,} with {n:,} cases: this page "
                                  f"draws at most {MAX_DRAWS:,} values per run; use at most "
                                  f"{max(2, MAX_DRAWS // max(n, 1)):,} resamples")
    return resamples


def distribution_figure(result, values, single):
    """Histogram of the bootstrap replicates with the percentile interval (and 0 for Δ)."""
    replicates = metric.bootstrap_replicates(np.asarray(values, dtype=np.float64),
                                             n_resamples=result["n_resamples"],
                                             seed=result["seed"])
    figure, axes = plt.subplots(figsize=(7, 4))
    axes.hist(replicates, bins=min(50, max(10, result["n_resamples"] // 20)), color="tab:blue",
              alpha=0.75)
    level = f"{100 * result['confidence_level']:g}% interval"
    axes.axvspan(result["ci_low"], result["ci_high"], color="tab:orange", alpha=0.2, label=level)
    for bound in (result["ci_low"], result["ci_high"]):
        axes.axvline(bound, color="tab:orange", linewidth=1.5)
    if single:
        axes.axvline(result["mae"], color="black", linewidth=1.5, label="MAE")
        axes.set_xlabel("MAE* of the resample (EUR)")
        axes.set_title(f"Bootstrap distribution of the MAE, {result['n_resamples']} resamples")
    else:
        axes.axvline(0.0, color="gray", linestyle="--", linewidth=1, label="Δ = 0")
        axes.axvline(result["delta"], color="black", linewidth=1.5, label="Δ observed")
        axes.set_xlabel("Δ* = MAE(system 1) − MAE(system 2) on the resample (EUR)")
        axes.set_title(f"Δ*: Pr(Δ* < 0) = {result['prob_1_better']:.3f}, verdict: "
                       f"{result['verdict']}")
    axes.set_ylabel("resamples")
    axes.legend(loc="best", fontsize=8, framealpha=0.9)
    figure.tight_layout()
    return figure


def report(system1, system2, references, config, alpha, n_resamples, seed):
    """Outputs of the page: summary rows, the full JSON and the replicate histogram."""
    options = {"alpha": space_io.number(alpha, "alpha"),
               "n_resamples": _resamples(n_resamples, len(references)),
               "seed": space_io.seed(seed)}
    single = config == "single"
    if single:
        result = space_io.compute(metric.bootstrap_mae_single, predictions=system1,
                                  references=references, **options)
        values = [abs(p - r) for p, r in zip(system1, references, strict=True)]
    else:
        result = space_io.compute(metric.bootstrap_mae, predictions1=system1,
                                  predictions2=system2, references=references, **options)
        values = [abs(p - r) - abs(q - r) for p, q, r in zip(system1, system2, references, strict=True)]
    figure = space_io.drawn(distribution_figure, result, values, single)
    plt.close("all")
    return space_io.result_rows(result), result, figure


def _column(columns, name, config):
    if config == "single" and name == "system 2":
        return []
    return [space_io.number(v, f"table row {i + 1}, column {name!r}")
            for i, v in enumerate(columns[name])]


def from_table(table, config, alpha, n_resamples, seed):
    """Compare from a pasted table (system 1, system 2, reference) → rows, JSON, histogram."""
    columns = space_io.table_columns(table, COLUMNS)
    return report(_column(columns, "system 1", config), _column(columns, "system 2", config),
                  _column(columns, "reference", config), config, alpha, n_resamples, seed)


def from_files(system1_file, system2_file, references_file, config, alpha, n_resamples, seed):
    """Compare uploaded predictions files against a references file (paired by ``case_id``)."""
    _, first, referenced = space_io.read_aligned(system1_file, references_file, "case_id",
                                                 ["prediction"], {"reference": True},
                                                 what="system 1 predictions file")
    references = [space_io.number(value, where) for where, value in referenced["reference"]]
    system1 = [space_io.number(value, where) for where, value in first["prediction"]]
    system2 = []
    if config != "single":
        _, second, _ = space_io.read_aligned(system2_file, references_file, "case_id",
                                             ["prediction"], {"reference": True},
                                             what="system 2 predictions file")
        system2 = [space_io.number(value, where) for where, value in second["prediction"]]
    where = {"predictions": space_io.places(first["prediction"]),
             "predictions1": space_io.places(first["prediction"]),
             "predictions2": space_io.places(second["prediction"]) if config != "single" else [],
             "references": space_io.places(referenced["reference"])}
    with space_io.located(where):
        return report(system1, system2, references, config, alpha, n_resamples, seed)


def options_column():
    """The options of both tabs: config, alpha, n_resamples and seed."""
    return [gr.Radio(CONFIGS, value=CONFIGS[0], label="Config"),
            gr.Number(value=0.05, label="alpha (two-sided; the interval covers 1 − alpha)"),
            # precision=None: the handler sees what was typed (1.5 is refused, not rounded)
            gr.Number(value=1000, precision=None,
                      label=f"n_resamples (2 to {MAX_RESAMPLES:,}; cases × resamples at most "
                            f"{MAX_DRAWS:,} on this page)"),
            gr.Number(value=12345, precision=None,
                      label="seed of numpy.random.default_rng (an integer, 0 to 4,294,967,295)")]


with gr.Blocks(title="bootstrap_mae") as demo:
    page = space_io.page_inputs(
        "bootstrap_mae",
        table=lambda: space_io.pasted_table(
            EXAMPLE, COLUMNS, ["number"] * 3,
            "One case per row: both systems' predictions and the awarded amount (EUR); "
            "config single uses system 1 only"),
        files_help="Predictions files as `courtbench evaluate` reads them: CSV or JSON Lines "
                   "with `case_id` and `prediction`. References file: `case_id` and "
                   "`reference`. Cases are paired by `case_id`.",
        file_labels=["System 1 predictions file", "System 2 predictions file (paired config)",
                     "References file"],
        options=options_column)
    gr.Examples(examples=[[EXAMPLE, CONFIGS[0], 0.05, 1000, 12345],
                          [EXAMPLE, "single", 0.05, 1000, 1],
                          [[[1, 1, 2], [2, 2, 2], [3, 3, 2]], CONFIGS[0], 0.05, 1000, 12345]],
                inputs=page.table_inputs,
                example_labels=["card example (paired)", "card example (single, seed 1)",
                                "identical systems"])
    initial = from_table(EXAMPLE, CONFIGS[0], 0.05, 1000, 12345)
    status = space_io.status_box()
    rows, full = space_io.summary_outputs(initial[0], initial[1])
    distribution = gr.Plot(value=initial[2], label="Bootstrap distribution with the interval")
    outputs = [rows, full, distribution]
    space_io.card_accordion("Comparison card", button=page.card_button)
    page.on_table(from_table, outputs, status, api_name="from_table")
    page.on_files(from_files, outputs, status, api_name="from_files")

if __name__ == "__main__":
    space_io.launch(demo)
