"""Parallel German / French / Italian vocabulary and sentence templates for the synthetic
SLDS stand-in (:mod:`slds.synthetic`).

Every entry is a ``(de, fr, it)`` triple of the same meaning, so one sentence plan renders
in all three languages: a decision in one language and its headnotes in three can reuse
the same wording. All text here was written for this project; none is taken from a decision.
"""

from __future__ import annotations

Triple = tuple[str, str, str]

SUBJECTS: tuple[Triple, ...] = (
    ("Die Beschwerdeführerin", "La recourante", "La ricorrente"),
    ("Der Beschwerdeführer", "Le recourant", "Il ricorrente"),
    ("Das Bundesgericht", "Le Tribunal fédéral", "Il Tribunale federale"),
    ("Die Vorinstanz", "L'autorité précédente", "L'autorità inferiore"),
    ("Der Beschwerdegegner", "L'intimé", "L'opponente"),
    ("Die kantonale Behörde", "L'autorité cantonale", "L'autorità cantonale"),
    ("Das Verwaltungsgericht", "Le Tribunal administratif", "Il Tribunale amministrativo"),
    ("Das Obergericht", "La Cour de justice", "Il Tribunale d'appello"),
    ("Der Gesetzgeber", "Le législateur", "Il legislatore"),
    ("Die herrschende Lehre", "La doctrine majoritaire", "La dottrina maggioritaria"),
)

PREDICATES: tuple[Triple, ...] = (
    ("rügt eine Verletzung", "invoque une violation", "lamenta una violazione"),
    ("prüft die Tragweite", "examine la portée", "esamina la portata"),
    ("verneint eine Verletzung", "nie une violation", "nega una violazione"),
    ("bestätigt die Auslegung", "confirme l'interprétation", "conferma l'interpretazione"),
    ("erläutert die Voraussetzungen", "précise les conditions", "precisa i presupposti"),
    ("verkennt die Tragweite", "méconnaît la portée", "misconosce la portata"),
    ("beschränkt die Anwendung", "limite l'application", "limita l'applicazione"),
    ("bejaht die Zulässigkeit", "admet la recevabilité", "ammette l'ammissibilità"),
    ("stellt die Grundsätze", "rappelle les principes", "richiama i principi"),
    ("würdigt die Bedeutung", "apprécie la portée", "valuta l'importanza"),
)

TOPIC_HEADS: tuple[Triple, ...] = (
    ("Tragweite", "Portée", "Portata"),
    ("Voraussetzungen", "Conditions", "Presupposti"),
    ("Auslegung", "Interprétation", "Interpretazione"),
    ("Verletzung", "Violation", "Violazione"),
    ("Anwendungsbereich", "Champ d'application", "Campo d'applicazione"),
)

CONTINUATIONS: tuple[Triple, ...] = (
    ("weil die gesetzlichen Voraussetzungen nicht erfüllt sind",
     "parce que les conditions légales ne sont pas remplies",
     "poiché le condizioni legali non sono adempiute"),
    ("soweit die Rüge hinreichend begründet ist",
     "dans la mesure où le grief est suffisamment motivé",
     "nella misura in cui la censura è sufficientemente motivata"),
    ("wobei die Vorinstanz ihr Ermessen nicht überschritten hat",
     "l'autorité précédente n'ayant pas excédé son pouvoir d'appréciation",
     "senza che l'autorità inferiore abbia ecceduto il suo potere d'apprezzamento"),
    ("da der Sachverhalt offensichtlich unrichtig festgestellt wurde",
     "les faits ayant été établis de manière manifestement inexacte",
     "poiché i fatti sono stati accertati in modo manifestamente inesatto"),
    ("obwohl die Frist eingehalten wurde",
     "bien que le délai ait été respecté",
     "benché il termine sia stato rispettato"),
    ("ohne dass ein überwiegendes öffentliches Interesse besteht",
     "sans qu'un intérêt public prépondérant existe",
     "senza che sussista un interesse pubblico preponderante"),
    ("was mit dem Grundsatz der Verhältnismässigkeit vereinbar ist",
     "ce qui est compatible avec le principe de la proportionnalité",
     "ciò che è compatibile con il principio della proporzionalità"),
    ("wie das Bundesgericht bereits entschieden hat",
     "comme le Tribunal fédéral l'a déjà jugé",
     "come il Tribunale federale ha già deciso"),
    ("sofern der Schaden rechtsgenüglich nachgewiesen ist",
     "pour autant que le dommage soit établi à satisfaction de droit",
     "sempre che il danno sia sufficientemente provato"),
    ("und die Beschwerde ist insoweit gutzuheissen",
     "et le recours doit être admis sur ce point",
     "e il ricorso va accolto su questo punto"),
    ("und die Beschwerde ist abzuweisen",
     "et le recours doit être rejeté",
     "e il ricorso va respinto"),
    ("was die Vorinstanz zutreffend erkannt hat",
     "ce que l'autorité précédente a reconnu à juste titre",
     "ciò che l'autorità inferiore ha riconosciuto a ragione"),
)

