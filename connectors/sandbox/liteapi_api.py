"""LiteAPI (Nuitée) v3.0 in the sandbox: the hotel list and the rates search, with LiteAPI's auth and errors.

Followed: https://docs.liteapi.travel/reference/get_data-hotels (GET /v3.0/data/hotels by countryCode +
cityName or latitude/longitude/radius in metres), https://docs.liteapi.travel/reference/post_hotels-rates
(POST /v3.0/hotels/rates: hotelIds, occupancies [{adults, children: [ages]}], currency, guestNationality,
checkin, checkout; data[].roomTypes[] offers holding one rate per occupancy), and the error body of the
API's OpenAPI description: ``{"error": {"code": 4002, "description": "...", "message": "..."}}``. The key
goes in ``X-API-Key``.

Hotels and prices come from the Amadeus generators (hotels.py), so LiteAPI and Amadeus quote the same
rooms; only the shapes differ. ``offerId``/``rateId`` are new on every search, as LiteAPI's are, so a
client that keyed results by them would not deduplicate.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import secrets
from typing import Any

from aiohttp import web

from connectors.liteapi import SANDBOX_KEY as API_KEY
from connectors.places import fold
from connectors.sandbox import hotels, money
from connectors.sandbox.common import malformed, tamper
from connectors.sandbox.data import Catalogue, City
from connectors.sandbox.faults import SandboxFaults
from connectors.sandbox.geo import haversine_km
from connectors.sandbox.keys import CATALOGUE, DICE, GUARDS, Handler
from connectors.sandbox.rng import unit

PREFIX = "/v3.0/"
HOTELS_PATH = "/v3.0/data/hotels"
RATES_PATH = "/v3.0/hotels/rates"
MISSING = "required request field is missing or wrong input"
BOARDS = (("RO", "Room Only", 1.0), ("BB", "Bed and Breakfast", 1.08), ("HB", "Half Board", 1.25))


class LiteApiError(Exception):
    """A LiteAPI error answer: its HTTP status and its ``{"error": {code, description, message}}`` body."""

    def __init__(self, status: int, code: int, message: str, description: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.description = description or message

    def response(self, headers: dict[str, str] | None = None) -> web.Response:
        body = {"error": {"code": self.code, "description": self.description, "message": self.message}}
        return web.json_response(body, status=self.status, headers=headers)


def install(app: web.Application) -> None:
    app.router.add_get(HOTELS_PATH, hotel_list)
    app.router.add_post(RATES_PATH, hotel_rates)
    app[GUARDS][PREFIX] = guard


async def guard(request: web.Request, handler: Handler, faults: SandboxFaults) -> web.StreamResponse:
    """LiteAPI's dialect: X-API-Key, 429 with its wait, 500s, and its error body on every failure."""
    try:
        key = request.headers.get("X-API-Key")
        if key != API_KEY:
            raise LiteApiError(401, 401, "authentication failed", "missing or invalid API key")
        if key in faults.revoked_keys:
            raise LiteApiError(401, 401, "authentication failed", "this API key has been revoked")
        if faults.quota_exceeded:
            raise LiteApiError(429, 429, "request quota exceeded for this API key")
        if faults.too_many_requests > 0:
            faults.too_many_requests -= 1
            return LiteApiError(429, 429, "too many requests").response(faults.rate_limit_hint())
        if request.app[DICE].roll(faults, faults.error_rate):
            raise LiteApiError(500, 500, "internal server error")
        response = await handler(request)
    except LiteApiError as exc:
        return exc.response()
    except (web.HTTPNotFound, web.HTTPMethodNotAllowed):
        return LiteApiError(404, 404, "not found", f"no route for {request.method} {request.path}").response()
    if response.status == 200 and request.app[DICE].roll(faults, faults.malformed_rate):
        return malformed(response)
    return tamper(response, faults)


def lite_id(h: hotels.Hotel) -> str:
    """LiteAPI-style hotel id ("lp" and lower case), reversible to the generator's id."""
    return "lp" + h.hotel_id.lower()


async def hotel_list(request: web.Request) -> web.Response:
    q = request.query
    cat = request.app[CATALOGUE]
    limit = _int(q.get("limit"), "limit", 200, 1, 5000)
    offset = _int(q.get("offset"), "offset", 0, 0, 100_000)
    found: list[hotels.Hotel] = []
    if q.get("latitude") or q.get("longitude"):
        lat = _number(q.get("latitude"), "latitude", -90, 90)
        lon = _number(q.get("longitude"), "longitude", -180, 180)
        radius_km = _int(q.get("radius"), "radius", 5000, 1000, 500_000) / 1000
        city = cat.city_near(lat, lon, radius_km + 10)
        if city is not None:
            found = [
                h
                for h in hotels.hotels_for_city(city)
                if haversine_km(lat, lon, h.latitude, h.longitude) <= radius_km
            ]
    else:
        country = (q.get("countryCode") or "").strip().upper()
        if len(country) != 2 or not country.isalpha():
            raise LiteApiError(400, 4002, MISSING, "countryCode (ISO 3166-1 alpha-2) is required")
        name = fold(q.get("cityName") or "")
        city = next((c for c in cat.cities if c.country_code == country and _names(c, name)), None)
        if city is not None:
            found = list(hotels.hotels_for_city(city))
        elif not name:
            found = [h for c in cat.cities if c.country_code == country for h in hotels.hotels_for_city(c)]
    page = found[offset : offset + limit]
    data = [_hotel_item(h) for h in page]
    return web.json_response({"data": data, "hotelIds": [d["id"] for d in data], "total": len(found)})


