"""What one message tells of the trip, as events (rag.dialogue.events): what it says replaces what
earlier messages said, what it does not say is kept. Pure."""

from __future__ import annotations

from connectors.places import where
from rag.dialogue.events import DatesSet, Event, TripSet
from rag.dialogue.trip import TripState
from rag.routing.extracted import Slots

_COUNTS = ("adults", "children", "rooms", "cabin", "max_price", "currency")


def told(state: TripState, slots: Slots, lone_place: str | None = None) -> list[Event]:
    """The trip fields ``slots`` set. ``lone_place``: where a place named alone goes ("origin" when the
    assistant asked where the traveller leaves from); else it is the destination."""
    events: list[Event] = []
    origin, place = slots.origin, slots.destination
    if slots.compared:
        origin = place = None  # "Rome or Paris?": neither is where the trip starts or goes, yet
    if lone_place == "origin" and len(slots.places) == 1 and slots.places[0].role is None:
        origin, place = slots.places[0], None  # no word said where it stands: it answers the question
    if origin:
        events += [TripSet("origin", origin.place.code), TripSet("origin_name", origin.place.city_name)]
    if place:
        events += [
            TripSet("destination", place.place.code),
            TripSet("destination_name", place.place.city_name),
            TripSet("destination_label", where(place.place)),
        ]
    dates = _dates(state, slots)
    if dates is not None:
        events.append(dates)
    elif slots.month and not slots.start_date:
        events.append(TripSet("month", slots.month))
    for name in _COUNTS:
        value = getattr(slots, name)
        if value is not None:
            events.append(TripSet(name, value))
    if slots.round_trip or slots.one_way:
        events.append(TripSet("trip_kind", "round_trip" if slots.round_trip else "one_way"))
    return events


def _dates(state: TripState, slots: Slots) -> DatesSet | None:
    """The trip's days after the message: a new first day keeps the stay's length unless an end or a
    length is said; an end alone keeps the first day; a length alone ends the stay that many nights in."""
    start, end, nights = state.start_date, state.end_date, state.nights
    if slots.start_date is not None:
        new_end = slots.end_date
        if new_end is None and slots.nights is None:
            if end is not None and end > slots.start_date:
                new_end = end  # "returning the 11th" said first, or the departure moved before the return
            elif start is not None and end is not None:
                new_end = slots.start_date + (end - start)  # a new first day keeps the length
        kept = slots.nights if slots.nights is not None else nights  # a stay keeps its length
        return DatesSet(slots.start_date, new_end, kept if new_end is None else None)
    if slots.end_date is not None:
        return DatesSet(start, slots.end_date, None if start is not None else nights)
    if slots.nights is not None:
        return DatesSet(start, None, slots.nights)
    return None
