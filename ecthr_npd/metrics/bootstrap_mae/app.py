"""Hugging Face Space entry point: a Gradio widget for the bootstrap_mae module.

The module is loaded from the script beside this file, so the Space runs the code it ships.
"""

from pathlib import Path

import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load(str(Path(__file__).resolve().parent / "bootstrap_mae.py"))
launch_gradio_widget(module)
