"""Trainer callbacks of ``courtbench train``: a progress bar and the run folder's marker.

Imported only when a run starts (it subclasses ``transformers.TrainerCallback``).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tqdm.auto import tqdm
from transformers import TrainerCallback

from courtbench.training.run_folder import record_files

_OPEN: set[ProgressBar] = set()


def close_progress_bars() -> None:
    """Close every bar still open (a run that failed mid-way never reaches on_train_end)."""
    for bar in list(_OPEN):
        bar.close()


class ProgressBar(TrainerCallback):
    """One bar on stderr over the optimizer steps: last training loss and samples per second
    (examples per optimizer step × steps / wall seconds since this process started); the
    validation results printed as they come. Main process only."""

    def __init__(self, description: str, examples_per_step: int) -> None:
        self.description = description
        self.examples_per_step = examples_per_step
        self.bar = None
        self.started = (0.0, 0)
        self.postfix: dict[str, str] = {}

    def on_train_begin(self, args, state, control, **kwargs):
        if state.is_world_process_zero:
            self.bar = tqdm(total=state.max_steps, initial=state.global_step, file=sys.stderr,
                            desc=self.description, dynamic_ncols=True)
            _OPEN.add(self)
            self.started = (time.perf_counter(), state.global_step)

    def on_step_end(self, args, state, control, **kwargs):
        if self.bar is None:
            return
        self.bar.update(state.global_step - self.bar.n)
        seconds = time.perf_counter() - self.started[0]
        steps = state.global_step - self.started[1]
        if seconds > 0 and steps:
            self.postfix["samples/s"] = f"{steps * self.examples_per_step / seconds:.2f}"
        self.bar.set_postfix(self.postfix, refresh=False)

    def on_log(self, args, state, control, logs=None, **kwargs):
        if self.bar is None or not logs:
            return
        if "loss" in logs:
            self.postfix["loss"] = f"{logs['loss']:.4f}"
        shown = {key: value for key, value in logs.items() if key.startswith("eval_")
                 and not key.endswith(("runtime", "per_second"))}
        if shown:
            self.bar.write(f"step {state.global_step}: validation " + ", ".join(
                f"{key[5:]} {value:.4g}" for key, value in shown.items()), file=sys.stderr)

    def on_train_end(self, args, state, control, **kwargs):
        self.close()

    def close(self) -> None:
        """Close the bar (idempotent)."""
        _OPEN.discard(self)
        if self.bar is not None:
            self.bar.close()
            self.bar = None


class RecordCheckpoints(TrainerCallback):
    """Refresh the run folder's marker after every checkpoint (so a killed run's folder stays
    one that ``--resume`` and a later run recognise). Main process only."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = Path(run_dir)

    def on_save(self, args, state, control, **kwargs):
        if state.is_world_process_zero:
            record_files(self.run_dir)
