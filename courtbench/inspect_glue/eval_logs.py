"""An Inspect log (``.eval``) read as a predictions file (``courtbench evaluate NAME``).

Every courtbench scorer writes a sample's prediction into its score's metadata under
:data:`courtbench.inspect_glue.PREDICTION_KEY` (the dataset decides what the prediction is:
its scorer's mapping). Here each scored sample of the first epoch becomes a record
``{id_column: sample id, value_column: prediction}``; a sample that errored, was not scored
or has no prediction (no fallback) gives no record, so the reader reports its id as missing.
Records are numbered by sample order (the "line" of an error message). Only the log's sample
summaries are read (scores and metadata, not the conversations), so a large log reads fast.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from courtbench.errors import SourceError
from courtbench.inspect_glue import PREDICTION_KEY, require_inspect

EVAL_SUFFIXES = (".eval",)


def eval_log_records(path: Path, id_column: str, value_column: str
                     ) -> Iterator[tuple[int, dict]]:
    """``(record number, record)`` of every sample with a prediction (see the module
    docstring). SourceError for a file Inspect cannot read as a log."""
    require_inspect()
    from inspect_ai.log import read_eval_log_sample_summaries

    try:
        summaries = read_eval_log_sample_summaries(str(path))
    except Exception as error:  # noqa: BLE001 - any unreadable log is one line
        raise SourceError(path, f"not an Inspect log Inspect can read ({type(error).__name__}: "
                          f"{' '.join(str(error).split())[:200]})") from None
    for number, summary in enumerate(summaries, start=1):
        if summary.epoch != 1 or summary.error or not summary.scores:
            continue
        score = next(iter(summary.scores.values()))
        prediction = (score.metadata or {}).get(PREDICTION_KEY)
        if prediction is None:
            continue
        yield number, {id_column: summary.id, value_column: prediction}
