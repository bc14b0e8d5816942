"""What makes a sentence of Facts text an award or outcome passage of the Court's judgment.

A sentence (normalised, :mod:`ecthr_npd.facts_text`) is an **award passage** when it has

- a *Strasbourg formula* (:data:`FORMULAS`): just satisfaction, the tax and default-interest
  clauses, the respondent State "is to pay", "the finding of a violation … sufficient",
  Rule 60, the three-month payment clause — in English, French, German and Italian; or an
  operative "dismisses the remainder" clause (:data:`REMAINDER`); or
- Article 41 or 50 *of the Convention* (bare, or followed by "of the Convention", "EMRK" …);
  "Article 41 of the Criminal Code" names a national code and is no cue; or
- a *claim or award about damage* that no domestic forum frames: the Court or the Government
  as the speaker with an award or claim word, or a damage term of the Court's judgments
  (non-pecuniary damage, distress, dommage moral, immaterieller Schaden, danno morale …) with
  a claim or award word — unless the sentence names a domestic court, a national statute or
  code, or domestic money (fines, bail, salaries, pensions, wages, rent, loans, insurance …).
  A domestic marker never cancels a formula or Article 41/50.

Violated articles ("a violation of Article 3") are permitted inputs and no cue. "The Court"
counts with a capital C only: a Facts section writes a domestic court as "the court", "the
District Court" or "the Court of Appeal".

Word lists are matched with Aho-Corasick (:class:`Lexicon`; ``|`` marks a word boundary),
so a sentence costs one pass whatever the lists' length; the few patterns with gaps are
regular expressions, run only when the lexicon found their anchor. :data:`ANCHORS` are the
substrings one of which every cue contains: the screen looks only at sentences around them.
"""

from __future__ import annotations

import re
from functools import lru_cache

