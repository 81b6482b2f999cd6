"""Which tools to call and what to ask, for one message in its conversation. Pure.

One function of the router's decision and the trip state decides it, for the chat and for /v1/route:

1. The message's own tools: those complete are called; those missing parameters take them from the
   trip (destination, dates, travellers), and what was taken is said ("I assumed ... from our
   conversation"). A place the catalogue does not know, or a date that cannot be read, is never
   replaced by the trip's: the traveller meant something else, so they are asked.
2. Otherwise a follow-up (rag.dialogue.followup) re-runs the last calls, or the ones still waiting for
   details, with what it changes.
3. A date in the past is asked about, never sent. An intent is never dropped: a tool asked for is
   either called or named in a clarifying question.
4. The forecast follows the days asked about, the message's or the trip's (rag.dialogue.forecast): it covers
   them within its horizon; beyond it no call is made, a note says when the forecast becomes available
   and ``climate`` asks the guides for that month's climate instead.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rag.dialogue import followup
from rag.dialogue.forecast import (
    Climate,
    Window,
    asked_span,
    climate,
    fit,
    full_date,
    later_note,
    params_span,
)
from rag.dialogue.trip import ToolRequest, TripState, complete_params, shift_trip, update_trip
from rag.i18n import join_list, message
from rag.routing.config import ToolRoute
from rag.routing.dates import DateMention
from rag.routing.extract import Slots
from rag.routing.months import last_day
from rag.routing.router import RouteDecision, ask_phrase, place_option
from rag.routing.slots import DATE_SLOTS, FREE_PLACE_SLOTS, PLACE_SLOTS
from rag.tools.catalog import ToolCatalogue
from rag.tools.spec import ToolSpec

_MONTH = (
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|enero|febrero|marzo|abril|mayo|junio|julio|agosto|"
    r"septiembre|octubre|noviembre|diciembre|janvier|février|fevrier|mars|avril|mai|juin|juillet|août|aout|"
    r"septembre|octobre|novembre|décembre|januar|februar|märz|maerz|juni|juli|oktober|dezember|janeiro|"
    r"fevereiro|março|maio|junho|julho|setembro|outubro|novembro|dezembro|gennaio|febbraio|aprile|maggio|"
    r"giugno|luglio|settembre|ottobre|dicembre)[a-zé]*\.?"
)
# Date-like text: if the extractor read no date there, it is a date that does not exist ("February 30").
_DATE_LIKE = re.compile(
    rf"\b\d{{4}}-\d{{1,2}}-\d{{1,2}}\b|\b\d{{1,2}}(?:st|nd|rd|th|er|º|\.)?\s+(?:de\s+|of\s+)?{_MONTH}(?!\w)"
    rf"|\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class ToolSpecs:
    """What the plan needs to know of the tools: their routes (required parameters, slots, as the
    routing configuration may override them) and their declarations (what each takes from the trip,
    how far ahead its results reach, its words)."""

    routes: Mapping[str, ToolRoute]
    declared: ToolCatalogue


@dataclass
class PlannedCall:
    name: str
    params: dict[str, Any]
    assumed: list[str]  # parameters taken from the conversation, not from this message
    confidence: float
    via: str  # the router's layer, "conversation" (completed from the trip) or "followup"

    def to_json(self) -> dict[str, Any]:
        """As /v1/route lists a tool (``assumed`` only when the conversation filled something)."""
        out = {
            "name": self.name,
            "params": self.params,
            "confidence": round(self.confidence, 4),
            "via": self.via,
        }
        if self.assumed:
            out["assumed"] = self.assumed
        return out


@dataclass
class Plan:
    trip: TripState  # the trip after this message; the chat stores it, /v1/route does not
    calls: list[PlannedCall] = field(default_factory=list)
    waiting: dict[str, list[str]] = field(default_factory=dict)  # tool -> parameters to ask for
    questions: list[str] = field(default_factory=list)
    followup: bool = False
    assumed_note: str | None = None
    # Sentences said before the answer ("The forecast for April 2027 becomes available around ..."),
    # in the traveller's language, and the guides' climate to search when a forecast cannot answer yet.
    notes: list[str] = field(default_factory=list)
    climate: Climate | None = None

    @property
    def clarify(self) -> str | None:
        return " ".join(self.questions) or None

    def remember(self, made: list[str]) -> TripState:
        """The trip with ``made`` (the calls that went out) as the calls a follow-up will change."""
        if not made:
            return self.trip
        last = [
            ToolRequest(name=c.name, params=c.params, turn=self.trip.turn or 0)
            for c in self.calls
            if c.name in made
        ]
        return self.trip.model_copy(update={"last_calls": last})


Request = tuple[str, dict[str, Any], list[str], float, str]  # name, params, assumed, confidence, via
# Messages a waiting request stays for without being answered or asked again.
PENDING_TURNS = 4
# Places (besides an origin) in one message past which a search for one place asks which one.
CROWDED_PLACES = 3
# Slots that take the one place a search is about.
_ONE_PLACE = frozenset({"destination", "route_destination", "place", "place_name"})


def plan(decision: RouteDecision, trip: TripState, specs: ToolSpecs, today: dt.date, lang: str) -> Plan:
    """The calls to make and the questions to ask for one message, given its conversation's trip."""
    slots = decision.slots or Slots()
    proposed, trip = (
        trip.proposed_date,
        trip.model_copy(update={"turn": (trip.turn or 0) + 1, "proposed_date": None}),
    )
    reply = _reply(slots.text)
    if reply == "yes" and proposed is not None and not slots.dates:
        # "Do you mean 5 December?" "Yes": the day proposed, as if the traveller had said it.
        slots = dataclasses.replace(slots, dates=[DateMention(0, 0, proposed)])
        decision = dataclasses.replace(decision, slots=slots)
    before = trip
    asked = asked_slots(trip, specs)
    if (
        "end_date" in asked
        and "start_date" not in asked
        and trip.start_date is not None
        and len(slots.dates) == 1
        and not slots.end_marked
        and slots.dates[0].last is None
        and slots.dates[0].first > trip.start_date
    ):
        # "When do you come back?" "March 9th.": the day answers the question asked.
        slots = dataclasses.replace(slots, end_marked=frozenset({0}))
        decision = dataclasses.replace(decision, slots=slots)
    if decision.slots is not None:
        trip = update_trip(trip, slots, lone_place=_asked_place(trip, specs))
    # A day of this month that has passed, said alone (with "December 3" beside it, "the 10th" is plain).
    rolled = next((d for d in slots.dates if d.rolled), None) if len(slots.dates) == 1 else None
    if rolled is not None:
        # "the 5th" on the 21st: this month's has passed; next month's is asked about, not assumed.
        trip = trip.model_copy(
            update={
                "start_date": before.start_date,
                "end_date": before.end_date,
                "proposed_date": rolled.first,
            }
        )
    if slots.start_date is not None and slots.start_date < today:
        # Days that have passed are refused, and do not replace the trip's.
        trip = trip.model_copy(
            update={k: getattr(before, k) for k in ("start_date", "end_date", "nights", "month")}
        )
    dated = trip  # with its dates, even begun ones: a forecast covers what is left of a trip
    if trip.start_date is not None and trip.start_date < today:
        trip = trip.model_copy(update={"start_date": None, "end_date": None})  # never a trip's date
    if trip.month is not None and last_day(trip.month) < today:
        trip = trip.model_copy(update={"month": None})
    out = Plan(trip=trip)
    unknown = list(decision.unknown_places)
    unread = [m.group(0) for m in _DATE_LIKE.finditer(slots.text) if not _read(m.span(), slots)]
    requests, answered = _requests(decision, slots, unknown, specs, lang, out)
    # "Springfield": several comparable places; which one is the traveller's to say, as for an unknown one.
    ambiguous = list(slots.ambiguous_places)
    unsure = unknown or ambiguous
    if unknown:
        place_question = message(lang, "unknown_place", name=unknown[0])
    elif ambiguous:
        options = [place_option(p) for p in slots.ambiguous_places[ambiguous[0]]]
        place_question = message(lang, "ambiguous_place", name=ambiguous[0], options=join_list(lang, options))
    else:
        place_question = ""
    named_places = [p.place.city_name for p in slots.places if p.role != "origin"]
    crowded = len(named_places) >= CROWDED_PLACES
    if crowded:
        out.questions.append(
            message(lang, "many_places", count=len(named_places), places=join_list(lang, named_places))
        )
        out.trip = out.trip.model_copy(
            update={"destination": before.destination, "destination_name": before.destination_name}
        )
    time = _Time(slots, dated, _about_trip(slots, before, unsure), today, lang, crowded)
    same = slots.origin is not None and slots.destination is None and _same_place(slots)
    if rolled is not None:  # not sent until the traveller says which day they mean
        day = rolled.first.isoformat()
        requests = [(n, {p: v for p, v in ps.items() if v != day}, a, c, v) for n, ps, a, c, v in requests]
    pending, passed = _settle(requests, specs, unsure, bool(unread) or rolled is not None, time, out)
    if same and slots.origin is not None:
        out.questions.append(message(lang, "same_place", place=slots.origin.place.city_name))
    if rolled is not None and out.waiting:
        day = _ordinal(rolled.first.day, lang)
        out.questions.append(message(lang, "rolled_date", day=day, date=full_date(rolled.first, lang)))
    out.questions += _questions(
        out.waiting, specs, unsure, place_question, unread, passed, lang, proposed=rolled is not None
    )
    if reply and not requests and not out.questions and not before.pending and proposed is None:
        out.questions.append(message(lang, "nothing_pending"))  # "yes" to nothing asked
    # What waits for details is what a next "Rome" or "May 5" completes. An intent stays until it is
    # done (called), asked again, replaced by a new one for its tool, or left unanswered for a while.
    settled = {r[0] for r in requests}
    kept = [
        p
        for p in before.pending or []
        if p.name not in settled and p.name not in answered and (trip.turn or 0) - p.turn < PENDING_TURNS
    ]
    pending = [p.model_copy(update={"turn": trip.turn or 0}) for p in pending]
    out.trip = out.trip.model_copy(update={"pending": [*kept, *pending] or None})
    out.assumed_note = _assumed_note(out.calls, out.trip, specs.routes, lang)
    return out


