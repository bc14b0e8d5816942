"""The headnote_judge Space: judge generated headnotes against gold ones on a Gradio page.

Inputs: a pasted table (generated headnote, gold headnote) with one headnote and one decision
language for all rows, or an uploaded predictions file (``sample_id``, ``prediction``; CSV or
JSON Lines as ``courtbench evaluate`` reads) with a references file (``sample_id``,
``reference``, ``headnote_language``, ``decision_language``); and the judge: an
OpenAI-compatible endpoint, a model and an API key. The numbers come from
:func:`headnote_judge.headnote_judge`, loaded from the script beside this file.

What a visitor may ask for is set by the Space's owner (environment variables / Space
secrets), never by the visitor:

- ``JUDGE_ENDPOINTS``: comma-separated base URLs the page may call (default: ``JUDGE_BASE_URL``,
  else ``https://api.openai.com/v1``); any other URL is refused before a request is made;
- ``JUDGE_API_KEY`` (a secret): the owner's key; when set, visitors type no key and the
  models are limited to ``JUDGE_MODELS`` (default ``JUDGE_MODEL``, else ``gpt-4o-mini``);
  when unset, visitors supply their own key, which is sent to the endpoint only — neither
  stored (run history is off, see ``space_io.launch``) nor logged;
- ``JUDGE_MAX_SAMPLES`` (default 200): most headnote pairs per run; concurrency, retries,
  timeout and max_tokens are capped at ``MAX_CONCURRENCY`` … below.
"""

import os

import gradio as gr
import space_io

judge = space_io.load_metric("headnote_judge")

COLUMNS = ["generated headnote", "gold headnote"]
LANGUAGES = list(judge.HEADNOTE_LANGUAGES)
EXAMPLE = [["Art. 8 ZGB; Beweislast für den Bestand einer Forderung.",
            "Art. 8 ZGB; Verteilung der Beweislast bei bestrittenen Forderungen (E. 3)."]]
EXAMPLE_FR = [["Art. 29 al. 2 Cst.; droit d'être entendu.",
               "Art. 29 al. 2 Cst.; violation du droit d'être entendu, renvoi (consid. 2)."]]
SAMPLE_HEADERS = ["row", "sample", "language pair", "status", "reason", "score",
                  *judge.CATEGORIES]
MAX_CONCURRENCY = 8
MAX_RETRIES = 5
MAX_TIMEOUT_S = 300.0
MAX_TOKENS = 8192
DEFAULT_ENDPOINT = "https://api.openai.com/v1"
DEFAULT_MODEL = "gpt-4o-mini"


def _listed(variable, default):
    """Comma-separated values of an environment variable (``default`` when unset or empty)."""
    values = [v.strip().rstrip("/") for v in os.environ.get(variable, "").split(",") if v.strip()]
    return values or default


def allowed_endpoints():
    """The base URLs the owner allows (``JUDGE_ENDPOINTS``, else ``JUDGE_BASE_URL``)."""
    return _listed("JUDGE_ENDPOINTS", _listed("JUDGE_BASE_URL", [DEFAULT_ENDPOINT]))


def owner_key():
    """The owner's API key (Space secret ``JUDGE_API_KEY``), or None: visitors bring theirs."""
    return os.environ.get("JUDGE_API_KEY") or None


def allowed_models():
    """Models a visitor may name: any with their own key, else ``JUDGE_MODELS``."""
    if owner_key() is None:
        return None
    return _listed("JUDGE_MODELS", _listed("JUDGE_MODEL", [DEFAULT_MODEL]))


def max_samples():
    value = os.environ.get("JUDGE_MAX_SAMPLES", "200")
    return int(value) if value.isdigit() and int(value) > 0 else 200


def _integer(value, name, *, low, high):
    """A work parameter within this page's cap (the module's own caps are higher)."""
    return space_io.count(value, name, low=low, high=high,
                          what=f"an integer {name} (this page's cap)")


