"""``courtbench train slds``: LoRA fine-tuning of a causal LM on headnotes (paper Appendix G).

- :mod:`slds.training.examples`: the zero-shot chat prompt of ``courtbench generate slds``
  (same wording, same template) with the decision cut in tokens, and the headnote as target.
- :mod:`slds.training.lora`: the LoRA adapter on the projections the model has; the model
  folder written at the end (merged or adapter).
- :mod:`slds.training.run`: the command (learning-rate sweep, final run, manifest).
"""
