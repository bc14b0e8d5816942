"""Normalised Facts text for the leakage screen: one form to match, offsets back to the original.

:func:`normalise` turns a text into the form every pattern of the screen is written for:

- Unicode NFKC (full-width digits, ligatures, compatibility spaces);
- every Unicode space (no-break U+00A0, narrow no-break U+202F, thin U+2009, ideographic …)
  becomes an ASCII space, every line or paragraph separator a newline;
- apostrophes and primes (’ ʼ ′ ´ ` ‘) become ``'``, dashes and minus signs (– — ‑ −) ``-``;
- zero-width and other invisible format characters (U+200B, U+2060, soft hyphen …) vanish.

It keeps a cased and a lower-cased copy (same length) and, when the text changed length, the
map back to the original's character offsets, so a finding names the passage as written. Most
texts are plain ASCII or change only character for character: those take a few
:meth:`str.replace` calls and one NFKC pass in C, and no map; the lines of the others that
change length (an ellipsis "…" becomes "...") are mapped character by character.

:func:`sentence_bounds` gives the sentence around a position: a sentence ends at a newline or
at ``.``/``?``/``!`` followed by a space and a capital, digit, quote or bracket, unless the
period closes a known abbreviation (``no.``, ``Art.``, ``para.`` …) or a single letter.
"""

from __future__ import annotations

import bisect
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

#: Longest sentence the screen looks at on either side of a match (characters); a longer one
#: is cut there, at a space.
MAX_SIDE = 600
_APOSTROPHES = "\u2019\u02bc\u2032\u00b4\u0060\u2018\u02b9\u02bb\u2035"
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"
#: One-for-one replacements made before NFKC (which keeps these, or expands ´ to two).
_REPLACEMENTS = tuple((c, "'") for c in _APOSTROPHES) + tuple((c, "-") for c in _DASHES) + (
    ("\u1680", " "), ("\u2028", "\n"), ("\u2029", "\n"))
#: Invisible characters NFKC keeps: zero-width space, joiners, word joiner, BOM, soft hyphen,
#: direction marks.
_INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
_ABBREVIATIONS = frozenset(
    "no nos art arts para paras p pp cf e.g i.e mr mrs ms dr prof st seq op cit v vs jr co ltd "
    "inc nr s ss vol ch ed eds approx fig al u.s mio tsd mrd abs ziff lit bzw vgl z.b d.h sig "
    "avv dott mme mlle me sect sec reg".split())


def _fast(text: str) -> str:
    """The one-for-one replacements, then NFKC (C speed; may change the length)."""
    for char, replacement in _REPLACEMENTS:
        if char in text:
            text = text.replace(char, replacement)
    if unicodedata.is_normalized("NFKC", text):
        return text
    return unicodedata.normalize("NFKC", text)


@lru_cache(maxsize=4096)
def _char_map(char: str) -> str:
    """What one character becomes on its own (the slow path's unit)."""
    if char in _INVISIBLE or unicodedata.category(char) == "Cf":
        return ""
    return _fast(char)


@dataclass(frozen=True)
class Normalised:
    """A text in the screen's form.

    Attributes:
        original: the text as given.
        cased: normalised, case kept (for "the Court" against "the court").
        lower: ``cased`` lower-cased, the same length.
        changes: None when ``cased`` has the original's offsets; otherwise, in order, one
            (start, end) in ``cased`` and (start, end) in ``original`` per character that
            normalisation expanded, composed or removed.
    """

    original: str
    cased: str
    lower: str
    changes: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]] | None = None

    def to_original(self, position: int, end: bool = False) -> int:
        """The original offset of ``position`` in the normalised text; a position inside a
        character that normalisation expanded ("½" → "1⁄2") maps to that character's start,
        or with ``end`` (an exclusive end offset) to its end."""
        if self.changes is None:
            return position
        norm_start, norm_end, orig_start, orig_end = self.changes
        index = bisect.bisect_right(norm_start, position) - 1
        if index < 0:
            return position
        if position >= norm_end[index]:
            return orig_end[index] + position - norm_end[index]
        if position == norm_start[index] or not end:
            return orig_start[index]
        return orig_end[index]


