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

The plan's types are in rag.dialogue.plan_types; which tools a message asks for in
rag.dialogue.intents; how each is completed, then called or left waiting, in rag.dialogue.settle; the
questions and notes said back in rag.dialogue.questions; what the conversation waits on, for the
readers of the next message, in rag.dialogue.context.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re

from rag.dialogue.context import asked_place, asked_slots, describe_state
from rag.dialogue.forecast import full_date
from rag.dialogue.intents import requests_for
from rag.dialogue.plan_types import Plan, ToolSpecs
from rag.dialogue.questions import assumed_note, ordinal, questions
from rag.dialogue.settle import Time, settle
from rag.dialogue.trip import TripState, update_trip
from rag.i18n import join_list, message
from rag.routing.clarify import place_option
from rag.routing.dates import DateMention
from rag.routing.decision import RouteDecision
from rag.routing.extracted import Slots
from rag.routing.months import last_day

# The chat (rag.chat) takes the plan, its types and what the conversation waits on from here.
__all__ = ["Plan", "ToolSpecs", "asked_slots", "describe_state", "plan"]

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


# Messages a waiting request stays for without being answered or asked again.
PENDING_TURNS = 4
# Places (besides an origin) in one message past which a search for one place asks which one.
CROWDED_PLACES = 3


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
        trip = update_trip(trip, slots, lone_place=asked_place(trip, specs))
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
    requests, answered = requests_for(decision, slots, unknown, specs, lang, out)
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
    time = Time(slots, dated, _about_trip(slots, before, unsure), today, lang, crowded)
    same = slots.origin is not None and slots.destination is None and _same_place(slots)
    if rolled is not None:  # not sent until the traveller says which day they mean
        day = rolled.first.isoformat()
        requests = [(n, {p: v for p, v in ps.items() if v != day}, a, c, v) for n, ps, a, c, v in requests]
    pending, passed = settle(requests, specs, unsure, bool(unread) or rolled is not None, time, out)
    if same and slots.origin is not None:
        out.questions.append(message(lang, "same_place", place=slots.origin.place.city_name))
    if rolled is not None and out.waiting:
        day = ordinal(rolled.first.day, lang)
        out.questions.append(message(lang, "rolled_date", day=day, date=full_date(rolled.first, lang)))
    out.questions += questions(
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
    out.assumed_note = assumed_note(out.calls, out.trip, specs.routes, lang)
    return out


_YES = re.compile(
    r"^\W*(?:yes|yeah|yep|yup|sure|ok(?:ay)?|correct|right|exactly|that'?s (?:right|correct|it)|s[ií]|claro"
    r"|oui|d'accord|ja|genau|richtig|sim|certo|esatto|va bene)\b[\W]*(?:please|thanks|thank you|gracias|merci"
    r"|danke|obrigad[oa]|grazie)?\W*$",
    re.IGNORECASE,
)
_NO = re.compile(
    r"^\W*(?:no|nope|non|nein|não|nao)\b[\W]*(?:thanks|thank you|gracias|merci|danke|grazie)?\W*$", re.I
)


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


def _about_trip(slots: Slots, before: TripState, unsure: list[str]) -> bool:
    """Whether the message is about the trip's place: it names no place, or the trip's."""
    if unsure:
        return False
    place = slots.place
    return place is None or before.destination is None or place.place.code == before.destination


def _read(span: tuple[int, int], slots: Slots) -> bool:
    return any(d.start < span[1] and span[0] < d.end for d in [*slots.dates, *slots.past_dates])
