"""The headnote_similarity Space: ROUGE and BLEU of generated headnotes on a Gradio page.

Inputs: a pasted table (generated headnote, gold headnote) with one headnote language (and
optionally one decision language) for all rows, or an uploaded predictions file
(``sample_id``, ``prediction``; CSV or JSON Lines as ``courtbench evaluate`` reads) with a
references file (``sample_id``, ``reference``, ``headnote_language``, optional
``decision_language``). The numbers come from
:func:`headnote_similarity.headnote_similarity`, loaded from the script beside this file.
BERTScore needs a large model and is not offered on the page.
"""

import gradio as gr
import space_io
from sacrebleu.metrics import BLEU

metric = space_io.load_metric("headnote_similarity")

COLUMNS = ["generated headnote", "gold headnote"]
NO_SOURCE = "(not given: group by headnote language)"
EXAMPLE = [["Art. 6 VG; Genugtuung für den Ehemann.", "Art. 6 VG; Genugtuungsanspruch des Ehemanns."]]
EXAMPLE_FR_IT = [["Le recours est rejeté.", "Le Tribunal rejette le recours."],
                 ["Il ricorso è respinto.", "Il ricorso è respinto."]]
SCORES = ["rouge1", "rouge2", "rougeL", "bleu"]
#: sacrebleu tokenizers the page can honour offline with the Space's requirements (ja-mecab,
#: ko-mecab and the spm/flores tokenizers need extra packages or a download).
BLEU_TOKENIZERS = [name for name in ("13a", "intl", "char", "none") if name in BLEU.TOKENIZERS]
#: The page's cap of bootstrap resamples (each recomputes every group's BLEU), below the
#: module's own (MAX_BOOTSTRAP_RESAMPLES), so one visitor cannot hold the Space for minutes.
MAX_RESAMPLES = 10_000
NO_BERTSCORE = ("**On this page: ROUGE and BLEU only.** BERTScore (rescaled) needs a large "
                "model download, so this page does not compute it; run the module with its "
                "`bertscore` extra (see the card) for BERTScore.")


def report(predictions, references, prediction_languages, source_languages, rouge_tokenizer,
           bleu_tokenize, bootstrap_resamples, seed):
    """Outputs: summary rows (score ± SE), per-group rows, per-pair rows, the full JSON."""
    result = space_io.compute(
        metric.headnote_similarity, predictions=predictions, references=references,
        prediction_languages=prediction_languages, source_languages=source_languages,
        rouge_tokenizer=rouge_tokenizer, bleu_tokenize=bleu_tokenize,
        bootstrap_resamples=space_io.count(bootstrap_resamples, "bootstrap_resamples", low=1,
                                           high=MAX_RESAMPLES,
                                           what="a number of bootstrap resamples (this page's "
                                                "cap; run the module locally for more)"),
        seed=space_io.seed(seed), return_per_item=True)
    summary = [[name, round(result[name], 4), None if result[f"{name}_se"] is None
                else round(result[f"{name}_se"], 4)] for name in SCORES]
    summary += space_io.result_rows(result, skip=(*SCORES, *(f"{s}_se" for s in SCORES),
                                                  "groups", "per_item"))
    summary = [row + [""] * (3 - len(row)) for row in summary]
    groups = [[key, group["n"], *(round(group[name], 4) for name in SCORES)]
              for key, group in result["groups"].items()]
    per_item = result["per_item"]
    pairs = [[i + 1, prediction_languages[i], *(round(per_item[name][i], 4)
                                                 for name in SCORES[:3]),
              predictions[i][:80], references[i][:80]] for i in range(len(predictions))]
    return summary, groups, pairs, result


def _source_languages(choice, n):
    return None if choice == NO_SOURCE else [choice] * n


def from_table(table, headnote_language, decision_language, rouge_tokenizer, bleu_tokenize,
               bootstrap_resamples, seed):
    """Score a pasted table (generated, gold) → summary, groups, per pair, JSON."""
    predictions, references = space_io.table_values(
        table, dict.fromkeys(COLUMNS, space_io.text)).values()
    n = len(predictions)
    return report(predictions, references, [headnote_language] * n,
                  _source_languages(decision_language, n), rouge_tokenizer, bleu_tokenize,
                  bootstrap_resamples, seed)


