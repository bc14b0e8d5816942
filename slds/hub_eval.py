"""What SLDS exports to the Hub's Eval Results (``courtbench submit --eval-results``).

The Hub keeps one number per task and ranks higher values first (right for every SLDS
figure). Exported, from the verified record (recomputed from the predicted headnotes):

- ``test_rouge_l`` — ROUGE-L F1 (×100) macro-averaged over the nine language pairs of the
  test split (``default`` config); only a system that covers all nine pairs exports it (a
  macro over fewer pairs is another number);
- ``test_bleu`` — BLEU macro-averaged the same way, under the same condition;
- ``test_rouge_l_<decision>_<headnote>`` — ROUGE-L F1 on one language pair's test split
  (config ``<decision>_<headnote>``, e.g. ``de_fr``), for each pair the system covers.

Not exported: ROUGE-1/2, BLEU per pair, BERTScore and the LLM judge (shown "as submitted":
they need a model to recompute), the intervals and the paired tests — they are in the
record on courtbench's leaderboard, which stays the full account.
"""

from __future__ import annotations

from courtbench.leaderboard.eval_results import HubBenchmark, HubTask
from slds.record_verifier import LANGUAGES

_ROUGE_L = "ROUGE-L F1"
_PAIRS = tuple((d, h) for d in LANGUAGES for h in LANGUAGES)


def _pair_cells(metric: str) -> tuple[tuple[str, ...], ...]:
    return tuple(("breakdown", metric, d, h) for d, h in _PAIRS)


def hub_benchmark() -> HubBenchmark:
    """SLDS's Eval Results tasks (see the module docstring)."""
    tasks = [HubTask("test_rouge_l", "default", "test", ("metric", _ROUGE_L),
                     "test ROUGE-L F1 (x100), macro over the nine language pairs; higher is "
                     "better", needs=_pair_cells(_ROUGE_L)),
             HubTask("test_bleu", "default", "test", ("metric", "BLEU"),
                     "test BLEU, macro over the nine language pairs; higher is better",
                     needs=_pair_cells("BLEU"))]
    tasks += [HubTask(f"test_rouge_l_{d}_{h}", f"{d}_{h}", "test",
                      ("breakdown", _ROUGE_L, d, h),
                      f"test ROUGE-L F1 (x100), decisions in {d}, headnotes in {h}; higher "
                      "is better")
              for d, h in _PAIRS]
    return HubBenchmark(
        name="SLDS",
        description=("Swiss Landmark Decisions Summarization: generate the headnote of a "
                     "Swiss Federal Supreme Court landmark decision in German, French or "
                     "Italian from a decision in any of the three (nine language pairs). "
                     "courtbench's verified leaderboard keeps every figure."),
        tasks=tuple(tasks))
