"""A faithful re-implementation, written here from its description (issue 20, item 4), of how
the published SLDS evaluation parses and aggregates its LLM judge's answers:

- every match of ``^\\s*([A-Z_]+_SCORE):\\s*(\\d+)\\s*$`` in the whole answer, searched with
  the multi-line flag (``\\s`` may then run over a line break), is one score line;
- each score line naming one of the five categories adds its value minus 1 to the sample's
  points, a repeated category on every line it appears on; other names are ignored; values
  are not range-checked;
- a sample's score is 10 times its points (an empty answer, or one without a score line,
  scores 0); the corpus score is the mean over every sample (none excluded).

Deliberately independent of courtbench's code: a plain loop over the matches, its own regex.
"""

import re

CATEGORY_NAMES = ["ACCURACY_FAITHFULNESS_SCORE", "COMPLETENESS_RELEVANCE_SCORE",
                  "CLARITY_COHERENCE_SCORE", "ARTICLES_SCORE", "CONSIDERATIONS_SCORE"]
LINE = re.compile(r"^\s*([A-Z_]+_SCORE):\s*(\d+)\s*$", flags=re.MULTILINE)


def reference_sample_score(answer):
    points = 0
    for found in LINE.finditer(answer or ""):
        if found.group(1) in CATEGORY_NAMES:
            points += int(found.group(2)) - 1
    return 10.0 * points


def reference_corpus_score(answers):
    scores = [reference_sample_score(a) for a in answers]
    return sum(scores) / len(scores)
