"""Follow-ups: a message that only changes the last search ("what about Porto?", "same dates but for 2
adults", "the day after instead", "and the weather there?"), and the calls it stands for. Pure.

A follow-up has no tool intent of its own (the router chose none) and, once its places, dates,
travellers and a few filler words ("and", "what about", "same dates but", "instead", in the six
languages) are set aside, says nothing else: "Is Porto nice in spring?" names a place but asks
something else, so it is no follow-up. The last calls are then re-run with what the message changes;
a change that no last call takes is not guessed at: the caller asks instead.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rag.dialogue.trip import ToolRequest
from rag.routing.config import ToolRoute
from rag.routing.extract import Slots
from rag.routing.slots import PLACE_SLOTS, build_params

# Words a follow-up may hold besides what it changes: joins, "what about", "same dates", "instead",
# traveller and stay words whose numbers the extractor reads, in en/es/fr/de/pt/it.
_FILLER = frozenset(
    """
    and what about how if same dates date but for from instead rather then ok okay please there with also
    maybe try now just only the a an in to at on of so let's lets us me we i what's how's those that
    this these one adults adult people persons travellers travelers guests kids children child nights
    night stay trip search business economy premium first class direct nonstop
    non stop under below cheaper than less max budget euros euro dollars dollar pounds pound
    y qué que tal en para a el la los las lo mismas mismos mismo misma fechas pero con entonces mejor
    adultos personas noches niños de del al desde por favor allí ahí ese esa esos esas cambio vez
    et à pour le les mêmes même dates mais avec alors plutôt adultes personnes nuits enfants quoi sur
    au aux du des un une là-bas là place s'il plaît depuis
    und in für nach was ist mit gleiche gleichen gleichen daten aber dann lieber stattdessen
    erwachsene personen nächte kinder wie wäre es dort bitte mal von ab
    e em para o os as no na nos nas mesmas mesmos datas mas com então adultos pessoas noites crianças
    lá ali vez disso quanto
    per le stesse stessi date ma con allora invece adulti persone notti bambini ne dici di lì là da
    actually oops sorry hmm wait make it change switch move push put works work better prefer can could
    would we departure return leave leaving outbound inbound check out checkout back come coming home go
    going get getting instead lets shall fine that's thats
    en realidad perdona perdón cambia cambiar prefiero regreso vuelta ida salida volver vale mejor día dia
    finalement fait pardon oups change changer décale décaler retour départ depart partir pars au le
    eigentlich doch ändere ändern verschieb verschiebe rückflug hinflug abflug rückreise zurück am um einen
    hinten vorne lieber
    anzi meglio cambia piuttosto ritorno partenza partiamo torniamo al il
    na verdade muda mudar prefiro volta partida só até dia no
    """.split()
)
_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "un": 1, "una": 1, "uno": 1, "une": 1, "um": 1, "ein": 1, "eine": 1, "einen": 1, "einem": 1,
    "dos": 2, "deux": 2, "zwei": 2, "dois": 2, "duas": 2, "due": 2,
    "tres": 3, "trois": 3, "drei": 3, "três": 3, "tre": 3,
}  # fmt: skip
_N = r"(\d+|a|an|one|two|three|un|una|une|um|uma|ein|eine|einen|dos|deux|zwei|dois|duas|due|tres|trois|drei|três|tre)"
_LATER = r"(later|after|afterwards|m[aá]s\s+tarde|despu[eé]s|plus\s+tard|apr[eè]s|sp[aä]ter|danach|mais\s+tarde|depois|dopo|pi[uù]\s+tardi)"
_EARLIER = (
    r"(earlier|before|sooner|antes|m[aá]s\s+temprano|plus\s+t[oô]t|avant|fr[uü]her|davor|mais\s+cedo|prima)"
)
_UNIT = r"(days?|weeks?|d[ií]as?|semanas?|jours?|semaines?|tage?n?|wochen?|giorn[oi]|settiman[ae])"
_SHIFTS: list[tuple[re.Pattern[str], int | None]] = [
    (re.compile(rf"\b{_N}\s+{_UNIT}\s+{_LATER}\b"), None),
    (re.compile(rf"\b{_N}\s+{_UNIT}\s+{_EARLIER}\b"), None),
    (re.compile(r"\b(?:the\s+)?(?:next|following)\s+day\b|\bthe\s+day\s+after\b(?!\s+tomorrow)"), 1),
    (re.compile(r"\bthe\s+day\s+before\b"), -1),
    (re.compile(r"\bel\s+d[ií]a\s+(?:siguiente|despu[eé]s)\b|\ble\s+lendemain\b|\bo\s+dia\s+(?:seguinte|depois)\b"), 1),
    (re.compile(r"\bil\s+giorno\s+(?:dopo|seguente)\b|\bam\s+(?:n[aä]chsten\s+tag|tag\s+danach|folgetag)\b"), 1),
    (re.compile(r"\bel\s+d[ií]a\s+(?:anterior|antes)\b|\bla\s+veille\b|\bo\s+dia\s+(?:anterior|antes)\b"), -1),
    (re.compile(r"\bil\s+giorno\s+(?:prima|precedente)\b|\bam\s+(?:vortag|tag\s+davor)\b"), -1),
]  # fmt: skip
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?|\d+")
# A question of its own, not "what about ...?" or "how about ...?".
_QUESTION = re.compile(
    r"^\W*(?:(?:what|how)(?!\s+about\b)|is|are|was|were|do|does|did|can|could|should|would|will|why|when|where"
    r"|which|who|qu[eé]|c[oó]mo|d[oó]nde|cu[aá]ndo|es|est-ce|quel(?:le)?s?|comment|o[uù]|pourquoi|was|wie|wo"
    r"|wann|ist|sind|o que|como|onde|quando|cosa|come|dove|quando|perch[eé])\b"
)
# Asking for other results of the same search.
_ALTERNATIVES = re.compile(
    r"\b(?:another|something else|anything else|other (?:options?|ones?|flights?|hotels?|choices?|results?)"
    r"|something different|different (?:one|flight|hotel|option)|more options|otra|otro|algo m[aá]s|autre"
    r"|quelque chose d'autre|andere[sn]?|noch etwas|outra|outro|algo mais|altr[oaie]|qualcos'altro)\b"
)


@dataclass
class FollowUp:
    """What a follow-up message asks for: the calls to make, or that it could not be applied."""

    requests: list[ToolRequest] = field(default_factory=list)
    assumed: dict[str, list[str]] = field(default_factory=dict)  # tool -> params from the conversation
    named: list[str] = field(default_factory=list)  # tools the message named ("and the weather?")
    shift: int | None = None  # days the dates moved
    unadapted: list[str] = field(default_factory=list)  # last calls the change does not apply to


@dataclass(frozen=True, slots=True)
class Shape:
    named: list[str]
    shift: int | None
    changes: bool  # whether the message changes a place, dates, travellers or the like
    again: bool = False  # it asks for other results of the same search ("anything else?")


def date_shift(text: str) -> tuple[int, tuple[int, int]] | None:
    """Days a message moves the dates by ("the day after instead": 1, "a week earlier": -7), and where."""
    lowered = text.lower()
    for pattern, days in _SHIFTS:
        m = pattern.search(lowered)
        if not m:
            continue
        if days is not None:
            return days, m.span()
        n = _number(m.group(1))
        if n is None:
            continue
        unit = 7 if m.group(2)[:3] in ("wee", "sem", "woc", "set") else 1
        sign = -1 if re.fullmatch(_EARLIER, m.group(3)) else 1
        return sign * n * unit, m.span()
    return None


def asks_a_question(text: str) -> bool:
    """Whether ``text`` opens with a question of its own ("Is Porto nice?", not "what about Porto?")."""
    return bool(_QUESTION.match(text.lower()))


def shape(
    text: str, slots: Slots, nouns: Mapping[str, str], unknown_places: Sequence[str] = ()
) -> Shape | None:
    """Whether ``text`` is shaped as a follow-up: None when it says more than what it changes.

    It says more when it asks a question of its own ("Is Porto nice in spring?"), or holds other words
    and changes nothing. A request that changes the search ("Find me something to New York", "I'd
    rather leave on the 8th") or asks for alternatives ("anything else?", "another one in economy")
    is one, whatever its other words. ``nouns``: the words that name a tool in a short follow-up
    ("weather" -> its tool), the declarations' ``nouns`` in every language."""
    spans = [(p.start, p.end) for p in slots.places] + [(d.start, d.end) for d in slots.dates]
    shifted = date_shift(text)
    if shifted is not None:
        spans.append(shifted[1])
    lowered = text.lower()
    for name in unknown_places:
        at = lowered.find(name.lower())
        if at >= 0:
            spans.append((at, at + len(name)))
    named: list[str] = []
    other = False
    for m in _WORD.finditer(lowered):
        if any(s <= m.start() < e for s, e in spans):
            continue
        word = m.group(0).replace("’", "'")
        if word in _FILLER or word.isdigit() or word in _NUMBER_WORDS:
            continue
        tool = nouns.get(word)
        if tool is None:
            other = True
        elif tool not in named:
            named.append(tool)
    alternatives = bool(_ALTERNATIVES.search(lowered))
    changes = alternatives or bool(
        slots.places
        or slots.dates
        or shifted
        or unknown_places
        or any(
            getattr(slots, n) is not None
            for n in ("adults", "children", "infants", "nights", "cabin", "max_price", "category", "airline")
        )
        or slots.nonstop
        or slots.rooms is not None
    )
    if other and not alternatives and not named and (_QUESTION.match(lowered) or not changes):
        return None
    return Shape(named, shifted[0] if shifted else None, changes, alternatives)


def adapt(
    base: ToolRequest,
    route: ToolRoute,
    slots: Slots,
    shift: int | None,
    *,
    pending: bool = False,
    again: bool = False,
    missing: Sequence[str] | None = None,
) -> tuple[dict[str, Any], list[str]] | None:
    """``base``'s parameters changed as the message says, and those kept from ``base``; None when the
    message changes nothing this tool takes (a shift of a call without dates, travellers for a forecast).

    ``pending``: ``base`` waits for a place the assistant asked about, so a place named alone answers
    that question ("London" after "where are you flying from?") instead of replacing the one it has.
    ``again``: the traveller asked for other results ("anything else?"): the same search is made again
    even when nothing changes."""
    fresh = build_params(route, slots, {})
    if pending:
        fresh = _answering(fresh, base.params, route, missing)
    params = dict(base.params)
    starts = [p for p, s in route.params.items() if s in ("start_date", "start_or_month")]
    ends = [p for p, s in route.params.items() if s == "end_date"]
    counts = [p for p, s in route.params.items() if s == "nights"]
    if any(p in fresh for p in starts):
        old_start = _date(next((params.get(p) for p in starts if p in params), None))
        old_end = _date(next((params.get(p) for p in ends if p in params), None))
        new_start = _date(next(fresh[p] for p in starts if p in fresh))
        if old_start is None and old_end is not None and new_start is not None and old_end > new_start:
            pass  # the end was said first ("returning the 11th"), the first day now: both stay
        else:
            for p in ends:
                params.pop(p, None)
        if (
            not any(p in fresh for p in ends)
            and not any(p in fresh for p in counts)
            and old_start
            and old_end
            and new_start
        ):
            for p in ends:  # the same length of stay from the new day
                params[p] = (new_start + (old_end - old_start)).isoformat()
    elif shift:
        moved = False
        for p in (*starts, *ends):
            day = _date(params.get(p))
            if day is not None:
                params[p] = (day + dt.timedelta(days=shift)).isoformat()
                moved = True
        if not moved:
            return None
    if any(p in fresh for p in counts) and not any(p in fresh for p in ends):
        for p in ends:
            params.pop(p, None)
    params.update(fresh)
    if any(p in params for p in ends):
        for p in counts:
            params.pop(p, None)  # an end date and a count of nights: the date wins
    if _same_place(params, route):
        return None
    if params == base.params and not again:
        return None
    kept = [p for p in params if p not in fresh and not (shift and p in (*starts, *ends))]
    return params, kept


def interpret(
    shape_: Shape,
    slots: Slots,
    last: Sequence[ToolRequest],
    routes: Mapping[str, ToolRoute],
    *,
    pending: bool = False,
) -> FollowUp:
    """The calls a follow-up stands for: the tools it names, else the last calls, changed as it says.

    ``pending``: ``last`` are tools still waiting for details, which go on waiting (the caller asks
    again) when the message does not give them."""
    out = FollowUp(named=list(shape_.named), shift=shape_.shift)
    if shape_.named:
        # "and the weather there?": "there" is the trip's place now, which the caller completes from.
        for name in shape_.named:
            route = routes.get(name)
            if route is not None:
                out.requests.append(ToolRequest(name=name, params=build_params(route, slots, {})))
                out.assumed[name] = []
        return out
    for call in last:
        route = routes.get(call.name)
        adapted = (
            adapt(call, route, slots, shape_.shift, pending=pending, again=shape_.again)
            if route is not None
            else None
        )
        if adapted is None and pending and route is not None:
            adapted = dict(call.params), list(call.params)
        if adapted is None:
            out.unadapted.append(call.name)
            continue
        out.requests.append(ToolRequest(name=call.name, params=adapted[0]))
        out.assumed[call.name] = adapted[1]
    return out


def _answering(
    fresh: dict[str, Any], have: Mapping[str, Any], route: ToolRoute, missing: Sequence[str] | None = None
) -> dict[str, Any]:
    """A place the message gives moved to the place parameter still missing, when the one the
    extractor put it in is already known; a day moved to the end date still missing ("When do you come
    back?" "March 9th"), when the first day is known and this one comes after it. ``missing``: what the
    request still lacks (its required parameters by default)."""
    needed = list(missing) if missing is not None else list(route.required)
    wanted = [p for p in needed if route.params.get(p) in PLACE_SLOTS and have.get(p) in (None, "")]
    ends = [p for p in needed if route.params.get(p) == "end_date" and have.get(p) in (None, "")]
    starts = [p for p, s in route.params.items() if s in ("start_date", "start_or_month")]
    for p in starts:
        first = _date(have.get(p))
        day = _date(fresh.get(p))
        if (
            ends
            and first is not None
            and day is not None
            and day > first
            and not any(e in fresh for e in ends)
        ):
            fresh = {**{k: v for k, v in fresh.items() if k != p}, ends[0]: fresh[p]}
    out = dict(fresh)
    for p in list(out):
        if (
            wanted
            and route.params.get(p) in PLACE_SLOTS
            and have.get(p) not in (None, "")
            and p not in wanted
        ):
            out[wanted.pop(0)] = out.pop(p)
    return out


def _same_place(params: Mapping[str, Any], route: ToolRoute) -> bool:
    """ "from Paris to Paris": the tool's origin and destination, as its slots name them, are one place."""
    origin = next((params.get(p) for p, s in route.params.items() if s == "origin"), None)
    destination = next((params.get(p) for p, s in route.params.items() if s == "destination"), None)
    return bool(origin) and origin == destination


def _date(value: Any) -> dt.date | None:
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            return None
    return None


def _number(word: str) -> int | None:
    return int(word) if word.isdigit() else _NUMBER_WORDS.get(word)