# Objects in the genitive / "de" / "di" form that follows a predicate noun, per subject area.
OBJECTS: dict[str, tuple[Triple, ...]] = {
    "constitutional": (
        ("des Anspruchs auf rechtliches Gehör", "du droit d'être entendu",
         "del diritto di essere sentito"),
        ("der Rechtsgleichheit", "de l'égalité de traitement", "della parità di trattamento"),
        ("des Willkürverbots", "de l'interdiction de l'arbitraire", "del divieto dell'arbitrio"),
        ("der Eigentumsgarantie", "de la garantie de la propriété",
         "della garanzia della proprietà"),
        ("der Meinungsfreiheit", "de la liberté d'opinion", "della libertà d'opinione"),
        ("der Wirtschaftsfreiheit", "de la liberté économique", "della libertà economica"),
        ("des Grundsatzes von Treu und Glauben", "du principe de la bonne foi",
         "del principio della buona fede"),
    ),
    "administrative": (
        ("der Baubewilligung", "du permis de construire", "della licenza edilizia"),
        ("der Aufenthaltsbewilligung", "de l'autorisation de séjour", "del permesso di dimora"),
        ("des Verantwortlichkeitsgesetzes", "de la loi sur la responsabilité",
         "della legge sulla responsabilità"),
        ("der Steuerpflicht", "de l'assujettissement à l'impôt",
         "dell'assoggettamento all'imposta"),
        ("des Rechtshilfeersuchens", "de la demande d'entraide",
         "della domanda di assistenza giudiziaria"),
        ("der Genugtuung", "de la réparation du tort moral",
         "della riparazione del torto morale"),
    ),
    "civil": (
        ("des Mietvertrags", "du contrat de bail", "del contratto di locazione"),
        ("des Arbeitsvertrags", "du contrat de travail", "del contratto di lavoro"),
        ("der Erbteilung", "du partage successoral", "della divisione ereditaria"),
        ("der Unterhaltspflicht", "de l'obligation d'entretien",
         "dell'obbligo di mantenimento"),
        ("der Haftung des Werkeigentümers", "de la responsabilité du propriétaire d'ouvrage",
         "della responsabilità del proprietario dell'opera"),
        ("des Kaufvertrags", "du contrat de vente", "del contratto di compravendita"),
    ),
    "debt": (
        ("der Betreibung", "de la poursuite", "dell'esecuzione"),
        ("des Rechtsvorschlags", "de l'opposition", "dell'opposizione"),
        ("der Pfändung", "de la saisie", "del pignoramento"),
        ("des Konkursaufschubs", "de l'ajournement de la faillite",
         "del differimento del fallimento"),
        ("der Kollokation", "de la collocation", "della graduatoria"),
        ("des Arrests", "du séquestre", "del sequestro"),
    ),
    "criminal": (
        ("des Beschleunigungsgebots", "du principe de célérité", "del principio di celerità"),
        ("der Strafzumessung", "de la fixation de la peine", "della commisurazione della pena"),
        ("des Grundsatzes in dubio pro reo", "du principe in dubio pro reo",
         "del principio in dubio pro reo"),
        ("der Untersuchungshaft", "de la détention provisoire",
         "della carcerazione preventiva"),
        ("der Landesverweisung", "de l'expulsion", "dell'espulsione"),
        ("der Einziehung", "de la confiscation", "della confisca"),
    ),
    "social": (
        ("der Invalidenrente", "de la rente d'invalidité", "della rendita d'invalidità"),
        ("der Taggelder", "des indemnités journalières", "delle indennità giornaliere"),
        ("der Ergänzungsleistungen", "des prestations complémentaires",
         "delle prestazioni complementari"),
        ("der Hilflosenentschädigung", "de l'allocation pour impotent",
         "dell'assegno per grandi invalidi"),
        ("der Arbeitslosenentschädigung", "de l'indemnité de chômage",
         "dell'indennità di disoccupazione"),
    ),
}

