"""LiteAPI (Nuitée) for hotel_search: the city's hotel list, then live rates for the stay's occupancies.

Followed: https://docs.liteapi.travel/reference/get_data-hotels (GET /v3.0/data/hotels?countryCode=&cityName=,
or latitude/longitude/radius in metres), https://docs.liteapi.travel/reference/post_hotels-rates (POST
/v3.0/hotels/rates with hotelIds, occupancies [{adults, children}], currency, guestNationality, checkin,
checkout), https://docs.liteapi.travel/docs/hotel-rates-api-json-data-structure (data[].roomTypes[] are
offers; each holds one rate per occupancy with name, boardType, retailRate.total, cancellationPolicies),
and the error body of LiteAPI's OpenAPI description: ``{"error": {"code", "description", "message"}}``.
Authentication is the ``X-API-Key`` header; keys are self-serve (a sandbox key is free).

Identity: LiteAPI's offerId and rateId change on every search, so an offer is known by the hotel id, the
room (``mappedRoomId`` when room mapping gives one, else the room's name), the board and the dates.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from typing import Any

import aiohttp

from connectors.amadeus_fields import optional_float
from connectors.base import Terms
from connectors.errors import ProviderResponseError, ProviderUnavailableError
from connectors.http import ErrorInfo, JsonHttp, RateLimiter, RetryPolicy
from connectors.models import HotelOffer, Result
from connectors.params import HotelSearchParams, ToolParams
from connectors.places import LocationCatalogue, fold
from connectors.providers import BuildContext, ProviderSpec
from connectors.shapes import UNREADABLE, each, items, obj, text

logger = logging.getLogger(__name__)

# The key the offline sandbox accepts for this dialect (connectors/sandbox/ imports it).
SANDBOX_KEY = "sandbox-liteapi-key"
HOTELS_PATH = "/v3.0/data/hotels"
RATES_PATH = "/v3.0/hotels/rates"
NO_AVAILABILITY = 2001  # LiteAPI's answer to a search that found no rooms
SEARCH_RADIUS_M = 20_000
# What LiteAPI sent and we send back to it: a hotel id of its shape ("lp1beec"), a currency code.
HOTEL_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
CURRENCY = re.compile(r"[A-Z]{3}")


def describe_error(status: int, body: Any) -> ErrorInfo:
    """LiteAPI errors: {"error": {"code": 4002, "description": "...", "message": "..."}}."""
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict):
            message = str(error.get("message") or "")
            description = str(error.get("description") or "")
            text = "; ".join(x for x in dict.fromkeys((message, description)) if x) or f"HTTP {status}"
            return ErrorInfo(str(error.get("code") or ""), text, "quota" in text.lower())
        if isinstance(body.get("message"), str):  # a gateway's {"message": "..."}
            return ErrorInfo("", body["message"])
    return ErrorInfo("", f"HTTP {status}")


def _amount(value: Any) -> dict[str, Any]:
    """A price object: LiteAPI sends {amount, currency} or a list holding one."""
    if isinstance(value, list):
        return obj(value[0]) if value else {}
    return obj(value)


def room_key(rate: dict[str, Any]) -> str:
    """The room part of an offer's identity: stable across searches, never an offer or rate id."""
    mapped = rate.get("mappedRoomId")
    room = str(mapped) if isinstance(mapped, int | str) and str(mapped) else fold(str(rate["name"]))
    board = str(rate.get("boardType") or "-")
    return f"{room}/{board}"


def cancellation(rate: dict[str, Any]) -> str | None:
    policies = obj(rate.get("cancellationPolicies"))
    tag = policies.get("refundableTag")
    if tag == "NRFN":
        return "non-refundable"
    infos = [
        i for i in policies.get("cancelPolicyInfos") or [] if isinstance(i, dict) and i.get("cancelTime")
    ]
    if tag == "RFN" and infos:
        first = min(str(i["cancelTime"]) for i in infos)
        return f"free cancellation until {first} {infos[0].get('timezone') or 'GMT'}"[:160]
    return "refundable" if tag == "RFN" else None


# Room rates are live prices: keep them half an hour at most.
TERMS = Terms(max_age=30 * 60)