def _requests(
    decision: RouteDecision, slots: Slots, unknown: list[str], specs: ToolSpecs, lang: str, out: Plan
) -> tuple[list[Request], set[str]]:
    """The tools this message asks for, and the waiting ones it answered.

    A message that gives what a waiting tool lacks ("I'd leave from Vancouver on the 3rd", "Seattle",
    "two rooms") answers it, whatever else it says; a tool the router picked from its words alone (not
    a command or a keyword) is then the answer misread, and is left out. Otherwise the message's own
    tools, else those a follow-up stands for (then ``out`` is marked a follow-up, its trip shifted, or
    a question asked when the follow-up does not apply)."""
    own: list[Request] = [(t.name, dict(t.params), [], t.confidence, t.via) for t in decision.tools]
    own += [(n, dict(decision.partial.get(n, {})), [], 1.0, "conversation") for n in decision.missing]
    waiting = {p.name: p for p in out.trip.pending or []}
    # A tool asked for outright (a command, the LLM, or the classifier sure of it) takes the message's
    # values; one found from a keyword alone ("anywhere in New York" is no inspiration search) yields to
    # an answer to what the assistant asked, as a tool scored lower does.
    named = [r for r in own if decision.vias.get(r[0]) in ("command", "llm", "semantic")]
    answers: list[Request] = []
    if decision.slots is not None and not named:
        for p in waiting.values():
            route = specs.routes.get(p.name)
            if route is None:
                continue
            adapted = followup.adapt(
                p, route, slots, None, pending=True, missing=_missing(p, route, out.trip)
            )
            if adapted is not None and not _unknown_in(adapted[0], p.params, route, unknown):
                answers.append((p.name, adapted[0], [], 1.0, "answer"))
    asked_last = max((p.turn for p in waiting.values()), default=0)
    searched_last = max((c.turn for c in out.trip.last_calls or []), default=0)
    if answers and searched_last > asked_last and not own:
        # A search made since the question: "What about the 12th?" changes that search, not the question.
        changed = _follow_up(
            decision, slots, unknown, specs, lang, out, out.trip.last_calls or [], quiet=True
        )
        if changed:
            return changed, set()
    if answers:
        return answers, {a[0] for a in answers}
    if own:
        # The same tool asked for again keeps what its waiting request already has.
        return [
            (n, {**waiting[n].params, **params}, a, c, v) if n in waiting else (n, params, a, c, v)
            for n, params, a, c, v in own
        ], set()
    return _follow_up(
        decision, slots, unknown, specs, lang, out, out.trip.pending or out.trip.last_calls or []
    ), set()