# Statutes cited per subject area: (de, fr, it) abbreviations.
STATUTES: dict[str, tuple[Triple, ...]] = {
    "constitutional": (("BV", "Cst.", "Cost."), ("BGG", "LTF", "LTF")),
    "administrative": (("VG", "LRCF", "LResp"), ("AIG", "LEI", "LStrI"), ("DBG", "LIFD", "LIFD"),
                       ("RPG", "LAT", "LPT"), ("BV", "Cst.", "Cost.")),
    "civil": (("ZGB", "CC", "CC"), ("OR", "CO", "CO"), ("ZPO", "CPC", "CPC")),
    "debt": (("SchKG", "LP", "LEF"), ("OR", "CO", "CO")),
    "criminal": (("StGB", "CP", "CP"), ("StPO", "CPP", "CPP"), ("BV", "Cst.", "Cost.")),
    "social": (("IVG", "LAI", "LAI"), ("ATSG", "LPGA", "LPGA"), ("AVIG", "LACI", "LADI")),
}

AREA_GROUPS: dict[str, tuple[str, ...]] = {
    "constitutional_law": ("constitutional",),
    "administrative_and_international_public_law": ("administrative",),
    "civil_law": ("civil",),
    "debt_enforcement_and_bankruptcy_law": ("debt",),
    "civil_and_debt_enforcement_and_bankruptcy_law": ("civil", "debt"),
    "criminal_law": ("criminal",),
    "social_security_law": ("social",),
}
"""Law-area label -> vocabulary groups its decisions draw from."""

# Article reference styles: "Art. 8 Abs. 1 BV", "art. 8 al. 1 Cst.", "art. 8 cpv. 1 Cost.".
ARTICLE_FORMAT: Triple = ("Art. {n} Abs. {p} {law}", "art. {n} al. {p} {law}",
                          "art. {n} cpv. {p} {law}")
ARTICLE_PHRASE: Triple = ("gestützt auf {article}", "en application de l'{article}",
                          "in applicazione dell'{article}")
CONSIDERATION_PREFIX: Triple = ("E.", "consid.", "consid.")
CROSS_REFERENCE: Triple = ("(vgl. E. {c} hiervor)", "(cf. consid. {c} ci-dessus)",
                           "(cfr. consid. {c} sopra)")
CASE_CITATION: Triple = ("Vgl. BGE {v} {part} {page} E. {c}.", "Cf. ATF {v} {part} {page} consid. {c}.",
                         "Cfr. DTF {v} {part} {page} consid. {c}.")

FACTS_HEADING: Triple = ("Sachverhalt ab Seite {page}", "Faits à partir de page {page}",
                         "Fatti a partire da pagina {page}")
CONSIDERATIONS_HEADING: Triple = ("Erwägungen", "Considérant en droit", "Considerando in diritto")

MONTHS: Triple = (
    "Januar Februar März April Mai Juni Juli August September Oktober November Dezember",
    "janvier février mars avril mai juin juillet août septembre octobre novembre décembre",
    "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre "
    "dicembre",
)
PARTIES: tuple[str, ...] = ("A.", "B.", "C.", "X.", "Y.", "Z.", "A.A.", "B.B.")
COURTS: tuple[Triple, ...] = (
    ("beim Bezirksgericht", "auprès du tribunal de district", "presso la pretura"),
    ("bei der kantonalen Verwaltung", "auprès de l'administration cantonale",
     "presso l'amministrazione cantonale"),
    ("beim Regierungsrat", "auprès du Conseil d'Etat", "presso il Consiglio di Stato"),
    ("bei der Ausgleichskasse", "auprès de la caisse de compensation",
     "presso la cassa di compensazione"),
)
FILINGS: tuple[Triple, ...] = (
    ("reichte {party} {court} ein Gesuch ein", "{party} a déposé une requête {court}",
     "{party} ha presentato un'istanza {court}"),
    ("erhob {party} {court} Beschwerde", "{party} a recouru {court}",
     "{party} ha interposto ricorso {court}"),
    ("stellte {party} {court} einen Antrag", "{party} a présenté une demande {court}",
     "{party} ha inoltrato una domanda {court}"),
)
DATE_FORMAT: Triple = ("Am {d}. {m} {y} {rest}.", "Le {d} {m} {y}, {rest}.",
                       "Il {d} {m} {y} {rest}.")
