"""Which of Wayfarer's languages a traveller's message is in. Pure (the model is a packaged data file).

py3langid's naive Bayes model, restricted to our six languages, is right on sentences but guesses on the
short, name-heavy messages travellers send ("hotel en Lisboa", "tokyo?", "lon par 5 may"). So its
probabilities are combined with a small lexicon of words that mark a language and are not English or
place names ("mañana", "vols", "Wetter", "amanhã", "domani"), and the answer is English unless the
evidence for another language is clear: English is what the router and extractor were written for, and
a wrong language costs more (an answer the traveller cannot read, dates parsed as another language's)
than answering a short foreign message in English.
"""

from __future__ import annotations

import functools
import logging
import re
from typing import Any

logger = logging.getLogger(__name__)

LANGUAGES = ("en", "es", "fr", "de", "pt", "it")
LANGUAGE_NAMES = {
    "en": "English",
    "es": "Spanish",
    "fr": "French",
    "de": "German",
    "pt": "Portuguese",
    "it": "Italian",
}

# Words that mark a language in a travel message. A word listed for several languages counts for each
# in part. Left out on purpose: words that are also English ("a", "me", "no", "per", "was", "will", "die",
# "come", "son", "ai", "am", "im") and words of common place names ("la", "le", "los", "las", "san", "de", "del", "santa").
_MARKERS: dict[str, str] = {
    "en": (
        "the what is are from to for find me my show flights flight weather forecast hotels tomorrow today "
        "next weekend week month where can i you how much cheap book want need please thanks thank hi hello "
        "and or with of on at this that these any some get fly trip stay things do day days night nights "
        "rain sunny near about tonight which who when why should could would in"
    ),
    "es": (
        "mejor perdona vuelta regreso ida en qué que dónde donde cuándo cuánto cuánta cómo puedo quiero necesito busca buscar hacer ver "
        "vuelo vuelos hoteles alojamiento alojarse hospedaje tiempo clima mañana hoy pasado próximo "
        "próxima semana fin días noches noche niños niñas con para por desde hasta al el un una unos unas "
        "y es hay barato barata baratos enero febrero marzo abril mayo junio julio agosto septiembre "
        "setiembre octubre noviembre diciembre lunes martes miércoles jueves viernes sábado domingo "
        "dos tres cuatro cinco personas adultos llueve lloverá hará calor frío"
    ),
    "fr": (
        "plutôt finalement décale retour départ en à où que quoi quel quelle quels quelles comment combien je veux voudrais cherche trouve "
        "trouver voir faire vol vols hôtel hôtels logement dormir météo meteo temps demain aujourd'hui "
        "après-demain prochain prochaine semaine jours nuits nuit enfants avec pour depuis jusqu au aux "
        "du des les un une et est il y pas cher janvier février mars avril mai juin juillet août "
        "septembre octobre novembre décembre lundi mardi mercredi jeudi vendredi samedi dimanche deux "
        "trois quatre cinq personnes adultes pleuvoir pleut fera chaud froid billet billets"
    ),
    "de": (
        "lieber eigentlich rückflug hinflug verschieb verschiebe in wetter morgen übermorgen heute nächste nächsten nächster woche wochenende flug flüge fliegen "
        "unterkunft übernachten zimmer nach von ich möchte suche finde brauche kann man machen sehen "
        "sehenswürdigkeiten wo wie wann welche welcher viel kostet günstig billig mit für und ist "
        "zum zur vom bis tage tagen nächte nacht kinder kindern erwachsene personen januar februar märz "
        "mai juni juli oktober dezember montag dienstag mittwoch "
        "donnerstag freitag samstag sonntag zwei drei vier fünf regnet regnen kalt vorhersage"
    ),
    "pt": (
        "melhor volta partida até em na nos nas que onde quando quanto quanta como posso quero preciso procuro procurar fazer "
        "ver voo voos hotéis alojamento ficar hospedagem tempo previsão amanhã hoje depois próximo "
        "próxima semana dias noites noite crianças com para por desde até ao à e é há barato barata "
        "janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro "
        "segunda terça quarta quinta sexta sábado domingo dois duas três quatro cinco pessoas adultos "
        "chover chove vai calor frio passagem passagens"
    ),
    "it": (
        "meglio anzi ritorno partenza in che cosa dove quando quanto quanta posso voglio vorrei cerco cercare fare vedere volo voli "
        "albergo alberghi alloggio dormire meteo tempo previsioni domani oggi dopodomani prossimo "
        "prossima settimana giorni notti notte bambini con da fino al alla alle agli il un una uno e è "
        "c'è ci sono economico economica gennaio febbraio marzo aprile maggio giugno luglio agosto "
        "settembre ottobre novembre dicembre lunedì martedì mercoledì giovedì venerdì sabato domenica "
        "due tre quattro cinque persone adulti piove pioverà farà caldo freddo biglietti biglietto"
    ),
}