class LiteApiConnector:
    name = "liteapi"
    terms = TERMS
    tools = frozenset({"hotel_search"})

    def __init__(
        self,
        session: aiohttp.ClientSession,
        base_url: str,
        api_key: str,
        *,
        policy: RetryPolicy,
        limiter: RateLimiter | None = None,
        sandbox: bool = False,
        max_bytes: int = 8 * 1024 * 1024,
        hotel_candidates: int = 20,
        guest_nationality: str = "US",
        places: LocationCatalogue | None = None,
    ) -> None:
        self._base = base_url.rstrip("/")
        self._headers = {"X-API-Key": api_key, "Accept": "application/json"}
        self._http = JsonHttp(session, "LiteAPI", policy, describe_error, limiter, max_bytes=max_bytes)
        self.sandbox = sandbox
        self._candidates = hotel_candidates
        self._nationality = guest_nationality
        self._places = places if places is not None else LocationCatalogue.load()

    @property
    def attempts(self) -> int:
        return self._http.attempts

    async def call(self, tool: str, params: ToolParams, limit: int) -> list[Result]:
        if not isinstance(params, HotelSearchParams):
            raise ProviderUnavailableError(f"LiteAPI does not serve {tool}")
        try:
            return list(await self._hotels(params, limit))
        except UNREADABLE as exc:
            raise ProviderResponseError("LiteAPI sent a response we cannot read", repr(exc)) from exc

    async def _hotel_list(self, p: HotelSearchParams) -> list[dict[str, Any]]:
        """The city's hotels by name and country; by coordinates when the name finds none."""
        place = self._places.resolve(p.city)
        if place is None:
            return []
        limit = str(self._candidates)
        queries = [
            {"countryCode": place.country_code, "cityName": place.city_name, "limit": limit},
            {
                "latitude": f"{place.latitude:.6f}",
                "longitude": f"{place.longitude:.6f}",
                "radius": str(SEARCH_RADIUS_M),
                "limit": limit,
            },
        ]
        for q in queries:
            body = await self._http.request("GET", self._base + HOTELS_PATH, params=q, headers=self._headers)
            found = [  # ids go back to LiteAPI in the rates request: only ones shaped like its ids
                h
                for h in items(body.get("data", []), "LiteAPI", "hotels")
                if isinstance(h, dict) and isinstance(h.get("id"), str) and HOTEL_ID.fullmatch(h["id"])
            ]
            if found:
                return found[: self._candidates]
        return []

    async def _hotels(self, p: HotelSearchParams, limit: int) -> list[HotelOffer]:
        listing = await self._hotel_list(p)
        if not listing:
            return []
        assert p.check_out is not None
        listed = listing[0].get("currency")  # sent back: an ISO 4217 code, or ours
        currency = p.currency or (listed if isinstance(listed, str) and CURRENCY.fullmatch(listed) else "USD")
        request = {
            "hotelIds": [h["id"] for h in listing],
            "occupancies": [{"adults": p.adults, "children": []} for _ in range(p.rooms)],
            "currency": currency,
            "guestNationality": self._nationality,
            "checkin": p.check_in.isoformat(),
            "checkout": p.check_out.isoformat(),
            "roomMapping": True,
            "maxRatesPerHotel": 5,
            "timeout": 6,
        }
        body = await self._http.request(
            "POST", self._base + RATES_PATH, json_body=request, headers=self._headers
        )
        if "data" not in body and obj(body.get("error")).get("code") == NO_AVAILABILITY:
            return []
        hotels = {h["id"]: h for h in listing}
        now = dt.datetime.now(dt.UTC)
        check_in, check_out = p.check_in, p.check_out

        def hotel_offers(entry: dict[str, Any]) -> list[HotelOffer]:
            hotel_id = text(entry["hotelId"])
            info = obj(hotels.get(hotel_id))

            def offer(room_type: dict[str, Any]) -> list[HotelOffer]:
                rates = [r for r in items(room_type["rates"], "LiteAPI", "rates") if isinstance(r, dict)]
                first = rates[0]
                price = _amount(room_type.get("offerRetailRate"))
                if not price:
                    totals = [_amount(obj(r.get("retailRate")).get("total")) for r in rates]
                    price = {
                        "amount": sum(float(t["amount"]) for t in totals),
                        "currency": totals[0]["currency"],
                    }
                board = first.get("boardName") or first.get("boardType")
                return [
                    HotelOffer(
                        provider=self.name,
                        sandbox=self.sandbox,
                        fetched_at=now,
                        hotel_id=hotel_id,
                        name=str(info.get("name") or hotel_id),
                        city_code=p.city,
                        latitude=optional_float(info.get("latitude")),
                        longitude=optional_float(info.get("longitude")),
                        check_in=check_in,
                        check_out=check_out,
                        room=room_key(first),
                        room_description=", ".join(str(x) for x in (first["name"], board) if x)[:200],
                        adults=p.adults,
                        price=float(price["amount"]),
                        currency=str(price["currency"]).upper(),
                        cancellation=cancellation(first),
                    )
                ]

            return each(items(entry["roomTypes"], "LiteAPI", "offers"), offer, "LiteAPI", "offers")

        offers = each(items(body.get("data"), "LiteAPI", "rates data"), hotel_offers, "LiteAPI", "hotels")
        if p.max_price:
            offers = [o for o in offers if o.price <= p.max_price]
        offers.sort(key=lambda o: o.price)
        # A room and board sold twice (two suppliers, two rate plans) is one offer: its cheapest.
        unique = {o.identity: o for o in reversed(offers)}
        return sorted(unique.values(), key=lambda o: o.price)[:limit]


def _build(ctx: BuildContext) -> LiteApiConnector:
    base, key = ctx.credentials("liteapi_key", "liteapi_base_url", SANDBOX_KEY)
    return LiteApiConnector(
        ctx.session,
        base,
        key,
        policy=ctx.policy,
        sandbox=ctx.sandbox,
        max_bytes=ctx.max_bytes,
        hotel_candidates=ctx.settings.hotel_candidates,
        places=ctx.catalogue,
    )


PROVIDER = ProviderSpec(
    name="liteapi",
    tools=LiteApiConnector.tools,
    build=_build,
    keys=("liteapi_key",),
    settings=("liteapi_base_url",),
    signup="https://dashboard.liteapi.travel (sandbox keys are free)",
    about="hotel rates for occupancies, bookable",
)