#: class → terms (lower case). ``|`` at either end: a word boundary there.
LEXICON = {
    "formula": (
        "just satisfaction", "satisfaction équitable", "satisfaction equitable",
        "gerechte entschädigung", "gerechten entschädigung", "gerechter entschädigung",
        "equa soddisfazione",
        "chargeable", "titre d'imp", "steuern", "titolo di imposta", "marginal",
        "spitzenrefinanz", "respondent", "défendeur", "defendeur", "belangte", "beklagte",
        "convenuto", "finding of", "findings of", "constat", "feststellung", "|rule 60|",
        "glement", "artikel 60", "articolo 60", "judgment becomes final", "sera devenu d",
        "until settlement", "jusqu'au versement", "bis zur auszahlung", "bis zur zahlung",
        "fino al versamento"),
    "article": ("|article 41", "|article 50", "|art. 41", "|art. 50", "|art.41", "|art.50",
                "|art 41", "|art 50", "|artikel 41", "|artikel 50", "|articolo 41",
                "|articolo 50"),
    "remainder": ("remainder", "surplus", "übrigen", "ubrigen", "per il resto"),
    "no_award": ("no award", "no further award"),
    "damage": (
        "non-pecuniary", "non pecuniary", "pecuniary damage", "pecuniary loss", "moral damage",
        "moral harm", "moral prejudice", "moral suffering", "|distress", "|anguish",
        "|frustration", "feelings of helplessness", "feeling of helplessness",
        "feelings of injustice", "|suffering", "costs and expenses", "frais et dépens",
        "frais et depens", "kosten und auslagen", "dommage moral", "dommage matériel",
        "dommage materiel", "préjudice moral", "prejudice moral", "préjudice matériel",
        "tort moral", "|angoisse", "détresse", "detresse", "|souffrance", "immateriell",
        "nichtvermögensschaden", "materiellen schaden", "materieller schaden", "seelisch",
        "danno morale", "danno non patrimoniale", "danno materiale", "danno patrimoniale",
        "|sofferenz", "under this head", "under that head", "under the head of",
        "under each head"),
    "claim": (
        "|claim", "|award", "|sought|", "|seek", "|request", "|compensat", "|sum|", "|sums|",
        "|amount", "|asked|", "|grant", "|paid|", "|pay|", "|payable|", "|entitled|",
        "|reparation|", "|redress|", "made good", "réclam", "reclam", "|demand", "sollicit",
        "allou", "octro", "|accord", "indemn", "évalu", "|evalu", "|verse", "répar", "repar",
        "|somme", "|montant", "verlang", "forder", "beantrag", "zugesproch", "zuerkannt",
        "zuzusprech", "ausgleich", "entschädig", "entschadig", "|betrag", "|chied", "|chiest",
        "richiest", "|assegn", "|liquid", "riconosc", "quantific", "risarc", "|importo",
        "|domanda|"),
    # what the Court says in an award passage, besides claim and damage words
    "court_says": (
        "|allow", "|dismiss", "|reject", "|accept", "|upheld|", "|uphold", "equitable basis",
        "causal link", "|rejet", "|accueill", "fait droit", "|spricht|", "gewähr", "gewahr",
        "|weist|", "|schaden", "|antrag", "|danno|", "|domanda|", "|respin", "|rigett",
        "|accogli"),
    "government_says": (
        "|claim|", "|claims|", "|amount", "|sum|", "|award", "|excessive|", "|exorbitant|",
        "substantiat", "|speculative|", "|compensation|", "non-pecuniary", "|discretion|",
        "not proven", "not been proven", "|equitable|", "|suffice", "|demande", "prétention",
        "pretention", "|somme", "|montant", "excessi", "exorbitant", "étay", "etay", "indemn",
        "|sagesse|", "dommage", "préjudice", "prejudice", "réparation", "reparation", "allou",
        "octro", "|verser|", "forderung", "|betrag", "überhöht", "uberhoht", "entschädigung",
        "|schaden", "ermessen", "|belegt|", "ausreichend", "|domanda|", "richiest", "|somma|",
        "|importo|", "eccessiv", "|provat", "|danno|", "saggezza", "giustificat",
        "risarcimento"),
    "domestic": (
        "|tribunal", "|pinto|", "civil code", "civil proceedings", "civil action", "civil claim",
        "civil party", "civil court", "civil law", "civil suit", "criminal code",
        "criminal proceedings", "|code of|", "state liability", "guarantee fund", "|fine|",
        "|fined|", "|fines|", "|bail|", "|salary|", "|salaries|", "|wage|", "|wages|",
        "|pension|", "|pensions|", "|allowance|", "|benefit|", "|benefits|", "|rent|",
        "|loan|", "|debt|", "|mortgage|", "|bribe|", "|severance|", "|maintenance|",
        "|insurance|", "|insurer|", "|employer|", "|hospital|", "|municipality|",
        "court fees", "|deposit|", "|sued|", "|lawsuit|", "in damages", "|security|",
        "cour d'appel", "cour de cassation", "conseil d'état", "conseil d'etat",
        "cour administrative", "juridiction interne", "juridictions internes",
        "juridiction nationale", "juridictions nationales", "juridictions civiles",
        "juridiction civile", "juridictions pénales", "juridiction pénale", "juges du fond",
        "juge du fond", "juge d'instruction", "prud'hom", "code civil", "code pénal",
        "code penal", "code de procédure", "code de procedure", "loi pinto", "partie civile",
        "dommages-intérêts", "dommages-interets", "|amende", "|caution", "|salaire",
        "|pension", "|allocation", "|loyer", "|prêt|", "|fisc", "|assurance", "|employeur",
        "hôpital", "hopital", "|commune|", "ministère", "ministere", "|expropriation",
        "frais de justice", "licenciement", "en espèces", "en especes",
        "amtsgericht", "landgericht", "oberlandesgericht", "verwaltungsgericht",
        "bundesgericht", "arbeitsgericht", "kantonsgericht", "oberste gerichtshof",
        "obersten gerichtshof", "oberster gerichtshof", "verfassungsgerichtshof", "|bgb|",
        "|stgb|", "zivilprozess", "geldstrafe", "kaution", "|rente|", "|gehalt", "|lohn",
        "schmerzensgeld", "finanzamt", "arbeitgeber", "krankenhaus", "|gemeinde",
        "versicherung", "|miete", "|tribunale", "corte d'appello", "corte di cassazione",
        "|giudice", "codice civile", "codice penale", "legge pinto", "equa riparazione",
        "|multa|", "|ammenda", "cauzione", "stipendio", "pensione", "affitto",
        "datore di lavoro", "ospedale", "|comune|", "assicurazion"),
    # money words of any sentence (for a bare integer equal to the award)
    "money": (
        "|paid|", "|pay", "|sum|", "|amount", "|award", "compensat", "damage", "|claim", "|fine",
        "salar", "pension", "|wage", "|rent|", "|bail|", "|loan", "|debt", "|cost", "|price",
        "|value", "worth", "|somme", "montant", "indemn", "dommage", "préjudice", "prejudice",
        "amende", "salaire", "|prix|", "betrag", "schaden", "entschädig", "entschadig",
        "strafe", "gehalt", "|somma", "importo", "danno", "risarc", "|multa", "stipendio",
        "prezzo"),
    # a number in words that may be a sum of money
    "number_word": (
        "thousand", "hundred", "million", "milliard", "billion", "|mille|", "|cent|",
        "|cents|", "tausend", "hundert", "mila", "cento", "milion"),
}

