"""Prompted award prediction for ECtHR-NPD (``courtbench predict ecthr_npd``).

- :mod:`ecthr_npd.prompting.serialise`: a case's permitted inputs as text, one field per line;
- :mod:`ecthr_npd.prompting.few_shot_retrieval`: retrieved few-shot references (k-NN eligibility);
- :mod:`ecthr_npd.prompting.prompts`: the prompt templates (files in this package) and the
  chat messages of each prompt kind (``zero_shot``, ``cot``, ``few_shot``);
- :mod:`ecthr_npd.prompting.parsing`: the award in a model's answer (JSON, tolerant fallback);
- :mod:`ecthr_npd.prompting.outputs`: predictions CSV, responses JSONL and manifest;
- :mod:`ecthr_npd.prompting.run`: the command (options, requests, writing, exit status).
"""
