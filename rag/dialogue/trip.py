"""Trip state kept across a conversation, and how it completes a tool's parameters. Pure."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import BaseModel

from rag.routing.slot_kinds import SlotKind, traits


class ToolRequest(BaseModel):
    """A tool and its parameters as the chat asked for them (before validation): what a follow-up adapts.
    ``turn``: the message that asked for it, or asked for what it still lacks."""

    name: str
    params: dict[str, Any]
    turn: int = 0
    # The identities of the results shown for it, in the order shown (what a recall reads back).
    shown: list[str] | None = None


class TripState(BaseModel):
    origin: str | None = None  # IATA codes
    origin_name: str | None = None
    destination: str | None = None
    destination_name: str | None = None
    # Its name as a geocoder finds that very place ("Portland, Maine"), for tools that take a name.
    destination_label: str | None = None
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
    # The latest search of each tool that went out, with the results it showed: "which was cheapest?",
    # "what did the flights cost?" and "make it the 22nd" read them.
    searches: list[ToolRequest] | None = None
    # The conversation's messages so far (a waiting request left unanswered for a while is dropped).
    turn: int | None = None
    # The language of its latest message: a short reply too short to say its own is read in it.
    lang: str | None = None


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
    stays = any(s == SlotKind.NIGHTS for s in slots.values())  # the tool takes the nights themselves
    for name in (p for p in slots if p in wanted):  # in the declaration's order
        field = traits(slots[name]).trip
        value = getattr(trip, field) if field else None
        if value is None and field == "destination_label":
            value = trip.destination_name  # a trip kept before labels were
        if (
            value is None
            and field == "end_date"
            and trip.start_date is not None
            and trip.nights
            and not stays
        ):
            # A stay said by its nights ends a trip: a return flight "for those dates" comes back then.
            value = trip.start_date + dt.timedelta(days=trip.nights)
        if name not in keep_out and out.get(name) in (None, "") and value is not None:
            out[name] = value.isoformat() if isinstance(value, dt.date) else value
            taken.append(name)
    ends = [p for p, s in slots.items() if traits(s).date == "end" and out.get(p) is not None]
    for p in [p for p, s in slots.items() if s == SlotKind.NIGHTS and p in out] if ends else []:
        out.pop(p)  # an end date and a count of nights: the date wins
        if p in taken:
            taken.remove(p)
    return out, taken