_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_LATIN = re.compile(r"[a-zA-ZÀ-ÿ]")
_MAX_CHARS = 600  # the opening of a long message says its language as well as the whole
_MIN_MODEL_PROB = 0.9  # the model alone decides only when sure and the message has some words
_MIN_MODEL_WORDS = 4  # "ho chi minh" is a name, not Italian
_MARGIN = 0.25  # another language must beat English by this much


@functools.cache
def _weights() -> dict[str, dict[str, float]]:
    """word -> language -> weight (1 / the number of languages the word marks)."""
    langs_of: dict[str, list[str]] = {}
    for lang, words in _MARKERS.items():
        for word in words.split():
            langs_of.setdefault(word, []).append(lang)
    return {w: {lang: 1.0 / len(langs) for lang in langs} for w, langs in langs_of.items()}


@functools.cache
def _identifier() -> Any:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(list(LANGUAGES))
    logger.info("language identifier loaded (%d languages)", len(LANGUAGES))
    return identifier


def load_detector() -> None:
    """Load the model now (about half a second, once), so the first message does not pay for it."""
    _identifier()


def detect_language(text: str, default: str = "en") -> str:
    """The message's language, one of LANGUAGES. When unsure (short, emoji-only, mixed), ``default``
    (the conversation's language: "Lieber am 8." in a German conversation is German) unless the message
    reads as English."""
    text = text[:_MAX_CHARS]
    words = [w.lower() for w in _WORD.findall(text)]
    if not words:
        return default
    latin = len(_LATIN.findall(text))
    letters = sum(len(w) - w.count("'") for w in words)  # a word's apostrophe ("c'è") is no letter
    if latin < 0.8 * letters:  # another script, or mixed scripts: not one of ours
        return "en"
    hits = _marked(words)
    if hits["en"] - max(hits[lang] for lang in LANGUAGES[1:]) > 1 - _MARGIN:
        # The model's probabilities sum to 1, so they move English and any other language apart by at
        # most 1: no other language can lead English by _MARGIN, and English is sure by its words. The
        # model would not change the answer (most English messages; it costs a millisecond).
        return "en"
    return _weighed(text, words, hits, default)


def _marked(words: list[str]) -> dict[str, float]:
    """Each language's marker words among ``words``, weighted."""
    weights = _weights()
    hits = dict.fromkeys(LANGUAGES, 0.0)
    for word in words:
        for lang, weight in weights.get(word, {}).items():
            hits[lang] += weight
    return hits


def _weighed(text: str, words: list[str], hits: dict[str, float], default: str) -> str:
    """The marker words and the model together."""
    probs = dict(_identifier().rank(text))
    scores = {lang: hits[lang] + float(probs.get(lang, 0.0)) for lang in LANGUAGES}
    best = max(LANGUAGES[1:], key=scores.__getitem__)
    sure = hits[best] >= 0.5 or (probs.get(best, 0.0) >= _MIN_MODEL_PROB and len(words) >= _MIN_MODEL_WORDS)
    if sure and scores[best] >= scores["en"] + _MARGIN:
        return best
    english = hits["en"] >= 0.5 or (
        probs.get("en", 0.0) >= _MIN_MODEL_PROB and len(words) >= _MIN_MODEL_WORDS
    )
    return "en" if english or default not in LANGUAGES else default
