"""The deterministic parameter extractor: places, dates, months, travellers, nights, cabin, budget, and
what a search is narrowed to (a kind of place, an airline: rag.routing.filters). Pure.

Places come from rag.routing.places and get a role here from the words before them ("from X" origin;
"to/in/at X" destination; "X to Y").
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from wordfreq import zipf_frequency

from connectors.locations import LocationCatalogue, Place, fold
from rag.routing import date_words
from rag.routing.dates import DateMention, DateOrder, find_dates, number
from rag.routing.filters import find_airline, find_category
from rag.routing.months import find_months
from rag.routing.places import PlaceMention, find_places, last_char, needs_anchor, sentence_start

# Words before a place that make it the origin or the destination, in our six languages.
_ORIGIN_MARK = re.compile(
    r"(?:\bfrom|\bleaving|\bdeparting|\bout of|\bex|\bdesde|\bde|\bdepuis|\bvon|\baus|\bda|\bdo|\bdal)\s*$"
)
_DEST_MARK = re.compile(
    r"(?:\bto|\binto|\btowards|\bfor|\bin|\bat|\bnear|\baround|\bvisit(?:ing)?|\bvia|->|→|\bof|"
    r"\ba|\bà|\bau|\ben|\bhacia|\bpara|\bnach|\bem|\bno|\bna|\bper|\bvers|\bpour|\bdans)\s*$"
)
_PAIR_GLUE = re.compile(r"^\s*(?:-|–|->|→|to|/|>|2|a|à|nach|para|per|pra|hasta|bis)\s*$")
# Places set side by side ("Rome or Paris?", "Lisbon vs Porto"): compared, neither is where a trip starts.
_COMPARE_GLUE = re.compile(
    r"^\s*,?\s*(?:or|vs\.?|versus|compared (?:to|with)|rather than|instead of|o|ou|oder|oppure|ovvero|y|and|et|und|e)\s*$"
)

# Words in English, Spanish, French, German, Portuguese and Italian; numbers are read by dates.number.
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
    r"(?:\breturn(?:ing)?|\bcom(?:e|ing) back|\bback(?: home)?|\buntil|\btill|\bthrough|\bcheck(?:ing)?[- ]?out"
    r"|\bfly(?:ing)? back|\bhead(?:ing)? back|\bvolver|\bvuelta|\bregres(?:o|ar|ando)|\bhasta|\bretour|\brevenir"
    r"|\brentrer|\bjusqu'(?:au|à|a)|\bzur(?:ü|u)ck|\br(?:ü|u)ckflug|\bbis(?: zum)?|\bvolta(?:r)?|\bregresso|\bat(?:é|e)"
    r"|\britorno|\btornare|\bfino al?)\b[^.!?\d]{0,24}$"
)
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


@dataclass
class Slots:
    text: str = ""
    places: list[PlaceMention] = field(default_factory=list)
    countries: list[str] = field(default_factory=list)  # ISO alpha-2 codes of countries named
    unknown_places: list[str] = field(default_factory=list)  # place-like names the catalogue lacks
    ambiguous_places: dict[str, list[Place]] = field(default_factory=dict)  # "Springfield": which?
    route_pair: bool = False  # an origin and a destination written as a route ("Boston to Denver")
    origin: PlaceMention | None = None
    destination: PlaceMention | None = None
    dates: list[DateMention] = field(default_factory=list)
    past_dates: list[DateMention] = field(default_factory=list)  # days that have passed: refused, never sent
    month: dt.date | None = None  # a month without days ("in April"): its first day; not a start date
    nights: int | None = None
    adults: int | None = None
    children: int | None = None
    infants: int | None = None
    cabin: str | None = None
    nonstop: bool = False
    max_price: int | None = None
    currency: str | None = None
    forecast_days: int | None = None
    rooms: int | None = None
    compared: bool = False  # places set side by side ("Rome or Paris?"): neither an origin nor the trip's
    round_trip: bool = False  # "a round trip", "return flight": a return date is needed
    one_way: bool = False  # "one way": no return date
    category: str | None = None  # a kind of place ("museum", "park"): connectors.params.ActivityCategory
    airline: str | None = None  # an airline named ("with United"): its IATA code
    # Dates said as the end of a trip or a stay ("returning the 10th", "check out on the 12th"), by
    # their index in ``dates``.
    end_marked: frozenset[int] = frozenset()

    @property
    def start_date(self) -> dt.date | None:
        starts = self._starts()
        return starts[0].first if starts else None

    @property
    def end_date(self) -> dt.date | None:
        starts = self._starts()
        if starts and starts[0].last is not None:
            return starts[0].last
        ends = [d for i, d in enumerate(self.dates) if i in self.end_marked]
        if ends:
            return ends[0].first if not starts or ends[0].first > starts[0].first else None
        return starts[1].first if len(starts) > 1 and starts[1].first > starts[0].first else None

    def _starts(self) -> list[DateMention]:
        return [d for i, d in enumerate(self.dates) if i not in self.end_marked]

    @property
    def place(self) -> PlaceMention | None:
        """Where a stay, activity or forecast is: the destination, or the only place named."""
        if self.destination:
            return self.destination
        return self.places[-1] if self.places else None


def extract(
    text: str,
    catalogue: LocationCatalogue,
    today: dt.date,
    order: DateOrder = "MDY",
    country: str | None = None,
    lang: str = "en",
    tagged: Sequence[tuple[str, int, int]] | None = None,
) -> Slots:
    """``country``: the conversation's country (the trip's), which settles shared names ("Paris");
    ``lang``: the message's language, for its dates ("el 12 de mayo"); ``tagged``: the slot tagger's
    spans (label, start, end). In English, where the tagger was fitted, a name that is also an everyday
    word ("make", "date", "okay", "Delta") is a place only where the tagger found one, and the tagger's
    roles and end dates complete the rules'; other languages read places by the rules alone."""
    slots = Slots(text=text)
    lowered = text.lower()
    # Dates, months and places are read in the first MAX_SCAN_CHARS characters only: their cost grows
    # faster than the text, and no trip needs more (a chat message is at most 2,000 by default).
    scanned = text[:MAX_SCAN_CHARS]
    found = find_dates(scanned, today, order, lang, keep_past=True)
    slots.past_dates = [d for d in found if (d.last or d.first) < today]
    ahead = [d for d in found if (d.last or d.first) >= today]
    # "I landed yesterday; weather tomorrow?": the coming day is the one asked about. A past day alone
    # stays a date in English, as it always was (the plan refuses it); other languages never read one.
    slots.dates = ahead if ahead or lang in date_words.languages() else found
    date_spans = [(d.start, d.end) for d in found]
    months = find_months(scanned, today, date_spans)
    slots.month = months[0].first if months else None
    mentions = find_places(scanned, catalogue, date_spans + [(m.start, m.end) for m in months], country)
    slots.places, slots.countries, slots.unknown_places = (
        mentions.places,
        mentions.countries,
        mentions.unknown,
    )
    slots.ambiguous_places = mentions.ambiguous
    spans = [t for t in tagged or [] if t[1] < MAX_SCAN_CHARS] if lang == "en" else []
    if tagged is not None and lang == "en":
        _keep_tagged(slots, spans, catalogue)
        _tagged_unknown(slots, spans, text)
    slots.category = find_category(lowered)
    airline = find_airline(text)
    if airline is not None:  # an airline's name is no place ("fly with Alaska Airlines")
        slots.airline, start, end = airline
        name = fold(text[start:end])
        slots.places = [p for p in slots.places if not (p.start < end and start < p.end)]
        slots.unknown_places = [
            u for u in slots.unknown_places if fold(u) not in name and name not in fold(u)
        ]
    _assign_roles(text, slots, spans)
    # A single day said as the end ("returning the 10th"); a range carries its own end.
    slots.end_marked = frozenset(
        i
        for i, d in enumerate(slots.dates)
        if d.last is None
        and (
            _END_MARK.search(lowered[max(0, d.start - 40) : d.start])
            # The tagger's word for it only beside another day, of which it says which is the end.
            or (
                len(slots.dates) > 1
                and any(label == "end_date" and s < d.end and d.start < e for label, s, e in spans)
            )
        )
    )
    _travellers(lowered, slots)
    rooms = _ROOMS.search(lowered)
    if rooms:
        slots.rooms = number(rooms.group(1))
    slots.round_trip = bool(_ROUND_TRIP.search(lowered))
    slots.one_way = not slots.round_trip and bool(_ONE_WAY.search(lowered))
    nights = _NIGHTS.search(lowered)
    if nights:
        slots.nights = number(nights.group(1))
    else:
        stay = _DAYS_STAY.search(lowered)
        if stay:
            n = number(stay.group(1)) if stay.group(1) else 1
            if n:
                slots.nights = n * 7 if stay.group(2).startswith("week") else n
        elif any(d.weekend for d in slots.dates):
            slots.nights = 2
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
    return slots


