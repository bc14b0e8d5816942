"""The zero_f1 Space: F1 of the zero-award class on a Gradio page.

Inputs: a pasted table (prediction, reference) or an uploaded predictions file (``case_id``,
``prediction``; CSV or JSON Lines as ``courtbench evaluate`` reads) with a references file
(``case_id``, ``reference``). The numbers come from :func:`zero_f1.zero_f1`, loaded from the
script beside this file.
"""

import gradio as gr
from space_io import (
    card_accordion,
    card_button,
    card_header,
    compute,
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

metric = load_metric("zero_f1")

COLUMNS = ["prediction", "reference"]
EXAMPLE = [[0, 0], [0.2, 1200], [800, 0], [3000, 3000]]


def report(predictions, references, zero_threshold):
    """Outputs of the page: summary rows, the full JSON, the 2 × 2 table of the zero class."""
    threshold = number(zero_threshold, "zero threshold")
    result = compute(metric.zero_f1, predictions=predictions, references=references,
                     zero_threshold=threshold)
    pred_zero = [value < threshold for value in predictions]
    true_zero = [value < threshold for value in references]
    both = sum(p and t for p, t in zip(pred_zero, true_zero, strict=True))
    confusion = [["predicted zero", both, sum(pred_zero) - both],
                 ["predicted non-zero", sum(true_zero) - both,
                  len(references) - sum(pred_zero) - sum(true_zero) + both]]
    return result_rows(result), result, confusion


def from_table(table, zero_threshold):
    """Score a pasted table (prediction, reference) → rows, JSON, confusion table."""
    columns = table_columns(table, COLUMNS)
    predictions = [number(v, f"table row {i + 1}, column 'prediction'")
                   for i, v in enumerate(columns["prediction"])]
    references = [number(v, f"table row {i + 1}, column 'reference'")
                  for i, v in enumerate(columns["reference"])]
    return report(predictions, references, zero_threshold)


def from_files(predictions_file, references_file, zero_threshold):
    """Score an uploaded predictions file against a references file (paired by ``case_id``)."""
    _, predicted, referenced = read_aligned(predictions_file, references_file, "case_id",
                                            ["prediction"], {"reference": True})
    with located({"predictions": places(predicted["prediction"]),
                  "references": places(referenced["reference"])}):
        return report([number(value, where) for where, value in predicted["prediction"]],
                      [number(value, where) for where, value in referenced["reference"]],
                      zero_threshold)


with gr.Blocks(title="zero_f1") as demo:
    gr.Markdown(card_header("zero_f1"))
    open_card = card_button()
    with gr.Row():
        with gr.Column(scale=3):
            with gr.Tab("Paste values"):
                table = gr.Dataframe(
                    value=EXAMPLE, headers=COLUMNS, datatype=["number", "number"], type="array",
                    column_count=(2, "fixed"), interactive=True,
                    label="One case per row: predicted and awarded amount (EUR)")
                table_button = gr.Button("Compute from the table", variant="primary")
            with gr.Tab("Upload files"):
                gr.Markdown("Predictions file as `courtbench evaluate` reads it: CSV or JSON "
                            "Lines with `case_id` and `prediction`. References file: `case_id` "
                            "and `reference`. Cases are paired by `case_id`.")
                predictions_file = upload_file("Predictions file")
                references_file = upload_file("References file")
                files_button = gr.Button("Compute from the files", variant="primary")
        with gr.Column(scale=1):
            zero_threshold = gr.Number(value=0.5, label="zero_threshold (EUR): below it an "
                                                        "amount is a zero award")
    gr.Examples(examples=[[EXAMPLE, 0.5], [[[10, 0], [20, 5]], 0.5],
                          [[[90, 100], [400, 300]], 150]],
                inputs=[table, zero_threshold],
                example_labels=["card example", "no predicted zeros", "threshold 150 EUR"])
    initial = from_table(EXAMPLE, 0.5)
    status = status_box()
    with gr.Row():
        rows = gr.Dataframe(value=initial[0], headers=["key", "value"], type="array",
                            interactive=False, label="Result (rounded; the JSON is exact)")
        full = gr.JSON(value=initial[1], label="Full result (JSON)", open=True)
    confusion = gr.Dataframe(value=initial[2], headers=["", "awarded zero", "awarded non-zero"],
                             type="array", interactive=False,
                             label="Cases by class (zero = below the threshold)")
    card_accordion(button=open_card)
    outputs = [rows, full, confusion]
    wire(table_button, from_table, [table, zero_threshold], outputs, status, api_name="from_table")
    wire(files_button, from_files, [predictions_file, references_file, zero_threshold], outputs, status, api_name="from_files")

if __name__ == "__main__":
    launch(demo)
