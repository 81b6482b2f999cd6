"""The words the slot tagger's features know by meaning, in our six languages. Data and look-ups; pure.

The tagger learnt from English only. A word of another of our languages that it knows is read as its
English word ("mañana" as "tomorrow", "nach" as "to", "Nächte" as "nights"), so its features are the
ones the tagger was fitted on; the months and weekdays come from CLDR (rag/i18n/calendar_words.py),
the number words and one-word days from rag/i18n/date_words.yaml, the rest (trip words and cues) is
below. English words have classes
("march" is a month, "to" a place cue), which carry across months and languages alike.
"""

from __future__ import annotations

import functools

import yaml

from connectors.text import fold
from rag.i18n import DATE_WORDS_PATH as WORDS_PATH
from rag.i18n.calendar_words import english_month, english_weekday, month_names, weekday_names

# English words' classes. Another language's word is read as its English one (``ENGLISH``, and the
# months, weekdays, numbers and "tomorrow"s of rag/i18n/date_words.yaml), so it has these classes too.
CLASSES: dict[str, str] = {
    "month": "january february march april may june july august september october november december",
    "weekday": "monday tuesday wednesday thursday friday saturday sunday",
    "number": "one two three four five six seven eight nine ten eleven twelve",
    "reldate": "today tomorrow tonight weekend",
    "to": "to towards toward into",
    "from": "from",
    "in": "in at near around",
    "until": "until till through thru",
    "people": "people person persons adult adults passenger passengers ticket tickets seat seats traveler "
    "travelers traveller travellers guests",
    "rooms": "room rooms",
    "nights": "night nights day days",
    "cabin": "economy business premium class",
    "flight": "flight flights fly flying plane",
    "hotel": "hotel hotels house stay staying",
    "weather": "weather forecast rain temperature",
    "return": "return returning back",
    "depart": "leave leaving depart departing departure",
}
# Trip words of our other languages as English ones (es fr de pt it). Words that are another word in
# English ("a", "no", "do", "per") are not here; "de"/"da"/"a" are read in context (``IN_CONTEXT``).
ENGLISH: dict[str, str] = {
    "to": "hacia vers nach pra",
    "from": "desde depuis von dal dalla dallo",
    "in": "en dans à au aux im em na nel nella",
    "until": "hasta jusqu'au jusqu'à bis fino até",
    "the": "el la le il lo los las les",
    "and": "y et und",
    "with": "con avec mit com",
    "for": "pour für",
    "next": "próximo próxima prochain prochaine nächste nächsten nächster prossimo prossima",
    "week": "semana semaine woche settimana",
    "weekend": "wochenende",
    "person": "persona personne pessoa",
    "people": "personas personnes personen pessoas persone",
    "adults": "adultos adultes erwachsene adulti",
    "passengers": "pasajeros passagers passagiere passageiros passeggeri",
    "tickets": "billetes boletos billets bilhetes biglietti",
    "room": "habitación chambre zimmer quarto camera",
    "rooms": "habitaciones chambres quartos camere",
    "night": "noche nuit nacht noite notte",
    "nights": "noches nuits nächte nächten noites notti",
    "days": "días jours tage tagen dias giorni",
    "economy": "económica economica econômica économique turista",
    "business": "ejecutiva executiva affaires",
    "flight": "vuelo vol flug voo volo",
    "flights": "vuelos vols flüge voos voli",
    "fly": "volar voler fliegen voar volare",
    "hotel": "hôtel albergo",
    "weather": "tiempo clima météo wetter tempo meteo",
    "return": "regreso vuelta volver regresar retour rentrer zurück rückflug volta voltar ritorno tornare",
    "leave": "salir partir sair partire",
    "departure": "salida départ abflug abreise partida partenza",
}
# Words whose English depends on the next word: before a place's name "de Madrid" is "from Madrid" and
# "a Lisboa" "to Lisboa"; elsewhere "3 de mayo" is "3 of may" and "a" stays "a".
IN_CONTEXT: dict[str, tuple[str, str | None]] = {
    "de": ("from", "of"),
    "da": ("from", "of"),
    "del": ("from", "of"),
    "du": ("from", "of"),
    "a": ("to", None),
}


@functools.cache
def word_classes() -> dict[str, tuple[str, ...]]:
    """English word -> its classes ("march" -> ("month",))."""
    classes: dict[str, set[str]] = {}
    for cls, words in CLASSES.items():
        for w in words.split():
            classes.setdefault(w, set()).add(cls)
    return {w: tuple(sorted(c)) for w, c in classes.items()}


@functools.cache
def translations() -> dict[str, str]:
    """Lower-case word of another of our languages -> the English word it is read as: ``ENGLISH``, the
    full month names and the weekdays (rag.i18n.calendar_words), and from date_words.yaml number words (not "un", "ein", "um": articles
    as often as "one") and one-word days ("mañana", "demain"). Accent-free spellings of four letters
    or more too ("manana"; not "a" for "à")."""
    out: dict[str, str] = {}
    for english, words in ENGLISH.items():
        out.update(dict.fromkeys(words.split(), english))
    raw = yaml.safe_load(WORDS_PATH.read_text(encoding="utf-8"))
    for lang, spec in raw.items():
        if lang == "en":
            continue
        # Full month names only (CLDR's): an abbreviation is too often another word ("mar" is the sea).
        out.update({m: english_month(n) for m, n in month_names(lang, abbreviated=False).items()})
        out.update({w: english_weekday(n) for w, n in weekday_names(lang).items()})
        out.update({str(k): str(v) for k, v in spec["numbers"].items() if v != "one"})
        phrases = spec.get("phrases") or {}
        out.update({str(k): str(v) for k, v in phrases.items() if " " not in str(k) and v})
    for word, english in list(out.items()):
        plain = fold(word)
        if len(plain) >= 4:
            out.setdefault(plain, english)
    return out
