"""The labelled Facts-screen corpus, planted into neutral Facts texts, and its scoring.

``tests/data/facts_screen_corpus.jsonl`` holds passages written for courtbench (never taken
from a judgment), one JSON object a line: ``id``, ``label``, ``lang`` (en/fr/de/it),
``part`` (``tune``: the screen was tuned on it; ``heldout``: written before tuning and never
looked at while tuning) and ``text``, where ``{own}`` stands for the case's own award and
``{other}`` for another amount. Labels:

- leaks, amount-bearing: ``award_amount`` (an award or claim passage with an amount),
  ``own_elsewhere`` (the case's own award in a domestic sentence: it is still the award);
- leaks, amountless: ``award_passage``;
- benign: ``benign_money`` (domestic money, never the case's award), ``benign_number``
  (dates, counts, measures, references), ``benign_legal`` (Convention articles and procedure).

:func:`plant` gives each case of a cohort one passage (or none: a neutral text), its amounts
written in one of the formats of its language (:data:`FORMATS`, written here independently
of the screen: number words by num2words, the screen reads them with text2num), and
:func:`score` turns the screen's findings into recall and false-alarm rates.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "facts_screen_corpus.jsonl"
LEAK_LABELS = ("award_amount", "own_elsewhere", "award_passage")
AMOUNT_LABELS = ("award_amount", "own_elsewhere")
BENIGN_LABELS = ("benign_money", "benign_number", "benign_legal")
#: Other amounts ({other}); one different from the case's own award is taken.
OTHER_AMOUNTS = (350, 1200, 2750, 4000, 6500, 9800, 15000, 23400, 48000, 120000, 980.5,
                 3333.33, 7250, 18000, 60000, 850, 31500)
#: Every NEUTRAL_EVERY-th case keeps its neutral text.
NEUTRAL_EVERY = 7
NNBSP, NBSP = "\u202f", "\u00a0"


def load_corpus(path: Path = CORPUS) -> list[dict]:
    """The corpus entries, in file order."""
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _digits(value: float, group: str, decimal: str, force_cents: bool = False) -> str:
    whole = int(value)
    text = f"{whole:,}".replace(",", group)
    hundredths = int(round(value * 100)) % 100
    if hundredths or force_cents:
        text += f"{decimal}{hundredths:02d}"
    return text


def _words(value: float, language: str, currency: str) -> str | None:
    if value != int(value):
        return None
    from num2words import num2words

    return num2words(int(value), lang=language).replace(",", "") + " " + currency


def _scaled(value: float, scale: int, decimal: str) -> str | None:
    if value != int(value) or not scale <= value < scale * 1000 or int(value) % (scale // 10):
        return None
    number = f"{value / scale:g}"
    return number.replace(".", decimal)


def _fmt(name, render):
    return name, render


FORMATS = {
    "en": [
        _fmt("EUR 5,000", lambda v: f"EUR {_digits(v, ',', '.')}"),
        _fmt("5,000 euros", lambda v: f"{_digits(v, ',', '.')} euros"),
        _fmt("€5,000", lambda v: f"€{_digits(v, ',', '.')}"),
        _fmt("EUR 5,000.00", lambda v: f"EUR {_digits(v, ',', '.', True)}"),
        _fmt("5000 EUR", lambda v: f"{_digits(v, '', '.')} EUR"),
        _fmt("EUR 5 000 (nbsp)", lambda v: f"EUR{NBSP}{_digits(v, NBSP, '.')}"),
        _fmt("16k EUR", lambda v: (s := _scaled(v, 1000, ".")) and f"{s}k EUR"),
        _fmt("5 thousand euros", lambda v: (s := _scaled(v, 1000, ".")) and f"{s} thousand euros"),
        _fmt("words (en)", lambda v: _words(v, "en", "euros")),
        _fmt("EUR 1.2 million", lambda v: (s := _scaled(v, 10**6, ".")) and f"EUR {s} million"),
        _fmt("€ 26.000,00", lambda v: f"€ {_digits(v, '.', ',', True)}"),
        _fmt("EUR 2'500", lambda v: f"EUR {_digits(v, chr(39), '.')}"),
        _fmt("15 244.90 euros", lambda v: f"{_digits(v, ' ', '.')} euros"),
    ],
    "fr": [
        _fmt("5 000 € (nnbsp)", lambda v: f"{_digits(v, NNBSP, ',')}{NBSP}€"),
        _fmt("5 000 euros (nbsp)", lambda v: f"{_digits(v, NBSP, ',')} euros"),
        _fmt("5 000,00 EUR", lambda v: f"{_digits(v, ' ', ',', True)} EUR"),
        _fmt("5.000 EUR", lambda v: f"{_digits(v, '.', ',')} EUR"),
        _fmt("words (fr)", lambda v: _words(v, "fr", "euros")),
        _fmt("5 mille euros", lambda v: (s := _scaled(v, 1000, ",")) and f"{s} mille euros"),
        _fmt("EUR 2’500", lambda v: f"EUR {_digits(v, '’', '.')}"),
        _fmt("5000 €", lambda v: f"{_digits(v, '', ',')} €"),
        _fmt("1,2 million d'euros", lambda v: (s := _scaled(v, 10**6, ",")) and f"{s} million d'euros"),
    ],
    "de": [
        _fmt("5.000 EUR", lambda v: f"{_digits(v, '.', ',')} EUR"),
        _fmt("5.000,00 €", lambda v: f"{_digits(v, '.', ',', True)} €"),
        _fmt("EUR 5'000.–", lambda v: f"EUR {_digits(v, chr(39), '.')}" + ("" if v % 1 else ".–")),
        _fmt("words (de)", lambda v: _words(v, "de", "Euro")),
        _fmt("2,5 Mio. Euro", lambda v: (s := _scaled(v, 10**6, ",")) and f"{s} Mio. Euro"),
        _fmt("5.000 Euro", lambda v: f"{_digits(v, '.', ',')} Euro"),
        _fmt("5 Tausend Euro", lambda v: (s := _scaled(v, 1000, ",")) and f"{s} Tausend Euro"),
    ],
    "it": [
        _fmt("5.000 euro", lambda v: f"{_digits(v, '.', ',')} euro"),
        _fmt("EUR 5.000,00", lambda v: f"EUR {_digits(v, '.', ',', True)}"),
        _fmt("words (it)", lambda v: _words(v, "it", "euro")),
        _fmt("5 mila euro", lambda v: (s := _scaled(v, 1000, ",")) and f"{s} mila euro"),
        _fmt("€ 5.000", lambda v: f"€ {_digits(v, '.', ',')}"),
        _fmt("1,2 milioni di euro", lambda v: (s := _scaled(v, 10**6, ",")) and f"{s} milioni di euro"),
    ],
}


def render_amount(value: float, language: str, turn: int) -> tuple[str, str]:
    """(written amount, format name): the ``turn``-th format of ``language`` that can write
    ``value`` (words need whole euros, ``16k`` multiples of 100, millions at least 1e6)."""
    formats = FORMATS[language]
    for step in range(len(formats)):
        name, render = formats[(turn + step) % len(formats)]
        written = render(value)
        if written:
            return written, name
    raise AssertionError("the first formats always apply")


@dataclass
class Planted:
    """One case of the planted cohort: its text, award and what was planted where."""

    case_id: str
    text: str
    award: float
    entry: dict | None = None
    span: tuple[int, int] | None = None
    formats: tuple[str, ...] = ()


def _other(award: float, rng: random.Random) -> float:
    choices = [a for a in OTHER_AMOUNTS if round(a * 100) != round(award * 100)]
    return rng.choice(choices)


_NUMBER = re.compile(r"\d[\d ,.'’]*")


def _numbers_of(text: str) -> set[int]:
    """Whole numbers written in a benign passage (separators dropped): a plain reading,
    independent of the screen's."""
    found = set()
    for token in _NUMBER.findall(text):
        digits = re.sub(r"[ ,.'’]", "", token.split(",")[0] if token.count(",") == 1
                        and len(token.split(",")[1].strip()) <= 2 else token)
        if digits.isdigit():
            found.add(int(digits))
    return found


