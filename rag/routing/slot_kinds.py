"""The kinds of slot a tool parameter reads (a tool's routing entry maps each parameter to one), declared
once, with what each kind is: a place (and whether any name goes), a date (a first day or a last), the
trip field a conversation fills it from, and the slot tagger's label for it. Pure data.

A routing entry naming a kind that is not here fails when the catalogue is built (rag.routing.config).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal


class SlotKind(StrEnum):
    ORIGIN = "origin"
    ORIGIN_OR_PLACE = "origin_or_place"  # the origin, or the one place named ("airports in Lisbon")
    DESTINATION = "destination"
    ROUTE_DESTINATION = "route_destination"  # a destination only when an origin is named too
    ROUTE_PAIR = "route_pair"  # an origin and a destination written as a route ("Boston to Denver")
    PLACE = "place"  # where a stay, an activity or a forecast is
    PLACE_NAME = "place_name"  # a place by its name, known to the catalogue or not
    PLACE_TEXT = "place_text"  # a place as written ("IATA code of Narita")
    START_DATE = "start_date"
    START_OR_MONTH = "start_or_month"  # a first day, or a month's first day
    END_DATE = "end_date"
    NIGHTS = "nights"
    FORECAST_DAYS = "forecast_days"
    ADULTS = "adults"
    CHILDREN = "children"
    INFANTS = "infants"
    ROOMS = "rooms"
    CABIN = "cabin"
    NONSTOP = "nonstop"
    MAX_PRICE = "max_price"
    CURRENCY = "currency"
    CATEGORY = "category"
    AIRLINE = "airline"


@dataclass(frozen=True, slots=True)
class Traits:
    place: bool = False
    free: bool = False  # a place that takes any name, known to the catalogue or not
    one_place: bool = False  # the one place a search is about (not where it leaves from)
    date: Literal["start", "end"] | None = None
    trip: str | None = None  # the trip field (rag.dialogue.trip.TripState) a conversation fills it from
    tag: str | None = None  # the slot tagger's label (rag.tagging.labels)


K = SlotKind
TRAITS: dict[SlotKind, Traits] = {
    K.ORIGIN: Traits(place=True, trip="origin", tag="origin"),
    K.ORIGIN_OR_PLACE: Traits(place=True, trip="origin", tag="origin"),
    K.DESTINATION: Traits(place=True, one_place=True, trip="destination", tag="destination"),
    K.ROUTE_DESTINATION: Traits(place=True, one_place=True, trip="destination", tag="destination"),
    K.ROUTE_PAIR: Traits(),
    K.PLACE: Traits(place=True, one_place=True, trip="destination", tag="place"),
    K.PLACE_NAME: Traits(place=True, free=True, one_place=True, trip="destination_label", tag="place"),
    K.PLACE_TEXT: Traits(place=True, free=True, tag="place"),
    K.START_DATE: Traits(date="start", trip="start_date", tag="start_date"),
    K.START_OR_MONTH: Traits(date="start", trip="start_date", tag="start_date"),
    K.END_DATE: Traits(date="end", trip="end_date", tag="end_date"),
    K.NIGHTS: Traits(trip="nights", tag="nights"),
    K.FORECAST_DAYS: Traits(),
    K.ADULTS: Traits(trip="adults", tag="adults"),
    K.CHILDREN: Traits(trip="children"),
    K.INFANTS: Traits(),
    K.ROOMS: Traits(trip="rooms", tag="rooms"),
    K.CABIN: Traits(trip="cabin", tag="cabin"),
    K.NONSTOP: Traits(),
    K.MAX_PRICE: Traits(),
    K.CURRENCY: Traits(),
    K.CATEGORY: Traits(),
    K.AIRLINE: Traits(),
}

# The kinds that hold a place, those that take any name, the one place a search is about, and dates.
PLACE_SLOTS = frozenset(k for k, t in TRAITS.items() if t.place)
FREE_PLACE_SLOTS = frozenset(k for k, t in TRAITS.items() if t.free)
ONE_PLACE_SLOTS = frozenset(k for k, t in TRAITS.items() if t.one_place)
DATE_SLOTS = frozenset(k for k, t in TRAITS.items() if t.date)
START_SLOTS = frozenset(k for k, t in TRAITS.items() if t.date == "start")


def traits(kind: str | None) -> Traits:
    """What a slot kind is (nothing for an unknown one or None)."""
    try:
        return TRAITS[SlotKind(kind)] if kind else Traits()
    except ValueError:
        return Traits()
