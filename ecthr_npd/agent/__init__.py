"""Knowledge-augmented ReAct agent for ECtHR-NPD (``courtbench predict ecthr_npd --prompt react``).

One bounded conversation per case: the model acts through whitelisted actions, the controller
answers each with a redacted observation, a leakage gate scans the conversation, and every
step goes into a per-case trace. One job per module:

- :mod:`ecthr_npd.agent.redaction`: the one redaction function every observation passes;
- :mod:`ecthr_npd.agent.leakage`: the leakage scan of a text;
- :mod:`ecthr_npd.agent.gate`: what the gate scans (observation payloads, checked origins);
- :mod:`ecthr_npd.agent.priors`: train-only empirical priors (article, country, article×country);
- :mod:`ecthr_npd.agent.references`: temporally prior training references, ranked;
- :mod:`ecthr_npd.agent.knowledge`: the knowledge base (shipped policy + the user's modules);
- :mod:`ecthr_npd.agent.actions`: the whitelisted actions, their schemas and handlers;
- :mod:`ecthr_npd.agent.protocol`: the action in a model turn (tool call or JSON text), the
  system prompt and the messages that answer it;
- :mod:`ecthr_npd.agent.controller`: one episode: turns applied, numbers checked, byte caps;
- :mod:`ecthr_npd.agent.solver`: the Inspect solver running one episode per sample;
- :mod:`ecthr_npd.agent.traces`: trace records, per-case results and the traces file;
- :mod:`ecthr_npd.agent.run`: the agent's options, resources and audit side.
"""