# How much of a message the date, month and place finders read (see extract).
MAX_SCAN_CHARS = 2000
_PLACE_LABELS = frozenset({"origin", "destination", "place"})
# Words so common that a capital letter says nothing of them being a name ("Can you ...").
COMMON_WORD_ZIPF = 5.0
# What may stand beside a place name inside the tagger's span: a state or country qualifier.
_QUALIFIER = re.compile(r"[A-Z]{2}|[A-Z][a-z]+(?: [A-Z][a-z]+)?")
# Capitalised words beside a name that do not make it part of a longer one.
_JOINERS = frozenset("and or to from in at for the i on".split())
# Provinces and states that follow a city's name to say which one (US states and countries are known
# to the catalogue already).
PROVINCES = frozenset(
    {
        "ontario", "quebec", "alberta", "manitoba", "saskatchewan", "yukon", "nunavut", "british columbia",
        "nova scotia", "new brunswick", "newfoundland", "prince edward island", "new south wales",
        "victoria", "queensland", "tasmania", "western australia", "south australia", "england",
        "scotland", "wales",
    }
)  # fmt: skip
_NAMES = re.compile(r"[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*")
_AIRLINE_AFTER = re.compile(r"\s*(?:air\b|airlines?\b|airways\b|express\b)", re.IGNORECASE)
_CAPITALISED_AFTER = re.compile(r"\s+([A-Z][a-z]+)")
_UNIT = re.compile(r"(?=([A-Z][a-z]+\s+))")