def _fits(entry: dict, award: float) -> bool:
    """An {own} passage needs a positive award; a literal number must not be the award."""
    if "{own}" in entry["text"] and not award > 0:
        return False
    return int(award) not in _numbers_of(entry["text"]) or award != int(award)


def _render(entry: dict, award: float, turn: int, rng: random.Random) -> tuple[str, tuple]:
    text, formats = entry["text"], []
    for slot, value in (("{own}", award), ("{other}", _other(award, rng))):
        while slot in text:
            written, name = render_amount(value, entry["lang"], turn)
            formats.append(name)
            text = text.replace(slot, written, 1)
            turn += 1
    return text, tuple(formats)


def _insert(text: str, passage: str, rng: random.Random) -> tuple[str, tuple[int, int]]:
    """``text`` with ``passage`` as a paragraph of its own or at the end of a paragraph."""
    paragraphs = text.split("\n\n")
    index = rng.randrange(2, len(paragraphs) + 1) if len(paragraphs) > 2 else len(paragraphs)
    head = "\n\n".join(paragraphs[:index])
    tail = "\n\n".join(paragraphs[index:])
    joint = " " if rng.random() < 0.5 else "\n\n"
    start = len(head) + len(joint)
    merged = head + joint + passage + ("\n\n" + tail if tail else "")
    return merged, (start, start + len(passage))