FORMULAS = re.compile("|".join((
    r"just satisfaction", r"satisfaction [ée]quitable", r"gerechte[nr]? entsch[äa]digung",
    r"equa soddisfazione",
    r"tax (?:that|which) may be chargeable", r"[àa] titre d'imp[ôo]t",
    r"(?:zu berechnender|anfallender) steuern", r"a titolo di imposta",
    r"marginal lending rate", r"facilit[ée] de pr[êe]t marginal", r"spitzenrefinanzierungsfazilit",
    r"rifinanziamento marginale",
    r"respondent (?:state|government)\b[^.]{0,80}?\b(?:is to|shall|must|to) pay",
    r"[ée]tat d[ée]fendeur (?:doit|devra|est tenu de) (?:verser|payer)",
    r"(?:belangte|beklagte) (?:staat|regierung)\b[^.]{0,160}?\bzu (?:zahlen|bezahlen|leisten)",
    r"stato convenuto (?:deve|dovr[àa]) (?:versare|pagare)",
    r"findings? of (?:a |the |these |those )?violations?\b[^.]{0,160}?"
    r"\b(?:sufficient|adequate|in itself)",
    r"constat (?:de |d'une |des )?violations?\b[^.]{0,160}?"
    r"(?:suffisant|satisfaction|r[ée]paration|en soi)",
    r"feststellung (?:einer|der) (?:konventions)?verletzung[^.]{0,160}?"
    r"(?:ausreichend|hinreichend|gen[üu]gend|entsch[äa]digung|wiedergutmachung)",
    r"constatazione (?:di |della |di una )?violazion[ei][^.]{0,160}?"
    r"(?:sufficiente|adeguat|soddisfazione|riparazione|di per s[ée])",
    r"\brule 60\b", r"article 60 (?:§ ?\d+ )?du r[èe]glement", r"artikel 60 der verfahrensordnung",
    r"articolo 60 del regolamento",
    r"(?:three|3) months,? from the date on which the judgment becomes final",
    r"(?:trois|3) mois (?:[àa] compter du jour o[ùu]|apr[èe]s que) l'arr[êe]t",
    r"until settlement simple interest", r"jusqu'au versement", r"bis zur (?:auszahlung|zahlung)",
    r"fino al versamento",
)))

REMAINDER = re.compile("|".join((
    r"\b(?:dismiss|reject)\w*\b[^.]{0,60}?\bremainder\b", r"\bremainder of the (?:\w+'s? )?claims?",
    r"\bclaims? for the remainder\b", r"\bfor the remainder\b[^.]{0,40}?\bclaim",
    r"\bpour le surplus\b", r"\ble surplus de la demande\b", r"\brejette le surplus\b",
    r"\bim [üu]brigen\b[^.]{0,80}?(?:zur[üu]ck|abgewiesen|\bab\b)", r"\bper il resto\b",
)))

ARTICLE = re.compile(r"\b(?:art(?:icle|ikel|icolo)?\.?)\s*(?:41|50)\b(?!\s*[/-]\d)")
#: After "Article 41/50": "of the Convention" (a cue) or "of the Criminal Code" (not one).
_ARTICLE_TAIL = re.compile(
    r"(?:\s*(?:§§?|para(?:graph)?s?\.?|abs\.|al\.|ziff\.|lit\.|co\.|cpv\.|\([\da-z]+\)|,|"
    r"\d+|[a-z]\b))*\s*"
    r"(?:(?P<of>of|du|des|der|dello|della|del|de|dell')(?![a-z]))?\s*"
    r"(?:the |la |le |l'|der |des |della |del |dell')?(?P<what>[\w'-]+)?")
