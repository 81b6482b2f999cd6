"""Trip state kept across a conversation, and how it completes a tool's parameters. Pure."""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import BaseModel

from rag.routing.extract import Slots


class TripState(BaseModel):
    origin: str | None = None  # IATA codes
    origin_name: str | None = None
    destination: str | None = None
    destination_name: str | None = None
    start_date: dt.date | None = None
    end_date: dt.date | None = None
    nights: int | None = None
    adults: int | None = None
    children: int | None = None
    cabin: str | None = None
    max_price: int | None = None
    currency: str | None = None


def update_trip(state: TripState, slots: Slots) -> TripState:
    """What this message says replaces what earlier ones said; what it does not say is kept."""
    changes: dict[str, Any] = {}
    if slots.origin:
        changes.update(origin=slots.origin.place.code, origin_name=slots.origin.place.city_name)
    place = slots.destination or (slots.places[0] if len(slots.places) == 1 and not slots.origin else None)
    if place:
        changes.update(destination=place.place.code, destination_name=place.place.city_name)
    if slots.start_date:
        changes.update(start_date=slots.start_date, end_date=slots.end_date)
        if slots.end_date is None and slots.nights is None:
            changes["nights"] = None
    for name in ("nights", "adults", "children", "cabin", "max_price", "currency"):
        value = getattr(slots, name)
        if value is not None:
            changes[name] = value
    if changes.get("end_date") and changes.get("start_date") and "nights" not in changes:
        changes["nights"] = (changes["end_date"] - changes["start_date"]).days
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


def complete_params(
    params: dict[str, Any], required: list[str], allowed: set[str], trip: TripState
) -> dict[str, Any]:
    """``params`` with missing parameters taken from the trip state (never invented)."""
    out = dict(params)
    for name, field in FROM_TRIP.items():
        value = getattr(trip, field)
        wanted = name in required or name in _OPTIONAL_OK
        if name in allowed and wanted and out.get(name) in (None, "") and value is not None:
            out[name] = value.isoformat() if isinstance(value, dt.date) else value
    if "check_out" in out and "nights" in out:
        out.pop("nights")
    return out


_OPTIONAL_OK = {"return_date", "check_out", "nights", "adults"}
