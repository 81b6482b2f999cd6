"""The searches one message makes or waits on, in its conversation: the policy's search step. Pure.

``book`` reads the message against the trip and returns a value (``Booking``), never writes the trip:

1. What the message tells of the trip becomes events (rag.dialogue.told); a day answering "when do you
   come back?" is the return.
2. The searches it asks for (rag.dialogue.intents): its own, an answer to what waits, or a change of
   the last searches; each is completed from the trip, then called or left waiting
   (rag.dialogue.settle), and what the trip filled in is said ("I assumed ...").
3. Dates: a bare day of this month that has passed is next month's, and the answer says so; days
   that have passed are refused; a date that cannot be read is asked about, never replaced by the
   trip's; what a tool would refuse (a stay of 45 nights, a return before the departure) is asked
   about, never sent.
4. A place the catalogue does not know, or one several places share, is asked about; so are more
   places than one search takes.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from dataclasses import dataclass, field

from rag.dialogue.actions import PlannedCall
from rag.dialogue.context import asked_place, asked_slots
from rag.dialogue.events import Answered, Asked, DatesSet, Event, TripSet, reduce
from rag.dialogue.forecast import Climate, full_date
from rag.dialogue.intents import requests_for
from rag.dialogue.plan_types import ToolSpecs
from rag.dialogue.questions import assumed_note, ordinal, questions, unclear
from rag.dialogue.settle import Check, Time, settle
from rag.dialogue.told import told
from rag.dialogue.trip import TripState
from rag.i18n import join_list, message
from rag.i18n.calendar_words import month_pattern
from rag.routing.bare_days import on_or_after
from rag.routing.clarify import place_option
from rag.routing.decision import RouteDecision
from rag.routing.extracted import Slots
from rag.routing.months import last_day
from rag.routing.shifts import Shift

_MONTH = rf"(?:{month_pattern()})\.?"
# Date-like text: if the extractor read no date there, it is a date that does not exist ("February 30").
_DATE_LIKE = re.compile(
    rf"\b\d{{4}}-\d{{1,2}}-\d{{1,2}}\b|\b\d{{1,2}}(?:st|nd|rd|th|er|º|\.)?\s+(?:de\s+|of\s+)?{_MONTH}(?!\w)"
    rf"|\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b",
    re.IGNORECASE,
)
# Places (besides an origin) in one message past which a search for one place asks which one.
CROWDED_PLACES = 3


@dataclass
class Booking:
    """What the searches of one message come to: the calls, what waits and is asked, what is said,
    and how the trip changes (events, for rag.dialogue.events.reduce)."""

    calls: list[PlannedCall] = field(default_factory=list)
    waiting: dict[str, list[str]] = field(default_factory=dict)
    questions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    climate: Climate | None = None
    followup: bool = False
    assumed: str | None = None
    events: list[Event] = field(default_factory=list)
    requested: bool = False  # the message asked for a search at all

    @property
    def empty(self) -> bool:
        return not (self.calls or self.waiting or self.questions or self.climate)


def book(
    decision: RouteDecision,
    state: TripState,
    specs: ToolSpecs,
    today: dt.date,
    lang: str,
    *,
    named: set[str] | frozenset[str] = frozenset(),
    asked_for: set[str] | frozenset[str] = frozenset(),
    check: Check | None = None,
) -> Booking:
    """The searches of one message. ``state``: the trip, its turn already counted; ``named``: the tools the
    message names by their words; ``check``: each tool's own check of a call's parameters."""
    slots = decision.slots or Slots()
    asked = asked_slots(state, specs)
    if (
        "end_date" in asked
        and "start_date" not in asked
        and state.start_date is not None
        and len(slots.dates) == 1
        and not slots.end_marked
        and slots.dates[0].last is None
        and slots.dates[0].first > state.start_date
    ):
        # "When do you come back?" "March 9th.": the day answers the question asked.
        slots = dataclasses.replace(slots, end_marked=frozenset({0}))
        decision = dataclasses.replace(decision, slots=slots)
    slots = _ends_after_start(slots, state)
    decision = dataclasses.replace(decision, slots=slots) if decision.slots is not None else decision
    out = Booking()
    events = told(state, slots, lone_place=asked_place(state, specs)) if decision.slots is not None else []
    # A day of this month that has passed, said alone: next month's, and the answer says so.
    rolled = next((d for d in slots.dates if d.rolled), None) if len(slots.dates) == 1 else None
    if rolled is not None:
        day = ordinal(rolled.first.day, lang)
        out.notes.append(message(lang, "rolled_date", day=day, date=full_date(rolled.first, lang)))
    if slots.start_date is not None and slots.start_date < today:
        events = [e for e in events if not isinstance(e, DatesSet | TripSet) or _not_dated(e)]
    dated = reduce(state, events)  # with its dates, even begun ones: a forecast covers what is left of a trip
    trip = _future(dated, today)
    unknown = list(decision.unknown_places)
    unread = [m.group(0) for m in _DATE_LIKE.finditer(slots.text) if not _read(m.span(), slots)]
    intents = requests_for(decision, slots, unknown, specs, trip, set(named), set(asked_for))
    out.followup = intents.followup
    requests = intents.requests
    if requests and not any(_books(r[0], specs) for r in requests):
        # "Will it rain tomorrow?": the day of a forecast or an activity is not the trip's.
        events = [e for e in events if _not_dated(e)]
        dated = reduce(state, events)
        trip = _future(dated, today)
    if intents.unknown_place and unknown:
        out.questions.append(message(lang, "unknown_place", name=unknown[0]))
    if intents.unclear:
        out.questions.append(unclear(lang, intents.unclear, specs.declared))
    if intents.shift:
        moved = _shifted(trip, intents.shift)
        events.append(moved)
        trip = reduce(trip, [moved])
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
        events = [e for e in events if not (isinstance(e, TripSet) and e.field.startswith("destination"))]
        trip = _future(reduce(state, events), today)
    time = Time(slots, dated, _about_trip(slots, state, unsure), today, lang, crowded)
    same = slots.origin is not None and slots.destination is None and _same_place(slots)
    settled = settle(requests, specs, unsure, bool(unread), time, trip, check)
    out.calls, out.waiting, out.climate = settled.calls, settled.waiting, settled.climate
    out.notes += settled.notes
    out.questions += settled.questions
    if same and slots.origin is not None:
        out.questions.append(message(lang, "same_place", place=slots.origin.place.city_name))
    out.questions += questions(out.waiting, specs, unsure, place_question, unread, settled.passed, lang)
    out.requested = bool(requests)
    # What waits for details is what a next "Rome" or "May 5" completes. A search stays until it is
    # done (called), asked again, replaced by a new one for its tool, or left unanswered for a while.
    events.append(Answered(frozenset({r[0] for r in requests} | intents.answered)))
    if settled.pending:
        events.append(Asked(tuple(settled.pending)))
    out.events = events
    out.assumed = assumed_note(out.calls, reduce(trip, events), specs.routes, lang)
    return out


def _ends_after_start(slots: Slots, state: TripState) -> Slots:
    """A day said as the end ("back on the 10th", "volvemos el 25") without its month is the first such
    day after the trip's start, not the nearest one before it."""
    start = state.start_date
    if start is None or not slots.end_marked or slots.start_date is not None:
        return slots
    dates = list(slots.dates)
    for i in slots.end_marked:
        d = dates[i]
        if d.bare and d.last is None and d.first <= start:
            later = on_or_after(d.first.day, start + dt.timedelta(days=1))
            if later is not None:
                dates[i] = dataclasses.replace(d, first=later)
    return dataclasses.replace(slots, dates=dates)


