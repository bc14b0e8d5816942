"""What every dataset's ``courtbench train NAME`` shares, on the Hugging Face training stack.

- :mod:`courtbench.training.extra`: the ``train`` extra (torch, transformers, peft,
  accelerate) is imported lazily; a missing one is one line saying what to install.
- :mod:`courtbench.training.run_folder`: the run folder (checkpoints, manifest, outputs),
  owned through the ``.courtbench.json`` marker, kept across a kill so ``--resume`` continues.
- :mod:`courtbench.training.options`: the options every recipe has (seed, learning rate,
  batches, warm-up, precision, checkpoints …) and their ``TrainingArguments``.
- :mod:`courtbench.training.callbacks`: the progress bar (loss, samples/s) and the marker
  refreshed at every checkpoint.
- :mod:`courtbench.training.manifest`: library versions, device, folder hashes.

Nothing here runs a training loop: the recipes hand a model and datasets to
``transformers.Trainer``, so ``accelerate launch`` and ``torchrun`` work unchanged.
"""
