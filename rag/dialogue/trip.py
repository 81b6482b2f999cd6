"""Trip state kept across a conversation, and how it completes a tool's parameters. Pure."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import BaseModel

from rag.routing.extract import Slots


class ToolRequest(BaseModel):
    """A tool and its parameters as the chat asked for them (before validation): what a follow-up adapts.
    ``turn``: the message that asked for it, or asked for what it still lacks."""

    name: str
    params: dict[str, Any]
    turn: int = 0


class TripState(BaseModel):
    origin: str | None = None  # IATA codes
    origin_name: str | None = None
    destination: str | None = None
    destination_name: str | None = None
    start_date: dt.date | None = None
    end_date: dt.date | None = None
    # A month without days ("Tokyo in April"): its first day. Exact dates replace it, and it them.
    month: dt.date | None = None
    nights: int | None = None
    adults: int | None = None
    children: int | None = None
    rooms: int | None = None
    # "one way" or "round trip", once said: whether a flight needs a return date, or must have none.
    trip_kind: Literal["one_way", "round_trip"] | None = None
    cabin: str | None = None
    max_price: int | None = None
    currency: str | None = None
    # The calls the latest tool answer made ("what about Porto?" re-runs them elsewhere), and the
    # tools still waiting for details the assistant asked about ("Rome" answers "which city?").
    # None rather than empty, so a new conversation's trip stays {}.
    last_calls: list[ToolRequest] | None = None
    pending: list[ToolRequest] | None = None
    # The conversation's messages so far (a waiting request left unanswered for a while is dropped).
    turn: int | None = None
    # A day the assistant proposed and asked about ("do you mean 5 December?"), which a "yes" accepts.
    proposed_date: dt.date | None = None


def update_trip(state: TripState, slots: Slots, lone_place: str | None = None) -> TripState:
    """What this message says replaces what earlier ones said; what it does not say is kept.

    ``lone_place``: where a place named alone goes ("origin" when the assistant asked where the
    traveller leaves from); else it is the destination."""
    changes: dict[str, Any] = {}
    origin, place = slots.origin, slots.destination
    if slots.compared:
        origin = place = None  # "Rome or Paris?": neither is where the trip starts or goes, yet
    if lone_place == "origin" and len(slots.places) == 1 and slots.places[0].role is None:
        origin, place = slots.places[0], None  # no word said where it stands: it answers the question
    if origin:
        changes.update(origin=origin.place.code, origin_name=origin.place.city_name)
    if place:
        changes.update(destination=place.place.code, destination_name=place.place.city_name)
    if slots.start_date:
        end = slots.end_date
        nights = slots.nights if slots.nights is not None else state.nights
        if end is None and state.end_date is not None and slots.nights is None:
            if state.start_date is None and state.end_date > slots.start_date:
                end = state.end_date  # "returning the 11th", then "leaving tomorrow": both ends said
            elif nights:
                end = slots.start_date + dt.timedelta(days=nights)  # a new first day keeps the length
        changes.update(start_date=slots.start_date, end_date=end, month=None)
    elif slots.end_date:
        changes["end_date"] = slots.end_date  # "returning the 10th": the first day stays
    elif slots.month:
        changes.update(month=slots.month, start_date=None, end_date=None)
    for name in ("nights", "adults", "children", "rooms", "cabin", "max_price", "currency"):
        value = getattr(slots, name)
        if value is not None:
            changes[name] = value
    if slots.round_trip or slots.one_way:
        changes["trip_kind"] = "round_trip" if slots.round_trip else "one_way"
    start, end = changes.get("start_date", state.start_date), changes.get("end_date")
    if end and start and end > start and slots.nights is None:
        changes["nights"] = (end - start).days
    return state.model_copy(update=changes)


def shift_trip(state: TripState, days: int) -> TripState:
    """The trip's dates moved by ``days`` ("the day after instead")."""
    changes = {
        name: getattr(state, name) + dt.timedelta(days=days)
        for name in ("start_date", "end_date")
        if getattr(state, name) is not None
    }
    return state.model_copy(update=changes)


# The trip field a tool parameter reads, by the slot its declaration gives it (rag.routing.slots).
TRIP_FIELD = {
    "origin": "origin",
    "origin_or_place": "origin",
    "destination": "destination",
    "route_destination": "destination",
    "place": "destination_name",
    "place_name": "destination_name",
    "start_date": "start_date",
    "start_or_month": "start_date",
    "end_date": "end_date",
    "nights": "nights",
    "adults": "adults",
    "children": "children",
    "rooms": "rooms",
    "cabin": "cabin",
}


def complete_params(
    params: dict[str, Any],
    slots: Mapping[str, str],
    from_trip: Iterable[str],
    trip: TripState,
    *,
    keep_out: frozenset[str] = frozenset(),
) -> tuple[dict[str, Any], list[str]]:
    """``params`` with the parameters a tool takes from the conversation (``from_trip``, each reading
    the trip field of its slot in ``slots``) filled from the trip state when missing (never invented),
    and the names of those taken. ``keep_out``: parameters the trip must not fill (the message named a
    place or a date that could not be read: the traveller meant something else than the trip's)."""
    out = dict(params)
    taken: list[str] = []
    wanted = set(from_trip)
    for name in (p for p in slots if p in wanted):  # in the declaration's order
        field = TRIP_FIELD.get(slots[name])
        value = getattr(trip, field) if field else None
        if name not in keep_out and out.get(name) in (None, "") and value is not None:
            out[name] = value.isoformat() if isinstance(value, dt.date) else value
            taken.append(name)
    ends = [p for p, s in slots.items() if s == "end_date" and out.get(p) is not None]
    for p in [p for p, s in slots.items() if s == "nights" and p in out] if ends else []:
        out.pop(p)  # an end date and a count of nights: the date wins
        if p in taken:
            taken.remove(p)
    return out, taken