_CONVENTION = re.compile(r"conven|konvention|emrk|echr|cedh|cedu|european")

AWARD_FORMULA = re.compile(r"\bmakes? no award\b|\bno (?:further )?award (?:is|was|should be|"
                           r"shall be|can be) (?:made|called for)\b")
IN_RESPECT_OF_DAMAGE = re.compile(r"in respect of (?:\w+ )?damage")

# Case-sensitive speakers: the Court (not "the court", "the District Court", "the Court of
# Appeal") and the Government.
COURT = re.compile(
    r"\b[Tt]he Court\b(?!\s+(?:of|for)\b)|\bCourt's\b|"
    r"\b(?:[Ll]a|[Àà] la|[Dd]e la) Cour\b(?!\s+(?:d'appel|de cassation|constitutionnelle|"
    r"supr[êe]me|administrative|d'assises|de justice|des comptes|sup[ée]rieure|r[ée]gionale|"
    r"militaire|nationale|de district|du travail|f[ée]d[ée]rale|europ[ée]enne de justice)\b)|"
    r"\b(?:[Dd]er|[Dd]em|[Dd]es) Gerichtshof(?:es|s)?\b|"
    r"\b(?:[Ll]a|[Aa]lla|[Dd]ella) Corte\b(?!\s+(?:d'appello|di appello|di cassazione|"
    r"costituzionale|suprema|dei conti|d'assise|di giustizia|europea di giustizia|militare)\b)")
GOVERNMENT = re.compile(r"\b(?:[Tt]he (?:respondent )?Government|(?:[Ll]e|[Dd]u|[Aa]u) Gouvernement|"
                        r"(?:[Dd]ie|[Dd]er) Regierung|(?:[Ii]l|[Dd]el|[Aa]l) Governo)\b")

#: Domestic frames with a gap or a list after them (run when no domestic term was found).
DOMESTIC = re.compile("|".join((
    r"\b(?:district|regional|county|city|municipal|town|supreme|constitutional|administrative|"
    r"appeals?|appellate|high|higher|civil|criminal|labour|labor|commercial|military|"
    r"first-instance|magistrates'?|trial|circuit|cantonal|federal|domestic|national|lower|"
    r"local|family|juvenile|bankruptcy|enforcement) courts?\b",
    r"\bcourts? of (?:appeal|cassation|first instance)\b",
    r"\bunder (?:the |its |their |section \d+ of the )?[\w' -]{0,40}?\b(?:act|law|code|decree)\b",
    r"\b(?:from|against) the (?:state|hospital|municipality|ministry|police|company|employer|"
    r"insurer|bank|officers|newspaper|town|city|authorities|defendants?|council)\b",
)))
#: "the court" in lower case is a domestic court named before (case-sensitive).
DOMESTIC_CASED = re.compile(r"\b[Tt]he court\b")

#: Lower-case substrings one of which every cue contains (the speakers' are checked with
#: their case and article by :data:`SPEAKERS`).
ANCHORS = tuple(dict.fromkeys(term.strip("|") for name in (
    "formula", "article", "remainder", "no_award", "damage") for term in LEXICON[name])) + (
    "in respect of",)
#: The Court and the Government as a judgment writes them, with the articles that may stand
#: before them (lower case; each article + word is an anchor), and what after them makes them
#: another body: "the Court" but not "the court" or "the Court of Appeal"; "la Cour" but not
#: "la Cour d'appel".
SPEAKERS = {
    "Court": (("the ",), (" of ", " for ")),
    "Cour": (("la ", "à la ", "de la "),
             (" d'", " de ", " constitutionnelle", " suprême", " administrative")),
    "Gerichtshof": (("der ", "dem ", "des "), ()),
    "Corte": (("la ", "alla ", "della "), (" d'", " di ", " costituzionale", " suprema", " dei ")),
    "Government": (("the ", "respondent "), ()),
    "Gouvernement": (("le ", "du ", "au "), ()),
    "Regierung": (("die ", "der "), ()),
    "Governo": (("il ", "del ", "al "), ()),
}
#: Lower-case speaker anchor → the word it ends with.
SPEAKER_ANCHORS = {article + word.lower(): word for word, (articles, _) in SPEAKERS.items()
                   for article in articles} | {"court's": "Court"}