def _follow_up(
    decision: RouteDecision,
    slots: Slots,
    unknown: list[str],
    specs: ToolSpecs,
    lang: str,
    out: Plan,
    base: list[ToolRequest],
    *,
    quiet: bool = False,
) -> list[Request]:
    """The calls a follow-up stands for on ``base`` (the waiting or the last requests), with ``out``
    marked a follow-up, its trip shifted, or a question asked when it does not apply (none when
    ``quiet``: the caller has another reading of the message)."""
    nouns = specs.declared.nouns()
    shape = followup.shape(slots.text, slots, nouns, unknown) if decision.slots is not None else None
    # "Which museums are free in Lisbon?" and "What's the address of that hotel?" are questions for
    # the guides and the results shown; "Is there any other park?" asks that same search again.
    if (
        shape is not None
        and shape.named
        and followup.asks_a_question(slots.text)
        and not (shape.again and {c.name for c in base} & set(shape.named))
    ):
        return []
    if shape is None or not (shape.named or (shape.changes and base)):
        return []
    if quiet:
        f = followup.interpret(shape, slots, base, specs.routes)
        return [
            (r.name, r.params, f.assumed.get(r.name, []), 1.0, "followup") for r in f.requests if not f.shift
        ]
    out.followup = True
    free = all(
        any(s in FREE_PLACE_SLOTS for s in specs.routes[c.name].params.values())
        for c in base
        if c.name in specs.routes
    )
    if unknown and not shape.named and not (base and free):
        # A place nobody knows, for a tool that needs a known one: which place is the traveller's to say.
        out.questions.append(message(lang, "unknown_place", name=unknown[0]))
        return []
    f = followup.interpret(shape, slots, base, specs.routes, pending=bool(out.trip.pending))
    if f.shift:
        out.trip = shift_trip(out.trip, f.shift)
    if not f.requests:
        out.questions.append(_unclear(lang, [c.name for c in base], specs.declared))
    return [(r.name, r.params, f.assumed.get(r.name, []), 1.0, "followup") for r in f.requests]


