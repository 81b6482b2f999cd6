"""Duffel's dialect in the sandbox: POST /air/offer_requests, its headers, error bodies and rate limits.

Follows https://duffel.com/docs/api/v2/offer-requests/create-offer-request (request: ``{"data": {slices,
passengers, cabin_class, max_connections}}``, ``?return_offers=true``; answer 201 with the offer request
and its offers), https://duffel.com/docs/api/offers (the offer: total_amount/total_currency, owner, slices
of segments with marketing_carrier, marketing_carrier_flight_number, departing_at/arriving_at in local time)
and https://duffel.com/docs/api/overview/errors (``{"errors": [{type, code, title, message,
documentation_url, source}], "meta": {status, request_id}}``). Every answer carries ``ratelimit-limit``,
``ratelimit-remaining`` and ``ratelimit-reset``; a 429 adds ``Retry-After`` (or, with the fault
``rate_limit_headers='ratelimit'``, moves ``ratelimit-reset`` to when the client may come back).

The offers are the sandbox's Amadeus flight offers (connectors/sandbox/offers.py, same seed, same flights
and prices) rewritten into Duffel's shape by connectors/sandbox/duffel_offers.py. Offer and request ids
change with every search, as Duffel's do, so a client that keys on them is caught.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import json
import math
import time
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from connectors.duffel import SANDBOX_KEY as SANDBOX_TOKEN
from connectors.sandbox.common import malformed, tamper
from connectors.sandbox.data import Catalogue, Place
from connectors.sandbox.duffel_offers import offer_json, passenger_json, place_json
from connectors.sandbox.faults import SandboxFaults
from connectors.sandbox.keys import CATALOGUE, DICE, GUARDS, Handler
from connectors.sandbox.offers import FlightQuery, search_offers
from connectors.sandbox.params import today
from connectors.sandbox.rng import token

PREFIX = "/air/"
OFFER_REQUESTS = "/air/offer_requests"
VERSION = "v2"
RATE_LIMIT = 120  # requests a minute, Duffel's default for an organisation
MAX_DAYS_AHEAD = 361
CABINS = ("economy", "premium_economy", "business", "first")
DOCS = "https://duffel.com/docs/api/overview/errors"


@dataclass
class DuffelState:
    """Searches so far (ids differ per search) and the current rate-limit window."""

    searches: int = 0
    window_start: float = 0.0
    window_count: int = 0


STATE = web.AppKey("sandbox_duffel_state", DuffelState)


class DuffelError(Exception):
    """A Duffel error response: one error object, rendered with its meta by the guard."""

    def __init__(
        self, status: int, type_: str, code: str, title: str, message: str, field: str | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.error: dict[str, Any] = {
            "type": type_,
            "code": code,
            "title": title,
            "message": message,
            "documentation_url": DOCS,
        }
        if field is not None:
            self.error["source"] = {"field": field.rsplit("/", 1)[-1], "pointer": f"/data/{field}"}

    def body(self, request_id: str) -> dict[str, Any]:
        return {"errors": [self.error], "meta": {"status": self.status, "request_id": request_id}}


def invalid(field: str, message: str, code: str = "validation_format") -> DuffelError:
    return DuffelError(422, "validation_error", code, "Invalid field", message, field)


def install(app: web.Application) -> None:
    """Duffel's routes and its guard on the sandbox app."""
    app[STATE] = DuffelState()
    app.router.add_post(OFFER_REQUESTS, offer_requests)
    app[GUARDS][PREFIX] = guard


def _rate_headers(state: DuffelState) -> dict[str, str]:
    now = time.time()
    if now - state.window_start >= 60:
        state.window_start, state.window_count = now, 0
    state.window_count += 1
    reset = email.utils.formatdate(state.window_start + 60, usegmt=True)
    remaining = max(0, RATE_LIMIT - state.window_count)
    return {
        "ratelimit-limit": str(RATE_LIMIT),
        "ratelimit-remaining": str(remaining),
        "ratelimit-reset": reset,
    }


def _wait(faults: SandboxFaults) -> dict[str, str]:
    """A 429's word on when to come back: Retry-After, or ratelimit-reset as Duffel writes it (an HTTP
    date, rounded up to the whole second so that it is never earlier than the wait asked for)."""
    if faults.rate_limit_headers == "retry-after":
        return {"ratelimit-remaining": "0", **faults.rate_limit_hint()}
    reset = email.utils.formatdate(math.ceil(time.time() + faults.retry_after_seconds), usegmt=True)
    return {"ratelimit-remaining": "0", "ratelimit-reset": reset}