def _endpoint(base_url, model, api_key):
    """(base URL, model, key) as the owner allows them; ``gr.Error`` otherwise."""
    allowed = allowed_endpoints()
    url = (base_url or "").strip().rstrip("/")
    if url not in allowed:
        raise space_io.page_error(f"base URL {url[:200]!r} is not allowed on this page; allowed: "
                         f"{', '.join(allowed)} (the Space's owner sets JUDGE_ENDPOINTS)")
    models = allowed_models()
    if models is not None and model not in models:
        raise space_io.page_error(f"model {str(model)[:200]!r} is not allowed with the owner's key; "
                         f"allowed: {', '.join(models)}")
    key = owner_key() or (api_key or None)
    return url, model, key


def _options(max_tokens, seed, concurrency, max_retries, timeout):
    """Request options within the page's caps; ``gr.Error`` naming the option otherwise."""
    seconds = space_io.finite(timeout, "timeout", low=0.0, low_open=True, high=MAX_TIMEOUT_S,
                              what="seconds per attempt (this page's cap)")
    return {"max_tokens": _integer(max_tokens, "max_tokens", low=1, high=MAX_TOKENS),
            "seed": None if seed is None else space_io.seed(seed),
            "concurrency": _integer(concurrency, "concurrency", low=1, high=MAX_CONCURRENCY),
            "max_retries": _integer(max_retries, "max_retries", low=0, high=MAX_RETRIES),
            "timeout": seconds}


def _sample_row(index, sample):
    return [index + 1, sample["sample_id"], sample["language_pair"], sample["status"],
            sample["reason"] or "", sample["score"],
            *((sample["scores"] or {}).get(category) for category in judge.CATEGORIES)]


def _status(outputs):
    result = outputs[2]
    failed = sum(s["status"] != "scored" for s in result["samples"])
    return (f"Done: {len(result['samples'])} pair(s) judged, {failed} failed"
            + (" (reasons in the 'reason' column)." if failed else "."))


def report(predictions, references, headnote_languages, decision_languages, base_url, model,
           api_key, max_tokens, seed, concurrency, max_retries, timeout, failed_as_zero):
    """Outputs: summary rows, per-sample rows and the full JSON (the key is never in them)."""
    if len(predictions) > max_samples():
        raise space_io.page_error(f"{len(predictions)} headnote pairs: this page judges at "
                                  f"most {max_samples()} per run (run `courtbench judge` for "
                                  "more)")
    url, model, key = _endpoint(base_url, model, api_key)
    result = space_io.compute(judge.headnote_judge, predictions=predictions,
                              references=references, headnote_languages=headnote_languages,
                              decision_languages=decision_languages, base_url=url, model=model,
                              api_key=key, failed_as_zero=bool(failed_as_zero), progress=False,
                              **_options(max_tokens, seed, concurrency, max_retries, timeout))
    summary = space_io.result_rows(result,
                                   skip=("samples", "by_language_pair", "reproducibility"))
    summary.append(["reproducibility.signature", result["reproducibility"]["signature"]])
    samples = [_sample_row(i, s) for i, s in enumerate(result["samples"])]
    return summary, samples, result


def from_table(table, headnote_language, decision_language, base_url, model, api_key,
               max_tokens, seed, concurrency, max_retries, timeout, failed_as_zero):
    """Judge pasted pairs (generated, gold) → summary, samples, JSON."""
    predictions, references = space_io.table_values(
        table, dict.fromkeys(COLUMNS, space_io.text)).values()
    n = len(predictions)
    return report(predictions, references, [headnote_language] * n, [decision_language] * n,
                  base_url, model, api_key, max_tokens, seed, concurrency, max_retries, timeout,
                  failed_as_zero)


def from_files(predictions_file, references_file, base_url, model, api_key, max_tokens, seed,
               concurrency, max_retries, timeout, failed_as_zero):
    """Judge an uploaded predictions file against a references file (paired by ``sample_id``)."""
    _, predicted, referenced = space_io.read_aligned(
        predictions_file, references_file, "sample_id", ["prediction"],
        {"reference": True, "headnote_language": True, "decision_language": True})
    where = {"predictions": [w for w, _ in predicted["prediction"]],
             **{f"{c}s" if c != "reference" else "references": [w for w, _ in referenced[c]]
                for c in ("reference", "headnote_language", "decision_language")}}
    with space_io.located(where):
        texts = [[space_io.text(value, where) for where, value in pairs]
                 for pairs in (predicted["prediction"], referenced["reference"],
                               referenced["headnote_language"], referenced["decision_language"])]
        return report(*texts, base_url, model, api_key, max_tokens, seed, concurrency, max_retries,
                      timeout, failed_as_zero)


