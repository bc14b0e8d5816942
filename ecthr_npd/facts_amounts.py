"""Amounts of money in normalised Facts text (:mod:`ecthr_npd.facts_text`), in any common form.

- **Digits**: groups of three separated by a space, comma, period or apostrophe (``5 000``,
  ``5,000``, ``26.000,00``, ``2'500``, ``15 244.90``), or none (``5000``); a decimal comma or
  point with one or two digits; a Swiss ``.-``/``.–`` tail. The group and decimal symbols are
  those the locales of the Court's languages use (babel's CLDR data for en, fr, fr_CH, de,
  de_CH, de_AT, it, it_CH), after normalisation turned every space and apostrophe into ASCII.
- **Multipliers**: ``16k``, ``5 thousand``, ``5 mille``, ``5 mila``, ``5 Tausend``, ``5 Tsd.``,
  ``1.2 million``, ``2,5 Mio.``, ``3 Mrd.`` …
- **Words**: numbers written out in English, French, German or Italian ("five thousand",
  "cinq mille", "fünftausend", "cinquemila"), read by text2num's ``alpha2digit``.
- **Currencies**: ISO codes, symbols and names (singular and plural, in the four languages)
  of the euro and of the currencies of the Council of Europe's member states, past and
  present, from babel's CLDR data, plus the few spellings CLDR lacks.

A value is a number of currency units; ``k``/``m`` count as multipliers only next to a
currency (``8.5 m`` is a length).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

#: ISO codes of the currencies a judgment of the Court may name: the euro, the pound and the
#: dollar, and the currencies of the member states, past and present.
CURRENCY_CODES = (
    "EUR USD GBP CHF FRF ATS BEF NLG ESP PTE GRD FIM IEP LUF CYP MTL SIT SKK EEK LVL LTL HRK "
    "BGN RON ROL PLN CZK HUF SEK NOK DKK ISK TRL RUB UAH MDL AMD AZN RSD MKD BAM ALL ITL DEM "
    "GEL TRY").split()
#: Locales whose group and decimal symbols the digit patterns accept.
LOCALES = ("en", "en_GB", "fr", "fr_CH", "de", "de_CH", "de_AT", "it", "it_CH")
#: Languages whose number words are read (text2num).
WORD_LANGUAGES = ("en", "fr", "de", "it")
#: Codes that are also words of the four languages (TRY, ALL, DEM, GEL, SIT, EEK): a
#: lower-cased text cannot tell them apart, so only their other names count.
_WORD_CODES = frozenset({"try", "all", "dem", "gel", "sit", "eek"})
#: Currency nouns that are also ordinary words ("mark", "pound", "lire" = to read, "lei" =
#: she, "krone" = crown): they count only inside a longer name ("Deutsche Mark").
_AMBIGUOUS_NOUNS = frozenset({"mark", "marks", "pound", "pounds", "livre", "livres", "lire",
                              "lira", "lei", "leva", "lev", "krone", "kronen", "corona",
                              "corone", "couronne", "couronnes", "dram", "drams", "real",
                              "franc", "marco", "lari", "kuna", "kune"})
#: Spellings and symbols CLDR does not list for these currencies.
_EXTRA = ("rouble", "roubles", "zlotys", "dm", "sfr", "fr.", "₽", "₴", "₺", "₾", "₼", "֏",
          "pounds sterling", "lire italiane", "lire turche")
MULTIPLIERS = {"k": 1e3, "thousand": 1e3, "tsd": 1e3, "tsd.": 1e3, "tausend": 1e3,
               "mille": 1e3, "mila": 1e3, "million": 1e6, "millions": 1e6, "millionen": 1e6,
               "mio": 1e6, "mio.": 1e6, "mln": 1e6, "mln.": 1e6, "mn": 1e6, "m": 1e6,
               "milione": 1e6, "milioni": 1e6, "milliard": 1e9, "milliards": 1e9,
               "mrd": 1e9, "mrd.": 1e9, "bn": 1e9, "billion": 1e9}
#: The euro's terms: an award is in euros, so only these can stand after the award in words.
EURO_TERMS = ("eur", "euro", "euros", "€")
#: Multipliers that are also units of measure: accepted only next to a currency.
_UNIT_LIKE = frozenset({"m", "mn", "k"})
_MULTIPLIER = "|".join(sorted((re.escape(m) for m in MULTIPLIERS), key=len, reverse=True))


@lru_cache(maxsize=1)
def separators() -> tuple[str, str]:
    """(group symbols, decimal symbols) of :data:`LOCALES`, normalised (spaces and
    apostrophes as the screen's normal form writes them)."""
    from babel.numbers import get_decimal_symbol, get_group_symbol

    from ecthr_npd.facts_text import normalise

    groups = {normalise(get_group_symbol(locale)).cased for locale in LOCALES} | {" "}
    decimals = {normalise(get_decimal_symbol(locale)).cased for locale in LOCALES}
    return "".join(sorted(groups)), "".join(sorted(decimals))


@lru_cache(maxsize=1)
def currency_terms() -> tuple[str, ...]:
    """Lower-cased currency codes, symbols and names (see the module doc), longest first."""
    from babel.numbers import get_currency_name, get_currency_symbol

    from ecthr_npd.facts_text import normalise

    terms = {code.lower() for code in CURRENCY_CODES} - _WORD_CODES
    for code in CURRENCY_CODES:
        for locale in WORD_LANGUAGES:
            symbol = normalise(get_currency_symbol(code, locale)).lower
            if not (len(symbol) == 1 and symbol.isascii() and symbol.isalpha()):
                terms.add(symbol)
            for count in (1, 2):
                name = normalise(get_currency_name(code, count, locale)).lower
                name = re.sub(r"\s*\(.*?\)", "", name).strip()  # "(1952-2006)"
                terms.add(name)
                words = name.split()
                # the noun: last in English and German ("Swiss francs"), first in French and
                # Italian ("franc suisse")
                noun = words[0] if locale in ("fr", "it") else words[-1]
                if len(noun) >= 4 and noun not in _AMBIGUOUS_NOUNS:
                    terms.add(noun)
    terms.update(_EXTRA)
    terms -= _WORD_CODES
    return tuple(sorted(terms, key=lambda t: (-len(t), t)))


@lru_cache(maxsize=1)
def currency_pattern() -> str:
    """A regex (lower-cased text) matching one currency term as a whole word or symbol."""
    words = [re.escape(t) for t in currency_terms() if t[0].isalpha() or t[-1].isalpha()]
    symbols = [re.escape(t) for t in currency_terms() if not (t[0].isalpha() or t[-1].isalpha())]
    return rf"(?:(?<![a-z])(?:{'|'.join(words)})(?![a-z])|{'|'.join(symbols)})"


@lru_cache(maxsize=1)
def number_pattern() -> re.Pattern:
    """One amount token in digits: integer part (grouped or not), decimals, multiplier."""
    groups, decimals = (re.escape(s) for s in separators())
    return re.compile(
        r"(?<![\w.,'/-])"
        rf"(?P<int>\d{{1,3}}(?:(?P<g>[{groups}])\d{{3}})(?:(?P=g)\d{{3}})*|\d+)"
        rf"(?P<dec>[{decimals}]\d{{1,2}})?"
        rf"(?:\s?(?P<mult>{_MULTIPLIER})(?![a-z]))?"
        r"(?![\w/]|[.,'](?=\d))")


@lru_cache(maxsize=1)
def _currency_automaton():
    import ahocorasick_rs

    terms = list(currency_terms())
    return ahocorasick_rs.AhoCorasick(terms), terms


#: What may stand between an amount and the currency after it: a Swiss ".-", "d'", "de", "di".
_AFTER_GAP = re.compile(r"\s?(?:[.,]-{1,2}\s?)?(?:d'|de |di |of |in )?")


def _is_word(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] stands alone (an alphabetic term not glued to letters)."""
    return not ((start and text[start - 1].isalpha() and text[start].isalpha())
                or (end < len(text) and text[end].isalpha() and text[end - 1].isalpha()))


def currency_next_to(low: str, start: int, end: int) -> bool:
    """Whether a currency term stands right before ``low[start:end]`` ("EUR 5,000", "€5")
    or right after it ("5,000 euros", "5'000.- CHF", "2 millions d'euros")."""
    automaton, _ = _currency_automaton()
    before = low[max(0, start - 16):start].rstrip()
    for _, first, last in automaton.find_matches_as_indexes(before, overlapping=True):
        if last == len(before) and _is_word(before, first, last):
            return True
    gap = _AFTER_GAP.match(low, end).end()
    after = low[gap:gap + 32]
    for _, first, last in automaton.find_matches_as_indexes(after, overlapping=True):
        if first == 0 and _is_word(after, first, last):
            return True
    return False


@dataclass(frozen=True)
class Amount:
    """A number found in a text: its value and how it was written.

    Attributes:
        value: units (a multiplier applied).
        start, end: offsets in the searched text (for words: in the converted text).
        currency: a currency term stands right before or after it.
        grouped: written with thousands separators.
        decimals: written with a decimal part.
        multiplier: written with k / thousand / million … .
        words: written in words.
    """

    value: float
    start: int
    end: int
    currency: bool
    grouped: bool = False
    decimals: bool = False
    multiplier: bool = False
    words: bool = False

    @property
    def plain(self) -> bool:
        """A bare integer: no currency, separator, decimals, multiplier or words."""
        return not (self.currency or self.grouped or self.decimals or self.multiplier
                    or self.words)


def cents(value: float) -> int:
    """``value`` in hundredths, the unit in which two amounts are compared."""
    return int(round(value * 100))


def amount_at(low: str, match: re.Match, words: bool = False) -> Amount | None:
    """The :class:`Amount` of one :func:`number_pattern` match in ``low``, or None when a
    unit-like multiplier (``m``, ``k``) has no currency next to it."""
    integer = match.group("int")
    group = match.group("g")
    value = float(integer.replace(group, "") if group else integer)
    decimals = match.group("dec")
    if decimals:
        value += float("0." + decimals[1:])
    currency = currency_next_to(low, match.start(), match.end())
    multiplier = match.group("mult")
    if multiplier:
        if multiplier in _UNIT_LIKE and not currency:
            return None
        value *= MULTIPLIERS[multiplier]
    return Amount(value, match.start(), match.end(), currency, grouped=bool(group),
                  decimals=bool(decimals), multiplier=bool(multiplier), words=words)


_DIGITS = re.compile(r"\d+")
_TOKEN_BREAK = frozenset(".,'/-")


def amounts(low: str, start: int = 0, end: int | None = None) -> list[Amount]:
    """Every amount written in digits in ``low[start:end]`` (a lower-cased normal form)."""
    end = len(low) if end is None else end
    found = []
    pattern = number_pattern()
    last = start
    for digits in _DIGITS.finditer(low, start, end):
        at = digits.start()
        if at < last or (at and (low[at - 1].isalnum() or low[at - 1] == "_"
                                 or low[at - 1] in _TOKEN_BREAK)):
            continue  # inside a token (the rest of "5 000", "12.05.2006", "A12")
        match = pattern.match(low, at, end)
        if match:
            last = match.end()
            amount = amount_at(low, match)
            if amount:
                found.append(amount)
    return found


def word_amounts(sentence: str) -> list[Amount]:
    """Amounts written in words in ``sentence`` (lower-cased), in one of
    :data:`WORD_LANGUAGES`: text2num rewrites them as digits, which are then read as
    :func:`amounts` reads digits (offsets are in the rewritten sentence).

    The sentence is read in the language whose rewriting turns the most of it into digits
    (the shortest result): French reads "soixante mille" as 60000 where Italian would leave
    "soixante" and read "mille" alone. Numbers already written in digits in the sentence are
    not read again, nor a magnitude rewritten right after digits ("4 thousand" → "4 1000":
    the digit form's multiplier)."""
    from text_to_num import alpha2digit

    readings = [alpha2digit(_ITALIAN_ELISION.sub("cento", sentence) if language == "it"
                            else sentence, language) for language in WORD_LANGUAGES]
    converted = min(readings, key=len)
    if converted == sentence:
        return []
    digits = set(_DIGITS.findall(sentence))
    return [Amount(a.value, a.start, a.end, a.currency, multiplier=a.multiplier, words=True)
            for a in amounts(converted)
            if not set(_DIGITS.findall(converted, a.start, a.end)) <= digits
            and not _AFTER_DIGITS.search(converted, max(0, a.start - 2), a.start)]


_AFTER_DIGITS = re.compile(r"\d\s?$")
#: Italian drops "cento"'s final vowel before "otto"/"ottanta" ("centottantamila"), which
#: text2num does not read; it reads the full form ("centoottantamila").
_ITALIAN_ELISION = re.compile(r"cent(?=ott)")


def _digits_pattern(integer: int) -> str:
    """``integer`` as a regex that allows a group separator between its groups of three."""
    text = str(integer)
    head = len(text) % 3 or 3
    groups = [text[:head]] + [text[i:i + 3] for i in range(head, len(text), 3)]
    return r"[ ,.']?".join(groups)


def _scaled_pattern(value: int, scale: int) -> str | None:
    """``value`` / ``scale`` written with at most two decimals, as a regex, or None."""
    if value % (scale // 100):
        return None
    whole, rest = divmod(value, scale)
    if not whole:
        return None
    fraction = f"{rest * 100 // scale:02d}".rstrip("0")
    return str(whole) + (rf"[.,]{fraction}" if fraction else "")


@lru_cache(maxsize=8192)
def award_pattern(award_cents: int) -> re.Pattern | None:
    """A fast pre-filter for an amount of ``award_cents`` hundredths: a regex whose matches
    include every digit form of that amount (grouped or not, with a multiplier); each match
    is then read with :func:`number_pattern` and compared. None for a zero award."""
    if award_cents <= 0:
        return None
    whole = award_cents // 100
    forms = [_digits_pattern(whole) if whole else "0"]
    for scale, names in ((1000, r"k|thousand|tsd\.?|tausend|mille|mila"),
                         (1_000_000, r"millions?|millionen|mio\.?|mln\.?|mn|m|milion[ei]")):
        scaled = _scaled_pattern(whole, scale) if not award_cents % 100 else None
        if scaled:
            forms.append(rf"{scaled}\s?(?:{names})")
    # the forms share their first digit(s): written as a literal prefix, the regex engine
    # skips to its occurrences instead of trying every position
    lead = 0
    while lead < len(forms[0]) and forms[0][lead].isdigit() and all(
            f[lead:lead + 1] == forms[0][lead] for f in forms):
        lead += 1
    rest = "|".join(f[lead:] for f in forms)
    return re.compile(f"{forms[0][:lead]}(?:{rest})")
