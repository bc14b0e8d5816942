"""The zero_f1 Space: F1 of the zero-award class on a Gradio page.

Inputs: a pasted table (prediction, reference) or an uploaded predictions file (``case_id``,
``prediction``; CSV or JSON Lines as ``courtbench evaluate`` reads) with a references file
(``case_id``, ``reference``). The numbers come from :func:`zero_f1.zero_f1`, loaded from the
script beside this file.
"""

import gradio as gr
import space_io

metric = space_io.load_metric("zero_f1")

COLUMNS = ["prediction", "reference"]
EXAMPLE = [[0, 0], [0.2, 1200], [800, 0], [3000, 3000]]
THRESHOLD_LABEL = ("zero_threshold (EUR): an amount at or below it is a zero award (> 0; "
                   f"amounts and threshold at most {metric.AMOUNT_CEILING:,.0f} EUR)")


def report(predictions, references, zero_threshold):
    """Outputs of the page: summary rows, the full JSON, the 2 × 2 table of the zero class.

    The table comes from the module itself (:func:`zero_f1.checked_zero_counts`): the same
    rule as the figures, an amount at or below the threshold is a zero award."""
    threshold = space_io.number(zero_threshold, "zero_threshold")
    result = space_io.compute(metric.zero_f1, predictions=predictions, references=references,
                              zero_threshold=threshold)
    counts = space_io.compute(metric.checked_zero_counts, predictions=predictions,
                              references=references, zero_threshold=threshold)
    confusion = [["predicted zero", counts["both_zero"], counts["only_predicted_zero"]],
                 ["predicted non-zero", counts["only_awarded_zero"], counts["neither"]]]
    return space_io.result_rows(result), result, confusion


def from_table(table, zero_threshold):
    """Score a pasted table (prediction, reference) → rows, JSON, confusion table."""
    values = space_io.table_values(table, dict.fromkeys(COLUMNS, space_io.number))
    return report(values["prediction"], values["reference"], zero_threshold)


def from_files(predictions_file, references_file, zero_threshold):
    """Score an uploaded predictions file against a references file (paired by ``case_id``)."""
    _, predicted, referenced = space_io.read_aligned(predictions_file, references_file,
                                                     "case_id", ["prediction"],
                                                     {"reference": True})
    with space_io.located({"predictions": space_io.places(predicted["prediction"]),
                           "references": space_io.places(referenced["reference"])}):
        return report([space_io.number(value, where) for where, value in predicted["prediction"]],
                      [space_io.number(value, where) for where, value in referenced["reference"]],
                      zero_threshold)


with gr.Blocks(title="zero_f1") as demo:
    page = space_io.page_inputs(
        "zero_f1",
        table=lambda: space_io.pasted_table(
            EXAMPLE, COLUMNS, ["number", "number"],
            "One case per row: predicted and awarded amount (EUR)"),
        files_help="Predictions file as `courtbench evaluate` reads it: CSV or JSON Lines with "
                   "`case_id` and `prediction`. References file: `case_id` and `reference`. "
                   "Cases are paired by `case_id`.",
        file_labels=["Predictions file", "References file"],
        options=lambda: [gr.Number(value=0.5, label=THRESHOLD_LABEL)])
    gr.Examples(examples=[[EXAMPLE, 0.5], [[[10, 0], [20, 5]], 0.5],
                          [[[90, 100], [400, 300]], 150]],
                inputs=page.table_inputs,
                example_labels=["card example", "no predicted zeros", "threshold 150 EUR"])
    initial = from_table(EXAMPLE, 0.5)
    status = space_io.status_box()
    rows, full = space_io.summary_outputs(initial[0], initial[1])
    confusion = gr.Dataframe(value=initial[2], headers=["", "awarded zero", "awarded non-zero"],
                             type="array", interactive=False,
                             label="Cases by class (zero = at or below the threshold)")
    outputs = [rows, full, confusion]
    space_io.card_accordion(button=page.card_button)
    page.on_table(from_table, outputs, status, api_name="from_table")
    page.on_files(from_files, outputs, status, api_name="from_files")

if __name__ == "__main__":
    space_io.launch(demo)
