"""The npd_regression Space: score euro award predictions on a Gradio page.

Inputs: a pasted table (prediction, reference, optional groups) or an uploaded predictions
file (``case_id``, ``prediction``; CSV or JSON Lines as ``courtbench evaluate`` reads) with a
references file (``case_id``, ``reference``, optional ``groups``). The numbers come from
:func:`npd_regression.npd_regression`, loaded from the script beside this file.
"""

import gradio as gr
import matplotlib
import matplotlib.pyplot as plt
import space_io

matplotlib.use("Agg")  # figures are rendered to images for the page, never shown in a window

metric = space_io.load_metric("npd_regression")

COLUMNS = ["prediction", "reference", "groups"]
EXAMPLE = [[0, 0, "Art. 3"], [1000, 1500, "Art. 6"], [5000, 5000, "Art. 3; Art. 6"],
           [40000, 60000, ""]]
RANGE_TITLES = {"zero": "zero", "up_to_10k": "≤ 10k", "10k_to_50k": "10k–50k",
                "over_50k": "> 50k"}


def scatter_figure(predictions, references, zero_threshold):
    """Predicted against awarded amounts (symmetric-log axes, the diagonal is exact)."""
    figure, axes = plt.subplots(figsize=(5.5, 4.5))
    axes.scatter(references, predictions, s=18, alpha=0.7, color="tab:blue")
    top = max(max(references), max(predictions), 1.0) * 1.3
    linear_below = max(zero_threshold, 100.0)
    axes.plot([0, top], [0, top], color="gray", linewidth=1, linestyle="--", label="exact")
    for axis in (axes.set_xscale, axes.set_yscale):
        axis("symlog", linthresh=linear_below)
    # a little room below 0 so that zero awards are not hidden in the corner
    axes.set_xlim(-0.2 * linear_below, top)
    axes.set_ylim(-0.2 * linear_below, top)
    axes.set_xlabel("awarded (EUR)")
    axes.set_ylabel("predicted (EUR)")
    axes.set_title(f"Predicted vs. awarded, n = {len(references)}")
    axes.legend(loc="upper left")
    figure.tight_layout()
    return figure


def bucket_figure(result):
    """MAE by target range, with the number of cases above each bar."""
    figure, axes = plt.subplots(figsize=(5.5, 4.5))
    names = list(metric.TARGET_RANGES)
    values = [result["bucket_mae"][name]["mae"] or 0.0 for name in names]
    bars = axes.bar([RANGE_TITLES[name] for name in names], values, color="tab:orange")
    for bar, name in zip(bars, names, strict=True):
        count = result["bucket_mae"][name]["n"]
        axes.annotate(f"n = {count}" if count else "no case", (bar.get_x() + bar.get_width() / 2,
                      bar.get_height()), ha="center", va="bottom", fontsize=9)
    axes.set_xlabel("awarded amount (target range)")
    axes.set_ylabel("MAE (EUR)")
    axes.set_title(f"MAE by target range (overall {result['mae']:,.0f} EUR)")
    figure.tight_layout()
    return figure


def report(predictions, references, groups, zero_threshold):
    """Outputs of the page: summary rows, full JSON, the two figures."""
    result = space_io.compute(metric.npd_regression, predictions=predictions,
                              references=references, zero_threshold=zero_threshold,
                              groups=groups)
    rows = space_io.result_rows(result, skip=("groups",))
    for label, group in result.get("groups", {}).items():
        rows.append([f"groups.{label}.mae", f"{group['mae']:,.4f}".rstrip("0").rstrip(".")])
    figures = (space_io.drawn(scatter_figure, predictions, references, result["zero_threshold"]),
               space_io.drawn(bucket_figure, result))
    plt.close("all")
    return rows, result, *figures


def _threshold(value):
    return space_io.number(value, "zero_threshold")


def from_table(table, zero_threshold):
    """Score a pasted table (prediction, reference, groups) → rows, JSON, scatter, bars."""
    values = space_io.table_values(table, {"prediction": space_io.number,
                                           "reference": space_io.number,
                                           "groups": space_io.labels})
    groups = values["groups"]
    return report(values["prediction"], values["reference"], groups if any(groups) else None,
                  _threshold(zero_threshold))


def from_files(predictions_file, references_file, zero_threshold):
    """Score an uploaded predictions file against a references file (paired by ``case_id``)."""
    _, predicted, referenced = space_io.read_aligned(predictions_file, references_file,
                                                     "case_id", ["prediction"],
                                                     {"reference": True, "groups": False})
    predictions = [space_io.number(value, where) for where, value in predicted["prediction"]]
    references = [space_io.number(value, where) for where, value in referenced["reference"]]
    groups = [space_io.labels(value, where) for where, value in referenced["groups"]]
    with space_io.located({"predictions": space_io.places(predicted["prediction"]),
                           "references": space_io.places(referenced["reference"]),
                           "groups": space_io.places(referenced["groups"])}):
        return report(predictions, references, groups if any(groups) else None,
                      _threshold(zero_threshold))


with gr.Blocks(title="npd_regression") as demo:
    page = space_io.page_inputs(
        "npd_regression",
        table=lambda: space_io.pasted_table(
            EXAMPLE, COLUMNS, ["number", "number", "str"],
            "One case per row: predicted and awarded amount (EUR); groups optional, several "
            "separated by ';'"),
        files_help="Predictions file as `courtbench evaluate` reads it: CSV or JSON Lines with "
                   "`case_id` and `prediction`. References file: `case_id`, `reference` and "
                   "optional `groups` (CSV: `Art. 3; Art. 6`, JSON: a list). Cases are paired "
                   "by `case_id`.",
        file_labels=["Predictions file", "References file"],
        options=lambda: [gr.Number(value=0.5, label="zero_threshold (EUR): an amount at or "
                                                    "below it is a zero award (> 0; amounts and "
                                                    "threshold at most 1,000,000,000,000 EUR)")])
    gr.Examples(examples=[[EXAMPLE, 0.5], [[[3200, 0, ""], [3200, 9000, ""]], 0.5],
                          [[[90, 100, ""], [400, 300, ""]], 150]],
                inputs=page.table_inputs,
                example_labels=["card example", "constant predictor", "threshold 150 EUR"])
    initial = from_table(EXAMPLE, 0.5)
    status = space_io.status_box()
    rows, full = space_io.summary_outputs(initial[0], initial[1])
    with gr.Row():
        scatter = gr.Plot(value=initial[2], label="Predicted vs. awarded")
        buckets = gr.Plot(value=initial[3], label="MAE by target range")
    outputs = [rows, full, scatter, buckets]
    space_io.card_accordion(button=page.card_button)
    page.on_table(from_table, outputs, status, api_name="from_table")
    page.on_files(from_files, outputs, status, api_name="from_files")

if __name__ == "__main__":
    space_io.launch(demo)