def languages_of_the_table():
    """The languages of every pasted pair: the headnote's and the decision's."""
    return [gr.Dropdown(LANGUAGES, value="de", label="Headnote language (all rows)"),
            gr.Dropdown(LANGUAGES, value="fr", label="Decision language (all rows)")]


def judge_options():
    """The judge of both tabs: endpoint, model and key as the owner allows them, and the
    request options (their ranges are in the labels and checked by the handler, so that a
    value out of range is explained in the status box, not a toast from the component)."""
    endpoints = allowed_endpoints()
    base_url = gr.Dropdown(endpoints, value=endpoints[0],
                           label="Endpoint (OpenAI-compatible; set by the Space's owner)")
    models = allowed_models()
    model = (gr.Dropdown(models, value=models[0], label="Judge model") if models
             else gr.Textbox(label="Judge model", value=DEFAULT_MODEL))
    api_key = gr.Textbox(label="API key (sent to the endpoint only, never stored)",
                         type="password", visible=owner_key() is None)
    if owner_key() is not None:
        gr.Markdown("The Space's owner provides the key: no key needed.")
    with gr.Accordion("Request options", open=False):
        request_options = [
            # precision=None: the handler sees what was typed (1.5 is refused, not rounded)
            gr.Number(value=2048, precision=None, label=f"max_tokens (1-{MAX_TOKENS})"),
            gr.Number(value=0, precision=None,
                      label="seed (an integer, 0 to 4,294,967,295; empty: not sent)"),
            gr.Number(value=4, precision=None, label=f"concurrency (1-{MAX_CONCURRENCY})"),
            gr.Number(value=2, precision=None, label=f"max_retries (0-{MAX_RETRIES})"),
            gr.Number(value=120,
                      label=f"timeout (seconds per attempt, at most {MAX_TIMEOUT_S:g})"),
            gr.Checkbox(value=False, label="failed_as_zero (count failed samples as 0)")]
    return [base_url, model, api_key, *request_options]


with gr.Blocks(title="headnote_judge") as demo:
    page = space_io.page_inputs(
        "headnote_judge",
        paste_tab="Paste headnotes",
        action="Judge",
        table=space_io.text_pairs_table(EXAMPLE, COLUMNS, "One pair per row: generated and gold headnote"),
        table_options=languages_of_the_table,
        files_help="Predictions file as `courtbench evaluate` reads it: CSV or JSON Lines with "
                   "`sample_id` and `prediction`. References file: `sample_id`, `reference`, "
                   "`headnote_language` and `decision_language`. Pairs are matched by "
                   "`sample_id`.",
        file_labels=["Predictions file", "References file"],
        options=judge_options,
        options_scale=2)
    gr.Examples(examples=[[EXAMPLE, "de", "fr"], [EXAMPLE_FR, "fr", "fr"]],
                inputs=[page.table, *page.table_options],
                example_labels=["German headnote of a French decision", "French headnote"])
    status = space_io.status_box("Ready: press a button to ask the judge.")
    with gr.Row():
        summary = gr.Dataframe(headers=["key", "value"], type="array", interactive=False,
                               label="Result (rounded; the JSON is exact): appears once the "
                                     "judge has answered")
        full = gr.JSON(label="Full result (JSON)", open=False)
    samples = gr.Dataframe(headers=SAMPLE_HEADERS, type="array", interactive=False, wrap=True,
                           column_widths=["5%", "8%", "10%", "9%", "38%", "6%",
                                          *["6%"] * len(judge.CATEGORIES)],
                           label="Per sample (row = 1-based row of the table or references "
                                 "file): status, why a sample failed, score (0-100) and "
                                 "category ratings (1-3)")
    outputs = [summary, samples, full]
    space_io.card_accordion(button=page.card_button)
    page.on_table(from_table, outputs, status, api_name="from_table", done=_status)
    page.on_files(from_files, outputs, status, api_name="from_files", done=_status)

if __name__ == "__main__":
    space_io.launch(demo)
