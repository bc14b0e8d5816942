"""``courtbench train ecthr_npd``: encoder regression on the Facts text (paper Table 22).

- :mod:`ecthr_npd.training.facts`: the one reader of the ``facts`` config.
- :mod:`ecthr_npd.training.examples`: tokens in chunks, structured features, the
  standardised log(1 + y) target and the batch collator.
- :mod:`ecthr_npd.training.model`: encoder → [CLS] (mean over chunks) [⊕ feature MLP] → linear.
- :mod:`ecthr_npd.training.run`: the command (Trainer, selection on validation, predictions).
"""
