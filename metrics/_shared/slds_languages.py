"""The SLDS languages and the one rule every SLDS metric module applies to a language code
(headnote_similarity, summarization_properties, headnote_judge).

A language code is one of :data:`LANGUAGES`, exactly: ``'DE'``, ``'de '``, ``'xx'``, ``None``
are refused by the boundary validator's ``check_choice`` with the same one-line message in
every module (``headnote_languages[0] = 'DE': expected one of 'de', 'fr', 'it'``); nothing is
lower-cased or stripped.

One source (``metrics/_shared/slds_languages.py``), linked into each SLDS module's folder and
imported relatively (``from .slds_languages import ...``, the form ``evaluate`` copies beside
a module script); the wheel, ``courtbench metrics export`` and ``courtbench publish`` carry it
as a real file.
"""

from .boundary import BoundaryError, check_choice

#: The languages of SLDS (the same as ``slds.schema.LANGUAGES``, pinned by a test).
LANGUAGES = ("de", "fr", "it")


def check_language(value, where):
    """``value`` when it is one of :data:`LANGUAGES` exactly; else ``BoundaryError``
    naming ``where`` (``"summary_languages[3]"``)."""
    return check_choice(value, where, LANGUAGES)


def check_languages(values, argument, n, *, per="prediction"):
    """``values`` as a list of ``n`` language codes, each checked by :func:`check_language`.

    Raises:
        BoundaryError: naming ``argument`` (not a list, or not one code per ``per``) or the
            first bad item (``argument[index]``).
    """
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__") \
            or not hasattr(values, "__iter__"):
        raise BoundaryError(argument, f"<{type(values).__name__}>", "a list of language codes")
    values = list(values)
    if len(values) != n:
        raise BoundaryError(argument, f"<{len(values):,} items>", f"one per {per} ({n:,})")
    for index, value in enumerate(values):
        check_language(value, f"{argument}[{index}]")
    return values
