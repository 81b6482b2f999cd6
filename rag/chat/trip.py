"""Trip state kept across a conversation, and how it completes a tool's parameters. Pure."""

from __future__ import annotations

import datetime as dt
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


# Tool parameter <- trip state field, for parameters a message leaves out ("a hotel there for those dates").
FROM_TRIP = {
    "origin": "origin",
    "destination": "destination",
    "city": "destination_name",
    "departure_date": "start_date",
    "check_in": "start_date",
    "start_date": "start_date",
    "return_date": "end_date",
    "check_out": "end_date",
    "nights": "nights",
    "adults": "adults",
}
# Optional parameters the trip also fills when a tool's required ones came from it.
_OPTIONAL_OK = {"return_date", "check_out", "nights", "adults"}


def complete_params(
    params: dict[str, Any],
    required: list[str],
    allowed: set[str],
    trip: TripState,
    *,
    keep_out: frozenset[str] = frozenset(),
) -> tuple[dict[str, Any], list[str]]:
    """``params`` with missing parameters taken from the trip state (never invented), and the names of
    those taken. ``keep_out``: parameters the trip must not fill (the message named a place or a date
    that could not be read: the traveller meant something else than the trip's)."""
    out = dict(params)
    taken: list[str] = []
    for name, field in FROM_TRIP.items():
        value = getattr(trip, field)
        wanted = name in required or name in _OPTIONAL_OK
        if (
            name in allowed
            and name not in keep_out
            and wanted
            and out.get(name) in (None, "")
            and value is not None
        ):
            out[name] = value.isoformat() if isinstance(value, dt.date) else value
            taken.append(name)
    if "check_out" in out and "nights" in out:
        out.pop("nights")
        if "nights" in taken:
            taken.remove("nights")
    return out, taken
