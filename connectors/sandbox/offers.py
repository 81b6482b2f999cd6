"""Flight offers in the Amadeus Flight Offers Search v2 shape, built from the schedules in flights.py."""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass
from typing import Any

from connectors.sandbox import money
from connectors.sandbox.airlines import AIRCRAFT, CARRIERS, FIRST_CLASS, LOW_COST, amadeus_name
from connectors.sandbox.data import Catalogue, Place
from connectors.sandbox.flights import LegOption, Segment, leg_options
from connectors.sandbox.geo import iso_duration
from connectors.sandbox.rng import code, rng_for

CABINS = ("ECONOMY", "PREMIUM_ECONOMY", "BUSINESS", "FIRST")
CABIN_CLASSES = {"ECONOMY": "YBMHKLQV", "PREMIUM_ECONOMY": "WEN", "BUSINESS": "JCDZ", "FIRST": "FA"}
TRAVELER_SHARE = {"ADULT": 1.0, "CHILD": 0.75, "HELD_INFANT": 0.10}


@dataclass(frozen=True, slots=True)
class FlightQuery:
    origin: Place
    destination: Place
    departure: dt.date
    return_date: dt.date | None
    adults: int = 1
    children: int = 0
    infants: int = 0
    cabin: str | None = None
    non_stop: bool = False
    currency: str = "EUR"
    max_price: int | None = None
    max_results: int = 250
    carriers: frozenset[str] | None = None  # only these airlines (includedAirlineCodes)
    excluded: frozenset[str] = frozenset()  # never these (excludedAirlineCodes)


def cabin_available(option: LegOption, cabin: str) -> bool:
    longest = max(s.distance_km for s in option.segments)
    if cabin == "ECONOMY":
        return True
    if option.carrier in LOW_COST:
        return False
    if cabin == "PREMIUM_ECONOMY":
        return longest > 2500
    if cabin == "FIRST":
        return option.carrier in FIRST_CLASS and longest > 4000
    return True


def cabin_factor(cabin: str, km: float) -> float:
    if cabin == "BUSINESS":
        return 2.4 if km < 2000 else 3.6
    return {"ECONOMY": 1.0, "PREMIUM_ECONOMY": 1.75, "FIRST": 6.5}[cabin]


def _legs(
    cat: Catalogue, q: FlightQuery, cabin: str, origin: Place, dest: Place, day: dt.date
) -> list[LegOption]:
    return [
        opt
        for opt in leg_options(cat, origin.airports, dest.airports, day)
        if (opt.nonstop or not q.non_stop)
        and cabin_available(opt, cabin)
        and (q.carriers is None or opt.carrier in q.carriers)
        and opt.carrier not in q.excluded
    ]


def _pairs(cat: Catalogue, q: FlightQuery, cabin: str) -> list[tuple[LegOption, LegOption | None]]:
    outbound = _legs(cat, q, cabin, q.origin, q.destination, q.departure)
    if q.return_date is None:
        return [(opt, None) for opt in outbound]
    inbound = _legs(cat, q, cabin, q.destination, q.origin, q.return_date)
    pairs: list[tuple[LegOption, LegOption | None]] = []
    for out in outbound:
        same = [opt for opt in inbound if opt.carrier == out.carrier]
        if same:
            pairs.append((out, min(same, key=lambda o: (o.fare_eur, o.minutes))))
    return pairs


def _travelers(q: FlightQuery) -> list[str]:
    return ["ADULT"] * q.adults + ["CHILD"] * q.children + ["HELD_INFANT"] * q.infants


def _segment_json(seg: Segment, seg_id: int) -> dict[str, Any]:
    def end(iata: str, terminal: str | None, at: dt.datetime) -> dict[str, Any]:
        out: dict[str, Any] = {"iataCode": iata}
        if terminal:
            out["terminal"] = terminal
        out["at"] = at.replace(tzinfo=None).isoformat(timespec="seconds")
        return out

    return {
        "departure": end(seg.origin, seg.origin_terminal, seg.departure),
        "arrival": end(seg.destination, seg.destination_terminal, seg.arrival),
        "carrierCode": seg.carrier,
        "number": seg.number,
        "aircraft": {"code": seg.aircraft},
        "operating": {"carrierCode": seg.carrier},
        "duration": iso_duration(seg.minutes),
        "id": str(seg_id),
        "numberOfStops": 0,
        "blacklistedInEU": False,
    }