def _check_headers(request: web.Request, faults: SandboxFaults) -> None:
    authorization = request.headers.get("Authorization", "")
    if not authorization.strip():
        raise DuffelError(
            401,
            "authentication_error",
            "missing_authorization_header",
            "Missing authorization header",
            "The 'Authorization' header needs to be set and contain a valid API token.",
        )
    scheme, _, value = authorization.strip().partition(" ")
    if value.strip() in faults.revoked_keys:
        raise DuffelError(
            401,
            "authentication_error",
            "invalid_authorization_header",
            "Invalid authorization header",
            "The access token has been revoked.",
        )
    if scheme != "Bearer" or value.strip() != SANDBOX_TOKEN:
        raise DuffelError(
            401,
            "authentication_error",
            "invalid_authorization_header",
            "Invalid authorization header",
            "The 'Authorization' header must be 'Bearer <token>' with a valid access token.",
        )
    if request.headers.get("Duffel-Version") != VERSION:
        raise DuffelError(
            400,
            "invalid_request_error",
            "unsupported_version",
            "Unsupported API version",
            f"The 'Duffel-Version' header must name a supported version, e.g. '{VERSION}'.",
        )


async def guard(request: web.Request, handler: Handler, faults: SandboxFaults) -> web.StreamResponse:
    """Auth, version header, injected faults and Duffel-shaped errors around the Duffel handlers."""
    headers = _rate_headers(request.app[STATE])
    request_id = token("duffel-request", request.app[STATE].window_start, request.app[STATE].window_count)
    try:
        _check_headers(request, faults)
        if faults.too_many_requests > 0:
            faults.too_many_requests -= 1
            headers.update(_wait(faults))
            raise DuffelError(
                429,
                "rate_limit_error",
                "rate_limit_exceeded",
                "Rate limit exceeded",
                "You have exceeded the rate limit. Please retry after the time in ratelimit-reset.",
            )
        if request.app[DICE].roll(faults, faults.error_rate):
            raise DuffelError(
                500,
                "api_error",
                "internal_server_error",
                "Internal server error",
                "Something went wrong. Please contact our support team and attach the request_id.",
            )
        response = await handler(request)
    except DuffelError as exc:
        return web.json_response(exc.body(request_id), status=exc.status, headers=headers)
    except (web.HTTPNotFound, web.HTTPMethodNotAllowed):
        error = DuffelError(
            404,
            "invalid_request_error",
            "not_found",
            "Not found",
            "The resource you are trying to access does not exist.",
        )
        return web.json_response(error.body(request_id), status=404, headers=headers)
    status = response.status
    if status in (200, 201) and request.app[DICE].roll(faults, faults.malformed_rate):
        return _with(malformed(response), headers, status)
    return _with(_tamper(response, faults), headers, status, compress=True)


def _tamper(response: web.StreamResponse, faults: SandboxFaults) -> web.StreamResponse:
    """The sandbox's body faults apply to 200s; Duffel's search answers 201, so it is tampered as a 200."""
    if response.status != 201 or not isinstance(response, web.Response):
        return tamper(response, faults)
    response.set_status(200)
    return tamper(response, faults)


def _with(
    response: web.StreamResponse, headers: dict[str, str], status: int, *, compress: bool = False
) -> web.StreamResponse:
    response.set_status(status)
    response.headers.update(headers)
    if compress:
        response.enable_compression()  # gzip when the client sent Accept-Encoding: gzip, as Duffel asks
    return response


async def _json_body(request: web.Request) -> dict[str, Any]:
    try:
        body = json.loads(await request.read())
    except (ValueError, UnicodeDecodeError):
        raise DuffelError(
            400, "invalid_request_error", "malformed_json", "Malformed JSON", "The body is not valid JSON."
        ) from None
    if not isinstance(body, dict) or not isinstance(body.get("data"), dict):
        raise invalid("data", "The body must be an object with a 'data' object.", "validation_required")
    data: dict[str, Any] = body["data"]
    return data


def _place(cat: Catalogue, value: Any, field: str) -> Place:
    if not isinstance(value, str) or not value:
        raise invalid(field, f"Field '{field.rsplit('/', 1)[-1]}' can't be blank", "validation_required")
    place = cat.resolve(value.upper()) if len(value) == 3 else None
    if place is None:
        raise invalid(field, f"'{value}' is not a valid IATA airport or city code")
    return place


def _date(value: Any, field: str) -> dt.date:
    try:
        day = dt.date.fromisoformat(value)
    except (TypeError, ValueError):
        raise invalid(field, "departure_date must be an ISO 8601 date (YYYY-MM-DD)") from None
    if day < today():
        raise invalid(field, "departure_date must be today or later", "invalid_date")
    if (day - today()).days > MAX_DAYS_AHEAD:
        raise invalid(field, f"departure_date must be within {MAX_DAYS_AHEAD} days", "invalid_date")
    return day


