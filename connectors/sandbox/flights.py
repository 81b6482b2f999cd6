"""Flight schedules and fares, pure: which carriers fly a route, when, for how long, and for how much.

Schedules are stable per route (the same flight number and local departure time every day it operates);
fares vary with distance, season, weekday, carrier and a daily draw, all derived from hashed keys.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import lru_cache

from connectors.sandbox.airlines import (
    DOMESTIC_ONLY,
    GLOBAL_CONNECTORS,
    HUBS,
    LOW_COST,
    PREMIUM,
    REGION_CARRIERS,
    aircraft_for,
    home_carriers,
)
from connectors.sandbox.data import Airport, Catalogue, region
from connectors.sandbox.geo import haversine_km, zone
from connectors.sandbox.rng import rng_for, unit

LONG_HAUL_KM = 4500
MAX_NONSTOP_KM = 15500


@dataclass(frozen=True, slots=True)
class Segment:
    carrier: str
    number: str
    origin: str
    destination: str
    departure: dt.datetime  # aware, in the origin airport's zone
    arrival: dt.datetime  # aware, in the destination airport's zone
    aircraft: str
    origin_terminal: str | None
    destination_terminal: str | None
    distance_km: float

    @property
    def minutes(self) -> int:
        return int((self.arrival - self.departure).total_seconds() // 60)


@dataclass(frozen=True, slots=True)
class LegOption:
    """One way from A to B on one carrier: a nonstop flight or two flights via the carrier's hub."""

    carrier: str
    segments: tuple[Segment, ...]
    fare_eur: float  # economy, one adult, before taxes
    distance_km: float  # great-circle origin to destination

    @property
    def minutes(self) -> int:
        return int((self.segments[-1].arrival - self.segments[0].departure).total_seconds() // 60)

    @property
    def nonstop(self) -> bool:
        return len(self.segments) == 1


def block_minutes(o: Airport, d: Airport) -> int:
    """Gate-to-gate time: ~800 km/h cruise plus 30-40 minutes for taxi, climb and approach."""
    km = haversine_km(o.latitude, o.longitude, d.latitude, d.longitude)
    raw = km / 800 * 60 + 30 + unit("block", o.iata, d.iata) * 10
    return int(round(raw / 5) * 5)


def season_factor(day: dt.date) -> float:
    if (day.month == 12 and day.day >= 18) or (day.month == 1 and day.day <= 4):
        return 1.35
    return {7: 1.3, 8: 1.3, 6: 1.12, 1: 0.88, 2: 0.88, 3: 0.9, 11: 0.88}.get(day.month, 1.0)


def base_fare_eur(distance_km: float) -> float:
    """Economy one-way base fare for one adult on a typical carrier, before season and demand."""
    return 25 + 0.115 * float(distance_km**0.93)


def _usable(codes: tuple[str, ...], domestic: bool, cat: Catalogue) -> tuple[str, ...]:
    usable = tuple(c for c in codes if c in cat.airports and (domestic or c not in DOMESTIC_ONLY))
    return usable or tuple(c for c in codes if c in cat.airports)


def _pick_airport(carrier: str, airports: tuple[str, ...]) -> str:
    for hub in HUBS.get(carrier, ()):
        if hub in airports:
            return hub
    if carrier in LOW_COST and len(airports) > 1:
        return airports[1]
    return airports[0]


def _unique(items: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def _terminal(cat: Catalogue, airport: str, carrier: str) -> str | None:
    if airport not in cat.airport_city:
        return None
    return str(1 + int(unit("terminal", airport, carrier) * 3))


def _flight(
    cat: Catalogue, carrier: str, o: Airport, d: Airport, departure: dt.datetime, slot: int
) -> Segment:
    """One segment leaving at ``departure`` (aware); the arrival is computed in absolute time."""
    km = haversine_km(o.latitude, o.longitude, d.latitude, d.longitude)
    hi = 999 if km > LONG_HAUL_KM else 2999
    number = rng_for("flight-number", carrier, o.iata, d.iata, slot).randint(1, hi)
    dep = departure.astimezone(dt.UTC)
    arr = dep + dt.timedelta(minutes=block_minutes(o, d))
    return Segment(
        carrier=carrier,
        number=str(number),
        origin=o.iata,
        destination=d.iata,
        departure=dep.astimezone(zone(o.timezone)),
        arrival=arr.astimezone(zone(d.timezone)),
        aircraft=aircraft_for(carrier, km, unit("aircraft", carrier, o.iata, d.iata, slot)),
        origin_terminal=_terminal(cat, o.iata, carrier),
        destination_terminal=_terminal(cat, d.iata, carrier),
        distance_km=km,
    )


def _local(day: dt.date, minute_of_day: int, tz: str) -> dt.datetime:
    naive = dt.datetime.combine(day, dt.time()) + dt.timedelta(minutes=minute_of_day)
    # Normalise through UTC so a time inside a DST gap becomes a real local time.
    return naive.replace(tzinfo=zone(tz)).astimezone(dt.UTC).astimezone(zone(tz))


def _departure_minute(carrier: str, o: str, d: str, slot: int, long_haul: bool) -> int:
    rng = rng_for("departure", carrier, o, d, slot)
    first, last = (7 * 60, 23 * 60 + 30) if long_haul else (6 * 60, 21 * 60 + 30)
    return first + rng.randrange(0, last - first, 5)


def _operates(carrier: str, o: str, d: str, slot: int, day: dt.date) -> bool:
    """The first flight of a route is daily; later ones skip some weekdays."""
    return slot == 0 or unit("operates", carrier, o, d, slot, day.weekday()) < 0.75


def _fare(carrier: str, od_km: float, day: dt.date, key: tuple[object, ...], connecting: bool) -> float:
    factor = 0.62 if carrier in LOW_COST else 1.15 if carrier in PREMIUM else 1.0
    factor *= 0.9 + 0.2 * unit("carrier-route", carrier, *key[:2])
    weekday = {4: 1.08, 6: 1.08, 1: 0.93, 2: 0.93}.get(day.weekday(), 1.0)
    demand = 0.85 + 0.35 * unit("demand", *key, day.isoformat())
    fare = (
        base_fare_eur(od_km) * factor * season_factor(day) * weekday * demand * (0.85 if connecting else 1.0)
    )
    return round(fare, 2)


def _direct_carriers(o_cc: str, d_cc: str, km: float, endpoints: set[str]) -> tuple[str, ...]:
    o_reg, d_reg = region(o_cc), region(d_cc)
    home = _unique(home_carriers(o_cc, o_reg) + home_carriers(d_cc, d_reg))
    if km <= LONG_HAUL_KM:
        return tuple(c for c in home if not (c in LOW_COST and km > 3500))
    if km > MAX_NONSTOP_KM:
        return ()
    pool = _unique(home + REGION_CARRIERS[o_reg] + REGION_CARRIERS[d_reg])
    return tuple(c for c in pool if c not in LOW_COST and endpoints & set(HUBS.get(c, ())))


def _connections(
    cat: Catalogue, o_cc: str, d_cc: str, o: Airport, d: Airport, km: float, endpoints: set[str]
) -> list[tuple[str, str]]:
    o_reg, d_reg = region(o_cc), region(d_cc)
    pool = _unique(
        home_carriers(o_cc, o_reg)
        + home_carriers(d_cc, d_reg)
        + REGION_CARRIERS[o_reg]
        + REGION_CARRIERS[d_reg]
        + (GLOBAL_CONNECTORS if o_reg != d_reg else ())
        + (REGION_CARRIERS["AS"] + REGION_CARRIERS["ME"] if o_reg != d_reg and km > 9000 else ())
    )
    limit = 1.45 if km < 3000 else 1.3 if km < 8000 else 1.22
    found: list[tuple[float, str, str]] = []
    for carrier in pool:
        if carrier in LOW_COST:
            continue
        for hub in HUBS.get(carrier, ()):
            h = cat.airports.get(hub)
            if h is None or hub in endpoints:
                continue
            d1 = haversine_km(o.latitude, o.longitude, h.latitude, h.longitude)
            d2 = haversine_km(h.latitude, h.longitude, d.latitude, d.longitude)
            # A real connection: both flights of a sensible length, and not much of a detour.
            if min(d1, d2) < max(250, 0.07 * km) or max(d1, d2) > MAX_NONSTOP_KM:
                continue
            if d1 + d2 <= km * limit + 200:
                found.append(((d1 + d2) / km, carrier, hub))
                break
    found.sort()
    return [(carrier, hub) for _, carrier, hub in found[:5]]


@lru_cache(maxsize=8192)
def leg_options(
    cat: Catalogue, origins: tuple[str, ...], destinations: tuple[str, ...], day: dt.date
) -> tuple[LegOption, ...]:
    """Every way to fly from one set of airports to another on ``day``, cheapest first."""
    if not origins or not destinations:
        return ()
    o_cc = cat.airports[origins[0]].country_code
    d_cc = cat.airports[destinations[0]].country_code
    domestic = o_cc == d_cc
    o_list, d_list = _usable(origins, domestic, cat), _usable(destinations, domestic, cat)
    o_main, d_main = cat.airports[o_list[0]], cat.airports[d_list[0]]
    od_km = haversine_km(o_main.latitude, o_main.longitude, d_main.latitude, d_main.longitude)
    if od_km < 80 or set(o_list) & set(d_list):
        return ()  # neighbouring cities sharing airports (Osaka and Kyoto): nothing to fly
    endpoints = set(o_list) | set(d_list)
    long_haul = od_km > LONG_HAUL_KM
    options: list[LegOption] = []

    direct = _direct_carriers(o_cc, d_cc, od_km, endpoints)
    rng = rng_for("direct-carriers", o_list, d_list)
    if len(direct) > 4:
        direct = tuple(sorted(rng.sample(direct, 4), key=direct.index))
    for carrier in direct:
        o = cat.airports[_pick_airport(carrier, o_list)]
        d = cat.airports[_pick_airport(carrier, d_list)]
        flights = (
            1
            if long_haul
            else 1 + int(unit("frequency", carrier, o.iata, d.iata) * (3 if od_km < 2000 else 2))
        )
        for slot in range(flights):
            if not _operates(carrier, o.iata, d.iata, slot, day):
                continue
            minute = _departure_minute(carrier, o.iata, d.iata, slot, long_haul)
            seg = _flight(cat, carrier, o, d, _local(day, minute, o.timezone), slot)
            fare = _fare(carrier, od_km, day, (o.iata, d.iata, carrier, slot), connecting=False)
            options.append(LegOption(carrier, (seg,), fare, od_km))

    if od_km > 1500 or not options:
        for carrier, hub in _connections(cat, o_cc, d_cc, o_main, d_main, od_km, endpoints):
            o = cat.airports[_pick_airport(carrier, o_list)]
            d = cat.airports[_pick_airport(carrier, d_list)]
            h = cat.airports[hub]
            minute = _departure_minute(carrier, o.iata, hub, 0, od_km > LONG_HAUL_KM)
            first = _flight(cat, carrier, o, h, _local(day, minute, o.timezone), 0)
            layover = 70 + 5 * int(unit("layover", carrier, o.iata, hub, d.iata) * 34)
            second = _flight(cat, carrier, h, d, first.arrival + dt.timedelta(minutes=layover), 1)
            fare = _fare(carrier, od_km, day, (o.iata, d.iata, carrier, hub), connecting=True)
            options.append(LegOption(carrier, (first, second), fare, od_km))

    options.sort(key=lambda opt: (opt.fare_eur, opt.minutes))
    return tuple(options)
