"""The summarization_properties Space: describe decision–headnote pairs on a Gradio page.

Inputs: a pasted table (decision, headnote) with one language each for all rows, or an
uploaded headnotes file (``sample_id``, ``prediction``: generated or gold headnotes; CSV or
JSON Lines as ``courtbench evaluate`` reads) with a decisions file (``sample_id``,
``source``, ``source_language``, ``summary_language``). The numbers come from
:func:`summarization_properties.summarization_properties`, loaded from the script beside
this file.
"""

import gradio as gr
import matplotlib
import matplotlib.pyplot as plt
import space_io

matplotlib.use("Agg")  # figures are rendered to images for the page, never shown in a window

measurement = space_io.load_metric("summarization_properties")

COLUMNS = ["decision (source)", "headnote (summary)"]
EXAMPLE = [["Das Gericht weist die Beschwerde ab, soweit es darauf eintritt.",
            "Das Gericht weist die Beschwerde ab."]]
EXAMPLE_CARD = [["Der Entscheid wird aufgehoben. Die Sache wird zurückgewiesen.",
                 "Entscheid aufgehoben und zurückgewiesen."]]
EXAMPLE_SEVERAL = [
    ["Die Beschwerdeführerin rügt eine Verletzung des rechtlichen Gehörs. Das Gericht weist "
     "die Beschwerde ab, soweit es darauf eintritt.", "Die Beschwerde wird abgewiesen."],
    ["Der Beschwerdeführer verlangt eine Genugtuung. Das Gericht heisst die Beschwerde gut "
     "und weist die Sache zurück.", "Die Beschwerde wird gutgeheissen."],
    ["Die Vorinstanz hat die Frist falsch berechnet. Die Beschwerde ist begründet; der "
     "Entscheid wird aufgehoben.", "Der Entscheid der Vorinstanz wird aufgehoben."],
    ["Die Kosten des Verfahrens trägt der Kanton. Das Gericht tritt auf die Beschwerde nicht "
     "ein.", "Auf die Beschwerde wird nicht eingetreten."]]
STATISTICS = ["mean", "std", "min", "median", "max", "n"]
#: The page's cap of headnote pairs compared per language (subsets × size × (size − 1) / 2),
#: below the module's own (MAX_FORMULAICNESS_PAIRS): a few seconds of one visitor's time.
PAGE_MAX_PAIRS = 200_000
PER_PAIR = ["compression_ratio", "coverage", "density", "novelty_1", "novelty_2", "novelty_3",
            "novelty_4"]


def _round(value):
    return None if value is None else round(value, 4)