_YES = re.compile(
    r"^\W*(?:yes|yeah|yep|yup|sure|ok(?:ay)?|correct|right|exactly|that'?s (?:right|correct|it)|s[ií]|claro"
    r"|oui|d'accord|ja|genau|richtig|sim|certo|esatto|va bene)\b[\W]*(?:please|thanks|thank you|gracias|merci"
    r"|danke|obrigad[oa]|grazie)?\W*$",
    re.IGNORECASE,
)
_NO = re.compile(
    r"^\W*(?:no|nope|non|nein|não|nao)\b[\W]*(?:thanks|thank you|gracias|merci|danke|grazie)?\W*$", re.I
)


def _ordinal(day: int, lang: str) -> str:
    """ "5th" in English; the number itself in our other languages, whose phrase carries the rest."""
    if lang != "en":
        return str(day)
    suffix = "th" if 11 <= day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def _reply(text: str) -> str | None:
    """ "yes" or "no" when the message is only that ("Yes.", "Sure, thanks", "Non"), else None."""
    if _YES.match(text):
        return "yes"
    return "no" if _NO.match(text) else None


def _same_place(slots: Slots) -> bool:
    """ "from Paris to Paris": the places named twice, once as the origin, are one city."""
    assert slots.origin is not None
    return any(
        p is not slots.origin and p.place.city_code == slots.origin.place.city_code for p in slots.places
    ) or bool(re.search(rf"\bto\s+{re.escape(slots.origin.text)}\b", slots.text, re.I))


