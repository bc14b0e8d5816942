"""Hub Spaces: local serving and screenshots of the metric pages (:mod:`.screenshots`,
``python -m courtbench.spaces``) and the leaderboard Space shipped as package data
(:mod:`.leaderboard`)."""