def histogram_figure(per_pair):
    """Histograms of the per-pair coverage and density (same-language pairs only)."""
    figure, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for ax, name, color in ((axes[0], "coverage", "tab:blue"), (axes[1], "density", "tab:green")):
        values = [value for value in per_pair[name] if value is not None]
        if values:
            ax.hist(values, bins=min(30, max(5, len(values) // 3)), color=color, alpha=0.8)
        else:
            ax.text(0.5, 0.5, "no same-language pair", ha="center", va="center",
                    transform=ax.transAxes)
        ax.set_xlabel(name)
        ax.set_ylabel("pairs")
        ax.set_title(f"{name} per pair (n = {len(values)})")
    figure.tight_layout()
    return figure


def _no_empty_decision(sources, places):
    """``gr.Error`` naming the first blank decision: nothing to summarise, no properties."""
    for index, source in enumerate(sources):
        if not source.strip():
            raise space_io.page_error(f"{places[index]}: the decision is empty; every pair "
                                      "needs the decision's text (compression, coverage and "
                                      "novelty are undefined without it)")


def formulaicness_note(outputs):
    """The status line: done, and why formulaicness is blank when it is."""
    formulaic = outputs[1]
    if any(row[1] is not None for row in formulaic):
        return "Done."
    return ("Done. Formulaicness is blank: it compares headnotes of one language with each "
            "other and needs at least 2 of them (try the example with several pairs).")


def _formulaicness_options(subset_size, subsets):
    """Subset size and count within the module's caps and this page's cap of headnote pairs."""
    size = space_io.count(subset_size, "formulaicness_subset_size", low=2,
                          high=measurement.MAX_SUBSET_SIZE, what="headnotes per subset")
    count = space_io.count(subsets, "formulaicness_subsets", low=1, high=measurement.MAX_SUBSETS,
                           what="a number of subsets")
    if count * size * (size - 1) // 2 > PAGE_MAX_PAIRS:
        raise space_io.page_error(
            f"formulaicness_subsets = {count:,} with subsets of {size:,}: this page compares at "
            f"most {PAGE_MAX_PAIRS:,} headnote pairs per language; use at most "
            f"{max(1, PAGE_MAX_PAIRS // (size * (size - 1) // 2)):,} subsets")
    return size, count


def report(sources, summaries, source_languages, summary_languages, subset_size, subsets, seed):
    """Outputs: aggregates, formulaicness, per-pair rows, the histogram and the full JSON."""
    size, count = _formulaicness_options(subset_size, subsets)
    result = space_io.compute(
        measurement.summarization_properties, sources=sources, summaries=summaries,
        source_languages=source_languages, summary_languages=summary_languages,
        formulaicness_subset_size=size, formulaicness_subsets=count,
        seed=space_io.seed(seed), return_per_pair=True)
    aggregates = [[name, *(_round(values[key]) for key in STATISTICS)]
                  for name, values in result["aggregates"].items()]
    formulaic = [[language, _round(entry["mean"]), _round(entry["std"]), entry["n_headnotes"],
                  entry["subset_size"], entry["subsets"]]
                 for language, entry in result["formulaicness"].items()]
    per_pair = result["per_pair"]
    pairs = [[i + 1, f"{source_languages[i]}→{summary_languages[i]}",
              *(_round(per_pair[name][i]) for name in PER_PAIR)] for i in range(len(sources))]
    figure = space_io.drawn(histogram_figure, per_pair)
    plt.close("all")
    return aggregates, formulaic, pairs, figure, result


def from_table(table, source_language, summary_language, subset_size, subsets, seed):
    """Describe pasted pairs (decision, headnote) → aggregates, formulaicness, pairs, plot, JSON."""
    sources, summaries = space_io.table_values(
        table, dict.fromkeys(COLUMNS, space_io.text)).values()
    n = len(sources)
    _no_empty_decision(sources, [f"table row {i + 1}, column {COLUMNS[0]!r}" for i in range(n)])
    return report(sources, summaries, [source_language] * n, [summary_language] * n,
                  subset_size, subsets, seed)


def from_files(headnotes_file, decisions_file, subset_size, subsets, seed):
    """Describe uploaded headnotes against their decisions (paired by ``sample_id``)."""
    _, headnotes, decisions = space_io.read_aligned(
        headnotes_file, decisions_file, "sample_id", ["prediction"],
        {"source": True, "source_language": True, "summary_language": True},
        what="headnotes file", reference_what="decisions file")
    _no_empty_decision([space_io.text(value, where) for where, value in decisions["source"]],
                       [where for where, _ in decisions["source"]])
    return report([space_io.text(value, where) for where, value in decisions["source"]],
                  [space_io.text(value, where) for where, value in headnotes["prediction"]],
                  [value for _, value in decisions["source_language"]],
                  [value for _, value in decisions["summary_language"]],
                  subset_size, subsets, seed)


def languages_of_the_table():
    """The languages of every pasted pair: the decision's and the headnote's."""
    return [gr.Dropdown(list(measurement.LANGUAGES), value="de",
                        label="Decision language (all rows)"),
            gr.Dropdown(list(measurement.LANGUAGES), value="de",
                        label="Headnote language (all rows)")]


def options_column():
    """The options of both tabs: formulaicness subsets and the seed of their sampling."""
    # precision=None: the handler sees what was typed (1.5 is refused, not rounded)
    return [gr.Number(value=measurement.DEFAULT_SUBSET_SIZE, precision=None,
                      label=f"formulaicness_subset_size (headnotes per subset, 2 to "
                            f"{measurement.MAX_SUBSET_SIZE:,})"),
            gr.Number(value=measurement.DEFAULT_SUBSETS, precision=None,
                      label=f"formulaicness_subsets (per language, 1 to "
                            f"{measurement.MAX_SUBSETS:,}; at most {PAGE_MAX_PAIRS:,} headnote "
                            "pairs per language on this page)"),
            gr.Number(value=measurement.DEFAULT_SEED, precision=None,
                      label="seed of the subset sampling (an integer, 0 to 4,294,967,295)")]


with gr.Blocks(title="summarization_properties") as demo:
    page = space_io.page_inputs(
        "summarization_properties",
        paste_tab="Paste pairs",
        table=space_io.text_pairs_table(EXAMPLE, COLUMNS, "One pair per row: the decision and its headnote"),
        table_options=languages_of_the_table,
        files_help="Headnotes file as `courtbench evaluate` reads predictions: CSV or JSON "
                   "Lines with `sample_id` and `prediction` (generated or gold headnotes). "
                   "Decisions file: `sample_id`, `source`, `source_language` and "
                   "`summary_language` (de/fr/it). Pairs are matched by `sample_id`.",
        file_labels=["Headnotes file", "Decisions file"],
        options=options_column)
    gr.Examples(examples=[[EXAMPLE, "de", "de", 100, 10, 0], [EXAMPLE_CARD, "de", "de", 100, 10, 0],
                          [EXAMPLE_SEVERAL, "de", "de", 100, 10, 0]],
                inputs=page.table_inputs,
                example_labels=["card: how to use", "card: examples",
                                "several pairs (formulaicness needs ≥ 2 headnotes)"])
    initial = from_table(EXAMPLE, "de", "de", 100, 10, 0)
    status = space_io.status_box("Showing the card's example. " + formulaicness_note(initial)
                                 .removeprefix("Done.").strip())
    aggregates = gr.Dataframe(value=initial[0], headers=["property", *STATISTICS], type="array",
                              interactive=False, label="Aggregates over pairs (rounded; the "
                                                       "JSON is exact)")
    with gr.Row():
        formulaic = gr.Dataframe(value=initial[1], headers=["language", "mean", "std",
                                                            "n_headnotes", "subset_size",
                                                            "subsets"],
                                 type="array", interactive=False,
                                 label="Formulaicness per headnote language (ROUGE-L × 100)")
        histogram = gr.Plot(value=initial[3], label="Coverage and density per pair")
    pairs = gr.Dataframe(value=initial[2], headers=["row", "languages", *PER_PAIR], type="array",
                         interactive=False, label="Per pair (null where undefined)")
    full = gr.JSON(value=initial[4], label="Full result (JSON)", open=False)
    outputs = [aggregates, formulaic, pairs, histogram, full]
    space_io.card_accordion("Measurement card", button=page.card_button)
    page.on_table(from_table, outputs, status, api_name="from_table", done=formulaicness_note)
    page.on_files(from_files, outputs, status, api_name="from_files", done=formulaicness_note)

if __name__ == "__main__":
    space_io.launch(demo)
