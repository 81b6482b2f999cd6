"""Amadeus flight endpoints: Flight Offers Search v2, Flight Inspiration Search, Flight Cheapest Date Search."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any

from aiohttp import web

from connectors.sandbox import money
from connectors.sandbox.amadeus import base_url, respond
from connectors.sandbox.data import Catalogue, Place
from connectors.sandbox.errors import INVALID_DATA, INVALID_DATE, INVALID_FORMAT, AmadeusError
from connectors.sandbox.keys import CATALOGUE
from connectors.sandbox.offers import CABINS, FlightQuery, cheapest_total_eur, search_offers
from connectors.sandbox.params import AmadeusParams, today
from connectors.sandbox.rng import rng_for

MAX_DAYS_AHEAD = 361
VIEWS = ("COUNTRY", "DATE", "DESTINATION", "DURATION", "WEEK")


def _place(cat: Catalogue, code: str, parameter: str) -> Place:
    place = cat.resolve(code)
    if place is None:
        raise AmadeusError.bad(INVALID_DATA, f"{code} is not a known IATA city or airport code", parameter)
    return place


def _city(cat: Catalogue, place: Place) -> Place:
    """Inspiration and cheapest dates work on cities: an airport code stands for its whole city."""
    return cat.resolve(place.city_code) or place


def _bool(value: bool) -> str:
    return "true" if value else "false"


async def flight_offers(request: web.Request) -> web.Response:
    p = AmadeusParams(request.query)
    origin_code = p.iata("originLocationCode")
    dest_code = p.iata("destinationLocationCode")
    departure = p.date("departureDate", required=True)
    return_date = p.date("returnDate")
    adults = p.integer("adults", None, 1, 9, required=True)
    children = p.integer("children", 0, 0, 8)
    infants = p.integer("infants", 0, 0, 9)
    cabin = p.choice("travelClass", CABINS, None)
    non_stop = p.boolean("nonStop", False)
    currency = (p.string("currencyCode") or "EUR").upper()
    if not money.supported(currency):
        p.fail(INVALID_FORMAT, "currencyCode must be an ISO 4217 currency code", "currencyCode")
    max_price = p.integer("maxPrice", None, 1, 10_000_000)
    max_results = p.integer("max", 250, 1, 250)
    included = p.carriers("includedAirlineCodes")
    excluded = p.carriers("excludedAirlineCodes")
    if included is not None and excluded is not None:
        p.fail(
            INVALID_DATA,
            "includedAirlineCodes and excludedAirlineCodes cannot be used together",
            "excludedAirlineCodes",
        )
    p.raise_if_errors()
    assert origin_code and dest_code and departure and adults is not None
    assert children is not None and infants is not None and max_results is not None

    if departure > today() + dt.timedelta(days=MAX_DAYS_AHEAD):
        raise AmadeusError.bad(
            INVALID_DATE, f"Date/Time is more than {MAX_DAYS_AHEAD} days ahead", "departureDate"
        )
    if return_date is not None and return_date < departure:
        raise AmadeusError.bad(INVALID_DATE, "returnDate must be on or after departureDate", "returnDate")
    if adults + children > 9:
        raise AmadeusError.bad(
            INVALID_DATA, "The number of seated travelers (adults + children) cannot exceed 9", "adults"
        )
    if infants > adults:
        raise AmadeusError.bad(
            INVALID_DATA, "The number of infants cannot exceed the number of adults", "infants"
        )
    cat = request.app[CATALOGUE]
    origin = _place(cat, origin_code, "originLocationCode")
    dest = _place(cat, dest_code, "destinationLocationCode")
    if origin.city_code == dest.city_code:
        raise AmadeusError.bad(
            INVALID_DATA, "Origin and destination must be different", "destinationLocationCode"
        )

    query = FlightQuery(
        origin,
        dest,
        departure,
        return_date,
        adults,
        children,
        infants,
        cabin,
        non_stop,
        currency,
        max_price,
        max_results,
        included,
        excluded or frozenset(),
    )
    offers, dictionaries = search_offers(cat, query, today())
    body: dict[str, Any] = {
        "meta": {"count": len(offers), "links": {"self": str(request.url)}},
        "data": offers,
    }
    if dictionaries:
        body["dictionaries"] = dictionaries
    return respond(body)


def _window(p: AmadeusParams) -> tuple[dt.date, dt.date]:
    window = p.date_range("departureDate")
    if window is None:
        start = today() + dt.timedelta(days=1)
        return start, start + dt.timedelta(days=180)
    return window


def _trip(
    cat: Catalogue,
    origin: Place,
    dest: Place,
    departure: dt.date,
    duration: tuple[int, int],
    one_way: bool,
    non_stop: bool,
) -> tuple[float, dt.date | None] | None:
    """The cheapest economy price for one adult on a date, with a stay length drawn from the duration range."""
    return_date = None
    if not one_way:
        stay = rng_for("stay", origin.city_code, dest.city_code, departure).randint(*duration)
        return_date = departure + dt.timedelta(days=stay)
    price = cheapest_total_eur(cat, origin, dest, departure, return_date, non_stop)
    return None if price is None else (price, return_date)


def _links(
    base: str,
    origin: str,
    dest: str,
    dep: dt.date,
    ret: dt.date | None,
    window: str,
    common: str,
    non_stop: bool,
) -> dict[str, str]:
    offers = f"{base}/v2/shopping/flight-offers?originLocationCode={origin}&destinationLocationCode={dest}&departureDate={dep}"
    if ret is not None:
        offers += f"&returnDate={ret}"
    return {
        "flightDates": f"{base}/v1/shopping/flight-dates?origin={origin}&destination={dest}&departureDate={window}&{common}",
        "flightDestinations": f"{base}/v1/shopping/flight-destinations?origin={origin}&departureDate={window}&{common}",
        "flightOffers": f"{offers}&adults=1&nonStop={_bool(non_stop)}",
    }


def _common_params(
    p: AmadeusParams, view_default: str
) -> tuple[bool, tuple[int, int], bool, int | None, str]:
    one_way = p.boolean("oneWay", False)
    duration = p.int_range("duration", (1, 15), 1, 15)
    non_stop = p.boolean("nonStop", False)
    max_price = p.integer("maxPrice", None, 1, 10_000_000)
    view = p.choice("viewBy", VIEWS, view_default) or view_default
    return one_way, duration, non_stop, max_price, view


async def flight_destinations(request: web.Request) -> web.Response:
    p = AmadeusParams(request.query)
    origin_code = p.iata("origin")
    start, end = _window(p)
    one_way, duration, non_stop, max_price, view = _common_params(p, "DESTINATION")
    p.raise_if_errors()
    assert origin_code is not None
    cat = request.app[CATALOGUE]
    origin = _city(cat, _place(cat, origin_code, "origin"))
    span = (end - start).days

    def compute() -> list[tuple[float, dt.date, dt.date | None, str, str]]:
        out: list[tuple[float, dt.date, dt.date | None, str, str]] = []
        for city in cat.cities:
            if city.city_code == origin.city_code:
                continue
            dest = cat.resolve(city.city_code)
            assert dest is not None
            rng = rng_for("inspiration-dates", origin.city_code, city.city_code, start, end)
            days = sorted({start + dt.timedelta(days=rng.randint(0, span)) for _ in range(3)})
            trips = [
                (t, d)
                for d in days
                if (t := _trip(cat, origin, dest, d, duration, one_way, non_stop)) is not None
            ]
            if trips:
                (price, ret), dep = min(trips, key=lambda x: x[0][0])
                out.append((price, dep, ret, city.city_code, city.country_code))
        return out

    found = await asyncio.to_thread(compute)
    found.sort()
    if max_price is not None:
        found = [f for f in found if f[0] <= max_price]
    if view == "COUNTRY":
        cheapest: dict[str, tuple[float, dt.date, dt.date | None, str, str]] = {}
        for f in found:
            cheapest.setdefault(f[4], f)
        found = list(cheapest.values())
    window = f"{start},{end}"
    common = f"oneWay={_bool(one_way)}&duration={duration[0]},{duration[1]}&nonStop={_bool(non_stop)}&viewBy=DURATION"
    base = base_url(request)
    data = [
        {
            "type": "flight-destination",
            "origin": origin.city_code,
            "destination": code,
            "departureDate": dep.isoformat(),
            **({"returnDate": ret.isoformat()} if ret else {}),
            "price": {"total": money.fmt(price, "EUR")},
            "links": {
                k: v
                for k, v in _links(base, origin.city_code, code, dep, ret, window, common, non_stop).items()
                if k != "flightDestinations"
            },
        }
        for price, dep, ret, code, _ in found
    ]
    locations = {f[3]: {"subType": "CITY", "detailedName": cat.by_code[f[3]].name.upper()} for f in found}
    return respond(
        {
            "data": data,
            "dictionaries": {"currencies": {"EUR": "EURO"}, "locations": locations},
            "meta": {
                "currency": "EUR",
                "links": {"self": str(request.url)},
                "defaults": {
                    "departureDate": window,
                    "oneWay": one_way,
                    **({} if one_way else {"duration": f"{duration[0]},{duration[1]}"}),
                    "nonStop": non_stop,
                    "viewBy": view,
                },
            },
        }
    )


async def flight_dates(request: web.Request) -> web.Response:
    p = AmadeusParams(request.query)
    origin_code = p.iata("origin")
    dest_code = p.iata("destination")
    start, end = _window(p)
    one_way, duration, non_stop, max_price, view = _common_params(p, "DURATION")
    p.raise_if_errors()
    assert origin_code is not None and dest_code is not None
    cat = request.app[CATALOGUE]
    origin = _city(cat, _place(cat, origin_code, "origin"))
    dest = _city(cat, _place(cat, dest_code, "destination"))
    if origin.city_code == dest.city_code:
        raise AmadeusError.bad(INVALID_DATA, "Origin and destination must be different", "destination")
    end = min(end, start + dt.timedelta(days=MAX_DAYS_AHEAD))
    window = f"{start},{end}"
    common = f"oneWay={_bool(one_way)}&duration={duration[0]},{duration[1]}&nonStop={_bool(non_stop)}&viewBy={view}"
    base = base_url(request)

    def compute() -> list[tuple[dt.date, tuple[float, dt.date | None] | None]]:
        days = [start + dt.timedelta(days=n) for n in range((end - start).days + 1)]
        return [(dep, _trip(cat, origin, dest, dep, duration, one_way, non_stop)) for dep in days]

    data = []
    for dep, trip in await asyncio.to_thread(compute):
        if trip is None or (max_price is not None and trip[0] > max_price):
            continue
        price, ret = trip
        links = _links(base, origin.city_code, dest.city_code, dep, ret, window, common, non_stop)
        data.append(
            {
                "type": "flight-date",
                "origin": origin.city_code,
                "destination": dest.city_code,
                "departureDate": dep.isoformat(),
                **({"returnDate": ret.isoformat()} if ret else {}),
                "price": {"total": money.fmt(price, "EUR")},
                "links": {k: v for k, v in links.items() if k != "flightDates"},
            }
        )
    locations = {
        place.city_code: {"subType": "CITY", "detailedName": place.city_name.upper()}
        for place in (origin, dest)
    }
    return respond(
        {
            "data": data,
            "dictionaries": {"currencies": {"EUR": "EURO"}, "locations": locations},
            "meta": {
                "currency": "EUR",
                "links": {"self": str(request.url)},
                "defaults": {"departureDate": window, "oneWay": one_way, "nonStop": non_stop, "viewBy": view}
                | ({} if one_way else {"duration": f"{duration[0]},{duration[1]}"}),
            },
        }
    )