def _lower(cased: str) -> str:
    lower = cased.lower()
    if len(lower) == len(cased):
        return lower
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in cased)  # 'İ' → 2 chars


def _same_length(text: str) -> str | None:
    """``text`` normalised when that keeps every offset (no invisible character, no
    expansion or composition), else None."""
    if any(char in text for char in _INVISIBLE):
        return None
    cased = _fast(text)
    return cased if len(cased) == len(text) else None


def _slow(text: str) -> tuple[str, tuple]:
    """Normalise character by character, line by line where lines keep their length:
    (normalised, :attr:`Normalised.changes`)."""
    parts, changes = [], ([], [], [], [])
    length = position = 0
    for line in text.splitlines(keepends=True):
        same = _same_length(line)
        if same is not None:
            parts.append(same)
            length += len(line)
            position += len(line)
            continue
        for offset, char in enumerate(line):
            mapped = _char_map(char) if not char.isascii() else char
            if len(mapped) != 1:
                for values, value in zip(changes, (length, length + len(mapped),
                                                   position + offset, position + offset + 1),
                                         strict=True):
                    values.append(value)
            parts.append(mapped)
            length += len(mapped)
        position += len(line)
    return "".join(parts), tuple(tuple(values) for values in changes)


def normalise(text: str) -> Normalised:
    """``text`` in the screen's form (see the module doc)."""
    if text.isascii():
        return Normalised(text, text, text.lower())
    cased = _same_length(text)
    if cased is not None:
        return Normalised(text, cased, _lower(cased))
    cased, changes = _slow(text)
    return Normalised(text, cased, _lower(cased), changes)


def _is_end(cased: str, dot: int) -> bool:
    """Whether the ``.``/``?``/``!`` at ``dot`` (followed by a space) ends a sentence."""
    after = dot + 1
    while after < len(cased) and cased[after] in " \t":
        after += 1
    if after >= len(cased):
        return True
    following = cased[after]
    if not (following.isupper() or following.isdigit() or following in "\"'(["):
        return False
    if cased[dot] != ".":
        return True
    word_start = dot
    while word_start > 0 and (cased[word_start - 1].isalpha() or cased[word_start - 1] == "."):
        word_start -= 1
    word = cased[word_start:dot].lower()
    return not (len(word) == 1 or word in _ABBREVIATIONS)


def _end_before(cased: str, position: int, low: int) -> int:
    """Start of the sentence holding ``position`` (search no further back than ``low``)."""
    limit = position
    while True:
        line = cased.rfind("\n", low, limit)
        dot = max(cased.rfind(". ", low, limit), cased.rfind("? ", low, limit),
                  cased.rfind("! ", low, limit))
        if line < 0 and dot < 0:
            return _word_start(cased, low) if low > 0 else 0
        if line > dot:
            return line + 1
        if _is_end(cased, dot):
            return dot + 2
        limit = dot


def _end_after(cased: str, position: int, high: int) -> int:
    """End of the sentence holding ``position`` (search no further than ``high``)."""
    start = position
    while True:
        line = cased.find("\n", start, high)
        dots = [d for d in (cased.find(". ", start, high), cased.find("? ", start, high),
                            cased.find("! ", start, high)) if d >= 0]
        dot = min(dots) if dots else -1
        if line < 0 and dot < 0:
            if high >= len(cased):
                return len(cased.rstrip())
            return _word_end(cased, high)
        if dot < 0 or 0 <= line < dot:
            return line
        if _is_end(cased, dot):
            return dot + 1
        start = dot + 1


def _word_start(cased: str, position: int) -> int:
    space = cased.find(" ", position)
    return position if space < 0 else space + 1


def _word_end(cased: str, position: int) -> int:
    space = cased.rfind(" ", 0, position)
    return position if space < 0 else space


def sentence_bounds(cased: str, position: int) -> tuple[int, int]:
    """(start, end) of the sentence of ``cased`` holding ``position``, each side cut at
    :data:`MAX_SIDE` characters (at a space); a final period belongs to the sentence."""
    start = _end_before(cased, position, max(0, position - MAX_SIDE))
    end = _end_after(cased, position, min(len(cased), position + MAX_SIDE))
    while start < end and cased[start] in " \t":
        start += 1
    return start, max(end, start)
