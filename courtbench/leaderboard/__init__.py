"""Leaderboard submissions: self-verifying result records of ``courtbench evaluate`` reports.

``rerun`` describes how a report can be recomputed (written by every dataset's evaluation);
``records`` re-scores a report and turns its systems into records carrying their predictions;
``results_schema`` is the record's shape, ``record_check`` recomputes every number of a record
from its predictions against the accepted data's gold values (both also run in the leaderboard
Space), ``verifiers`` finds the benchmarks' verifiers; ``folders`` writes and checks the results
and Space folders; ``hub`` reads the results dataset's card and opens the pull request.
"""