def plant(cases: list[tuple[str, str, float]], entries: list[dict], seed: int = 0
          ) -> list[Planted]:
    """Give each case (case_id, neutral text, award) one corpus passage, except every
    :data:`NEUTRAL_EVERY`-th case; entries are dealt in a shuffled cycle, each skipping the
    cases it cannot fit (:func:`_fits`), and each entry's amounts rotate through the formats
    of its language."""
    rng = random.Random(seed)
    order = list(range(len(cases)))
    rng.shuffle(order)
    deck = list(entries)
    rng.shuffle(deck)
    turns: Counter = Counter()
    planted: list[Planted | None] = [None] * len(cases)
    pointer = 0
    for rank, index in enumerate(order):
        case_id, text, award = cases[index]
        if rank % NEUTRAL_EVERY == 0:
            planted[index] = Planted(case_id, text, award)
            continue
        for step in range(len(deck)):
            entry = deck[(pointer + step) % len(deck)]
            if _fits(entry, award):
                pointer = (pointer + step + 1) % len(deck)
                break
        passage, formats = _render(entry, award, turns[entry["id"]], rng)
        turns[entry["id"]] += max(1, len(formats))
        merged, span = _insert(text, passage, rng)
        planted[index] = Planted(case_id, merged, award, entry, span, formats)
    return planted


def _rate(hits: int, total: int) -> dict:
    return {"n": total, "hits": hits, "rate": round(hits / total, 4) if total else None}


def _keys(case: Planted) -> set[tuple[str, str]]:
    """The (label or group, part / language / format) tallies a planted case counts in."""
    entry = case.entry
    group = "amount-bearing" if entry["label"] in AMOUNT_LABELS else entry["label"]
    keys = {(entry["label"], entry["part"]), (entry["label"], "all"), (group, entry["part"]),
            (group, "all"), (entry["label"], f"lang={entry['lang']}")}
    if entry["label"] in AMOUNT_LABELS:
        keys |= {(group, f"format={name}") for name in case.formats}
    return keys


def score(planted: list[Planted], findings: dict[str, list]) -> dict:
    """Recall per leak label, false alarms per benign label, neutral false alarms, per part
    (tune / heldout / all), language and format; ``findings``: case id → findings with
    ``start``, ``end``, ``kind``. A leak is found, a benign passage falsely flagged, when a
    finding overlaps it; any finding outside a planted passage is a neutral false alarm."""
    tally = defaultdict(lambda: [0, 0])
    kinds = defaultdict(Counter)
    wrong = defaultdict(list)  # leaks missed, benign passages flagged
    neutral_texts = neutral_flagged = outside = 0
    for case in planted:
        found = findings.get(case.case_id, [])
        if case.entry is None:
            neutral_texts += 1
            neutral_flagged += bool(found)
            continue
        start, end = case.span
        over = [f for f in found if f.start < end and f.end > start]
        outside += len(found) - len(over)
        for key in _keys(case):
            tally[key][0] += bool(over)
            tally[key][1] += 1
        label = case.entry["label"]
        kinds[label].update(f.kind for f in over)
        if bool(over) == (label in BENIGN_LABELS):
            wrong[label].append(case.entry["id"])
    table = {f"{label} [{part}]": _rate(*tally[(label, part)]) for label, part in sorted(tally)}
    return {"rates": table,
            "kinds_found": {label: dict(c) for label, c in sorted(kinds.items())},
            "neutral_texts": neutral_texts, "neutral_texts_flagged": neutral_flagged,
            "findings_outside_planted_passages": outside,
            "missed_or_false_alarm_entries": {label: dict(Counter(ids).most_common())
                                              for label, ids in sorted(wrong.items())}}
