"""Decision-language detection, used only when a source leaves the language empty.

Detection uses py3langid (a maintained fork of langid.py, a naive Bayes classifier over byte
n-grams shipped with its model; no download at run time) restricted to German, French and
Italian. Callers record every detected value (see :class:`slds.validate.ValidatedRows`), so a
detected language never passes silently.
"""

from __future__ import annotations

from functools import cache

from slds.schema import LANGUAGES

DETECTOR_NAME = "py3langid (restricted to de, fr, it)"
SAMPLE_CHARS = 5_000
"""Characters of the text that the detector reads (the start of a decision is enough)."""


@cache
def _identifier():
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(list(LANGUAGES))
    return identifier


def detect_language(text: str) -> tuple[str, float]:
    """Return ``(language, probability)`` for ``text``: language in {de, fr, it},
    probability in [0, 1] normalised over those three."""
    language, probability = _identifier().classify(text[:SAMPLE_CHARS])
    return str(language), float(probability)
