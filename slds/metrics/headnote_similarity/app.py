"""Gradio widget of the headnote_similarity metric (Hugging Face Space entry point)."""

from pathlib import Path

import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load(str(Path(__file__).resolve().parent / "headnote_similarity.py"))
launch_gradio_widget(module)
