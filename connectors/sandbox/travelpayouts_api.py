"""The Travelpayouts (Aviasales Data API) dialect of the sandbox: cached fares from the synthetic flights.

Paths, as the Data API serves them: GET /aviasales/v3/get_latest_prices (prices found in the last 48
hours from an origin, many per destination) and GET /v2/prices/month-matrix (one price a day for a
route and a month). The token goes in ``X-Access-Token`` (or ``?token=``); every answer is the
``{"success", "data", "error"}`` envelope, errors included (401, 400, 404, 429 with its wait, 500).
Prices are the sandbox's own cheapest economy fares (connectors/sandbox/offers.py), so the same
request gives the same fares; ``found_at`` is up to 47 hours before the current hour, as a cache's is.
"""

from __future__ import annotations

import asyncio
import calendar
import datetime as dt
import re
from typing import Any

from aiohttp import web

from connectors.sandbox import money
from connectors.sandbox.common import malformed, tamper
from connectors.sandbox.data import Catalogue, Place
from connectors.sandbox.faults import SandboxFaults
from connectors.sandbox.geo import haversine_km
from connectors.sandbox.keys import CATALOGUE, DICE, GUARDS, Handler
from connectors.sandbox.offers import FlightQuery, search_offers
from connectors.sandbox.params import today
from connectors.sandbox.rng import rng_for, unit
from connectors.travelpayouts import SANDBOX_KEY as SANDBOX_TOKEN

LATEST_PATH = "/aviasales/v3/get_latest_prices"
MONTH_MATRIX_PATH = "/v2/prices/month-matrix"
PREFIXES = ("/aviasales/", "/v2/prices/")
MAX_DAYS_AHEAD = 361
MAX_LIMIT = 1000
_IATA = re.compile(r"^[A-Z]{3}$")


class TravelpayoutsError(Exception):
    """A refusal in the Data API's envelope: {"success": false, "data": null, "error": message}."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def respond_error(status: int, message: str, headers: dict[str, str] | None = None) -> web.Response:
    return web.json_response(
        {"success": False, "data": None, "error": message}, status=status, headers=headers
    )


def install(app: web.Application) -> None:
    """Add the Data API's routes and its guard (auth, rate limits, faults, error bodies)."""
    app.router.add_get(LATEST_PATH, latest_prices)
    app.router.add_get(MONTH_MATRIX_PATH, month_matrix)
    for prefix in PREFIXES:
        app[GUARDS][prefix] = guard


async def guard(request: web.Request, handler: Handler, faults: SandboxFaults) -> web.StreamResponse:
    token = request.headers.get("X-Access-Token") or request.query.get("token")
    if token != SANDBOX_TOKEN or token in faults.revoked_keys:
        return respond_error(401, "Unauthorized")
    if faults.too_many_requests > 0:
        faults.too_many_requests -= 1
        return respond_error(429, "Too Many Requests", faults.rate_limit_hint())
    if request.app[DICE].roll(faults, faults.error_rate):
        return respond_error(500, "Internal Server Error")
    try:
        response = await handler(request)
    except TravelpayoutsError as exc:
        return respond_error(exc.status, exc.message)
    except (web.HTTPNotFound, web.HTTPMethodNotAllowed) as exc:
        return respond_error(exc.status, exc.reason)
    if response.status == 200 and request.app[DICE].roll(faults, faults.malformed_rate):
        return malformed(response)
    return tamper(response, faults)


def _place(cat: Catalogue, query: Any, key: str) -> Place:
    code = str(query.get(key) or "").upper()
    if not code:
        raise TravelpayoutsError(400, f"{key} is required")
    place = cat.resolve(code) if _IATA.match(code) else None
    if place is None:
        raise TravelpayoutsError(400, f"{key}: unknown IATA code {code}")
    return cat.resolve(place.city_code) or place  # cached prices are filed by city


def _bool(query: Any, key: str, default: bool) -> bool:
    raw = str(query.get(key, "")).lower()
    if raw in ("", "true", "false"):
        return default if raw == "" else raw == "true"
    raise TravelpayoutsError(400, f"{key} must be true or false")


def _int(query: Any, key: str, default: int | None, lo: int, hi: int) -> int | None:
    raw = query.get(key)
    if raw in (None, ""):
        return default
    try:
        value = int(raw)
    except ValueError:
        raise TravelpayoutsError(400, f"{key} must be an integer") from None
    if not lo <= value <= hi:
        raise TravelpayoutsError(400, f"{key} must be between {lo} and {hi}")
    return value


def _month(query: Any, key: str) -> dt.date:
    raw = str(query.get(key) or "")
    try:
        day = dt.date.fromisoformat(raw if len(raw) != 7 else raw + "-01")
    except ValueError:
        raise TravelpayoutsError(400, f"{key} must be YYYY-MM or YYYY-MM-DD") from None
    return day.replace(day=1)


def _currency(query: Any) -> str:
    currency = str(query.get("currency") or "rub").upper()
    if not money.supported(currency):
        raise TravelpayoutsError(400, f"currency {currency.lower()} is not supported")
    return currency