def _offer(
    q: FlightQuery, cabin: str, out: LegOption, back: LegOption | None, today: dt.date
) -> tuple[dict[str, Any], float]:
    """One flight offer and its price per adult in the requested currency (for maxPrice)."""
    legs = [out] if back is None else [out, back]
    rng = rng_for(
        "offer", [s.number for leg in legs for s in leg.segments], q.departure, q.return_date, cabin
    )
    fare_eur = out.fare_eur + (0.92 * back.fare_eur if back else 0.0)
    fare_eur *= cabin_factor(cabin, out.distance_km)
    n_segments = sum(len(leg.segments) for leg in legs)
    tax_eur = 0.12 * fare_eur + (28.0 if out.distance_km > 4500 else 14.0) * n_segments

    itineraries, seg_ids = [], []
    next_id = 1
    for leg in legs:
        segments = []
        for seg in leg.segments:
            segments.append(_segment_json(seg, next_id))
            seg_ids.append((next_id, seg))
            next_id += 1
        itineraries.append({"duration": iso_duration(leg.minutes), "segments": segments})

    booking_class = CABIN_CLASSES[cabin][min(len(CABIN_CLASSES[cabin]) - 1, int(rng.random() * 3))]
    fare_basis = booking_class + code(rng, 5)
    bags = (
        0 if (out.carrier in LOW_COST and cabin == "ECONOMY") else 2 if cabin in ("BUSINESS", "FIRST") else 1
    )
    traveler_pricings, total, base, adult_total = [], 0.0, 0.0, 0.0
    adult_ids: list[int] = []
    for n, kind in enumerate(_travelers(q), start=1):
        share = TRAVELER_SHARE[kind]
        t_base = money.round_minor(money.convert(fare_eur * share, q.currency), q.currency)
        t_tax = money.round_minor(
            money.convert(tax_eur * (0.25 if kind == "HELD_INFANT" else share), q.currency), q.currency
        )
        t_total = money.round_minor(t_base + t_tax, q.currency)
        total, base = total + t_total, base + t_base
        if kind == "ADULT":
            adult_total = t_total
            adult_ids.append(n)
        pricing: dict[str, Any] = {
            "travelerId": str(n),
            "fareOption": "STANDARD",
            "travelerType": kind,
            "price": {
                "currency": q.currency,
                "total": money.fmt(t_total, q.currency),
                "base": money.fmt(t_base, q.currency),
            },
            "fareDetailsBySegment": [
                {
                    "segmentId": str(seg_id),
                    "cabin": cabin,
                    "fareBasis": fare_basis,
                    "class": booking_class,
                    "includedCheckedBags": {"quantity": 0 if kind == "HELD_INFANT" else bags},
                }
                for seg_id, _ in seg_ids
            ],
        }
        if kind == "HELD_INFANT":
            pricing["associatedAdultId"] = str(adult_ids[(n - 1 - q.adults - q.children) % len(adult_ids)])
        traveler_pricings.append(pricing)

    seated = q.adults + q.children
    ticketing = max(today, q.departure - dt.timedelta(days=rng.randint(0, 10)))
    offer = {
        "type": "flight-offer",
        "id": "0",
        "source": "GDS",
        "instantTicketingRequired": False,
        "nonHomogeneous": False,
        "oneWay": back is None,
        "lastTicketingDate": ticketing.isoformat(),
        "numberOfBookableSeats": max(seated, rng.randint(1, 9)),
        "itineraries": itineraries,
        "price": {
            "currency": q.currency,
            "total": money.fmt(total, q.currency),
            "base": money.fmt(base, q.currency),
            "fees": [
                {"amount": money.fmt(0, q.currency), "type": "SUPPLIER"},
                {"amount": money.fmt(0, q.currency), "type": "TICKETING"},
            ],
            "grandTotal": money.fmt(total, q.currency),
        },
        "pricingOptions": {"fareType": ["PUBLISHED"], "includedCheckedBagsOnly": bags > 0},
        "validatingAirlineCodes": [out.carrier],
        "travelerPricings": traveler_pricings,
    }
    return offer, adult_total


def search_offers(
    cat: Catalogue, q: FlightQuery, today: dt.date
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Offers cheapest first (3-10 of them when the route is served) and the response's dictionaries."""
    cabin = q.cabin or "ECONOMY"
    priced = [_offer(q, cabin, out, back, today) for out, back in _pairs(cat, q, cabin)]
    priced.sort(key=lambda p: (float(p[0]["price"]["grandTotal"]), len(p[0]["itineraries"][0]["segments"])))
    keep = rng_for(
        "offer-count", q.origin.code, q.destination.code, q.departure, q.return_date, cabin, q.non_stop
    )
    priced = priced[: keep.randint(3, 10)]
    if q.max_price is not None:
        priced = [p for p in priced if p[1] <= q.max_price]
    offers = [offer for offer, _ in priced[: q.max_results]]
    for n, offer in enumerate(offers, start=1):
        offer["id"] = str(n)
    return offers, _dictionaries(cat, offers, q.currency)


def _dictionaries(cat: Catalogue, offers: list[dict[str, Any]], currency: str) -> dict[str, Any]:
    locations: dict[str, Any] = {}
    aircraft: dict[str, str] = {}
    carriers: dict[str, str] = {}
    for offer in offers:
        for itinerary in offer["itineraries"]:
            for seg in itinerary["segments"]:
                for end in (seg["departure"], seg["arrival"]):
                    place = cat.resolve(end["iataCode"])
                    if place is not None:
                        locations[end["iataCode"]] = {
                            "cityCode": place.city_code,
                            "countryCode": place.country_code,
                        }
                plane = seg["aircraft"]["code"]
                aircraft[plane] = amadeus_name(AIRCRAFT.get(plane, plane))
                carriers[seg["carrierCode"]] = amadeus_name(
                    CARRIERS.get(seg["carrierCode"], seg["carrierCode"])
                )
    if not offers:
        return {}
    return {
        "locations": locations,
        "aircraft": aircraft,
        "currencies": {currency: money.currency_name(currency)},
        "carriers": carriers,
    }


@functools.lru_cache(maxsize=100_000)  # pure in its arguments; inspiration asks it for every city
def cheapest_total_eur(
    cat: Catalogue,
    origin: Place,
    destination: Place,
    departure: dt.date,
    return_date: dt.date | None,
    non_stop: bool,
) -> float | None:
    """The grandTotal of the cheapest economy offer for one adult in EUR, as flight-offers would quote it."""
    q = FlightQuery(origin, destination, departure, return_date, non_stop=non_stop, max_results=1)
    offers, _ = search_offers(cat, q, departure)
    return float(offers[0]["price"]["grandTotal"]) if offers else None
