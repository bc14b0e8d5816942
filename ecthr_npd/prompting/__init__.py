"""Prompted award prediction for ECtHR-NPD (``courtbench predict ecthr_npd``,
``inspect eval courtbench/ecthr_npd``).

- :mod:`ecthr_npd.prompting.serialise`: a case's permitted inputs as text, one field per line;
- :mod:`ecthr_npd.prompting.few_shot_retrieval`: few-shot references (Appendix C.6 ranking,
  the highest-ranked positive awards plus exactly one zero award);
- :mod:`ecthr_npd.prompting.prompts`: the prompt templates (files in this package) and the
  chat messages of each prompt kind (``zero_shot``, ``cot``, ``few_shot``);
- :mod:`ecthr_npd.prompting.samples`: the cases as Inspect samples;
- :mod:`ecthr_npd.prompting.parsing`: the award in a model's answer (JSON, tolerant fallback);
- :mod:`ecthr_npd.prompting.scorer`: the Inspect scorer and metrics (the metric modules);
- :mod:`ecthr_npd.prompting.outputs`: predictions CSV, responses JSONL and manifest;
- :mod:`ecthr_npd.prompting.run`: the command (options, the Inspect run, writing, exit status).
"""
