"""Gradio widget of the summarization_properties measurement (Hugging Face Space entry point)."""

from pathlib import Path

import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load(str(Path(__file__).resolve().parent / "summarization_properties.py"))
launch_gradio_widget(module)
