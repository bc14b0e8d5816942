"""The npd_regression Space: score euro award predictions on a Gradio page.

Inputs: a pasted table (prediction, reference, optional groups) or an uploaded predictions
file (``case_id``, ``prediction``; CSV or JSON Lines as ``courtbench evaluate`` reads) with a
references file (``case_id``, ``reference``, optional ``groups``). The numbers come from
:func:`npd_regression.npd_regression`, loaded from the script beside this file.
"""

import gradio as gr
import matplotlib
import matplotlib.pyplot as plt
from space_io import (
    card_accordion,
    card_button,
    card_header,
    compute,
    labels,
    launch,
    load_metric,
    located,
    number,
    places,
    read_aligned,
    result_rows,
    status_box,
    table_columns,
    upload_file,
    wire,
)

matplotlib.use("Agg")  # figures are rendered to images for the page, never shown in a window

metric = load_metric("npd_regression")

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
    result = compute(metric.npd_regression, predictions=predictions, references=references,
                     zero_threshold=zero_threshold, groups=groups)
    rows = result_rows(result, skip=("groups",))
    for label, group in result.get("groups", {}).items():
        rows.append([f"groups.{label}.mae", f"{group['mae']:,.4f}".rstrip("0").rstrip(".")])
    figures = (scatter_figure(predictions, references, result["zero_threshold"]),
               bucket_figure(result))
    plt.close("all")
    return rows, result, *figures


def _threshold(value):
    return number(value, "zero threshold")


def from_table(table, zero_threshold):
    """Score a pasted table (prediction, reference, groups) → rows, JSON, scatter, bars."""
    columns = table_columns(table, COLUMNS)
    predictions = [number(v, f"table row {i + 1}, column 'prediction'")
                   for i, v in enumerate(columns["prediction"])]
    references = [number(v, f"table row {i + 1}, column 'reference'")
                  for i, v in enumerate(columns["reference"])]
    groups = [labels(v, f"table row {i + 1}, column 'groups'") for i, v in enumerate(columns["groups"])]
    return report(predictions, references, groups if any(groups) else None,
                  _threshold(zero_threshold))


def from_files(predictions_file, references_file, zero_threshold):
    """Score an uploaded predictions file against a references file (paired by ``case_id``)."""
    _, predicted, referenced = read_aligned(predictions_file, references_file, "case_id",
                                            ["prediction"], {"reference": True, "groups": False})
    predictions = [number(value, where) for where, value in predicted["prediction"]]
    references = [number(value, where) for where, value in referenced["reference"]]
    groups = [labels(value, where) for where, value in referenced["groups"]]
    with located({"predictions": places(predicted["prediction"]),
                  "references": places(referenced["reference"]),
                  "groups": places(referenced["groups"])}):
        return report(predictions, references, groups if any(groups) else None,
                      _threshold(zero_threshold))


with gr.Blocks(title="npd_regression") as demo:
    gr.Markdown(card_header("npd_regression"))
    open_card = card_button()
    with gr.Row():
        with gr.Column(scale=3):
            with gr.Tab("Paste values"):
                table = gr.Dataframe(
                    value=EXAMPLE, headers=COLUMNS, datatype=["number", "number", "str"],
                    type="array", column_count=(3, "fixed"), interactive=True,
                    label="One case per row: predicted and awarded amount (EUR); groups "
                          "optional, several separated by ';'")
                table_button = gr.Button("Compute from the table", variant="primary")
            with gr.Tab("Upload files"):
                gr.Markdown("Predictions file as `courtbench evaluate` reads it: CSV or JSON "
                            "Lines with `case_id` and `prediction`. References file: `case_id`, "
                            "`reference` and optional `groups` (CSV: `Art. 3; Art. 6`, JSON: a "
                            "list). Cases are paired by `case_id`.")
                predictions_file = upload_file("Predictions file")
                references_file = upload_file("References file")
                files_button = gr.Button("Compute from the files", variant="primary")
        with gr.Column(scale=1):
            zero_threshold = gr.Number(value=0.5, label="zero_threshold (EUR): below it an "
                                                        "amount is a zero award")
    gr.Examples(examples=[[EXAMPLE, 0.5], [[[3200, 0, ""], [3200, 9000, ""]], 0.5],
                          [[[90, 100, ""], [400, 300, ""]], 150]],
                inputs=[table, zero_threshold],
                example_labels=["card example", "constant predictor", "threshold 150 EUR"])
    initial = from_table(EXAMPLE, 0.5)
    status = status_box()
    with gr.Row():
        rows = gr.Dataframe(value=initial[0], headers=["key", "value"], type="array",
                            interactive=False, label="Result (rounded; the JSON is exact)")
        full = gr.JSON(value=initial[1], label="Full result (JSON)", open=True)
    with gr.Row():
        scatter = gr.Plot(value=initial[2], label="Predicted vs. awarded")
        buckets = gr.Plot(value=initial[3], label="MAE by target range")
    card_accordion(button=open_card)
    outputs = [rows, full, scatter, buckets]
    wire(table_button, from_table, [table, zero_threshold], outputs, status, api_name="from_table")
    wire(files_button, from_files, [predictions_file, references_file, zero_threshold], outputs, status, api_name="from_files")

if __name__ == "__main__":
    launch(demo)