def _names(city: City, name: str) -> bool:
    return bool(name) and (name == fold(city.name) or name in (fold(a) for a in city.aliases))


def _hotel_item(h: hotels.Hotel) -> dict[str, Any]:
    brand = next((b for c, b, _ in hotels.BRANDS if c == h.chain_code), None)
    return {
        "id": lite_id(h),
        "name": h.name.title(),
        "hotelDescription": f"A {h.rating}-star hotel {h.distance_km:.1f} km from the centre of {h.city.name}.",
        "currency": h.city.currency,
        "country": h.city.country_code.lower(),
        "city": h.city.name,
        "latitude": h.latitude,
        "longitude": h.longitude,
        "address": f"{1 + int(unit('lite-address', h.hotel_id) * 200)} {h.city.name} Street",
        "zip": "",
        "main_photo": "",
        "stars": h.rating,
        "rating": round(6 + 4 * unit("lite-rating", h.hotel_id), 1),
        "reviewCount": int(unit("lite-reviews", h.hotel_id) * 3000),
        "chainId": 10_000 + sum(map(ord, h.chain_code)) if brand else 0,
        "chain": brand.title() if brand else "Not Available",
    }


async def hotel_rates(request: web.Request) -> web.Response:
    try:
        body = json.loads(await request.read())
    except ValueError:
        raise LiteApiError(400, 4000, "invalid request body", "the body must be JSON") from None
    if not isinstance(body, dict):
        raise LiteApiError(400, 4000, "invalid request body", "the body must be a JSON object")
    occupancies = _occupancies(body.get("occupancies"))
    currency = str(body.get("currency") or "").upper()
    if not money.supported(currency):
        raise LiteApiError(400, 4002, MISSING, f"currency {currency or '(none)'} is not supported")
    nationality = str(body.get("guestNationality") or "")
    if len(nationality) != 2 or not nationality.isalpha():
        raise LiteApiError(400, 4002, MISSING, "guestNationality must be an ISO 3166-1 alpha-2 code")
    check_in = _date(body.get("checkin"), "checkin")
    check_out = _date(body.get("checkout"), "checkout")
    if check_in < dt.date.today():
        raise LiteApiError(400, 4002, MISSING, "checkin must not be in the past")
    if not 0 < (check_out - check_in).days <= 30:
        raise LiteApiError(400, 4002, MISSING, "checkout must be 1 to 30 nights after checkin")
    ids = body.get("hotelIds")
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
        raise LiteApiError(400, 4002, MISSING, "hotelIds is required (the sandbox searches by hotel ids)")
    cat = request.app[CATALOGUE]
    found = [h for h in (_find(cat, i) for i in ids[:200]) if h is not None]
    per_hotel = body.get("maxRatesPerHotel")
    mapping = body.get("roomMapping") is True
    data = []
    for h in found:
        offers = _room_types(
            h, check_in, check_out, occupancies, currency, mapping, str(request.url.origin())
        )
        if isinstance(per_hotel, int) and per_hotel > 0:
            offers = offers[:per_hotel]
        if offers:
            data.append({"hotelId": lite_id(h), "roomTypes": offers})
    if not data:
        # LiteAPI answers a search without rooms with its "no availability" error, not an empty list.
        raise LiteApiError(200, 2001, "no availability found", "no availability found")
    return web.json_response({"data": data, "guestLevel": 0, "sandbox": True})


def _find(cat: Catalogue, lite: str) -> hotels.Hotel | None:
    if not lite.lower().startswith("lp"):
        return None
    return hotels.find_hotel(cat, lite[2:].upper())


def _occupancies(raw: Any) -> list[tuple[int, list[int]]]:
    if not isinstance(raw, list) or not 1 <= len(raw) <= 9:
        raise LiteApiError(400, 4002, MISSING, "occupancies must list 1 to 9 rooms")
    out: list[tuple[int, list[int]]] = []
    for occ in raw:
        adults = occ.get("adults") if isinstance(occ, dict) else None
        children = (occ.get("children") or []) if isinstance(occ, dict) else None
        if not isinstance(adults, int) or not 1 <= adults <= 9 or not isinstance(children, list):
            raise LiteApiError(400, 4002, MISSING, "each occupancy needs adults (1 to 9) and children ages")
        if not all(isinstance(a, int) and 0 <= a <= 17 for a in children):
            raise LiteApiError(400, 4002, MISSING, "children ages must be 0 to 17")
        out.append((adults, children))
    return out


