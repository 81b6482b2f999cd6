"""Date shifts: a message that moves the trip's dates by some days, and which of them. Pure.

"Push the return back a day" moves the end by +1, "leave a day earlier" the start by -1, "Actually, two
days later" both by +2, "Add one more night" the nights by +1. What they are moved from is the
conversation's: the shift only says how many days and which end. Words in English, Spanish, French,
German, Italian and Portuguese; English is read in every message, as travellers mix it in.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal

from rag.routing.dates import number

Target = Literal["start", "end", "both", "nights"]


@dataclass(frozen=True, slots=True)
class Shift:
    """``days`` moved (negative: earlier, or fewer nights) of ``target``: the trip's start, its end,
    both (the whole trip moves), or its nights (the start stays). ``start``/``end``: the span of the
    words saying it, for a caller setting them aside."""

    days: int
    target: Target
    start: int
    end: int


_N = (
    r"(\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|couple of"
    r"|un|una|uno|une|um|uma|ein|eine|einen|einem|einer|dos|deux|zwei|dois|duas|due"
    r"|tres|trois|drei|três|tre|cuatro|quatre|vier|quatro|quattro|cinco|cinq|fünf|cinque)"
)
_DAYS = r"(?:days?|d[ií]as?|jours?|tag(?:e|en)?|giorn[oi]|dias?)"
_WEEKS = r"(?:weeks?|semanas?|semaines?|wochen?|settiman[ae])"
_UNIT = rf"({_DAYS}|{_WEEKS})"
_NIGHTS = r"(?:nights?|noches?|nuits?|n[äa]chte|nacht|noites?|nott[ei])"
_AMOUNT = rf"\b(?:(?:by|de|um|di|em|por)\s+|d['’]\s*)?{_N}\s+{_UNIT}\b"

_LATER = (
    r"later|after|afterwards|despu[eé]s|m[aá]s\s+tarde|plus\s+tard|apr[eè]s|sp[aä]ter|danach|dopo"
    r"|pi[uù]\s+tardi|depois|mais\s+tarde"
)
_EARLIER = (
    r"earlier|before|sooner|antes|m[aá]s\s+temprano|plus\s+t[oô]t|avant|fr[uü]her|davor|eher|prima"
    r"|mais\s+cedo"
)
# "two days later", "una semana después", "einen Tag früher"
_N_UNIT_DIRECTION = re.compile(rf"\b{_N}\s+{_UNIT}\s+({_LATER}|{_EARLIER})\b")
# "the day after", "le lendemain", "il giorno prima": one day, without a number
_ONE_DAY = [
    (
        re.compile(
            r"\b(?:the\s+)?(?:next|following)\s+day\b|\bthe\s+day\s+after\b(?!\s+(?:tomorrow|the\s+\d|\d))"
            r"|\bel\s+d[ií]a\s+(?:siguiente|despu[eé]s)\b|\ble\s+lendemain\b|\bo\s+dia\s+(?:seguinte|depois)\b"
            r"|\bil\s+giorno\s+(?:dopo|seguente)\b|\bam\s+(?:n[aä]chsten\s+tag|tag\s+danach|folgetag)\b"
        ),
        1,
    ),
    (
        re.compile(
            r"\bthe\s+day\s+before\b(?!\s+(?:yesterday|the\s+\d|\d))|\bel\s+d[ií]a\s+(?:anterior|antes)\b"
            r"|\bla\s+veille\b|\bo\s+dia\s+(?:anterior|antes)\b|\bil\s+giorno\s+(?:prima|precedente)\b"
            r"|\bam\s+(?:vortag|tag\s+davor)\b"
        ),
        -1,
    ),
]
# Verbs (and German adverbs) that move a date later or earlier: "push the return back a day".
_MOVE_LATER = re.compile(
    r"\b(?:push|move|put|set)(?:e?d|ing|es)?\s+(?:[\w'’]+\s+){0,3}?back\b|\b(?:delay|postpone)(?:e?d|ing|s)?\b"
    r"|\b(?:retras|atras|pospon|aplaz)\w*|\b(?:repouss|recul|retard)\w*"
    r"|\bnach\s+hinten\b|\b(?:posticip|rimand)\w*|\badi(?:a|ar|e|o)\b"
)
_MOVE_EARLIER = re.compile(
    r"\b(?:bring|move|put)(?:s|ing)?\s+(?:[\w'’]+\s+){0,3}?(?:forward|up)\b|\bbrought\s+(?:[\w'’]+\s+){0,3}?forward\b"
    r"|\badelant\w*|\bavanc\w*|\bnach\s+vorne?\b|\bvor(?:verleg|zieh)\w*|\banticip\w*|\b(?:antecip|adiant)\w*"
)
# Words naming the end or the start of a trip, per language ("return", "vuelta", "Rückflug"; "leave", "ida").
# A verb that moves without saying which way moves later, by an amount said with its preposition
# ("move the return by a day", "Verschieb den Rückflug um einen Tag", "décale d'un jour").
_MOVE = re.compile(
    r"\b(?:move|shift|change)(?:e?d|s|ing)?\b|\b(?:mueve|mover|muevo|cambia)\b|\bd[ée]cal\w*|\bverschieb\w*"
    r"|\bverleg\w*|\bspost\w*|\b(?:mova|mover|muda)\b"
)
_AMOUNT_BY = rf"\b(?:by|de|d['’]|um|di|em|por)\s*{_N}\s+{_UNIT}\b"
_END = {
    "en": r"return(?:ing|s)?|come\s+back|coming\s+back|be\s+back|fly(?:ing)?\s+back|flight\s+back|back"
    r"|check[- ]?out|come\s+home|go\s+home|inbound",
    "es": r"regres\w*|vuelta|volver|vuelvo|volvemos|retorno",
    "fr": r"retour|rentr\w*|reviens|revenir",
    "de": r"r[üu]ckflug|r[üu]ckreise|r[üu]ckkehr|zur[üu]ck\w*|heimflug",
    "it": r"ritorno|rientr\w*|tornare|torno|torniamo",
    "pt": r"volta|voltar|volto|voltamos|regress\w*|retorno",
}
_START = {
    "en": r"leav(?:e|ing)|depart(?:ure|ing)?|outbound|fly(?:ing)?\s+out|check[- ]?in|arriv(?:e|al|ing)|set\s+off",
    "es": r"ida|salida|salir|salgo|llegada|llegar",
    "fr": r"aller|d[ée]part|partir|pars|part|partons|arriv[ée]e|arriver",
    "de": r"hinflug|abflug|anreise|ankunft",
    "it": r"andata|partenza|partire|parto|arrivo|arrivare",
    "pt": r"ida|partida|sair|saio|chegada|chegar",
}
_MORE = (
    r"more|extra|additional|m[aá]s|de\s+plus|suppl[ée]mentaires?|mehr|zus[äa]tzliche?n?|weitere?n?"
    r"|in\s+pi[uù]|a\s+mais"
)
_LESS = r"less|fewer|menos|de\s+moins|weniger|in\s+meno|a\s+menos"
_NIGHT_SHIFTS = [
    # "one more night", "two extra nights", "eine zusätzliche Nacht"
    (re.compile(rf"\b{_N}\s+(?:({_MORE})|({_LESS}))\s+(?:{_NIGHTS}|{_DAYS})\b"), 1),
    # "one night more", "una noche más", "une nuit de plus", "eine Nacht mehr", "una notte in più"
    (re.compile(rf"\b{_N}\s+(?:{_NIGHTS}|{_DAYS})\s+(?:({_MORE})|({_LESS}))(?!\w)"), 1),
    # "mais uma noite", "menos uma noite"
    (re.compile(rf"\b(?:(mais)|(menos))\s+{_N}\s+noites?\b"), 3),
    # "another night", "otra noche", "un'altra notte", "outra noite", "add a night"
    (re.compile(rf"\b(another|otra|un['’]altra|outra|add(?:ing)?\s+(?:an?|one|{_N}))\s+{_NIGHTS}\b"), 0),
]


# A question about when a flight shown arrives ("Does it arrive the next day?", "Will the flight land the
# day after?"): no change of the dates, unless the traveller asks it of themselves ("can we arrive ...").
_ARRIVES = re.compile(
    r"\b(?:arriv\w*|land(?:s|ing)?|get (?:there|in|to)|gets (?:there|in|to)|llega\w*|atterri\w*|ankomm\w*|"
    r"kommt\w* an|landet|chega\w*|aterr\w*)\b"
)
_SELF = re.compile(r"\b(?:i|we|i'd|we'd|i'll|we'll|can we|could we|nosotros|nous|wir|noi|n[oó]s)\b")


def find_shift(text: str, lang: str = "en") -> Shift | None:
    """The date shift ``text`` asks for, or None. How many days and which way is read in every
    language; which end ("the return", "la vuelta") in English and ``lang`` (the message's), since
    those words are other words elsewhere ("torno" is "around" in Portuguese). A question about when a
    flight arrives moves nothing."""
    lowered = text.lower()
    if "?" in lowered and _ARRIVES.search(lowered) and not _SELF.search(lowered):
        return None
    nights = _nights(lowered)
    if nights is not None:
        return nights
    found = _amount(lowered)
    if found is None:
        return None
    days, start, end, verb = found
    rest = lowered
    if verb is not None and lowered[: verb[1]].endswith("back"):  # "push the return back": no return
        rest = lowered[: verb[1] - 4] + "    " + lowered[verb[1] :]
    end_words, start_words = _targets(lang)
    ends = [m.span() for m in end_words.finditer(rest)]
    starts = [m.span() for m in start_words.finditer(rest)]
    target: Target = "both" if bool(ends) == bool(starts) else ("end" if ends else "start")
    for s, e in [*ends, *starts, *([verb] if verb else [])]:
        start, end = min(start, s), max(end, e)
    return Shift(days, target, start, end)


@functools.cache
def _targets(lang: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    langs = ["en", lang] if lang in _END else list(_END)
    return tuple(  # type: ignore[return-value]
        re.compile(rf"\b(?:{'|'.join(words[x] for x in dict.fromkeys(langs))})\b") for words in (_END, _START)
    )


def _nights(lowered: str) -> Shift | None:
    for pattern, kind in _NIGHT_SHIFTS:
        m = pattern.search(lowered)
        if not m:
            continue
        if kind == 0:  # "another night", "add two nights"
            n, sign = (_count(m.group(2)) if m.group(2) else 1), 1
        elif kind == 3:  # "mais uma noite"
            n, sign = number(m.group(3)), 1 if m.group(1) else -1
        else:
            n, sign = number(m.group(1)), 1 if m.group(2) else -1
        if n:
            return Shift(sign * n, "nights", m.start(), m.end())
    return None


def _amount(lowered: str) -> tuple[int, int, int, tuple[int, int] | None] | None:
    """(days, start, end, the moving verb's span) of the shift's amount and direction."""
    m = _N_UNIT_DIRECTION.search(lowered)
    if m:
        n = _count(m.group(1))
        if n is not None:
            sign = -1 if re.fullmatch(_EARLIER, m.group(3)) else 1
            return sign * n * _unit(m.group(2)), m.start(), m.end(), None
    for pattern, sign, said in (
        (_MOVE_EARLIER, -1, _AMOUNT),
        (_MOVE_LATER, 1, _AMOUNT),
        (_MOVE, 1, _AMOUNT_BY),
    ):
        verb = pattern.search(lowered)
        amount = _in_sentence(said, lowered, verb.start()) if verb else None
        if verb and amount:
            n = _count(amount.group(1))
            if n is not None:
                start, end = min(verb.start(), amount.start()), max(verb.end(), amount.end())
                return sign * n * _unit(amount.group(2)), start, end, verb.span()
    for pattern, days in _ONE_DAY:
        m = pattern.search(lowered)
        if m:
            return days, m.start(), m.end(), None
    return None


def _in_sentence(said: str, lowered: str, at: int) -> re.Match[str] | None:
    """The amount in the sentence of a moving verb (at ``at``); not a stay or a date ("for two days",
    "in a week")."""
    begin = max((m.end() for m in _SENTENCE_END.finditer(lowered, 0, at)), default=0)
    stop = _SENTENCE_END.search(lowered, at)
    for m in re.compile(said).finditer(lowered, begin, stop.start() if stop else len(lowered)):
        if not _STAY_OR_DATE.search(lowered, begin, m.start()):
            return m
    return None


_SENTENCE_END = re.compile(r"[.!?;](?:\s|$)")
_STAY_OR_DATE = re.compile(r"\b(?:in|within|for|en|dans|pour|f[üu]r|per|para|tra|fra|dentro\s+de)\s+$")


def _count(said: str) -> int | None:
    return 1 if said in ("a", "an") else number(said)


def _unit(word: str) -> int:
    return 7 if re.fullmatch(_WEEKS, word) else 1