def _keep_tagged(slots: Slots, spans: Sequence[tuple[str, int, int]], catalogue: LocationCatalogue) -> None:
    """Names that are everyday words ("make", "date", "okay", "Delta"; not a well-known city's own name,
    as "Porto") count as places only where the tagger marked a place."""
    placed = [(s, e) for label, s, e in spans if label in _PLACE_LABELS]
    # Only spans the tagger is fairly sure of mark where a longer name goes on ("Bodega Bay").

    def tagged(p: PlaceMention) -> bool:
        return any(s < p.end and p.start < e for s, e in placed)

    def wordy(p: PlaceMention) -> bool:
        if "," in p.text:
            return False  # "Paris, Texas": a name with its state or country is meant as one
        key = fold(p.text)
        return (" " not in key and len(key) <= 3) or needs_anchor(catalogue, key, p.place)

    def proper(
        p: PlaceMention,
    ) -> bool:  # "what about Porto?", not "Okay.", ", Can you" or "on Delta Airlines"
        before = last_char(slots.text, p.start)
        return (
            p.text[:1].isupper()
            and bool(before)
            and before not in '.!?:;"(,'
            and not _AIRLINE_AFTER.match(slots.text, p.end)
            and zipf_frequency(fold(p.text), "en") < COMMON_WORD_ZIPF
        )

    def fragment(p: PlaceMention) -> bool:
        """A piece of a longer name: "Bay" of "Bodega Bay", "San" of "San Anselmo" (the tagger's place
        span, or the capitalised word right next to it, goes beyond the mention)."""
        for s, e in placed:
            if s < p.end and p.start < e and (s < p.start - 1 or e > p.end + 1):
                outside = " ".join((slots.text[s : p.start] + " " + slots.text[p.end : e]).split()).strip(
                    " ,"
                )
                if _NAMES.fullmatch(outside) and not _QUALIFIER.fullmatch(outside):
                    return True
        after = _CAPITALISED_AFTER.match(slots.text, p.end)
        before = _capitalised_before(slots.text, p.start)
        if before is not None and sentence_start(slots.text, before[1]):
            before = None  # "Search Philly.": a sentence's first word is capitalised anyway
        beside = [w for w in (after.group(1) if after else None, before[0] if before else None) if w]
        return wordy(p) and any(
            catalogue.resolve(w) is None
            and w.lower() not in _JOINERS
            and zipf_frequency(w.lower(), "en") < COMMON_WORD_ZIPF
            for w in beside
        )

    pieces = [p for p in slots.places if fragment(p)]
    piece_ids = {id(p) for p in pieces}
    kept = [p for p in slots.places if id(p) not in piece_ids and (tagged(p) or proper(p) or not wordy(p))]
    units = capitalised_units(slots.text) if pieces else {}
    for p in pieces:  # the whole name the piece belongs to, which nobody knows: asked about, or looked up
        whole = _whole_name(slots.text, p.text, units)
        if whole is not None and whole != p.text and whole not in slots.unknown_places:
            slots.unknown_places.insert(0, whole)
    # Two places in one tagged name: "Toronto, Ontario" is Toronto, its province only says which. (A
    # list of places the tagger ran together, "Paris, Rome, Berlin", is a list.)
    for s, e in placed:
        inside = [p for p in kept if s <= p.start and p.end <= e]
        if (
            len(inside) == 2
            and slots.text[inside[0].end : inside[1].start].strip() == ","
            and (
                fold(inside[1].text) in PROVINCES
                or catalogue.qualified(fold(inside[0].text), fold(inside[1].text)) is not None
            )
        ):
            kept.remove(inside[1])
    dropped = {p.text for p in slots.places} - {p.text for p in kept}
    slots.places = kept
    slots.ambiguous_places = {k: v for k, v in slots.ambiguous_places.items() if k not in dropped}


