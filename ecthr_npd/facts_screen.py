"""Text leakage screen: find in reviewed Facts what the review should have removed.

Every text is normalised first (:mod:`ecthr_npd.facts_text`: NFKC, every Unicode space,
apostrophes, dashes), then read sentence by sentence around the places that can matter. A
sentence is a finding of one of three kinds (:data:`KINDS`, most specific first):

- ``own_award``: the case's own ``y_amount_eur`` in any form (:mod:`ecthr_npd.facts_amounts`:
  grouped digits in any locale, decimals, ``16k``, ``5 thousand``, ``2,5 Mio.``, words in
  English, French, German or Italian), anywhere: a bare integer counts only in a sentence
  about money and never as a year (1800–2100) or after "no.", "Article", "§" …;
- ``award_amount``: an award or outcome passage (:mod:`ecthr_npd.facts_cues`) holding another
  amount of money (a claim, the Government's offer, an award to someone else);
- ``award_passage``: an award or outcome passage without an amount (a just-satisfaction
  finding, Article 41/50 reasoning, "the finding of a violation … sufficient", a claim made or
  not, the operative payment or "dismisses the remainder" clauses).

Money in domestic proceedings (fines, bail, salaries, pensions, domestic compensation, civil
claims, articles of national codes) is no finding unless it equals the case's own award; the
violated articles are permitted inputs. A finding names the whole sentence (its character
offsets in the original text), which :func:`mask_text` replaces with :data:`MARKER`.

The screen helps a reviewer; it is no proof that a text is clean. Its recall and false-alarm
rate are measured on a labelled corpus (``benchmarks/bench_ecthr_facts_screen.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from ecthr_npd import facts_cues
from ecthr_npd.facts_amounts import (
    EURO_TERMS,
    Amount,
    amount_at,
    amounts,
    award_pattern,
    cents,
    number_pattern,
    word_amounts,
)
from ecthr_npd.facts_text import Normalised, normalise, sentence_bounds

KINDS = ("own_award", "award_amount", "award_passage")
#: What a masked passage becomes in the text.
MARKER = "[masked]"
#: Longest passage a one-line message quotes.
PASSAGE_CHARS = 200
_YEARS = (1800, 2100)
#: Characters around a speaker ("the Court", "the Government") searched for what it says.
_SPEAKER_REACH = 300
_SPEAKER_TOPICS = frozenset({"claim", "damage", "court_says", "government_says", "no_award"})
_REFERENCE = re.compile(r"(?:\bno|\bnos|n°|\bnr|§|\bart|\barticles?|\bartikel|\barticolo|"
                        r"\bsections?|\brule|\bparagraphs?|\bparas?|\bpages?|\bpp?|\bcase|"
                        r"\bapplications?|\blaw|\bdecree|\bact|\bfile|\bflat|\broom|\bcell|"
                        r"\bstreet|\bitem|\bpoint|\bprotocol|\bdecision|\bjudgment|\bvolume)"
                        r"[.\s]*$")
@dataclass(frozen=True)
class Hit:
    """One flagged sentence of a text: kind, offsets [start, end) in the original text, and
    why (``cue``: formula / article / remainder / claim / none)."""

    kind: str
    start: int
    end: int
    cue: str


@dataclass(frozen=True)
class Finding:
    """One passage the screen flags: case id, 1-based record line, kind, character offsets
    [start, end) in the case's ``facts_text`` and the passage itself."""

    case_id: str
    line: int
    kind: str
    start: int
    end: int
    passage: str

    def as_record(self) -> dict:
        """The finding as a findings-report record (JSON Lines)."""
        return {"case_id": self.case_id, "line": self.line, "kind": self.kind,
                "start": self.start, "end": self.end, "passage": self.passage}


@lru_cache(maxsize=1)
def _automaton():
    """One Aho-Corasick automaton over every anchor (cues, speakers, currency terms) and the
    role of each pattern: ``cue``, a :data:`facts_cues.SPEAKERS` key, or ``currency``."""
    import ahocorasick_rs

    roles = {anchor: "cue" for anchor in facts_cues.ANCHORS}
    roles.update({anchor: anchor for anchor in facts_cues.SPEAKER_ANCHORS})
    for term in EURO_TERMS:
        roles.setdefault(term, "currency")
    patterns = list(roles)
    return (ahocorasick_rs.AhoCorasick(patterns, matchkind=ahocorasick_rs.MatchKind.LeftmostLongest,
                                           implementation=ahocorasick_rs.Implementation.DFA),
            [roles[p] for p in patterns])


