"""The details of a trip a message gives besides its places and days: which days end the trip,
travellers, rooms, nights, cabin, one way or round trip, nonstop, budget and forecast days. Pure.

Words in English, Spanish, French, German, Portuguese and Italian; numbers are read by dates.number.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.routing.date_mention import DateMention
from rag.routing.dates import number
from rag.routing.extracted import Slots

_CABIN = [
    (re.compile(r"\bpremium[\s-]?econ(?:omy)?\b|\b(?:turista|econ[oó]mica) premium\b"), "PREMIUM_ECONOMY"),
    (
        re.compile(r"\bbusiness(?:\s+class)?\b|\bbiz class\b|\bclasse affaires\b|\b(?:classe )?executiva\b"),
        "BUSINESS",
    ),
    (
        re.compile(
            r"\bfirst[\s-]class\b|\bprimera clase\b|\bpremi[eè]re classe\b|\berste[nr]? klasse\b"
            r"|\bprimeira classe\b|\bprima classe\b"
        ),
        "FIRST",
    ),
    (
        re.compile(
            r"\beconomy\b|\bcoach\b|\bclase (?:turista|econ[oó]mica)\b|\bclasse [eé]conomique\b"
            r"|\btouristenklasse\b|\bclasse (?:econ[oô]mica|economica|turistica)\b"
        ),
        "ECONOMY",
    ),
]
_NUM = (
    r"(\d+|one|two|three|four|five|six|seven|eight|nine|ten"
    r"|una|uno|un|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez"
    r"|une|deux|trois|quatre|cinq|sept|huit|neuf|dix"
    r"|eine[nm]?|ein|zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn"
    r"|uma|um|dois|duas|três|quatro|sete|oito|nove|dez"
    r"|due|tre|quattro|cinque|sei|sette|otto|dieci"
    r"|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty)"
)
# "We are 3", "somos 3", "nous sommes trois", "wir sind zu dritt" (a number after the phrase).
_WE_ARE = re.compile(
    rf"\b(?:we(?:'re| are)|there(?:'s| is| are| will be) (?:going to be )?|somos|nous sommes|on est|wir sind"
    rf"|siamo(?: in)?|seremos|saremo)\s+(?:a group of\s+|a party of\s+|un grupo de\s+)?{_NUM}\b(?!\s*(?:nights?|days?|rooms?))"
)
_ADULTS = re.compile(
    rf"\b{_NUM}\s*(?:adults?|grown[\s-]?ups?|people|ppl|persons?|pax|travell?ers|passengers|guests|of us"
    r"|adultos?|adultes?|erwachsene[n]?|adulti|personas|personnes?|personen|pessoas|persone"
    r"|viajeros|pasajeros|voyageurs|passagers|reisende|passagiere|viajantes|passageiros|viaggiatori|passeggeri"
    r"|hu[eé]spedes|g[äa]ste|h[oó]spedes|ospiti)\b"
)
# Seats and tickets count travellers ("three Economy class tickets", "four seats").
_SEATS = re.compile(
    rf"\b{_NUM}\s+(?:(?:economy|business|first|premium|class|plane|flight|airline|one[- ]way|round[- ]trip"
    r"|return|cheap|more|adult)\s+){0,3}(?:tickets?|seats?|plazas?|billets?|pl(?:a|ä)tze|lugares|biglietti|posti)\b"
)
_ROOMS = re.compile(
    rf"\b{_NUM}\s+(?:(?:hotel|double|single|twin|separate|more|king|queen)\s+)?(?:rooms?|habitaci(?:ó|o)n(?:es)?"
    r"|chambres?|zimmer|quartos?|camer(?:a|e))\b"
)
_ROUND_TRIP = re.compile(
    r"\bround[- ]?trip|\breturn (?:flight|ticket|trip)s?\b|\bida y vuelta\b|\baller[- ]retour\b"
    r"|\bhin und (?:zur(?:ü|u)ck|r(?:ü|u)ckflug)\b|\bida e volta\b|\bandata e ritorno\b"
)
_ONE_WAY = re.compile(
    r"\bone[- ]way\b|\bsolo ida\b|\bsólo ida\b|\baller simple\b|\bnur hinflug\b|\bsó ida\b|\bsolo andata\b"
)
# Words before a date that make it the end of a trip or a stay, in our six languages.
_END_MARK = re.compile(
    r"(?:\breturn(?:ing)?|\bcom(?:e|ing) (?:back|home)|\b(?:go|fly|head|get)(?:ing|s)? (?:back|home)|\bback(?: home)?"
    r"|\buntil|\btill|\bthrough|\bcheck(?:ing)?[- ]?out|\bflight back"
    r"|\bvolver|\bvuelv(?:o|a|e|en|emos)|\bvolv(?:emos|iendo)|\bvuelta|\bregres(?:o|a|ar|amos|ando)|\bretorno|\bhasta"
    r"|\bretour|\brevenir|\brevien(?:s|t|nent)|\brentr(?:er|e|ons|ez|ant)|\bjusqu'(?:au|à|a)"
    r"|\bzur(?:ü|u)ck\w*|\br(?:ü|u)ck(?:flug|reise|kehr|fahrt)|\bheim(?:flug|reise)|\bbis(?: zum)?"
    r"|\bvolt(?:a|ar|o|amos|ando)|\bregress(?:o|ar|amos)|\bat(?:é|e)"
    r"|\britorno|\brientr\w*|\btorn(?:are|o|iamo|ando)|\bfino al?)\b[^.!?\d]{0,24}$"
)
# A round trip's name holds a return word that marks no date ("aller-retour le 12 mai" leaves then).
_ROUND_TRIP = re.compile(
    r"\b(?:aller[- ]retour|round[- ]trip|return (?:flight|ticket|trip)s?|ida y vuelta|ida e volta|ida y regreso"
    r"|andata e ritorno|hin- und r(?:ü|u)ckflug|hin und zur(?:ü|u)ck)\b"
)
_END_AFTER = re.compile(r"\W{0,3}(?:zur(?:ü|u)ck|de (?:vuelta|regreso|retour|volta)|di ritorno|retour)\b")
_CHILDREN = re.compile(
    rf"\b(a|an|{_NUM[1:-1]})\s*(?:little\s+|young\s+|small\s+)?(?:kids?|children|child|teens?|toddlers?|niños|niñas|ninos|hijos|enfants?|kinder[n]?"
    r"|crianças|criancas|filhos|bambini|figli|ragazzi)\b"
)
_INFANT = re.compile(
    rf"\b(?:{_NUM}\s+)?(?:infants?|bab(?:y|ies)|newborns?|lap child|beb[eéê]s?|b[eé]b[eé]s?|babys|säuglinge?"
    r"|kleinkind(?:er)?|neonat[oi]|nourrissons?)\b"
)
_COUPLE = re.compile(
    r"\b(?:couple|my (?:wife|husband|partner|girlfriend|boyfriend)|the two of us|for two(?! (?:nights?|days?|weeks?))"
    r"|en pareja|mi (?:mujer|esposa|marido|esposo|pareja|novia|novio)|nosotros dos"
    r"|en couple|ma (?:femme|copine|compagne)|mon (?:mari|copain|compagnon|conjoint)|nous deux"
    r"|zu zweit|meine[rm]? (?:frau|freundin|partnerin)|meine[mn]? (?:mann|freund|partner)"
    r"|minha (?:mulher|esposa|namorada)|meu (?:marido|namorado|companheiro)|em casal|n[oó]s dois"
    r"|mia (?:moglie|ragazza|fidanzata)|mio (?:marito|ragazzo|fidanzato)|in coppia|noi due)\b"
)
_NIGHTS = re.compile(
    rf"\b{_NUM}\s*(?:nights?|nts?|noches?|nuits?|n[äa]chte|nacht|(?:ü|ue)bernachtungen|noites?|nott[ei])\b"
)
# Only days in the other languages: the caller reads a unit that starts with "week" as weeks.
_DAYS_STAY = re.compile(
    rf"\b(?:for|por|para|pour|für|per|durante|pendant|stay(?:ing)?|stay(?:ing)? (?:there )?for)\s+(?:a\s+total\s+of\s+|a\s+)?{_NUM}?\s*"
    r"(weeks?|days?|d[ií]as|jours|tage[n]?|giorni)\b"
)
# Weeks of a stay, said with or without "for" ("a week", "zwei Wochen", "una settimana"); a fortnight.
_WEEKS_STAY = re.compile(
    rf"\b(?:an?|{_NUM[1:-1]})\s+(?:weeks?|semanas?|semaines?|wochen?|settiman[ae])\b(?!-end)"
    r"|\b(?:an?|one|una|une|uma)\s+(fortnight|quincena|quinzaine|quinzena)\b"
)
# Words before weeks that make them a date, a rate or a shift, not a stay ("in a week", "once a week").
_NOT_STAY_BEFORE = re.compile(
    r"(?:\b(?:in|within|every|once|twice|times|en|dentro\s+de|dans|d'ici|innerhalb|tra|fra|entro|em|daqui\s+a"
    r"|hace|vor|il\s+y\s+a|cada|chaque|jede|ogni|toda)|\d|[$€£])\s*$"
)
_NOT_STAY_AFTER = re.compile(
    r"\s*(?:later|after|afterwards|earlier|before|sooner|ago|from\s+now|away|despu[eé]s|antes|m[aá]s\s+tarde"
    r"|plus\s+t(?:ar|ô|o)[dt]|apr[eè]s|avant|sp[äa]ter|fr[üu]her|danach|vorher|dopo|prima|fa\b|pi[uù]\s+tardi"
    r"|depois|mais\s+(?:cedo|tarde)|que\s+v(?:iene|em)|prochaine|n[äa]chste|prossima)"
)
# Days of a whole trip ("7 days total", "10 días en total").
_DAYS_TOTAL = re.compile(
    rf"\b{_NUM}\s+(?:days?|d[ií]as|jours|tage[n]?|giorni)\s+(?:in\s+|en\s+|au\s+|no\s+)?"
    r"(?:total|insgesamt|in\s+tutto|complessivi)\b"
)
_FORECAST_DAYS = re.compile(
    r"\b(?:(?<=next )|(?<=coming )|(?<=following )|(?<=próximos )|(?<=proximos )|(?<=siguientes )"
    r"|(?<=nächsten )|(?<=kommenden )|(?<=prossimi )|(?=\S+ prochains jours))"
    rf"{_NUM}\s+(?:prochains\s+)?(?:days|d[ií]as|jours|tage[n]?|giorni)\b"
)
_CURRENCY = {
    "$": "USD",
    "usd": "USD",
    "dollar": "USD",
    "dollars": "USD",
    "bucks": "USD",
    "€": "EUR",
    "eur": "EUR",
    "euro": "EUR",
    "euros": "EUR",
    "£": "GBP",
    "gbp": "GBP",
    "pound": "GBP",
    "pounds": "GBP",
    "quid": "GBP",
    "¥": "JPY",
    "jpy": "JPY",
    "yen": "JPY",
    "chf": "CHF",
    "aud": "AUD",
    "cad": "CAD",
    "dólares": "USD",
    "dolares": "USD",
    "dollari": "USD",
    "libras": "GBP",
    "livres": "GBP",
    "pfund": "GBP",
    "sterline": "GBP",
}
_CUR = (
    r"(\$|€|£|¥|usd|eur|euros?|dollars?|bucks|gbp|pounds?|quid|yen|jpy|chf|aud|cad"
    r"|d[óo]lares|dollari|libras|livres|pfund|sterline)"
)
_BUDGET = re.compile(
    rf"(?:\b(under|below|less than|max(?:imum)?|up to|at most|budget(?: of| is)?|cheaper than|no more than|within"
    r"|menos de|por debajo de|como m[aá]ximo|m[aá]ximo|presupuesto(?: de)?|moins de|au maximum|budget de"
    r"|unter|h[öo]chstens|maximal|weniger als|no m[aá]ximo|or[çc]amento(?: de)?|meno di|al massimo|massimo"
    r"|budget di)\s*"
    rf"{_CUR}?\s*(\d[\d,]*(?:\.\d+)?)\s*(k\b)?\s*{_CUR}?)|(?:{_CUR}\s*(\d[\d,]*)\b)|(?:\b(\d[\d,]*)\s*{_CUR})",
    re.IGNORECASE,
)


def end_marked(
    lowered: str, dates: list[DateMention], spans: Sequence[tuple[str, int, int]]
) -> frozenset[int]:
    """The dates (by their index) said as the end of a trip or a stay: a single day said as the end
    ("returning the 10th"); a range carries its own end."""
    return frozenset(
        i
        for i, d in enumerate(dates)
        if d.last is None
        and (
            _END_MARK.search(_ROUND_TRIP.sub(" ", lowered[max(0, d.start - 40) : d.start]))
            # "am 27. Mai zurück", "le 12 de retour": the word after the last day
            or (i == len(dates) - 1 and _END_AFTER.match(lowered[d.end : d.end + 24]))
            # The tagger's word for it only beside another day, of which it says which is the end.
            or (
                len(dates) > 1
                and any(label == "end_date" and s < d.end and d.start < e for label, s, e in spans)
            )
        )
    )


def read_details(text: str, lowered: str, slots: Slots) -> None:
    """Travellers, rooms, the trip's kind, nights, cabin, nonstop, budget and forecast days, into
    ``slots`` (whose dates are read already: a weekend is two nights)."""
    _travellers(lowered, slots)
    rooms = _ROOMS.search(lowered)
    if rooms:
        slots.rooms = number(rooms.group(1))
    slots.round_trip = bool(_ROUND_TRIP.search(lowered))
    slots.one_way = not slots.round_trip and bool(_ONE_WAY.search(lowered))
    slots.nights = _stay(lowered, slots)
    for pattern, cabin in _CABIN:
        if pattern.search(lowered):
            slots.cabin = cabin
            break
    slots.nonstop = bool(re.search(r"\b(?:non[\s-]?stop|direct)\b", lowered))
    _budget(text, slots)
    days = _FORECAST_DAYS.search(lowered)
    if days:
        slots.forecast_days = number(days.group(1))
    elif re.search(r"\b(?:this|next|coming)\s+week\b|\bweek ahead\b", lowered):
        slots.forecast_days = 7
    elif any(d.weekend for d in slots.dates):
        slots.forecast_days = 2
    elif slots.dates and slots.dates[0].last is None:
        slots.forecast_days = 1


def _stay(lowered: str, slots: Slots) -> int | None:
    """The nights of a stay: said as nights ("5 nuits"), weeks ("for a week", "zwei Wochen": 7 each, a
    fortnight 14), days ("for 3 days", "7 days total"), or a weekend (2). Words that are a date ("in a
    week") or a shift ("a week later", "one more night": ``slots.shift``) are no stay."""
    taken = [(d.start, d.end) for d in (*slots.dates, *slots.past_dates)]
    if slots.shift is not None:
        taken.append((slots.shift.start, slots.shift.end))

    def free(m: re.Match[str]) -> bool:
        return not any(m.start() < e and s < m.end() for s, e in taken)

    nights = next((m for m in _NIGHTS.finditer(lowered) if free(m)), None)
    if nights:
        return number(nights.group(1))
    for m in _WEEKS_STAY.finditer(lowered):
        if (
            free(m)
            and not _NOT_STAY_BEFORE.search(lowered, 0, m.start())
            and not _NOT_STAY_AFTER.match(lowered, m.end())
        ):
            if m.group(1):
                return 14
            said = lowered[m.start() : m.end()].split()[0]
            n = 1 if said in ("a", "an") else number(said)
            if n:
                return n * 7
    stay = next((m for m in _DAYS_STAY.finditer(lowered) if free(m)), None)
    if stay:
        n = number(stay.group(1)) if stay.group(1) else 1
        if n:
            return n * 7 if stay.group(2).startswith("week") else n
    total = next((m for m in _DAYS_TOTAL.finditer(lowered) if free(m)), None)
    if total:
        return number(total.group(1))
    return 2 if any(d.weekend for d in slots.dates) else None


def _travellers(lowered: str, slots: Slots) -> None:
    adults = _ADULTS.search(lowered) or _SEATS.search(lowered) or _WE_ARE.search(lowered)
    if adults:
        slots.adults = number(adults.group(1))
    elif _COUPLE.search(lowered):
        slots.adults = 2
    children = _CHILDREN.search(lowered)
    if children:
        said = children.group(1)
        slots.children = 1 if said in ("a", "an") else number(said)
    infant = _INFANT.search(lowered)
    if infant:
        slots.infants = number(infant.group(1)) if infant.group(1) else 1
    if slots.adults is None and (slots.children or slots.infants):
        slots.adults = 1


def _budget(text: str, slots: Slots) -> None:
    for m in _BUDGET.finditer(text):
        g = m.groups()
        if g[0] is not None:
            amount, k, currency = g[2], g[3], g[1] or g[4]
        elif g[5] is not None:
            amount, k, currency = g[6], None, g[5]
        else:
            amount, k, currency = g[7], None, g[8]
        try:
            value = float(amount.replace(",", ""))
        except ValueError:
            continue
        if k:
            value *= 1000
        if value <= 0 or (currency is None and g[0] is None):
            continue
        slots.max_price = int(value)
        slots.currency = _CURRENCY.get(currency.lower()) if currency else None
        return