def is_speaker(cased: str, anchor: str, start: int) -> bool:
    """Whether the speaker anchor (article + word, lower case) found at ``start`` of
    ``cased`` is the Court or the Government as the judgment writes them: the word
    capitalised, not followed by what makes it another body (see :data:`SPEAKERS`)."""
    word = SPEAKER_ANCHORS[anchor]
    at = start + len(anchor) - len(word)
    end = at + len(word)
    if not cased.startswith(word, at):
        return False
    return anchor == "court's" or not any(cased.startswith(o, end) for o in SPEAKERS[word][1])


class Lexicon:
    """The classes of :data:`LEXICON` present in a text, in one Aho-Corasick pass."""

    def __init__(self, lexicon: dict[str, tuple[str, ...]]):
        import ahocorasick_rs

        self._terms: dict[str, list[tuple[str, bool, bool]]] = {}
        for name, terms in lexicon.items():
            for term in terms:
                self._terms.setdefault(term.strip("|"), []).append(
                    (name, term.startswith("|"), term.endswith("|")))
        self._patterns = list(self._terms)
        self._automaton = ahocorasick_rs.AhoCorasick(self._patterns)

    def classes(self, text: str) -> set[str]:
        """Names of the classes with a term in ``text`` (word boundaries respected)."""
        found = set()
        for index, start, end in self._automaton.find_matches_as_indexes(text, overlapping=True):
            for name, left, right in self._terms[self._patterns[index]]:
                if name in found:
                    continue
                if left and start and text[start - 1].isalnum():
                    continue
                if right and end < len(text) and text[end].isalnum():
                    continue
                found.add(name)
        return found


@lru_cache(maxsize=1)
def lexicon() -> Lexicon:
    """The :data:`LEXICON` and the currency terms (class ``currency``), compiled once."""
    from ecthr_npd.facts_amounts import currency_terms

    terms = tuple(t if not t[0].isalpha() else "|" + t + ("|" if t[-1].isalpha() else "")
                  for t in currency_terms())
    return Lexicon({**LEXICON, "currency": terms})


def article_cue(cased: str, low: str) -> bool:
    """Whether the sentence (``cased`` and its lower-case ``low``) names Article 41 or 50 of
    the Convention — bare, "of the Convention", "EMRK" … — rather than of a national code or
    law: "of the Criminal Code", "du code pénal", or a code's abbreviation in capitals
    ("Art. 41 Abs. 1 OR", "art. 50 CC")."""
    for match in ARTICLE.finditer(low):
        tail = _ARTICLE_TAIL.match(low, match.end())
        what = tail.group("what") or ""
        if _CONVENTION.match(what):
            return True
        written = cased[tail.start("what"):tail.end("what")] if tail.group("what") else ""
        if tail.group("of") is None and not (len(written) > 1 and written.isupper()):
            return True
    return False


def _claim_cue(cased: str, low: str, classes: set[str]) -> bool:
    """A claim or award about damage, or the Court or the Government speaking of one."""
    damage = "damage" in classes or bool(IN_RESPECT_OF_DAMAGE.search(low))
    if ("no_award" in classes and AWARD_FORMULA.search(low)) or (damage and "claim" in classes):
        return True
    if classes & {"claim", "court_says"} or damage:
        if COURT.search(cased):
            return True
    return "government_says" in classes and GOVERNMENT.search(cased) is not None


def is_domestic(cased: str, low: str, classes: set[str]) -> bool:
    """Whether the sentence frames its money or claim in domestic proceedings."""
    return ("domestic" in classes or DOMESTIC.search(low) is not None
            or DOMESTIC_CASED.search(cased) is not None)


def award_cue(cased: str, low: str, classes: set[str] | None = None) -> str | None:
    """Why the sentence (``cased`` and its lower-case ``low``) is an award passage:
    ``"formula"``, ``"article"``, ``"remainder"``, ``"claim"`` (a claim or award about damage,
    no domestic frame) — or None. ``classes``: :meth:`Lexicon.classes` of ``low`` when known."""
    if classes is None:
        classes = lexicon().classes(low)
    if "formula" in classes and FORMULAS.search(low):
        return "formula"
    if "article" in classes and article_cue(cased, low):
        return "article"
    if is_domestic(cased, low, classes):
        return None
    if "remainder" in classes and "claim" in classes and REMAINDER.search(low):
        return "remainder"
    if _claim_cue(cased, low, classes):
        return "claim"
    return None
