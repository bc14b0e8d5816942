"""Knowledge-augmented ReAct agent for ECtHR-NPD (``courtbench predict ecthr_npd --prompt react``).

One bounded conversation per case: the model acts through whitelisted actions, the controller
answers each with a redacted observation, a leakage gate scans the conversation, and every
step goes into a per-case trace. One job per module:

- :mod:`ecthr_npd.agent.redaction`: the one redaction function every observation passes;
- :mod:`ecthr_npd.agent.leakage`: the leakage scan (``leakage_check`` and the final gate);
- :mod:`ecthr_npd.agent.priors`: train-only empirical priors (article, country, article×country);
- :mod:`ecthr_npd.agent.references`: temporally prior training references, ranked;
- :mod:`ecthr_npd.agent.knowledge`: the knowledge base (shipped policy + the user's modules);
- :mod:`ecthr_npd.agent.actions`: the whitelisted actions, their schemas and handlers;
- :mod:`ecthr_npd.agent.protocol`: the action in a model turn (tool call or JSON text), the
  system prompt and the messages that answer it;
- :mod:`ecthr_npd.agent.controller`: episodes, stepped across cases through ``courtbench.llm``;
- :mod:`ecthr_npd.agent.traces`: trace records, per-case results and the output files;
- :mod:`ecthr_npd.agent.run`: the command (options, data, manifest, exit status).
"""
