"""Amadeus-compatible provider: flights, hotels, activities, locations, inspiration, cheapest dates.

OAuth2 client credentials; the token is cached and refreshed a minute before it expires, and a 401
mid-session refreshes it once and retries. The base URL is a setting (test, production, the sandbox, or
any compatible host).

Filters: a flight search's airline goes to Flight Offers Search as ``includedAirlineCodes``. Tours and
Activities has no category: an activity search's category keeps the activities whose name or
description says it (amadeus_fields.CATEGORY_WORDS), so a tour of the cathedral counts as religious.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import math
import time
from typing import Any

import aiohttp

from connectors.amadeus_fields import (
    activity,
    cancellation_text,
    describe_error,
    flight_offer,
    in_category,
    location,
    optional_float,
    room_text,
)
from connectors.base import Terms
from connectors.errors import (
    ConfigError,
    ProviderAuthError,
    ProviderResponseError,
    ProviderUnavailableError,
)
from connectors.http import JsonHttp, RateLimiter, RetryPolicy
from connectors.models import (
    Activity,
    CheapestDate,
    FarePoint,
    FlightOffer,
    HotelOffer,
    Inspiration,
    Location,
    Result,
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
from connectors.providers import BuildContext, ProviderSpec
from connectors.shapes import UNREADABLE, each, items, obj

logger = logging.getLogger(__name__)

TOKEN_PATH = "/v1/security/oauth2/token"


# Amadeus-compatible endpoints: results follow each tool's freshness.
# The offline sandbox takes any client credentials; these are Wayfarer's.
SANDBOX_CLIENT = ("wayfarer-sandbox", "wayfarer-sandbox")
TERMS = Terms()


class AmadeusConnector:
    name = "amadeus"
    terms = TERMS
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
        max_bytes: int = 8 * 1024 * 1024,
    ) -> None:
        self._base = base_url.rstrip("/")
        self._client_id = client_id
        self._client_secret = client_secret
        self._http = JsonHttp(session, "Amadeus", policy, describe_error, limiter, max_bytes=max_bytes)
        self.sandbox = sandbox
        self._hotel_candidates = hotel_candidates
        self._token: str | None = None
        self._expires_at = 0.0
        self._token_lock = asyncio.Lock()
        self.token_fetches = 0

    @property
    def attempts(self) -> int:
        return self._http.attempts

    def _common(self) -> dict[str, Any]:
        """What every result of one answer shares."""
        return {"provider": self.name, "sandbox": self.sandbox, "fetched_at": _now()}

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
            if not isinstance(token, str) or not isinstance(ttl, int | float) or not math.isfinite(ttl):
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
        items(body.get("data", []), "Amadeus", f"{path} data")
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
        except UNREADABLE as exc:
            raise ProviderResponseError("Amadeus sent a response we cannot read", repr(exc)) from exc
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
        if p.airline:
            q["includedAirlineCodes"] = p.airline
        body = await self._get("/v2/shopping/flight-offers", q)
        carriers = obj(obj(body.get("dictionaries")).get("carriers"))
        common = self._common()

        def offer(item: dict[str, Any]) -> list[FlightOffer]:
            return [flight_offer(item, carriers, p.cabin, p.adults, **common)]

        offers = each(body["data"], offer, "Amadeus", "flight offers")
        offers.sort(key=lambda o: o.price)
        return offers[:limit]

    async def _hotels(self, p: HotelSearchParams, limit: int) -> list[HotelOffer]:
        # v3 hotel offers take hotel ids, not a city: list the city's hotels first.
        listing = await self._get(
            "/v1/reference-data/locations/hotels/by-city", {"cityCode": p.city, "radius": "20"}
        )
        ids = [
            h["hotelId"]
            for h in listing["data"]
            if isinstance(h, dict) and isinstance(h.get("hotelId"), str) and h["hotelId"]
        ][: self._hotel_candidates]
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
        check_out = p.check_out

        def hotel_offers(entry: dict[str, Any]) -> list[HotelOffer]:
            hotel = obj(entry.get("hotel"))
            if not entry.get("available", True):
                return []

            def one(o: dict[str, Any]) -> list[HotelOffer]:
                room = obj(o.get("room"))
                policies = obj(o.get("policies"))
                cancellation = policies.get("cancellation") or (policies.get("cancellations") or [{}])[0]
                return [
                    HotelOffer(
                        provider=self.name,
                        sandbox=self.sandbox,
                        fetched_at=now,
                        hotel_id=hotel["hotelId"],
                        name=hotel.get("name") or hotel["hotelId"],
                        city_code=hotel.get("cityCode") or p.city,
                        latitude=optional_float(hotel.get("latitude")),
                        longitude=optional_float(hotel.get("longitude")),
                        check_in=dt.date.fromisoformat(o.get("checkInDate") or p.check_in.isoformat()),
                        check_out=dt.date.fromisoformat(o.get("checkOutDate") or check_out.isoformat()),
                        room=room.get("type"),
                        room_description=room_text(room),
                        adults=int(obj(o.get("guests")).get("adults") or p.adults),
                        price=float(o["price"]["total"]),
                        currency=o["price"]["currency"],
                        cancellation=cancellation_text(obj(cancellation)),
                    )
                ]

            return each(items(entry.get("offers") or [], "Amadeus", "hotel offers"), one, "Amadeus", "rooms")

        offers = each(body["data"], hotel_offers, "Amadeus", "hotel offers")
        if p.max_price:
            offers = [o for o in offers if o.price <= p.max_price]
        offers.sort(key=lambda o: o.price)
        return offers[:limit]

    async def _activities(self, p: ActivitySearchParams, limit: int) -> list[Activity]:
        assert p.latitude is not None and p.longitude is not None
        q = {"latitude": f"{p.latitude:.6f}", "longitude": f"{p.longitude:.6f}", "radius": str(p.radius_km)}
        body = await self._get("/v1/shopping/activities", q)
        common = self._common()

        def one(a: dict[str, Any]) -> list[Activity]:
            words = (a.get("name"), a.get("shortDescription"), a.get("description"))
            if p.category is not None and not in_category(p.category, *words):
                return []
            return [activity(a, **common)]

        out = each(body["data"], one, "Amadeus", "activities")
        out.sort(key=lambda a: -(a.rating or 0))
        return out[:limit]

    async def _locations(self, p: LocationSearchParams, limit: int) -> list[Location]:
        sub = "AIRPORT,CITY" if p.kind == "ANY" else p.kind
        body = await self._get(
            "/v1/reference-data/locations", {"subType": sub, "keyword": p.keyword, "page[limit]": str(limit)}
        )
        common = self._common()

        def one(loc: dict[str, Any]) -> list[Location]:
            return [location(loc, **common)]

        return each(body["data"], one, "Amadeus", "locations")[:limit]

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
        currency = obj(body.get("meta")).get("currency") or "EUR"
        now = _now()

        def fare(d: dict[str, Any]) -> list[FarePoint]:
            return [
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
            ]

        out = each(body["data"], fare, "Amadeus", "fares")
        out.sort(key=lambda x: (x.price, x.departure_date))
        return out[:limit]


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _build(ctx: BuildContext) -> AmadeusConnector:
    c = ctx.settings
    base, secret = ctx.credentials("amadeus_client_secret", "amadeus_base_url", SANDBOX_CLIENT[1])
    client_id = SANDBOX_CLIENT[0] if ctx.sandbox else c.amadeus_client_id
    if client_id is None:
        raise ConfigError("WAYFARER_CONNECTORS__AMADEUS_CLIENT_ID is not set")
    return AmadeusConnector(
        ctx.session,
        base,
        client_id,
        secret,
        policy=ctx.policy,
        limiter=RateLimiter(c.rate_limit_per_second, c.min_interval_ms / 1000),
        sandbox=ctx.sandbox,
        hotel_candidates=c.hotel_candidates,
        max_bytes=ctx.max_bytes,
    )


PROVIDER = ProviderSpec(
    name="amadeus",
    tools=AmadeusConnector.tools,
    build=_build,
    keys=("amadeus_client_id", "amadeus_client_secret"),
    settings=("amadeus_base_url",),
    signup=None,
    about="Amadeus-compatible endpoints (Amadeus Self-Service closed to new users in July 2026)",
)
