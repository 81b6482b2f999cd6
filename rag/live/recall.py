"""What a "what did you find?" question is about, and whether a stored result is about that. Pure.

The chat reads the question's places and days with the router's extractor and hands them here as plain
values (a ``RecallFocus``): rag.live knows nothing of the chat or the router. A result answers when its
own fields agree: a flight's or a fare's ends and departure days, a hotel stay's city and nights, a
forecast's place and day, an activity's or a place's city. A question about a day keeps the results
that are about no day (activities, places); a question about a place leaves out those about none.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from connectors.models import Days, Result
from connectors.places import Place
from rag.ingest.documents import norm

Role = Literal["origin", "destination"]


@dataclass(frozen=True, slots=True)
class PlaceAsked:
    """A place a recall question names: "the hotels you found in Lisbon", "flights from London"."""

    codes: frozenset[str] = frozenset()  # IATA codes that name it: its own and its city's ("LHR", "LON")
    name: str = ""  # its city's name as filters match it (``norm``); alone for a place no catalogue knows
    role: Role | None = None  # which end of a route ("from London": origin); None: anywhere


@dataclass(frozen=True, slots=True)
class RecallFocus:
    """The places, countries and days a recall question asks about; results must be about all three
    (any one place of several, any one span of several)."""

    places: tuple[PlaceAsked, ...] = ()
    countries: tuple[str, ...] = ()  # ISO alpha-2 codes
    days: tuple[Days, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.places or self.countries or self.days)


@dataclass(frozen=True, slots=True)
class Spot:
    """Where a result is, or one end of a route: the codes and the city name that name it, its country."""

    codes: frozenset[str]
    name: str
    country: str | None


@dataclass(frozen=True, slots=True)
class Whereabouts:
    """Where and when a result is, from its own fields."""

    spots: tuple[Spot, ...]  # every place it is about
    ends: tuple[Spot, Spot] | None  # a route's origin and destination (flights, fares)
    days: tuple[Days, ...]  # departures, a stay's nights, a forecast's day; () for results about no day


def whereabouts(
    result: Result, payload: Mapping[str, Any], resolve: Callable[[str], Place | None]
) -> Whereabouts:
    """``payload``: the stored point's, whose ``city_norm`` and ``country_code`` place results known only
    by their coordinates (activities, forecasts); ``resolve``: an IATA code's place."""

    def at(code: str) -> Spot:
        place = resolve(code)
        if place is None:
            return Spot(frozenset({code}), "", None)
        return Spot(frozenset({code, place.city_code}), norm(place.city_name), place.country_code)

    where = result.where()
    if where.route is not None:
        ends = (at(where.route[0]), at(where.route[1]))
        return Whereabouts(ends, ends, where.days)
    codes = set(where.codes)
    name, country = payload.get("city_norm"), payload.get("country_code")
    if not codes and not isinstance(name, str):
        return Whereabouts((), None, where.days)
    spot = Spot(
        frozenset(codes), name if isinstance(name, str) else "", country if isinstance(country, str) else None
    )
    return Whereabouts((spot,), None, where.days)


def matches(where: Whereabouts, focus: RecallFocus) -> bool:
    """Whether a result is about the focus's days and places. A route's origin and destination answer
    places asked with that role ("from London to Lisbon": both); otherwise any place it is about does."""
    overlap = (first <= to and since <= last for first, last in where.days for since, to in focus.days)
    if focus.days and where.days and not any(overlap):
        return False
    if not (focus.places or focus.countries):
        return True
    if not where.spots:
        return False
    anywhere = list(focus.places)
    if where.ends is not None:
        for end, role in zip(where.ends, ("origin", "destination"), strict=True):
            asked = [p for p in focus.places if p.role == role]
            if asked and not any(_names(p, end) for p in asked):
                return False
        anywhere = [p for p in focus.places if p.role is None]
    if anywhere and not any(_names(p, spot) for p in anywhere for spot in where.spots):
        return False
    return not focus.countries or any(spot.country in focus.countries for spot in where.spots)


def _names(asked: PlaceAsked, spot: Spot) -> bool:
    """Codes settle it when both sides have some (two cities may share a name); else the city name."""
    if asked.codes and spot.codes:
        return bool(asked.codes & spot.codes)
    return bool(asked.name) and asked.name == spot.name