def _missing(request: ToolRequest, route: ToolRoute, trip: TripState) -> list[str]:
    """What a waiting request still lacks: its required parameters, and those its trip's kind needs."""
    flags = [trip.trip_kind] if trip.trip_kind else []
    needed = [*route.required, *(p for f in flags for p in route.required_if.get(f, []))]
    return [p for p in dict.fromkeys(needed) if request.params.get(p) in (None, "")]


def _unknown_in(params: dict[str, Any], before: dict[str, Any], route: ToolRoute, unknown: list[str]) -> bool:
    """Whether an answer fills a place parameter that needs a known place while the message names a
    place nobody knows (then the traveller is asked which place, not answered with a guess)."""
    return bool(unknown) and any(
        route.params.get(p) in PLACE_SLOTS - FREE_PLACE_SLOTS and params.get(p) != before.get(p)
        for p in params
    )


def _asked_place(trip: TripState, specs: ToolSpecs) -> str | None:
    """Where a place named alone goes when a waiting tool asked for one: "origin" when only an origin
    is missing ("Where are you leaving from?" "Vancouver."), else None (the destination, as usual)."""
    missing: set[str] = set()
    for p in trip.pending or []:
        route = specs.routes.get(p.name)
        if route is None:
            continue
        missing |= {
            route.params[q]
            for q in route.required
            if p.params.get(q) in (None, "") and route.params.get(q) in PLACE_SLOTS
        }
    return "origin" if missing and missing <= {"origin", "origin_or_place"} else None


@dataclass(frozen=True, slots=True)
class _Time:
    """What the plan knows of the time asked about: the message, the trip (with its dates even when
    begun), whether the trip's time is the message's, today and the language to speak."""

    slots: Slots
    trip: TripState
    about_trip: bool
    today: dt.date
    lang: str
    crowded: bool = False  # more places named than one search takes ("to Paris, Rome, Berlin, ...")


def _about_trip(slots: Slots, before: TripState, unsure: list[str]) -> bool:
    """Whether the message is about the trip's place: it names no place, or the trip's."""
    if unsure:
        return False
    place = slots.place
    return place is None or before.destination is None or place.place.code == before.destination


