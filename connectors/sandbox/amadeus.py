"""Amadeus Self-Service endpoints (other than flights): token, locations, hotels, hotel offers, activities."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from aiohttp import web

from connectors.sandbox import activities, hotels, locations, money
from connectors.sandbox.auth import validate_grant
from connectors.sandbox.errors import (
    AMADEUS_JSON,
    INVALID_DATE,
    INVALID_FORMAT,
    INVALID_PROPERTY_CODE,
    NOTHING_FOUND_FOR_CITY,
    AmadeusError,
    TokenError,
    amadeus_error,
)
from connectors.sandbox.keys import CATALOGUE, FAULTS, TOKENS
from connectors.sandbox.params import AmadeusParams, today

_KEYWORD = re.compile(r"^[\w\s./:'()\"-]+$")
_HOTEL_ID = re.compile(r"^[A-Z0-9]{8}$")
ACTIVITY_REACH_KM = 25  # a city's activities are found this far beyond the search radius


def respond(body: dict[str, Any], status: int = 200) -> web.Response:
    return web.json_response(body, status=status, content_type=AMADEUS_JSON)


def base_url(request: web.Request) -> str:
    return str(request.url.origin())


def not_found(detail: str) -> AmadeusError:
    return AmadeusError(404, [amadeus_error(404, 1797, "NOT FOUND", detail)])


async def token(request: web.Request) -> web.Response:
    form = {k: str(v) for k, v in (await request.post()).items()}
    client_id, _ = validate_grant(form)
    if client_id in request.app[FAULTS].revoked_keys:
        raise TokenError(401, "invalid_client", "Client credentials are invalid")
    ttl = request.app[FAULTS].token_ttl_seconds
    access_token = request.app[TOKENS].issue(client_id, ttl)
    return web.json_response(
        {
            "type": "amadeusOAuth2Token",
            "username": "sandbox@wayfarer",
            "application_name": "wayfarer-sandbox",
            "client_id": client_id,
            "token_type": "Bearer",
            "access_token": access_token,
            "expires_in": ttl,
            "state": "approved",
            "scope": "",
        }
    )


async def location_search(request: web.Request) -> web.Response:
    p = AmadeusParams(request.query)
    sub_types = p.choices("subType", ("AIRPORT", "CITY"), required=True)
    keyword = p.string("keyword", required=True)
    if keyword is not None and not _KEYWORD.match(keyword):
        p.fail(INVALID_FORMAT, "keyword contains characters that are not allowed", "keyword")
    country = p.string("countryCode")
    limit = p.integer("page[limit]", 10, 1, 100)
    offset = p.integer("page[offset]", 0, 0, 100_000)
    p.raise_if_errors()
    assert keyword is not None and limit is not None and offset is not None
    found = locations.search(request.app[CATALOGUE], keyword, sub_types)
    if country:
        found = [e for e in found if e.country_code == country.upper()]
    base = base_url(request)
    page = [locations.item(e, base) for e in found[offset : offset + limit]]

    def link(at: int) -> str:
        return (
            f"{base}/v1/reference-data/locations?subType={','.join(sub_types)}&keyword={keyword}"
            f"&page[limit]={limit}&page[offset]={at}"
        )

    links = {"self": link(offset)}
    if offset + limit < len(found):
        links["next"] = link(offset + limit)
        links["last"] = link(((len(found) - 1) // limit) * limit)
    if offset > 0:
        links["first"] = link(0)
        links["previous"] = link(max(0, offset - limit))
    return respond({"meta": {"count": len(found), "links": links}, "data": page})


async def location_by_id(request: web.Request) -> web.Response:
    entry = locations.find(request.app[CATALOGUE], request.match_info["location_id"])
    if entry is None:
        raise not_found("No location found for this id")
    return respond(
        {"meta": {"links": {"self": str(request.url)}}, "data": locations.item(entry, base_url(request))}
    )


async def hotels_by_city(request: web.Request) -> web.Response:
    p = AmadeusParams(request.query)
    city_code = p.iata("cityCode")
    radius = p.integer("radius", 5, 1, 300)
    unit_name = p.choice("radiusUnit", ("KM", "MILE"), "KM")
    ratings = p.choices("ratings", ("1", "2", "3", "4", "5"))
    chains = [c.strip().upper() for c in (p.string("chainCodes") or "").split(",") if c.strip()]
    p.choice("hotelSource", ("BEDBANK", "DIRECTCHAIN", "ALL"), "ALL")
    p.raise_if_errors()
    assert city_code is not None and radius is not None and unit_name is not None
    city = request.app[CATALOGUE].city(city_code)
    if city is None:
        raise AmadeusError.bad(NOTHING_FOUND_FOR_CITY, "Nothing found for requested city", "cityCode")
    radius_km = radius if unit_name == "KM" else radius * 1.609344
    data = [
        hotels.hotel_list_item(h, unit_name)
        for h in hotels.hotels_for_city(city)
        if h.distance_km <= radius_km
        and (not ratings or str(h.rating) in ratings)
        and (not chains or h.chain_code in chains)
    ]
    return respond({"data": data, "meta": {"count": len(data), "links": {"self": str(request.url)}}})


async def hotel_offers(request: web.Request) -> web.Response:
    p = AmadeusParams(request.query)
    raw_ids = p.string("hotelIds", required=True) or ""
    adults = p.integer("adults", 1, 1, 9)
    check_in = p.date("checkInDate") or today()
    check_out = p.date("checkOutDate", future=False)
    rooms = p.integer("roomQuantity", 1, 1, 9)
    currency = p.string("currency")
    if currency is not None and not money.supported(currency):
        p.fail(INVALID_FORMAT, "currency must be an ISO 4217 currency code", "currency")
    best_only = p.boolean("bestRateOnly", True)
    p.raise_if_errors()
    assert adults is not None and rooms is not None
    check_out = check_out or check_in + dt.timedelta(days=1)
    if check_out <= check_in:
        raise AmadeusError.bad(INVALID_DATE, "Check-out date must be after check-in date", "checkOutDate")
    cat = request.app[CATALOGUE]
    ids = [i.strip().upper() for i in raw_ids.split(",") if i.strip()]
    found = [h for h in (hotels.find_hotel(cat, i) for i in ids if _HOTEL_ID.match(i)) if h is not None]
    if not found:
        raise AmadeusError.bad(INVALID_PROPERTY_CODE, "Invalid property code", "hotelIds")
    base = base_url(request)
    cur = currency.upper() if currency else None
    data = [
        hotels.hotel_offers_item(h, check_in, check_out, adults, rooms, cur, best_only, base) for h in found
    ]
    return respond({"data": data})


async def activity_search(request: web.Request) -> web.Response:
    p = AmadeusParams(request.query)
    lat = p.number("latitude", lo=-90, hi=90, required=True)
    lon = p.number("longitude", lo=-180, hi=180, required=True)
    radius = p.integer("radius", 1, 0, 20)
    p.raise_if_errors()
    assert lat is not None and lon is not None and radius is not None
    city = request.app[CATALOGUE].city_near(lat, lon, radius + ACTIVITY_REACH_KM)
    found = activities.activities_for_city(city) if city is not None else ()
    base = base_url(request)
    data = [activities.with_self(a, base) for a in found]
    return respond({"data": data, "meta": {"count": len(data), "links": {"self": str(request.url)}}})


async def activity_by_id(request: web.Request) -> web.Response:
    found = activities.find_activity(request.app[CATALOGUE], request.match_info["activity_id"])
    if found is None:
        raise not_found("no activity found for this id")
    return respond(
        {"meta": {"self": str(request.url)}, "data": activities.with_self(found, base_url(request))}
    )
