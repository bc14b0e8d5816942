"""A faithful re-implementation, written here from its description (issue 20, item 4), of how
the published SLDS evaluation parses and aggregates its LLM judge's answers:

- each line of the answer is matched against ``^\\s*([A-Z_]+_SCORE):\\s*(\\d+)\\s*$``;
- the values of lines naming the same category are added up;
- a category without any line counts as 1; values are not range-checked;
- an empty answer scores 0;
- a sample's score is 10 times the sum over the five categories of (value - 1); the corpus
  score is the mean over every sample (none excluded).

Deliberately independent of courtbench's code: a plain loop, its own regex.
"""

import re

CATEGORY_NAMES = ["ACCURACY_FAITHFULNESS_SCORE", "COMPLETENESS_RELEVANCE_SCORE",
                  "CLARITY_COHERENCE_SCORE", "ARTICLES_SCORE", "CONSIDERATIONS_SCORE"]
LINE = re.compile(r"^\s*([A-Z_]+_SCORE):\s*(\d+)\s*$")


def reference_sample_score(answer):
    if answer is None or answer == "" or answer.strip() == "":
        return 0.0
    totals = {}
    for line in answer.split("\n"):
        found = LINE.match(line)
        if found is None:
            continue
        name, value = found.group(1), int(found.group(2))
        totals[name] = totals.get(name, 0) + value
    total = 0
    for name in CATEGORY_NAMES:
        total += totals.get(name, 1) - 1
    return 10.0 * total


def reference_corpus_score(answers):
    scores = [reference_sample_score(a) for a in answers]
    return sum(scores) / len(scores)