def _books(tool: str, specs: ToolSpecs) -> bool:
    spec = specs.declared.get(tool)
    return spec is not None and spec.books


def _not_dated(e: Event) -> bool:
    return not isinstance(e, DatesSet) and not (isinstance(e, TripSet) and e.field == "month")


def _future(trip: TripState, today: dt.date) -> TripState:
    """The trip without the days that have begun or passed: never a search's date."""
    if trip.start_date is not None and trip.start_date < today:
        trip = trip.model_copy(update={"start_date": None, "end_date": None})
    if trip.month is not None and last_day(trip.month) < today:
        trip = trip.model_copy(update={"month": None})
    return trip


def _shifted(trip: TripState, shift: Shift) -> DatesSet:
    """The trip's dates moved as ``shift`` says ("the day after instead", "push the return back a day",
    "return a week later", "one more night")."""
    start, end, nights = trip.start_date, trip.end_date, trip.nights
    step = dt.timedelta(days=shift.days)
    if shift.target in ("both", "start") and start is not None:
        start += step
    if shift.target == "both" and end is not None:
        end += step
    if shift.target == "end":
        if end is not None:
            end += step
        elif nights is not None:
            nights = max(1, nights + shift.days)
        elif start is not None:
            end = start + step  # "return a week later"
    if shift.target == "nights":
        if nights is not None and end is None:
            nights = max(1, nights + shift.days)
        elif end is not None:
            end += step
    return DatesSet(start, end, nights if end is None else None)


def _same_place(slots: Slots) -> bool:
    """ "from Paris to Paris": the places named twice, once as the origin, are one city."""
    assert slots.origin is not None
    return any(
        p is not slots.origin and p.place.city_code == slots.origin.place.city_code for p in slots.places
    ) or bool(re.search(rf"\bto\s+{re.escape(slots.origin.text)}\b", slots.text, re.I))


def _about_trip(slots: Slots, before: TripState, unsure: list[str]) -> bool:
    """Whether the message is about the trip's place: it names no place, or the trip's."""
    if unsure:
        return False
    place = slots.place
    return place is None or before.destination is None or place.place.code == before.destination


def _read(span: tuple[int, int], slots: Slots) -> bool:
    return any(d.start < span[1] and span[0] < d.end for d in [*slots.dates, *slots.past_dates])
