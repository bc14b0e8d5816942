"""The headnote_judge Space: judge generated headnotes against gold ones on a Gradio page.

Inputs: a pasted table (generated headnote, gold headnote) with one headnote and one decision
language for all rows, or an uploaded predictions file (``sample_id``, ``prediction``; CSV or
JSON Lines as ``courtbench evaluate`` reads) with a references file (``sample_id``,
``reference``, ``headnote_language``, ``decision_language``); and the judge: an
OpenAI-compatible endpoint, a model and an API key. The key typed here is sent to that
endpoint only; it is neither stored nor logged. The numbers come from
:func:`headnote_judge.headnote_judge`, loaded from the script beside this file.
"""

import gradio as gr
from space_io import (
    card_accordion,
    card_header,
    compute,
    load_metric,
    number,
    page_error,
    read_aligned,
    result_rows,
    table_columns,
    text,
    upload_file,
)

judge = load_metric("headnote_judge")

COLUMNS = ["generated headnote", "gold headnote"]
LANGUAGES = ["de", "fr", "it"]
EXAMPLE = [["Art. 8 ZGB; Beweislast für den Bestand einer Forderung.",
            "Art. 8 ZGB; Verteilung der Beweislast bei bestrittenen Forderungen (E. 3)."]]
EXAMPLE_FR = [["Art. 29 al. 2 Cst.; droit d'être entendu.",
               "Art. 29 al. 2 Cst.; violation du droit d'être entendu, renvoi (consid. 2)."]]
SAMPLE_HEADERS = ["sample", "language pair", "status", "score",
                  *judge.CATEGORIES, "reason"]


def _integer(value, name, *, allow_none=False):
    if allow_none and value is None:
        return None
    number_ = number(value, name)
    if not number_.is_integer():
        raise page_error(f"{name} = {value!r}: expected an integer")
    return int(number_)


def report(predictions, references, headnote_languages, decision_languages, base_url, model,
           api_key, max_tokens, seed, concurrency, max_retries, timeout, failed_as_zero):
    """Outputs: summary rows, per-sample rows and the full JSON (the key is never in them)."""
    result = compute(judge.headnote_judge, predictions=predictions, references=references,
                     headnote_languages=headnote_languages,
                     decision_languages=decision_languages, base_url=base_url, model=model,
                     api_key=api_key or None, max_tokens=_integer(max_tokens, "max_tokens"),
                     seed=_integer(seed, "seed", allow_none=True),
                     concurrency=_integer(concurrency, "concurrency"),
                     max_retries=_integer(max_retries, "max_retries"),
                     timeout=number(timeout, "timeout"), failed_as_zero=bool(failed_as_zero),
                     progress=False)
    summary = result_rows(result, skip=("samples", "by_language_pair", "reproducibility"))
    summary.append(["reproducibility.signature", result["reproducibility"]["signature"]])
    samples = [[s["sample_id"], s["language_pair"], s["status"], s["score"],
                *((s["scores"] or {}).get(category) for category in judge.CATEGORIES),
                s["reason"] or ""] for s in result["samples"]]
    return summary, samples, result


def from_table(table, headnote_language, decision_language, base_url, model, api_key,
               max_tokens, seed, concurrency, max_retries, timeout, failed_as_zero):
    """Judge pasted pairs (generated, gold) → summary, samples, JSON."""
    columns = table_columns(table, COLUMNS)
    predictions = [text(v, f"table row {i + 1}, column 'generated headnote'")
                   for i, v in enumerate(columns["generated headnote"])]
    references = [text(v, f"table row {i + 1}, column 'gold headnote'")
                  for i, v in enumerate(columns["gold headnote"])]
    n = len(predictions)
    return report(predictions, references, [headnote_language] * n, [decision_language] * n,
                  base_url, model, api_key, max_tokens, seed, concurrency, max_retries, timeout,
                  failed_as_zero)


