"""What every dataset's ``courtbench train NAME`` shares, on the Hugging Face training stack.

- :mod:`courtbench.training.extra`: the ``train`` extra (torch, transformers, peft,
  accelerate) is imported lazily; a missing one is one line saying what to install.
- :mod:`courtbench.training.run_folder`: the run folder (checkpoints, manifest, outputs),
  owned through the ``.courtbench.json`` marker like every output, kept across a kill so
  ``--resume`` continues; a failed start leaves no folder.
- :mod:`courtbench.training.options`: the options every recipe has (seed, learning rate,
  batches, warm-up, precision, checkpoints …), each checked while parsing, the ceiling on a
  command's optimizer steps, and their ``TrainingArguments``.
- :mod:`courtbench.training.failures`: a failed write (full disk …) told from a bug.
- :mod:`courtbench.training.callbacks`: the progress bar (loss, samples/s) and the marker
  refreshed at every checkpoint.
- :mod:`courtbench.training.manifest`: library versions, device, folder hashes.

Nothing here runs a training loop: the recipes hand a model and datasets to
``transformers.Trainer``, so ``accelerate launch`` and ``torchrun`` work unchanged.
"""