def _window(first: dt.date, last: dt.date) -> tuple[dt.date, dt.date]:
    """The days from ``first`` to ``last`` that are bookable: tomorrow to MAX_DAYS_AHEAD days ahead."""
    now = today()
    return max(first, now + dt.timedelta(days=1)), min(last, now + dt.timedelta(days=MAX_DAYS_AHEAD))


def _found_at(*key: object) -> str:
    hour = dt.datetime.now(dt.UTC).replace(minute=0, second=0, microsecond=0)
    found = hour - dt.timedelta(hours=1 + int(unit("tp-found", *key) * 46))
    return found.strftime("%Y-%m-%dT%H:%M:%SZ")


def _distance(cat: Catalogue, origin: Place, dest: Place) -> int:
    a, b = cat.by_code.get(origin.city_code), cat.by_code.get(dest.city_code)
    return round(haversine_km(a.latitude, a.longitude, b.latitude, b.longitude)) if a and b else 0


def _fare(
    cat: Catalogue,
    origin: Place,
    dest: Place,
    departure: dt.date,
    one_way: bool,
    trip_weeks: int | None,
    currency: str,
) -> dict[str, Any] | None:
    """One cached price in the Data API's item shape: the cheapest economy offer for one adult."""
    ret = None
    if not one_way:
        rng = rng_for("tp-stay", origin.city_code, dest.city_code, departure)
        stay = trip_weeks * 7 if trip_weeks else rng.randint(3, 14)
        ret = departure + dt.timedelta(days=stay)
    offers, _ = search_offers(cat, FlightQuery(origin, dest, departure, ret, max_results=1), departure)
    if not offers:
        return None
    offer = offers[0]
    return {
        "origin": origin.city_code,
        "destination": dest.city_code,
        "depart_date": departure.isoformat(),
        "return_date": ret.isoformat() if ret else "",
        "value": round(money.convert(float(offer["price"]["grandTotal"]), currency)),
        "number_of_changes": len(offer["itineraries"][0]["segments"]) - 1,
        "trip_class": 0,
        "gate": "Sandbox",
        "distance": _distance(cat, origin, dest),
        "actual": True,
        "show_to_affiliates": True,
        "found_at": _found_at(origin.city_code, dest.city_code, departure, ret),
    }


async def latest_prices(request: web.Request) -> web.Response:
    q = request.query
    cat = request.app[CATALOGUE]
    origin = _place(cat, q, "origin")
    dest = _place(cat, q, "destination") if q.get("destination") else None
    currency = _currency(q)
    one_way = _bool(q, "one_way", False)
    limit = _int(q, "limit", 30, 1, MAX_LIMIT) or 30
    trip_weeks = _int(q, "trip_duration", None, 1, 4)
    period_type = q.get("period_type", "year")
    if period_type == "month":
        start = _month(q, "beginning_of_period")
        first, last = _window(start, start.replace(day=calendar.monthrange(start.year, start.month)[1]))
    elif period_type == "year":
        first, last = _window(today(), today() + dt.timedelta(days=180))
    else:
        raise TravelpayoutsError(400, "period_type must be year or month")
    if dest is not None and dest.city_code == origin.city_code:
        raise TravelpayoutsError(400, "origin and destination must differ")

    def compute() -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if last < first:
            return out
        span = (last - first).days
        targets = [dest] if dest is not None else [cat.resolve(c.city_code) for c in cat.cities]
        for target in targets:
            if target is None or target.city_code == origin.city_code:
                continue
            rng = rng_for("tp-latest", origin.city_code, target.city_code, first, last)
            for day in sorted({first + dt.timedelta(days=rng.randint(0, span)) for _ in range(3)}):
                item = _fare(cat, origin, target, day, one_way, trip_weeks, currency)
                if item is not None:
                    out.append(item)
        return out

    data = await asyncio.to_thread(compute)
    if q.get("sorting", "price") == "price":
        data.sort(key=lambda d: (d["value"], d["depart_date"], d["destination"]))
    return web.json_response({"success": True, "data": data[:limit], "currency": currency.lower()})


async def month_matrix(request: web.Request) -> web.Response:
    q = request.query
    cat = request.app[CATALOGUE]
    origin = _place(cat, q, "origin")
    dest = _place(cat, q, "destination")
    if dest.city_code == origin.city_code:
        raise TravelpayoutsError(400, "origin and destination must differ")
    currency = _currency(q)
    one_way = _bool(q, "one_way", False)
    trip_weeks = _int(q, "trip_duration", None, 1, 4)
    start = _month(q, "month")
    if start > today() + dt.timedelta(days=MAX_DAYS_AHEAD):
        raise TravelpayoutsError(400, f"month {start:%Y-%m} is too far ahead")
    first, last = _window(start, start.replace(day=calendar.monthrange(start.year, start.month)[1]))

    def compute() -> list[dict[str, Any]]:
        days = [first + dt.timedelta(days=n) for n in range((last - first).days + 1)]
        # A cache has gaps: about one day in seven nobody searched.
        cached = [d for d in days if unit("tp-gap", origin.city_code, dest.city_code, d) >= 0.15]
        found = (_fare(cat, origin, dest, d, one_way, trip_weeks, currency) for d in cached)
        return [item for item in found if item is not None]

    data = await asyncio.to_thread(compute)
    return web.json_response({"success": True, "data": data, "currency": currency.lower()})