def from_files(predictions_file, references_file, base_url, model, api_key, max_tokens, seed,
               concurrency, max_retries, timeout, failed_as_zero):
    """Judge an uploaded predictions file against a references file (paired by ``sample_id``)."""
    _, predicted, referenced = read_aligned(
        predictions_file, references_file, "sample_id", ["prediction"],
        {"reference": True, "headnote_language": True, "decision_language": True})
    return report([text(value, where) for where, value in predicted["prediction"]],
                  [text(value, where) for where, value in referenced["reference"]],
                  [text(value, where) for where, value in referenced["headnote_language"]],
                  [text(value, where) for where, value in referenced["decision_language"]],
                  base_url, model, api_key, max_tokens, seed, concurrency, max_retries, timeout,
                  failed_as_zero)


with gr.Blocks(title="headnote_judge") as demo:
    gr.Markdown(card_header("headnote_judge"))
    with gr.Row():
        with gr.Column(scale=3):
            with gr.Tab("Paste headnotes"):
                table = gr.Dataframe(
                    value=EXAMPLE, headers=COLUMNS, datatype=["str", "str"], type="array",
                    column_count=(2, "fixed"), interactive=True, wrap=True,
                    label="One pair per row: generated and gold headnote")
                with gr.Row():
                    headnote_language = gr.Dropdown(LANGUAGES, value="de",
                                                    label="Headnote language (all rows)")
                    decision_language = gr.Dropdown(LANGUAGES, value="fr",
                                                     label="Decision language (all rows)")
                table_button = gr.Button("Judge the table", variant="primary")
            with gr.Tab("Upload files"):
                gr.Markdown("Predictions file as `courtbench evaluate` reads it: CSV or JSON "
                            "Lines with `sample_id` and `prediction`. References file: "
                            "`sample_id`, `reference`, `headnote_language` and "
                            "`decision_language`. Pairs are matched by `sample_id`.")
                predictions_file = upload_file("Predictions file")
                references_file = upload_file("References file")
                files_button = gr.Button("Judge the files", variant="primary")
        with gr.Column(scale=2):
            base_url = gr.Textbox(label="Base URL (OpenAI-compatible)",
                                  value="https://api.openai.com/v1")
            model = gr.Textbox(label="Judge model", value="gpt-4o-mini")
            api_key = gr.Textbox(label="API key (sent to the endpoint only, never stored)",
                                 type="password")
            with gr.Accordion("Request options", open=False):
                max_tokens = gr.Number(value=2048, precision=0, label="max_tokens")
                seed = gr.Number(value=0, precision=0, label="seed (empty: not sent)")
                concurrency = gr.Number(value=4, precision=0, label="concurrency")
                max_retries = gr.Number(value=2, precision=0, label="max_retries")
                timeout = gr.Number(value=120, label="timeout (seconds per attempt)")
                failed_as_zero = gr.Checkbox(value=False,
                                             label="failed_as_zero (count failed samples as 0)")
    judge_options = [base_url, model, api_key, max_tokens, seed, concurrency, max_retries,
                     timeout, failed_as_zero]
    gr.Examples(examples=[[EXAMPLE, "de", "fr"], [EXAMPLE_FR, "fr", "fr"]],
                inputs=[table, headnote_language, decision_language],
                example_labels=["German headnote of a French decision", "French headnote"])
    with gr.Row():
        summary = gr.Dataframe(headers=["key", "value"], type="array", interactive=False,
                               label="Result (rounded; the JSON is exact): appears once the "
                                     "judge has answered")
        full = gr.JSON(label="Full result (JSON)", open=False)
    samples = gr.Dataframe(headers=SAMPLE_HEADERS, type="array", interactive=False, wrap=True,
                           label="Per sample: status, score (0-100) and category ratings (1-3)")
    card_accordion()
    outputs = [summary, samples, full]
    table_button.click(from_table, [table, headnote_language, decision_language, *judge_options],
                       outputs, api_name="from_table")
    files_button.click(from_files, [predictions_file, references_file, *judge_options], outputs,
                       api_name="from_files")

if __name__ == "__main__":
    demo.launch()