def _passengers(raw: Any) -> tuple[int, int, int]:
    """Adults, children (aged 2-17) and infants (under 2) of the request's passengers."""
    if not isinstance(raw, list) or not raw:
        raise invalid("passengers", "Field 'passengers' can't be blank", "validation_required")
    adults = children = infants = 0
    for n, p in enumerate(raw):
        field = f"passengers/{n}"
        if not isinstance(p, dict) or ("type" in p) == ("age" in p):
            raise invalid(field, "A passenger must have either a type or an age, but not both")
        if "type" in p:
            if p["type"] != "adult":
                raise invalid(f"{field}/type", "For passengers under 18, specify their age instead of a type")
            adults += 1
            continue
        age = p["age"]
        if not isinstance(age, int) or isinstance(age, bool) or not 0 <= age <= 17:
            raise invalid(f"{field}/age", "age must be an integer from 0 to 17")
        if age < 2:
            infants += 1
        else:
            children += 1
    if adults + children > 9:
        raise invalid("passengers", "An offer request can have at most 9 seated passengers")
    if infants > adults:
        raise invalid("passengers", "Each infant must travel with an adult")
    return adults, children, infants


def _query(cat: Catalogue, data: dict[str, Any]) -> FlightQuery:
    slices = data.get("slices")
    if not isinstance(slices, list) or not slices:
        raise invalid("slices", "Field 'slices' can't be blank", "validation_required")
    if len(slices) > 2:
        raise invalid("slices", "The sandbox answers one-way and return journeys only")
    legs = []
    for n, s in enumerate(slices):
        s = s if isinstance(s, dict) else {}
        origin = _place(cat, s.get("origin"), f"slices/{n}/origin")
        dest = _place(cat, s.get("destination"), f"slices/{n}/destination")
        if origin.city_code == dest.city_code:
            raise invalid(f"slices/{n}/destination", "origin and destination must be different places")
        legs.append((origin, dest, _date(s.get("departure_date"), f"slices/{n}/departure_date")))
    return_date = None
    if len(legs) == 2:
        (o1, d1, day1), (o2, d2, day2) = legs
        if (o2.city_code, d2.city_code) != (d1.city_code, o1.city_code):
            raise invalid("slices/1", "The sandbox's second slice must return to the first slice's origin")
        if day2 < day1:
            raise invalid("slices/1/departure_date", "Slices must be in chronological order")
        return_date = day2
    cabin = data.get("cabin_class")
    if cabin is not None and cabin not in CABINS:
        raise invalid("cabin_class", f"cabin_class must be one of {', '.join(CABINS)}")
    connections = data.get("max_connections", 1)
    if connections not in (0, 1, 2):
        raise invalid("max_connections", "max_connections must be 0, 1 or 2")
    adults, children, infants = _passengers(data.get("passengers"))
    origin, dest, departure = legs[0]
    return FlightQuery(
        origin,
        dest,
        departure,
        return_date,
        adults,
        children,
        infants,
        (cabin or "economy").upper(),
        connections == 0,
        "EUR",
    )


async def offer_requests(request: web.Request) -> web.Response:
    """Create an offer request; with ``return_offers=true`` (the default) its offers come with it."""
    cat = request.app[CATALOGUE]
    data = await _json_body(request)
    query = _query(cat, data)
    state = request.app[STATE]
    state.searches += 1
    key = ("duffel", state.searches)
    passengers = passenger_json(data["passengers"], key)
    offers: list[dict[str, Any]] = []
    if request.query.get("return_offers", "true") != "false":
        found, _ = search_offers(cat, query, today())
        offers = [offer_json(cat, o, passengers, key, n) for n, o in enumerate(found)]
    now = dt.datetime.now(dt.UTC)
    body = {
        "data": {
            "id": "orq_" + token(*key, "request", length=22),
            "live_mode": False,
            "created_at": now.isoformat().replace("+00:00", "Z"),
            "cabin_class": data.get("cabin_class"),
            "client_key": None,
            "slices": [
                {
                    "origin": place_json(cat, s["origin"].upper()),
                    "destination": place_json(cat, s["destination"].upper()),
                    "origin_type": "airport" if s["origin"].upper() in cat.airports else "city",
                    "destination_type": "airport" if s["destination"].upper() in cat.airports else "city",
                    "departure_date": s["departure_date"],
                }
                for s in data["slices"]
            ],
            "passengers": passengers,
            "offers": offers,
        }
    }
    return web.json_response(body, status=201)