def from_files(predictions_file, references_file, rouge_tokenizer, bleu_tokenize,
               bootstrap_resamples, seed):
    """Score an uploaded predictions file against a references file (paired by ``sample_id``)."""
    _, predicted, referenced = space_io.read_aligned(
        predictions_file, references_file, "sample_id", ["prediction"],
        {"reference": True, "headnote_language": True, "decision_language": False})
    predictions = [space_io.text(value, where) for where, value in predicted["prediction"]]
    references = [space_io.text(value, where) for where, value in referenced["reference"]]
    languages = [space_io.text(value, where) for where, value in referenced["headnote_language"]]
    sources = [value for _, value in referenced["decision_language"]]
    sources = None if all(value in (None, "") for value in sources) else sources
    return report(predictions, references, languages, sources, rouge_tokenizer, bleu_tokenize,
                  bootstrap_resamples, seed)


def languages_of_the_table():
    """The languages of every pasted pair: the headnote's and (optional) the decision's."""
    return [gr.Dropdown(list(metric.LANGUAGES), value="de",
                        label="Headnote language (all rows)"),
            gr.Dropdown([NO_SOURCE, *metric.LANGUAGES], value=NO_SOURCE,
                        label="Decision language (all rows)")]


def options_column():
    """The options of both tabs: tokenizers, bootstrap resamples and seed."""
    return [gr.Dropdown(list(metric.ROUGE_TOKENIZERS), value="unicode", label="ROUGE tokenizer"),
            gr.Dropdown(BLEU_TOKENIZERS, value="13a",
                        label="BLEU tokenizer (sacrebleu; intl suits de/fr/it)"),
            # precision=None: the handler sees what was typed (1.5 is refused, not rounded)
            gr.Number(value=1000, precision=None,
                      label=f"bootstrap_resamples (standard errors; 1 to {MAX_RESAMPLES:,} on "
                            f"this page, {metric.MAX_BOOTSTRAP_RESAMPLES:,} in the module)"),
            gr.Number(value=0, precision=None, label="seed (an integer, 0 to 4,294,967,295)")]


with gr.Blocks(title="headnote_similarity") as demo:
    page = space_io.page_inputs(
        "headnote_similarity",
        note=NO_BERTSCORE,
        paste_tab="Paste headnotes",
        table=space_io.text_pairs_table(EXAMPLE, COLUMNS, "One pair per row: generated and gold headnote"),
        table_options=languages_of_the_table,
        files_help="Predictions file as `courtbench evaluate` reads it: CSV or JSON Lines with "
                   "`sample_id` and `prediction`. References file: `sample_id`, `reference`, "
                   "`headnote_language` (de/fr/it) and optional `decision_language` (then "
                   "groups are language pairs). Pairs are matched by `sample_id`.",
        file_labels=["Predictions file", "References file"],
        options=options_column)
    gr.Examples(examples=[[EXAMPLE, "de", NO_SOURCE, "unicode", "13a", 1000, 0],
                          [EXAMPLE, "de", "de", "unicode", "intl", 1000, 0]],
                inputs=page.table_inputs,
                example_labels=["card example", "card example, grouped by pair, BLEU intl"])
    initial = from_table(EXAMPLE, "de", NO_SOURCE, "unicode", "13a", 1000, 0)
    status = space_io.status_box()
    with gr.Column():
        summary = gr.Dataframe(value=initial[0], headers=["key", "value (0-100)", "bootstrap SE"],
                               type="array", interactive=False,
                               column_widths=["50%", "25%", "25%"],
                               label="Result: macro-averages over groups (rounded; the JSON is "
                                     "exact)")
        full = gr.JSON(value=initial[3], label="Full result (JSON)", open=False)
    groups = gr.Dataframe(value=initial[1], headers=["group", "n", *SCORES], type="array",
                          interactive=False, label="Per group (language pair or headnote language)")
    pairs = gr.Dataframe(value=initial[2], headers=["row", "language", *SCORES[:3], "generated",
                                                    "gold"],
                         type="array", interactive=False, wrap=True,
                         label="Per pair: ROUGE F1 × 100 (BLEU is corpus-level, per group only)")
    outputs = [summary, groups, pairs, full]
    space_io.card_accordion(button=page.card_button)
    page.on_table(from_table, outputs, status, api_name="from_table")
    page.on_files(from_files, outputs, status, api_name="from_files")

if __name__ == "__main__":
    space_io.launch(demo)
