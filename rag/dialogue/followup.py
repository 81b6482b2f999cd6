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

from rag.dialogue import phrasing
from rag.dialogue.trip import ToolRequest
from rag.routing.config import ToolRoute
from rag.routing.extract import Slots
from rag.routing.shifts import Shift
from rag.routing.slot_kinds import START_SLOTS, SlotKind
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
    actually oops sorry hmm wait make it change switch move push put works work better prefer can could do
    you check look search find show again se si wenn if
    would we departure return leave leaving outbound inbound check out checkout back come coming home go
    going get getting instead lets shall fine that's thats
    alright all right yea yeah yep yes cool thanks thank great good sounds nice perfect well sure awesome hmm
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
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?|\d+")
# A question of its own, not "what about ...?" or "how about ...?".
_QUESTION = re.compile(
    r"^\W*(?:(?:what|how)(?!\s+about\b)|is|are|was|were|do|does|did|can|could|should|would|will|why|when|where"
    r"|which|who|qu[eé]|c[oó]mo|d[oó]nde|cu[aá]ndo|es|est-ce|quel(?:le)?s?|comment|o[uù]|pourquoi|was|wie|wo"
    r"|wann|ist|sind|o que|como|onde|quando|cosa|come|dove|quando|perch[eé])\b"
)


@dataclass
class FollowUp:
    """What a follow-up message asks for: the calls to make, or that it could not be applied."""

    requests: list[ToolRequest] = field(default_factory=list)
    assumed: dict[str, list[str]] = field(default_factory=dict)  # tool -> params from the conversation
    named: list[str] = field(default_factory=list)  # tools the message named ("and the weather?")
    shift: Shift | None = None  # how the dates moved
    unadapted: list[str] = field(default_factory=list)  # last calls the change does not apply to


@dataclass(frozen=True, slots=True)
class Shape:
    named: list[str]
    shift: Shift | None
    changes: bool  # whether the message changes a place, dates, travellers or the like
    again: bool = False  # it asks for other results of the same search ("anything else?")
    other: bool = False  # it says more than what it changes and the words a follow-up is made of


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
    shifted = slots.shift
    if shifted is not None:
        spans.append((shifted.start, shifted.end))
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
    alternatives = phrasing.asks_again(text)
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
    # "Something fun for a Sunday?", "Copenhagen afterwards - what's good there?": a question of its
    # own, no change of the search ("what about Porto?" and "can you check from Rome instead?" are).
    last = re.split(r"(?<=[.!?])\s+", lowered.strip())[-1]
    asked = lowered.rstrip().endswith("?") and not slots.shift and not phrasing.changes_asked(last)
    if other and not alternatives and not named and (_QUESTION.match(lowered) or not changes or asked):
        return None
    return Shape(named, shifted, changes, alternatives, other)


def adapt(
    base: ToolRequest,
    route: ToolRoute,
    slots: Slots,
    shift: Shift | None,
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
    starts = [p for p, s in route.params.items() if s in START_SLOTS]
    ends = [p for p, s in route.params.items() if s == SlotKind.END_DATE]
    counts = [p for p, s in route.params.items() if s == SlotKind.NIGHTS]
    if any(p in fresh for p in starts):
        old_start = _date(next((params.get(p) for p in starts if p in params), None))
        old_end = _date(next((params.get(p) for p in ends if p in params), None))
        new_start = _date(next(fresh[p] for p in starts if p in fresh))
        stay = bool(counts)  # a stay keeps its length; a trip keeps its return while it still follows
        if old_end is not None and new_start is not None and old_end > new_start and not (stay and old_start):
            pass  # "returning the 11th" said first, or the departure moved before the return: both stay
        else:
            for p in ends:
                params.pop(p, None)
            if not any(p in fresh for p in (*ends, *counts)) and old_start and old_end and new_start:
                for p in ends:  # the same length of stay from the new day
                    params[p] = (new_start + (old_end - old_start)).isoformat()
    elif shift:
        moved = shifted(params, route, shift)
        if moved is None:
            return None
        params = moved
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
    kept = [p for p in params if p not in fresh and not (shift and p in (*starts, *ends, *counts))]
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
        if adapted is None and route is not None and _restates(call, route, slots):
            adapted = dict(call.params), list(call.params)  # "Back on the 8th." when it is: the same search
        if adapted is None:
            out.unadapted.append(call.name)
            continue
        out.requests.append(ToolRequest(name=call.name, params=adapted[0]))
        out.assumed[call.name] = adapted[1]
    return out


def shifted(params: Mapping[str, Any], route: ToolRoute, shift: Shift) -> dict[str, Any] | None:
    """``params`` with their dates moved as ``shift`` says, by the slots of ``route``: the whole trip, its
    start, its end (from the start when there is none yet: "return a week later"), or its nights (a
    count of nights, else the end); None when the call has nothing the shift moves."""
    out = dict(params)
    starts = [p for p, s in route.params.items() if s in START_SLOTS and _date(out.get(p))]
    ends = [p for p, s in route.params.items() if s == SlotKind.END_DATE and _date(out.get(p))]
    counts = [p for p, s in route.params.items() if s == SlotKind.NIGHTS and isinstance(out.get(p), int)]
    step = dt.timedelta(days=shift.days)
    moved = False
    if shift.target in ("both", "start"):
        for p in starts:
            out[p] = (_day(out[p]) + step).isoformat()
            moved = True
    if shift.target in ("both", "end"):
        for p in ends:
            out[p] = (_day(out[p]) + step).isoformat()
            moved = True
        if shift.target == "end" and not ends and not counts and starts:
            first = _day(params[starts[0]])
            for p in [p for p, s in route.params.items() if s == SlotKind.END_DATE][:1]:
                out[p] = (first + step).isoformat()  # "return a week later": the first day's week
                moved = True
    if shift.target == "nights" or (shift.target == "end" and counts and not ends):
        for p in counts:
            out[p] = max(1, int(out[p]) + shift.days)
            moved = True
        if not counts:
            for p in ends:
                out[p] = (_day(out[p]) + step).isoformat()
                moved = True
    if shift.target == "start" and ends and starts and _day(out[starts[0]]) >= _day(out[ends[0]]):
        return None  # a start moved past the end: not a change to guess at
    return out if moved else None


def _day(value: Any) -> dt.date:
    day = _date(value)
    assert day is not None
    return day


def _restates(call: ToolRequest, route: ToolRoute, slots: Slots) -> bool:
    """Whether the message says again what the search has ("back on the 8th" when it returns the 8th)."""
    fresh = build_params(route, slots, {})
    return bool(fresh) and all(call.params.get(p) == v for p, v in fresh.items())


def _answering(
    fresh: dict[str, Any], have: Mapping[str, Any], route: ToolRoute, missing: Sequence[str] | None = None
) -> dict[str, Any]:
    """A place the message gives moved to the place parameter still missing, when the one the
    extractor put it in is already known; a day moved to the end date still missing ("When do you come
    back?" "March 9th"), when the first day is known and this one comes after it. ``missing``: what the
    request still lacks (its required parameters by default)."""
    needed = list(missing) if missing is not None else list(route.required)
    wanted = [p for p in needed if route.params.get(p) in PLACE_SLOTS and have.get(p) in (None, "")]
    ends = [p for p in needed if route.params.get(p) == SlotKind.END_DATE and have.get(p) in (None, "")]
    starts = [p for p, s in route.params.items() if s in START_SLOTS]
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
    origin = next((params.get(p) for p, s in route.params.items() if s == SlotKind.ORIGIN), None)
    destination = next((params.get(p) for p, s in route.params.items() if s == SlotKind.DESTINATION), None)
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
