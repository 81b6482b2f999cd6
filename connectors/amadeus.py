"""Amadeus-compatible provider: flights, hotels, activities, locations, inspiration, cheapest dates.

OAuth2 client credentials; the token is cached and refreshed a minute before it expires, and a 401
mid-session refreshes it once and retries. The base URL is a setting (test, production, the sandbox, or
any compatible host).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import re
import time
from typing import Any

import aiohttp

from connectors.http import ErrorInfo, JsonHttp, RateLimiter, RetryPolicy
from connectors.models import (
    Activity,
    CheapestDate,
    FarePoint,
    FlightOffer,
    HotelOffer,
    Inspiration,
    Itinerary,
    Location,
    Result,
    Segment,
)
from connectors.params import (
    ActivitySearchParams,
    CheapestDatesParams,
    FlightInspirationParams,
    FlightSearchParams,
    HotelSearchParams,
    LocationSearchParams,
    ToolParams,
)
from rag.errors import ProviderAuthError, ProviderResponseError, ProviderUnavailableError

logger = logging.getLogger(__name__)

TOKEN_PATH = "/v1/security/oauth2/token"


def describe_error(status: int, body: Any) -> ErrorInfo:
    """Amadeus errors: {"errors": [{status, code, title, detail}]}; token errors: {error, error_description}."""
    if isinstance(body, dict):
        errors = body.get("errors")
        if isinstance(errors, list) and errors and isinstance(errors[0], dict):
            e = errors[0]
            title, detail = str(e.get("title") or ""), str(e.get("detail") or "")
            param = (e.get("source") or {}).get("parameter") if isinstance(e.get("source"), dict) else None
            message = ": ".join(x for x in (title, detail) if x) + (f" [{param}]" if param else "")
            quota = "quota" in f"{title} {detail}".lower()
            return ErrorInfo(str(e.get("code") or ""), message or f"HTTP {status}", quota)
        if "error" in body:
            return ErrorInfo(str(body.get("code") or ""), str(body.get("error_description") or body["error"]))
    return ErrorInfo("", f"HTTP {status}")


class AmadeusConnector:
    name = "amadeus"
    tools = frozenset(
        {
            "flight_search",
            "hotel_search",
            "activity_search",
            "location_search",
            "flight_inspiration",
            "cheapest_dates",
        }
    )

    def __init__(
        self,
        session: aiohttp.ClientSession,
        base_url: str,
        client_id: str,
        client_secret: str,
        *,
        policy: RetryPolicy,
        limiter: RateLimiter | None,
        sandbox: bool = False,
        hotel_candidates: int = 20,
    ) -> None:
        self._base = base_url.rstrip("/")
        self._client_id = client_id
        self._client_secret = client_secret
        self._http = JsonHttp(session, "Amadeus", policy, describe_error, limiter)
        self.sandbox = sandbox
        self._hotel_candidates = hotel_candidates
        self._token: str | None = None
        self._expires_at = 0.0
        self._token_lock = asyncio.Lock()
        self.token_fetches = 0

    @property
    def attempts(self) -> int:
        return self._http.attempts

    async def _access_token(self, *, force: bool = False) -> str:
        async with self._token_lock:
            # Refresh a minute early (or at 80% of a short lifetime) so no call carries a dying token.
            if not force and self._token and time.monotonic() < self._expires_at:
                return self._token
            body = await self._http.request(
                "POST",
                self._base + TOKEN_PATH,
                data={
                    "grant_type": "client_credentials",
                    "client_id": self._client_id,
                    "client_secret": self._client_secret,
                },
            )
            token, ttl = body.get("access_token"), body.get("expires_in")
            if not isinstance(token, str) or not isinstance(ttl, int | float):
                raise ProviderResponseError("Amadeus sent a token response without access_token/expires_in")
            self._token = token
            self._expires_at = time.monotonic() + max(min(ttl - 60, ttl * 0.8), 0)
            self.token_fetches += 1
            return token

    async def _get(self, path: str, params: dict[str, str]) -> dict[str, Any]:
        token = await self._access_token()
        try:
            body = await self._http.request(
                "GET", self._base + path, params=params, headers={"Authorization": f"Bearer {token}"}
            )
        except ProviderAuthError:
            # The token expired or was revoked mid-session: refresh once and retry once.
            token = await self._access_token(force=True)
            body = await self._http.request(
                "GET", self._base + path, params=params, headers={"Authorization": f"Bearer {token}"}
            )
        if not isinstance(body, dict) or not isinstance(body.get("data", []), list):
            raise ProviderResponseError(f"Amadeus {path}: the response has no data list")
        return body

    async def call(self, tool: str, params: ToolParams, limit: int) -> list[Result]:
        try:
            if isinstance(params, FlightSearchParams):
                return list(await self._flights(params, limit))
            if isinstance(params, HotelSearchParams):
                return list(await self._hotels(params, limit))
            if isinstance(params, ActivitySearchParams):
                return list(await self._activities(params, limit))
            if isinstance(params, LocationSearchParams):
                return list(await self._locations(params, limit))
            if isinstance(params, FlightInspirationParams):
                return list(await self._inspiration(params, limit))
            if isinstance(params, CheapestDatesParams):
                return list(await self._cheapest_dates(params, limit))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ProviderResponseError(f"Amadeus sent a response we cannot read: {exc!r}") from exc
        raise ProviderUnavailableError(f"Amadeus does not serve {tool}")

    async def _flights(self, p: FlightSearchParams, limit: int) -> list[FlightOffer]:
        q = {
            "originLocationCode": p.origin,
            "destinationLocationCode": p.destination,
            "departureDate": p.departure_date.isoformat(),
            "adults": str(p.adults),
            "travelClass": p.cabin,
            "nonStop": "true" if p.nonstop else "false",
            "max": str(min(250, max(limit, 10))),
        }
        if p.return_date:
            q["returnDate"] = p.return_date.isoformat()
        if p.children:
            q["children"] = str(p.children)
        if p.infants:
            q["infants"] = str(p.infants)
        if p.max_price:
            q["maxPrice"] = str(p.max_price)
        if p.currency:
            q["currencyCode"] = p.currency
        body = await self._get("/v2/shopping/flight-offers", q)
        carriers = (body.get("dictionaries") or {}).get("carriers") or {}
        now = _now()
        offers = []
        for item in body["data"]:
            cabin = p.cabin
            details = (item.get("travelerPricings") or [{}])[0].get("fareDetailsBySegment") or []
            if details and details[0].get("cabin"):
                cabin = details[0]["cabin"]
            itineraries = [
                Itinerary(
                    segments=[_segment(s, carriers) for s in it["segments"]],
                    duration_minutes=_iso_minutes(it.get("duration")),
                )
                for it in item["itineraries"]
            ]
            offers.append(
                FlightOffer(
                    provider=self.name,
                    sandbox=self.sandbox,
                    fetched_at=now,
                    itineraries=itineraries,
                    cabin=cabin,
                    price=float(item["price"].get("grandTotal") or item["price"]["total"]),
                    currency=item["price"]["currency"],
                    adults=p.adults,
                    bookable_seats=item.get("numberOfBookableSeats"),
                )
            )
        offers.sort(key=lambda o: o.price)
        return offers[:limit]

    async def _hotels(self, p: HotelSearchParams, limit: int) -> list[HotelOffer]:
        # v3 hotel offers take hotel ids, not a city: list the city's hotels first.
        listing = await self._get(
            "/v1/reference-data/locations/hotels/by-city", {"cityCode": p.city, "radius": "20"}
        )
        ids = [h["hotelId"] for h in listing["data"] if h.get("hotelId")][: self._hotel_candidates]
        if not ids:
            return []
        assert p.check_out is not None
        q = {
            "hotelIds": ",".join(ids),
            "adults": str(p.adults),
            "checkInDate": p.check_in.isoformat(),
            "checkOutDate": p.check_out.isoformat(),
            "roomQuantity": str(p.rooms),
            "bestRateOnly": "true",
        }
        if p.currency:
            q["currency"] = p.currency
        body = await self._get("/v3/shopping/hotel-offers", q)
        now = _now()
        offers = []
        for entry in body["data"]:
            hotel = entry.get("hotel") or {}
            if not entry.get("available", True):
                continue
            for o in entry.get("offers") or []:
                room = o.get("room") or {}
                policies = o.get("policies") or {}
                cancellation = policies.get("cancellation") or (policies.get("cancellations") or [{}])[0]
                offers.append(
                    HotelOffer(
                        provider=self.name,
                        sandbox=self.sandbox,
                        fetched_at=now,
                        hotel_id=hotel["hotelId"],
                        name=hotel.get("name") or hotel["hotelId"],
                        city_code=hotel.get("cityCode") or p.city,
                        latitude=hotel.get("latitude"),
                        longitude=hotel.get("longitude"),
                        check_in=dt.date.fromisoformat(o.get("checkInDate") or p.check_in.isoformat()),
                        check_out=dt.date.fromisoformat(o.get("checkOutDate") or p.check_out.isoformat()),
                        room=room.get("type"),
                        room_description=_room_text(room),
                        adults=int((o.get("guests") or {}).get("adults") or p.adults),
                        price=float(o["price"]["total"]),
                        currency=o["price"]["currency"],
                        cancellation=_cancellation_text(cancellation),
                    )
                )
        if p.max_price:
            offers = [o for o in offers if o.price <= p.max_price]
        offers.sort(key=lambda o: o.price)
        return offers[:limit]

    async def _activities(self, p: ActivitySearchParams, limit: int) -> list[Activity]:
        assert p.latitude is not None and p.longitude is not None
        q = {"latitude": f"{p.latitude:.6f}", "longitude": f"{p.longitude:.6f}", "radius": str(p.radius_km)}
        body = await self._get("/v1/shopping/activities", q)
        now = _now()
        out = []
        for a in body["data"]:
            price = a.get("price") or {}
            geo = a.get("geoCode") or {}
            out.append(
                Activity(
                    provider=self.name,
                    sandbox=self.sandbox,
                    fetched_at=now,
                    activity_id=str(a["id"]),
                    name=str(a["name"]),
                    description=a.get("shortDescription") or a.get("description"),
                    latitude=_float(geo.get("latitude")),
                    longitude=_float(geo.get("longitude")),
                    rating=_float(a.get("rating")),
                    price=_float(price.get("amount")),
                    currency=price.get("currencyCode"),
                    duration=a.get("minimumDuration"),
                    booking_link=a.get("bookingLink"),
                )
            )
        out.sort(key=lambda a: -(a.rating or 0))
        return out[:limit]

    async def _locations(self, p: LocationSearchParams, limit: int) -> list[Location]:
        sub = "AIRPORT,CITY" if p.kind == "ANY" else p.kind
        body = await self._get(
            "/v1/reference-data/locations", {"subType": sub, "keyword": p.keyword, "page[limit]": str(limit)}
        )
        now = _now()
        out = []
        for loc in body["data"]:
            address = loc.get("address") or {}
            geo = loc.get("geoCode") or {}
            out.append(
                Location(
                    provider=self.name,
                    sandbox=self.sandbox,
                    fetched_at=now,
                    location_id=str(loc.get("id") or f"{loc['subType'][0]}{loc['iataCode']}"),
                    sub_type=str(loc["subType"]),
                    name=str(loc["name"]),
                    iata=str(loc["iataCode"]),
                    city_name=address.get("cityName"),
                    city_code=address.get("cityCode"),
                    country_code=address.get("countryCode"),
                    latitude=_float(geo.get("latitude")),
                    longitude=_float(geo.get("longitude")),
                )
            )
        return out[:limit]

    async def _inspiration(self, p: FlightInspirationParams, limit: int) -> list[FarePoint]:
        q = {"origin": p.origin, "oneWay": str(p.one_way).lower(), "nonStop": str(p.nonstop).lower()}
        if p.max_price:
            q["maxPrice"] = str(p.max_price)
        return await self._fares(
            "/v1/shopping/flight-destinations",
            q,
            p.departure_date,
            p.duration_days,
            p.one_way,
            Inspiration,
            limit,
        )

    async def _cheapest_dates(self, p: CheapestDatesParams, limit: int) -> list[FarePoint]:
        q = {
            "origin": p.origin,
            "destination": p.destination,
            "oneWay": str(p.one_way).lower(),
            "nonStop": str(p.nonstop).lower(),
        }
        return await self._fares(
            "/v1/shopping/flight-dates", q, p.departure_date, p.duration_days, p.one_way, CheapestDate, limit
        )

    async def _fares(
        self,
        path: str,
        q: dict[str, str],
        departure: dt.date | None,
        duration: int | None,
        one_way: bool,
        model: type[Inspiration] | type[CheapestDate],
        limit: int,
    ) -> list[FarePoint]:
        """Flight destinations and flight dates answer in the same shape: cached, indicative fares."""
        if departure:
            q["departureDate"] = departure.isoformat()
        if duration and not one_way:
            q["duration"] = str(duration)
        body = await self._get(path, q)
        currency = (body.get("meta") or {}).get("currency") or "EUR"
        now = _now()
        out: list[FarePoint] = [
            model(
                provider=self.name,
                sandbox=self.sandbox,
                fetched_at=now,
                origin=d["origin"],
                destination=d["destination"],
                departure_date=dt.date.fromisoformat(d["departureDate"]),
                return_date=dt.date.fromisoformat(d["returnDate"]) if d.get("returnDate") else None,
                price=float(d["price"]["total"]),
                currency=currency,
            )
            for d in body["data"]
        ]
        out.sort(key=lambda x: (x.price, x.departure_date))
        return out[:limit]


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _segment(s: dict[str, Any], carriers: dict[str, str]) -> Segment:
    return Segment(
        carrier=s["carrierCode"],
        carrier_name=carriers.get(s["carrierCode"]),
        number=str(s["number"]),
        origin=s["departure"]["iataCode"],
        destination=s["arrival"]["iataCode"],
        departure=dt.datetime.fromisoformat(s["departure"]["at"]),
        arrival=dt.datetime.fromisoformat(s["arrival"]["at"]),
        duration_minutes=_iso_minutes(s.get("duration")),
    )


_DURATION = re.compile(r"^P(?:(\d+)D)?T?(?:(\d+)H)?(?:(\d+)M)?$")


def _iso_minutes(value: str | None) -> int | None:
    """Minutes in an ISO 8601 duration like PT2H10M or P1DT2H."""
    if not value:
        return None
    m = _DURATION.match(value)
    if not m:
        return None
    d, h, mins = (int(x) if x else 0 for x in m.groups())
    return d * 1440 + h * 60 + mins


def _float(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def _room_text(room: dict[str, Any]) -> str | None:
    est = room.get("typeEstimated") or {}
    parts = []
    if est.get("category"):
        parts.append(str(est["category"]).replace("_", " ").lower())
    if est.get("beds") and est.get("bedType"):
        parts.append(f"{est['beds']} {str(est['bedType']).lower()} bed{'s' if est['beds'] > 1 else ''}")
    if parts:
        return ", ".join(parts)
    text = (room.get("description") or {}).get("text")
    return str(text)[:120] if text else None


def _cancellation_text(c: dict[str, Any]) -> str | None:
    if not c:
        return None
    text = (c.get("description") or {}).get("text")
    if text:
        return str(text)[:160]
    if c.get("deadline"):
        return f"free cancellation until {c['deadline']}"
    return str(c.get("type")) if c.get("type") else None
