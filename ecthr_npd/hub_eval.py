"""What ECtHR-NPD exports to the Hub's Eval Results (``courtbench submit --eval-results``).

The Hub keeps one number per task and ranks higher values first. Exported, from the verified
record (every number recomputed from the test predictions):

- ``test_mae`` — the primary figure: mean absolute error in EUR over the test split
  (``default`` config); lower is better, so the Hub's ranking of this task is upside down;
- ``test_mae_id``, ``test_mae_ood``, ``test_mae_challenging`` — the same on the test cases of
  each view (configs ``id``, ``ood``, ``challenging``); lower is better;
- ``test_zero_f1`` — F1 of predicting a zero award (threshold 0.5 EUR) on the test split;
  higher is better.

Not exported: RMSE, MedAE, R², the MAE interval and the paired tests — they are in the
record on courtbench's leaderboard, which stays the full account.
"""

from __future__ import annotations

from courtbench.leaderboard.eval_results import HubBenchmark, HubTask
from ecthr_npd.record_verifier import VIEWS_TABLE

_MAE = "MAE of the award in EUR; lower is better"
#: (task id suffix, dataset config, the view's row in the record's MAE-by-view table)
VIEWS = (("id", "id", "ID"), ("ood", "ood", "OOD"), ("challenging", "challenging",
                                                     "Challenging"))


def hub_benchmark() -> HubBenchmark:
    """ECtHR-NPD's Eval Results tasks (see the module docstring)."""
    tasks = [HubTask("test_mae", "default", "test", ("metric", "MAE"), f"test {_MAE}",
                     lower_is_better=True)]
    tasks += [HubTask(f"test_mae_{suffix}", config, "test",
                      ("breakdown", VIEWS_TABLE, row, "MAE"), f"{row} test view: {_MAE}",
                      lower_is_better=True)
              for suffix, config, row in VIEWS]
    tasks.append(HubTask("test_zero_f1", "default", "test", ("metric", "Zero-F1"),
                         "test F1 of predicting no award (below 0.5 EUR); higher is better"))
    return HubBenchmark(
        name="ECtHR-NPD",
        description=("Predict the non-pecuniary damage award (EUR) the European Court of "
                     "Human Rights granted in a judgment with at least one violation. "
                     "The MAE tasks are lower-is-better: the Hub ranks higher values first, "
                     "so read their ranking from the bottom; courtbench's verified "
                     "leaderboard ranks them correctly and keeps every figure."),
        tasks=tuple(tasks))