def _relevant(norm: Normalised, role: str, start: int, end: int) -> bool:
    """Whether an anchor occurrence can start a finding: a speaker must be the Court or the
    Government as the judgment writes them; a currency term must be a word of its own that
    follows a word (an amount in words); every other anchor is relevant."""
    if role == "cue":
        return True
    low = norm.lower
    if (low[end:end + 1].isalpha() and low[end - 1].isalpha()) or (
            start and low[start - 1].isalpha() and low[start].isalpha()):
        return False  # inside a word: "dm" in "admitted", "bef" in "before"
    if role == "currency":
        before = low[max(0, start - 2):start].rstrip()
        return bool(before) and before[-1].isalpha()
    if not facts_cues.is_speaker(norm.cased, role, start):
        return False
    # a speaker makes a finding only with something to say about a claim or damage: look for
    # it around (cheaper than finding the sentence; a superset of it up to a long sentence)
    around = low[max(0, start - _SPEAKER_REACH):end + _SPEAKER_REACH]
    return bool(facts_cues.lexicon().classes(around) & _SPEAKER_TOPICS)


def _own_positions(norm: Normalised, award: float | None) -> list[int]:
    """Start offsets of digit tokens whose value is the award (checked further per sentence)."""
    pattern = award_pattern(cents(award)) if award and award > 0 else None
    if pattern is None:
        return []
    found = []
    for match in pattern.finditer(norm.lower):
        token = number_pattern().match(norm.lower, match.start())
        amount = token and amount_at(norm.lower, token)
        if amount is not None and cents(amount.value) == cents(award):
            found.append(match.start())
    return found


def _counts_as_own(low: str, sentence: tuple[int, int], amount: Amount, money: bool) -> bool:
    """Whether an amount equal to the award is the award written down, not a year, an
    article or a count: any marked form counts; a bare integer only in a sentence about
    money (``money``)."""
    if not amount.plain:
        return True
    if amount.value < 100 or _YEARS[0] <= amount.value <= _YEARS[1]:
        return False
    if _REFERENCE.search(low, max(sentence[0], amount.start - 14), amount.start):
        return False
    return money


def _is_money(low: str, amount: Amount) -> bool:
    """Whether an amount in an award passage is a sum of money (not a date, article, count)."""
    if not amount.plain:
        return True
    if amount.value < 100 or _YEARS[0] <= amount.value <= _YEARS[1]:
        return False
    return not _REFERENCE.search(low, max(0, amount.start - 14), amount.start)


def _needs_words(classes: set[str]) -> bool:
    """Whether the sentence may hold an amount in words: a number word of a large number,
    or a currency term (after "fifty", "cinquante" …)."""
    return bool(classes & {"number_word", "currency"})


def _sentence_amounts(norm: Normalised, sentence: tuple[int, int], classes: set[str],
                      cue: str | None) -> list[Amount]:
    """The amounts of a sentence: in digits, and in words where it may hold them (only
    those next to a currency, in a sentence about money or in an award passage)."""
    found = amounts(norm.lower, *sentence)
    if _needs_words(classes):
        text = norm.lower[sentence[0]:sentence[1]]
        found += [a for a in word_amounts(text) if a.currency or "money" in classes or cue]
    return found


def _is_own(norm: Normalised, sentence: tuple[int, int], found: list[Amount], award: float,
            money: bool) -> bool:
    """Whether one of ``found`` is the case's award written down (see :func:`_counts_as_own`)."""
    own = cents(award)
    return any(cents(a.value) == own
               and (a.words or _counts_as_own(norm.lower, sentence, a, money)) for a in found)


