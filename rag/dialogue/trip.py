"""Trip state kept across a conversation, and how it completes a tool's parameters. Pure."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel

from rag.routing.extract import Slots


class ToolRequest(BaseModel):
    """A tool and its parameters as the chat asked for them (before validation): what a follow-up adapts."""

    name: str
    params: dict[str, Any]


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
    cabin: str | None = None
    max_price: int | None = None
    currency: str | None = None
    # The calls the latest tool answer made ("what about Porto?" re-runs them elsewhere), and the
    # tools still waiting for details the assistant asked about ("Rome" answers "which city?").
    # None rather than empty, so a new conversation's trip stays {}.
    last_calls: list[ToolRequest] | None = None
    pending: list[ToolRequest] | None = None


def update_trip(state: TripState, slots: Slots) -> TripState:
    """What this message says replaces what earlier ones said; what it does not say is kept."""
    changes: dict[str, Any] = {}
    if slots.origin:
        changes.update(origin=slots.origin.place.code, origin_name=slots.origin.place.city_name)
    place = slots.destination or (slots.places[0] if len(slots.places) == 1 and not slots.origin else None)
    if place:
        changes.update(destination=place.place.code, destination_name=place.place.city_name)
    if slots.start_date:
        changes.update(start_date=slots.start_date, end_date=slots.end_date, month=None)
        if slots.end_date is None and slots.nights is None:
            changes["nights"] = None
    elif slots.month:
        changes.update(month=slots.month, start_date=None, end_date=None)
    for name in ("nights", "adults", "children", "cabin", "max_price", "currency"):
        value = getattr(slots, name)
        if value is not None:
            changes[name] = value
    if changes.get("end_date") and changes.get("start_date") and "nights" not in changes:
        changes["nights"] = (changes["end_date"] - changes["start_date"]).days
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
    "end_date": "end_date",
    "nights": "nights",
    "adults": "adults",
    "children": "children",
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