def _settle(
    requests: list[Request], specs: ToolSpecs, unknown: list[str], unread: bool, time: _Time, out: Plan
) -> tuple[list[ToolRequest], dict[str, str]]:
    """Each request completed from the trip, then either a call in ``out.calls`` or waiting in
    ``out.waiting``; returns what waits (for the trip) and the tools whose dates have passed."""
    pending: list[ToolRequest] = []
    passed: dict[str, str] = {}  # tool -> a date of it that has passed
    slots, today = time.slots, time.today
    # "la semana pasada" alone: a day that has passed, which no tool receives (the extractor kept it apart).
    said_past = slots.past_dates[0].first if slots.past_dates and not slots.dates else None
    kind = out.trip.trip_kind
    flags = {f for f, on in (("round_trip", kind == "round_trip"), ("one_way", kind == "one_way")) if on}
    for name, params, assumed, confidence, via in requests:
        route = specs.routes.get(name)
        if route is None or name in out.waiting or any(c.name == name for c in out.calls):
            continue
        # "a round trip": its return date is needed too; "one way": a return date is left out.
        required = [*route.required]
        required += [p for f in flags for p in route.required_if.get(f, []) if p not in required]
        excluded = {p for f in flags for p in route.excluded_if.get(f, [])}
        keep_out = frozenset(
            p
            for p, s in route.params.items()
            if (unknown and s in PLACE_SLOTS - FREE_PLACE_SLOTS)
            or ((unread or said_past) and s in DATE_SLOTS)
            or p in excluded
        )
        params = {p: v for p, v in params.items() if p not in excluded}
        spec = specs.declared.get(name)
        from_trip = {*required, *(spec.from_trip if spec else ())}
        completed, taken = complete_params(params, route.params, from_trip, out.trip, keep_out=keep_out)
        gaps = [p for p in required if completed.get(p) in (None, "")]
        dates = [p for p, s in route.params.items() if s in DATE_SLOTS]
        past = [p for p in _date_params(route, completed) if _before(completed[p], today)]
        if past:
            # Asked again, never sent: the tool would refuse it, and the trip's dates are not the answer.
            passed[name] = str(completed[past[0]])
            gaps += [p for p in _start_params(route) if p not in gaps] or past
            for p in _date_params(route, completed):
                completed.pop(p, None)
        elif dates and (said_past or unread) and not any(p in completed for p in dates):
            # A date the traveller gave that cannot be used: asked about, never replaced by "today".
            if said_past:
                passed[name] = said_past.isoformat()
            gaps += [p for p in _start_params(route) or dates[:1] if p not in gaps]
        window = _window(spec, route)
        if not gaps and window is not None:
            timed = _forecast(completed, time, out, window, route)
            if timed is None:
                continue  # beyond the horizon: the note and the guides' climate answer instead
            if isinstance(timed, str):
                passed[name] = timed
                gaps.append(window.start)
                completed.pop(window.start, None)
            else:
                if _from_trip(completed, time, window) and window.start in timed:
                    taken.append(window.start)
                completed = timed
        for p, low, high in _out_of_range(spec, completed):
            # "45 nights": the tool would refuse it; said, and asked for again.
            value = completed.pop(p)
            out.questions.append(
                message(
                    time.lang,
                    "out_of_range",
                    param=p.replace("_", " ").capitalize(),
                    low=low,
                    high=high,
                    value=value,
                )
            )
            gaps += [p] if p not in gaps else []
        if time.crowded:
            for p, s in route.params.items():
                if s in _ONE_PLACE and p in params:
                    completed.pop(p, None)  # one of many places named: which one is the traveller's to say
                    gaps += [p] if p not in gaps else []
        if gaps:
            out.waiting[name] = gaps
            pending.append(ToolRequest(name=name, params=completed))
        elif _repeats(name, params, completed, via, out.trip):
            continue  # "What's the address of that hotel?": a question about the results shown, not a search
        else:
            out.calls.append(PlannedCall(name, completed, [*assumed, *taken], confidence, via))
    return pending, passed