def _classify(norm: Normalised, sentence: tuple[int, int], award: float | None,
              marks: set[str]) -> tuple[str, str] | None:
    """(kind, cue) of one sentence, or None when it is not a finding. ``marks``: what
    brought the sentence here (``cue``: a cue or speaker anchor; ``own``: a digit form of
    the award; ``currency``: a euro term after a word)."""
    start, end = sentence
    text = norm.lower[start:end]
    classes = facts_cues.lexicon().classes(text)
    cue = facts_cues.award_cue(norm.cased[start:end], text, classes) if "cue" in marks else None
    has_award = bool(award and award > 0)
    if cue is None and "own" not in marks and not (has_award and _needs_words(classes)):
        return None
    found = _sentence_amounts(norm, sentence, classes, cue)
    if has_award and _is_own(norm, sentence, found, award, "money" in classes):
        return "own_award", cue or "none"
    if cue is None:
        return None
    if any(a.words or _is_money(norm.lower, a) for a in found):
        return "award_amount", cue
    return "award_passage", cue


def _sentences(norm: Normalised, positions: list[tuple[int, str]]):
    """Yield ((start, end), marks) of the sentences holding ``positions`` (offset, mark),
    each sentence once with the marks of every position in it, in order and never
    overlapping (so that masking can replace each one)."""
    current, marks = None, set()
    for position, mark in sorted(positions):
        if current is not None and position < current[1]:
            marks.add(mark)
            continue
        if current is not None:
            yield current, marks
        start, end = sentence_bounds(norm.cased, position)
        if current is not None:  # a sentence cut at its length limit: never overlap it
            start = max(start, current[1])
        current, marks = (start, max(start, end)), {mark}
    if current is not None:
        yield current, marks


def screen_text(text: str, award: float | None = None) -> list[Hit]:
    """The flagged sentences of one text (see the module doc), in text order.

    Args:
        text: a Facts text as given.
        award: the case's ``y_amount_eur`` (None or 0: no own-award check).
    """
    norm = normalise(text)
    automaton, roles = _automaton()
    positions = [(start, "currency" if roles[index] == "currency" else "cue")
                 for index, start, end in automaton.find_matches_as_indexes(norm.lower)
                 if _relevant(norm, roles[index], start, end)]
    positions += [(start, "own") for start in _own_positions(norm, award)]
    hits = []
    for sentence, marks in _sentences(norm, positions):
        found = _classify(norm, sentence, award, marks)
        if found is not None:
            start, end = norm.to_original(sentence[0]), norm.to_original(sentence[1], end=True)
            hits.append(Hit(found[0], start, end, found[1]))
    return hits


def screen_texts(rows: Iterable[tuple[str, int, str, float | None]],
                 progress: bool = False) -> tuple[list[Finding], int]:
    """Screen many texts.

    Args:
        rows: (case_id, record line, facts_text, y_amount_eur or None) per case.
        progress: show a tqdm bar.

    Returns:
        (findings in row and text order, number of texts screened).
    """
    from tqdm.auto import tqdm

    findings: list[Finding] = []
    count = 0
    for case_id, line, text, award in tqdm(rows, desc="facts leakage screen", unit="text",
                                           disable=not progress):
        count += 1
        findings += [Finding(case_id, line, hit.kind, hit.start, hit.end,
                             text[hit.start:hit.end]) for hit in screen_text(text, award)]
    return findings, count


def mask_text(text: str, spans: list[tuple[int, int]]) -> tuple[str, list[int]]:
    """``text`` with each [start, end) of ``spans`` (sorted, not overlapping) replaced by
    :data:`MARKER`; returns the masked text and where each marker starts in it."""
    parts, at, position = [], [], 0
    length = 0
    for start, end in spans:
        parts.append(text[position:start])
        length += start - position
        at.append(length)
        parts.append(MARKER)
        length += len(MARKER)
        position = end
    parts.append(text[position:])
    return "".join(parts), at


def short(passage: str, limit: int = PASSAGE_CHARS) -> str:
    """A passage on one line, cut to ``limit`` characters."""
    flat = " ".join(passage.split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


def describe(findings: list[Finding], limit: int = 10) -> str:
    """One line: the count, the cases, and the first ``limit`` findings with their passage."""
    cases = len({f.case_id for f in findings})
    listed = "; ".join(f"case {f.case_id} (line {f.line}, {f.kind}): {short(f.passage)!r}"
                       for f in findings[:limit])
    more = f" (and {len(findings) - limit:,} more)" if len(findings) > limit else ""
    return f"{len(findings):,} finding(s) in {cases:,} case(s): {listed}{more}"
