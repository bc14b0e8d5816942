"""Leaderboard submissions: verified result records of ``courtbench evaluate`` reports.

``rerun`` describes how a report can be recomputed (written by every dataset's evaluation);
``records`` re-scores a report and checks it; ``hub`` opens the pull request.
"""