def _out_of_range(spec: ToolSpec | None, params: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    """The whole-number parameters outside the bounds the tool's parameter model declares, with them."""
    out: list[tuple[str, Any, Any]] = []
    if spec is None:
        return out
    for p, value in params.items():
        field = spec.params.model_fields.get(p)
        if field is None or not isinstance(value, int) or isinstance(value, bool):
            continue
        low = next((m.ge for m in field.metadata if hasattr(m, "ge")), None)
        high = next((m.le for m in field.metadata if hasattr(m, "le")), None)
        if (low is not None and value < low) or (high is not None and value > high):
            out.append((p, low, high))
    return out


def _repeats(name: str, said: dict[str, Any], completed: dict[str, Any], via: str, trip: TripState) -> bool:
    """Whether a tool the router picked from the message's words would only repeat the last call: the
    message names nothing new for it and the conversation completes it to the very same parameters."""
    if via not in ("semantic", "keyword", "llm", "conversation") or said:
        return False  # a message that says the search itself again wants its results again
    last = next((c.params for c in trip.last_calls or [] if c.name == name), None)
    if last is None or set(last) != set(completed):
        return False
    # A place may be written as its code once and its name the next time: the trip knows both.
    same = [{trip.destination, trip.destination_name}, {trip.origin, trip.origin_name}]

    def equal(a: Any, b: Any) -> bool:
        return a == b or any(a in s and b in s for s in same if None not in s)

    return all(equal(last[p], completed[p]) for p in last) and all(
        equal(last.get(p), v) for p, v in said.items()
    )


def _window(spec: ToolSpec | None, route: ToolRoute) -> Window | None:
    """A tool whose results reach only so far ahead (a forecast), with its first-day and count
    parameters as its slots name them; None for any other tool."""
    if spec is None or spec.horizon_days is None:
        return None
    start = next((p for p, s in route.params.items() if s == "start_date"), None)
    days = next((p for p, s in route.params.items() if s == "forecast_days"), None)
    return Window(spec.horizon_days, start, days) if start else None


def _from_trip(params: dict[str, Any], time: _Time, window: Window) -> bool:
    """Whether the forecast's days are the trip's, not the message's (then they are said as assumed)."""
    slots = time.slots
    return window.start not in params and slots.start_date is None and slots.month is None


def _forecast(
    params: dict[str, Any], time: _Time, out: Plan, window: Window, route: ToolRoute
) -> dict[str, Any] | str | None:
    """The forecast's parameters for the days asked about; the days as said when they have passed; or
    None when they are beyond the horizon (then ``out`` gets the note and the climate to search)."""
    span = params_span(params, time.slots, window) or asked_span(
        time.slots, time.trip, trip_applies=time.about_trip, today=time.today
    )
    timed = fit(params, span, time.today, time.lang, window)
    if timed.later is not None:
        out.notes.append(later_note(timed.later, time.lang, window.horizon))
        place = next((params[p] for p, s in route.params.items() if s in PLACE_SLOTS and p in params), "")
        out.climate = climate(timed.later, str(place))
        return None
    if timed.passed is not None:
        return timed.passed
    return timed.params


def _read(span: tuple[int, int], slots: Slots) -> bool:
    return any(d.start < span[1] and span[0] < d.end for d in [*slots.dates, *slots.past_dates])


def _date_params(route: ToolRoute, params: Mapping[str, Any]) -> list[str]:
    dated = {p for p, s in route.params.items() if s in DATE_SLOTS}
    return [p for p in params if p in dated]


def _start_params(route: ToolRoute) -> list[str]:
    return [p for p, s in route.params.items() if s == "start_date" and p in route.required]


def _before(value: Any, today: dt.date) -> bool:
    if isinstance(value, str):
        try:
            value = dt.date.fromisoformat(value)
        except ValueError:
            return False
    return isinstance(value, dt.date) and value < today


def _questions(
    waiting: Mapping[str, list[str]],
    specs: ToolSpecs,
    unknown: list[str],
    place_question: str,
    unread: list[str],
    passed: Mapping[str, str],
    lang: str,
    proposed: bool = False,
) -> list[str]:
    """One question per tool waiting: an unknown place named first, then what is missing (a day the
    assistant ``proposed`` asks about the dates already)."""
    routes, declared = specs.routes, specs.declared
    questions: list[str] = []
    place_asked = False
    for name, gaps in waiting.items():
        route = routes[name]
        asks = list(gaps)
        if unknown and any(route.params.get(p) in PLACE_SLOTS for p in gaps):
            if not place_asked:
                questions.append(place_question)
                place_asked = True
            asks = [p for p in asks if route.params.get(p) not in PLACE_SLOTS]
        if proposed:
            asks = [p for p in asks if route.params.get(p) not in DATE_SLOTS]
        if name in passed:
            questions.append(message(lang, "past_date", date=passed[name]))
        elif unread and any(route.params.get(p) in DATE_SLOTS for p in asks):
            questions.append(message(lang, "unread_date", date=unread[0]))
        if asks:
            phrases = [ask_phrase(lang, declared.get(name), p, route) for p in asks]
            questions.append(
                message(lang, "clarify_tool", what=declared.label(name, lang), asks=join_list(lang, phrases))
            )
    return questions


def _unclear(lang: str, tools: list[str], declared: ToolCatalogue) -> str:
    labels = join_list(lang, [declared.label(t, lang) for t in dict.fromkeys(tools)])
    return message(lang, "followup_unclear", tools=labels)


def _assumed_note(
    calls: list[PlannedCall], trip: TripState, routes: Mapping[str, ToolRoute], lang: str
) -> str | None:
    """ "I assumed Lisbon, 2027-05-02 → 2027-05-05 from our conversation." for what the trip filled.
    Each parameter is said by its slot: places by name, a start date with its end, counts with their
    parameter's name ("2 adults")."""
    names = {trip.destination: trip.destination_name, trip.origin: trip.origin_name}
    items: list[str] = []
    for call in calls:
        slots = routes[call.name].params if call.name in routes else {}
        assumed = set(call.assumed)
        starts = [p for p in call.assumed if slots.get(p) in ("start_date", "start_or_month")]
        ends = [p for p in slots if slots[p] == "end_date" and p in assumed]
        for p in call.assumed:
            value = call.params.get(p)
            if value is None or p in ends:
                continue
            if p in starts:
                end = next((call.params[e] for e in ends), None)
                item = f"{value} → {end}" if end else str(value)
            elif slots.get(p) in PLACE_SLOTS:
                item = str(names.get(value) or value)
            elif isinstance(value, bool):
                item = p.replace("_", " ")
            elif isinstance(value, int):
                item = f"{value} {p.replace('_', ' ')}"  # "2 adults", "3 nights"
            else:
                item = f"{p.replace('_', ' ')} {value}"
            if item not in items:
                items.append(item)
        for e in ends:
            if not starts and call.params.get(e) is not None and str(call.params[e]) not in items:
                items.append(str(call.params[e]))
    return message(lang, "assumed", items=join_list(lang, items)) if items else None


def describe_state(trip: TripState, specs: ToolSpecs) -> str | None:
    """The conversation's state in a few plain lines, for an LLM reading the next message: what the
    trip holds, what the assistant asked for and is waiting on, and the last search. None when empty."""
    known = trip.model_dump(
        mode="json", exclude_none=True, exclude={"last_calls", "pending", "turn", "proposed_date"}
    )
    lines = [f"trip: {', '.join(f'{k}={v}' for k, v in known.items())}"] if known else []
    for p in trip.pending or []:
        route = specs.routes.get(p.name)
        needs = [q for q in route.required if p.params.get(q) in (None, "")] if route else []
        has = ", ".join(f"{k}={v}" for k, v in p.params.items()) or "nothing yet"
        lines.append(
            f"the assistant asked for {', '.join(needs) or 'details'} to call {p.name} (it has {has})"
        )
    if trip.proposed_date is not None:
        lines.append(f"the assistant asked whether the traveller means {trip.proposed_date.isoformat()}")
    for c in trip.last_calls or []:
        lines.append(f"last search: {c.name} with {', '.join(f'{k}={v}' for k, v in c.params.items())}")
    return "; ".join(lines) or None


# The slot tagger's label for each slot a tool parameter reads (rag.tagging.labels).
_TAG_OF_SLOT = {
    "origin": "origin",
    "origin_or_place": "origin",
    "destination": "destination",
    "route_destination": "destination",
    "place": "place",
    "place_name": "place",
    "place_text": "place",
    "start_date": "start_date",
    "start_or_month": "start_date",
    "end_date": "end_date",
    "nights": "nights",
    "adults": "adults",
    "rooms": "rooms",
    "cabin": "cabin",
}


def asked_slots(trip: TripState, specs: ToolSpecs) -> list[str]:
    """What the assistant asked for and waits on, as the slot tagger names it ("origin", "start_date"):
    the reply is read with the question."""
    asked: list[str] = []
    for p in trip.pending or []:
        route = specs.routes.get(p.name)
        for q in route.required if route else ():
            tag = _TAG_OF_SLOT.get(route.params.get(q, "")) if route else None
            if tag and p.params.get(q) in (None, "") and tag not in asked:
                asked.append(tag)
    if trip.proposed_date is not None and "start_date" not in asked:
        asked.append("start_date")
    return asked