def _capitalised_before(text: str, at: int) -> tuple[str, int] | None:
    """The capitalised word ("Bay") that the spaces before ``at`` follow, and where it starts; none at
    the text's start or right after a sentence's end. What ``(?<![.!?]\\s)(?<!^)(?<=\\S\\s)([A-Z][a-z]+)\\s+$``
    finds in ``text[:at]``, read back from ``at``: it costs the word's length, not the text's."""
    i = at
    while i > 0 and text[i - 1].isspace():
        i -= 1
    j = i
    while j > 0 and "a" <= text[j - 1] <= "z":
        j -= 1
    k = j - 1  # the capital
    if i == at or j == i or k < 2 or not "A" <= text[k] <= "Z":
        return None
    if text[k - 2].isspace() or not text[k - 1].isspace() or text[k - 2] in ".!?":
        return None
    return text[k:i], k


def _whole_name(text: str, name: str, units: dict[int, int]) -> str | None:
    """The first ``name`` in ``text`` with the capitalised words right before and after it ("Bodega
    Bay" for "Bay"): what ``(?:[A-Z][a-z]+\\s+)*NAME(?:\\s+[A-Z][a-z]+)*`` finds searching ``text``.
    The search would try that at every character, backtracking through each run of capitalised words
    (a title-case text's length squared); the match starts where the capitalised words before some
    ``name`` begin (``units``: the end of each capitalised word with its spaces -> its start), so it is
    tried there alone."""
    first = -1
    at = text.find(name)
    while at >= 0:
        start = at
        while start in units:
            start = units[start]
        first = start if first < 0 else min(first, start)
        at = text.find(name, at + 1)
    if first < 0:
        return None
    whole = re.compile(rf"(?:[A-Z][a-z]+\s+)*{re.escape(name)}(?:\s+[A-Z][a-z]+)*").match(text, first)
    return whole.group(0) if whole else None