def _room_types(
    h: hotels.Hotel,
    check_in: dt.date,
    check_out: dt.date,
    occupancies: list[tuple[int, list[int]]],
    currency: str,
    mapping: bool,
    base: str,
) -> list[dict[str, Any]]:
    """The hotel's offers for the stay, cheapest first: Amadeus's rooms and prices in LiteAPI's shape."""
    rooms = len(occupancies)
    guests = sum(a + math.ceil(len(c) / 2) for a, c in occupancies)
    item = hotels.hotel_offers_item(h, check_in, check_out, guests, rooms, currency, False, base)
    out: list[tuple[float, dict[str, Any]]] = []
    for offer in item.get("offers", []):
        estimated = offer["room"]["typeEstimated"]
        category = estimated["category"]
        board, board_name, factor = BOARDS[min(2, int(unit("lite-board", h.hotel_id, category) * 2.6))]
        total = money.round_minor(float(offer["price"]["total"]) * factor, currency)
        base_total = money.round_minor(float(offer["price"]["base"]) * factor, currency)
        beds = estimated["beds"]
        name = f"{category.replace('_', ' ').title()}, {beds} {estimated['bedType'].title()} bed{'s' if beds > 1 else ''}"
        refundable = "cancellations" in offer["policies"]
        rates = [
            _rate(h, n, adults, children, name, board, board_name, total / rooms, base_total / rooms,
                  currency, refundable, check_in, mapping, category)
            for n, (adults, children) in enumerate(occupancies)
        ]  # fmt: skip
        out.append(
            (
                total,
                {
                    "roomTypeId": _token(),
                    "offerId": _token(48),
                    "supplier": "nuitee",
                    "supplierId": 2,
                    "rates": rates,
                    "offerRetailRate": {"amount": total, "currency": currency},
                    "offerInitialPrice": {"amount": total, "currency": currency},
                    "priceType": "commission",
                    "rateType": "standard",
                },
            )
        )
    out.sort(key=lambda pair: pair[0])
    return [room_type for _, room_type in out]


def _rate(
    h: hotels.Hotel,
    n: int,
    adults: int,
    children: list[int],
    name: str,
    board: str,
    board_name: str,
    amount: float,
    base_amount: float,
    currency: str,
    refundable: bool,
    check_in: dt.date,
    mapping: bool,
    category: str,
) -> dict[str, Any]:
    amount = money.round_minor(amount, currency)
    deadline = check_in - dt.timedelta(days=2) if refundable else dt.date.today()
    rate: dict[str, Any] = {
        "rateId": _token(),
        "occupancyNumber": n + 1,
        "name": name,
        "maxOccupancy": max(2, adults + len(children)),
        "adultCount": adults,
        "childCount": len(children),
        "childrenAges": children,
        "boardType": board,
        "boardName": board_name,
        "remarks": "",
        "priceType": "commission",
        "commission": [{"amount": money.round_minor(amount * 0.1, currency), "currency": currency}],
        "retailRate": {
            "total": [{"amount": amount, "currency": currency}],
            "initialPrice": [{"amount": amount, "currency": currency}],
            "taxesAndFees": [
                {
                    "included": True,
                    "description": "Taxes",
                    "amount": money.round_minor(amount - base_amount, currency),
                    "currency": currency,
                }
            ],
        },  # fmt: skip
        "cancellationPolicies": {
            "cancelPolicyInfos": [
                {
                    "cancelTime": f"{deadline.isoformat()} 16:00:00",
                    "amount": amount,
                    "currency": currency,
                    "type": "amount",
                    "timezone": "GMT",
                }
            ],
            "hotelRemarks": [],
            "refundableTag": "RFN" if refundable else "NRFN",
        },  # fmt: skip
        "paymentTypes": ["NUITEE_PAY"],
    }
    if mapping:
        rate["mappedRoomId"] = 1_000_000 + int(unit("lite-room", h.hotel_id, category) * 8_999_999)
    return rate


def _token(length: int = 32) -> str:
    """An opaque id that changes on every search, like LiteAPI's offer and rate ids."""
    return secrets.token_hex(length // 2).upper()


def _int(raw: str | None, field: str, default: int, lo: int, hi: int) -> int:
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise LiteApiError(400, 4002, MISSING, f"{field} must be an integer") from None
    if not lo <= value <= hi:
        raise LiteApiError(400, 4002, MISSING, f"{field} must be between {lo} and {hi}")
    return value


def _number(raw: str | None, field: str, lo: float, hi: float) -> float:
    try:
        value = float(raw or "")
    except ValueError:
        raise LiteApiError(400, 4002, MISSING, f"{field} must be a number") from None
    if not (math.isfinite(value) and lo <= value <= hi):
        raise LiteApiError(400, 4002, MISSING, f"{field} must be between {lo:g} and {hi:g}")
    return value


def _date(raw: Any, field: str) -> dt.date:
    try:
        return dt.date.fromisoformat(str(raw))
    except ValueError:
        raise LiteApiError(400, 4002, MISSING, f"{field} must be a date YYYY-MM-DD") from None
