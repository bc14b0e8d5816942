"""Gradio app of the headnote_judge Space: judge one generated headnote against its gold one.

The API key typed here is sent to the endpoint only; it is neither stored nor logged.
"""

import json

import gradio as gr
from headnote_judge import headnote_judge

LANGUAGES = ["de", "fr", "it"]


def judge_one(gold_headnote, generated_headnote, headnote_language, decision_language,
              base_url, model, api_key):
    """Judge one pair; returns the 0-100 score (None if the judge failed), the per-sample
    record (category ratings, or the reason and raw answer of a failure) and provenance."""
    result = headnote_judge([generated_headnote], [gold_headnote], [headnote_language],
                            [decision_language], base_url=base_url, model=model,
                            api_key=api_key or None, concurrency=1, max_retries=2,
                            progress=False)
    sample = result["samples"][0]
    return sample["score"], json.dumps(sample, ensure_ascii=False), json.dumps(result["reproducibility"])


demo = gr.Interface(
    fn=judge_one,
    inputs=[
        gr.Textbox(label="Gold headnote", lines=6),
        gr.Textbox(label="Generated headnote", lines=6),
        gr.Dropdown(LANGUAGES, value="de", label="Headnote language"),
        gr.Dropdown(LANGUAGES, value="de", label="Decision language"),
        gr.Textbox(label="Base URL (OpenAI-compatible)", value="https://api.openai.com/v1"),
        gr.Textbox(label="Judge model", value="gpt-4o-mini"),
        gr.Textbox(label="API key (sent to the endpoint only, never stored)", type="password"),
    ],
    outputs=[
        gr.Number(label="Score (0-100, higher is better)"),
        gr.JSON(label="Judgement"),
        gr.JSON(label="Reproducibility"),
    ],
    title="headnote_judge",
    description=("LLM-as-a-judge for headnotes of Swiss Federal Supreme Court landmark decisions "
                 "(SLDS): five categories rated 1-3, sample score 10 x sum(rating - 1)."),
)

if __name__ == "__main__":
    demo.launch()