def capitalised_units(text: str) -> dict[int, int]:
    """Where each capitalised word with the spaces after it ends -> where it starts."""
    return {m.end(1): m.start() for m in _UNIT.finditer(text)}


def _tagged_unknown(slots: Slots, spans: Sequence[tuple[str, int, int]], text: str) -> None:
    """Places the tagger found that the catalogue does not know ("El Sobrante", "Yountville"): unknown
    places, which the traveller is asked about, or a forecast looks up by name."""
    for label, s, e in spans:
        name = text[s:e].strip(" ,.")
        if (
            label in _PLACE_LABELS
            and len(name) >= 3
            and name[:1].isupper()
            and not any(p.start < e and s < p.end for p in slots.places)
            and not any(fold(name) in fold(u) for u in slots.unknown_places)
            and not slots.countries
        ):
            # "Bodega Bay" replaces the "Bodega" the rules found in it.
            slots.unknown_places = [u for u in slots.unknown_places if fold(u) not in fold(name)]
            slots.unknown_places.insert(0, name)


def _assign_roles(text: str, slots: Slots, spans: Sequence[tuple[str, int, int]] = ()) -> None:
    lowered = text.lower()
    roles: list[str | None] = []
    for p in slots.places:
        before = lowered[max(0, p.start - 14) : p.start]
        tagged = next(
            (
                label
                for label, s, e in spans
                if label in ("origin", "destination") and s < p.end and p.start < e
            ),
            None,
        )
        if _ORIGIN_MARK.search(before):
            roles.append("origin")
        elif _DEST_MARK.search(before):
            roles.append("destination")
        else:
            roles.append(tagged)  # "depart New York and arrive San Diego": the tagger read the roles
    if (
        len(slots.places) >= 2
        and all(r is None for r in roles)
        and all(
            _COMPARE_GLUE.match(lowered[a.end : b.start])
            for a, b in zip(slots.places, slots.places[1:], strict=False)
        )
    ):
        slots.compared = True  # "Rome or Paris in spring?": no role for either
        slots.places = [PlaceMention(p.place, p.text, p.start, p.end, None) for p in slots.places]
        return
    # "LON-PAR", "London to Paris", "lon par": the first of a pair is the origin.
    for i in range(len(slots.places) - 1):
        a, b = slots.places[i], slots.places[i + 1]
        glue = lowered[a.end : b.start]
        if (_PAIR_GLUE.match(glue) or not glue.strip()) and roles[i] != "destination":
            slots.route_pair = True
            roles[i] = roles[i] or "origin"
            roles[i + 1] = (
                "destination" if roles[i + 1] is None or roles[i + 1] == "destination" else roles[i + 1]
            )
    if len(slots.places) == 2 and roles == ["destination", "destination"]:
        # "flights in Los Angeles ... to Las Vegas": of two places, the one "to" points at is where the
        # trip goes; the other is where it starts.
        marks = [lowered[max(0, p.start - 14) : p.start] for p in slots.places]
        to = [i for i, m in enumerate(marks) if re.search(r"\b(?:to|into|towards)\s*$", m)]
        if len(to) == 1:
            roles[1 - to[0]] = "origin"
    if len(slots.places) == 2 and roles.count(None) == 1:
        missing = roles.index(None)
        roles[missing] = "destination" if "origin" in roles else "origin"
    elif len(slots.places) == 2 and roles == [None, None]:
        roles = ["origin", "destination"]
    slots.places = [
        PlaceMention(p.place, p.text, p.start, p.end, r) for p, r in zip(slots.places, roles, strict=True)
    ]
    origins = [p for p in slots.places if p.role == "origin"]
    dests = [p for p in slots.places if p.role == "destination"]
    slots.origin = origins[0] if origins else None
    slots.destination = next(
        (d for d in dests if not slots.origin or d.place.city_code != slots.origin.place.city_code), None
    )
    if slots.destination is None and len(slots.places) == 1 and slots.origin is None:
        slots.destination = slots.places[0]


def _travellers(lowered: str, slots: Slots) -> None:
    adults = _ADULTS.search(lowered) or _SEATS.search(lowered)
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
