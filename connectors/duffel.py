"""Duffel for flight_search: one offer request with its offers (a bearer token; test-mode tokens are free).

Follows https://duffel.com/docs/api/v2/offer-requests/create-offer-request: ``POST /air/offer_requests
?return_offers=true`` with ``{"data": {"slices": [...], "passengers": [...], "cabin_class": ...,
"max_connections": ...}}`` and the headers ``Authorization: Bearer <token>``, ``Duffel-Version: v2``,
``Accept: application/json``, ``Accept-Encoding: gzip``; the offers' shape from
https://duffel.com/docs/api/offers; errors from https://duffel.com/docs/api/overview/errors
(``{"errors": [{type, code, title, message, source}], "meta": {status, request_id}}``); 429 with
``ratelimit-*`` headers (and ``Retry-After``) is retried with backoff by JsonHttp.

Passengers aged 18 or over are sent by type ("adult"), younger ones by age (v2 asks for the age of every
non-adult): we know only the band, so a child is sent as 8 and an infant as 1. Duffel takes no currency,
price ceiling or airline: prices come in the account's billing currency, and ``max_price`` and
``airline`` filter here (an offer is the airline's when it markets every one of its flights).

A result's identity is the model's: marketing carrier and flight number with each departure time, and the
cabin; never Duffel's offer id (``off_...``), which is new with every search.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import aiohttp

from connectors.amadeus_fields import iso_minutes
from connectors.base import Terms
from connectors.errors import ProviderResponseError, ProviderUnavailableError
from connectors.http import ErrorInfo, JsonHttp, RateLimiter, RetryPolicy
from connectors.models import FlightOffer, Itinerary, Result, Segment
from connectors.params import FlightSearchParams, ToolParams
from connectors.providers import BuildContext, ProviderSpec
from connectors.shapes import UNREADABLE, each, items, obj

# The key the offline sandbox accepts for this dialect (connectors/sandbox/ imports it).
SANDBOX_KEY = "sandbox-duffel-token"
VERSION = "v2"
OFFER_REQUESTS = "/air/offer_requests"
CHILD_AGE = 8
INFANT_AGE = 1
CABINS = frozenset({"ECONOMY", "PREMIUM_ECONOMY", "BUSINESS", "FIRST"})


def describe_error(status: int, body: Any) -> ErrorInfo:
    """Duffel errors: {"errors": [{type, code, title, message, source: {field, pointer}}], "meta": {...}}."""
    if isinstance(body, dict):
        errors = body.get("errors")
        if isinstance(errors, list) and errors and isinstance(errors[0], dict):
            e = errors[0]
            title, message = str(e.get("title") or ""), str(e.get("message") or "")
            source = obj(e.get("source"))
            field = source.get("pointer") or source.get("field")
            text = ": ".join(x for x in (title, message) if x) + (f" [{field}]" if field else "")
            return ErrorInfo(str(e.get("code") or e.get("type") or ""), text or f"HTTP {status}")
    return ErrorInfo("", f"HTTP {status}")


def request_body(p: FlightSearchParams) -> dict[str, Any]:
    """The offer request for the search: one slice one way, two for a return trip."""
    slices = [
        {"origin": p.origin, "destination": p.destination, "departure_date": p.departure_date.isoformat()}
    ]
    if p.return_date is not None:
        slices.append(
            {"origin": p.destination, "destination": p.origin, "departure_date": p.return_date.isoformat()}
        )
    passengers: list[dict[str, Any]] = [{"type": "adult"} for _ in range(p.adults)]
    passengers += [{"age": CHILD_AGE} for _ in range(p.children)]
    passengers += [{"age": INFANT_AGE} for _ in range(p.infants)]
    data: dict[str, Any] = {
        "slices": slices,
        "passengers": passengers,
        "cabin_class": p.cabin.lower(),
    }
    if p.nonstop:
        data["max_connections"] = 0
    return {"data": data}


# Duffel offers expire (``expires_at``, usually within half an hour): keep them 20 minutes at most.
TERMS = Terms(max_age=20 * 60)


class DuffelConnector:
    name = "duffel"
    terms = TERMS
    tools = frozenset({"flight_search"})

    def __init__(
        self,
        session: aiohttp.ClientSession,
        base_url: str,
        token: str,
        *,
        policy: RetryPolicy,
        limiter: RateLimiter | None = None,
        sandbox: bool = False,
        max_bytes: int = 8 * 1024 * 1024,
    ) -> None:
        self._base = base_url.rstrip("/")
        self._token = token
        self._http = JsonHttp(session, "Duffel", policy, describe_error, limiter, max_bytes=max_bytes)
        self.sandbox = sandbox

    @property
    def attempts(self) -> int:
        return self._http.attempts

    async def call(self, tool: str, params: ToolParams, limit: int) -> list[Result]:
        if not isinstance(params, FlightSearchParams):
            raise ProviderUnavailableError(f"Duffel does not serve {tool}")
        try:
            return list(await self._flights(params, limit))
        except UNREADABLE as exc:
            raise ProviderResponseError("Duffel sent a response we cannot read", repr(exc)) from exc

    async def _flights(self, p: FlightSearchParams, limit: int) -> list[FlightOffer]:
        answer = await self._http.request(
            "POST",
            self._base + OFFER_REQUESTS,
            params={"return_offers": "true"},
            json_body=request_body(p),
            headers={
                "Authorization": f"Bearer {self._token}",
                "Duffel-Version": VERSION,
                "Accept": "application/json",
                "Accept-Encoding": "gzip",
                "Content-Type": "application/json",
            },
        )
        data = answer.get("data")
        if not isinstance(data, dict):
            raise ProviderResponseError("Duffel sent an offer request without its data object")
        now = dt.datetime.now(dt.UTC)

        def offer(item: dict[str, Any]) -> list[FlightOffer]:
            itineraries = [_itinerary(s) for s in _list(item["slices"])]
            if p.nonstop and any(it.stops for it in itineraries):
                return []
            found = FlightOffer(
                provider=self.name,
                sandbox=self.sandbox,
                fetched_at=now,
                itineraries=itineraries,
                cabin=_cabin(item, p.cabin),
                price=float(item["total_amount"]),
                currency=item["total_currency"],
                adults=p.adults,
            )
            if p.airline is not None and found.carriers != {p.airline}:
                return []
            return [] if p.max_price is not None and found.price > p.max_price else [found]

        offers = each(items(data.get("offers") or [], "Duffel", "offers"), offer, "Duffel", "flight offers")
        offers.sort(key=lambda o: (o.price, sum(it.stops for it in o.itineraries)))
        return _unique(offers)[:limit]


def _itinerary(s: dict[str, Any]) -> Itinerary:
    return Itinerary(
        segments=[_segment(seg) for seg in _list(s["segments"])],
        duration_minutes=iso_minutes(s.get("duration")),
    )


def _segment(s: dict[str, Any]) -> Segment:
    """A segment under its marketing carrier and flight number, at local departure and arrival times."""
    carrier = s["marketing_carrier"]
    return Segment(
        carrier=carrier["iata_code"],
        carrier_name=carrier.get("name"),
        number=str(s["marketing_carrier_flight_number"]),
        origin=s["origin"]["iata_code"],
        destination=s["destination"]["iata_code"],
        departure=_local(s["departing_at"]),
        arrival=_local(s["arriving_at"]),
        duration_minutes=iso_minutes(s.get("duration")),
    )


def _local(value: str) -> dt.datetime:
    """Duffel's local times carry no offset; one that does is read as the local wall time it names."""
    return dt.datetime.fromisoformat(value).replace(tzinfo=None)


def _cabin(item: dict[str, Any], asked: str) -> str:
    """The first segment's cabin ("economy" -> "ECONOMY"); a missing or unknown one is the cabin asked for."""
    for s in _list(item["slices"]):
        for seg in _list(s.get("segments") or []):
            for pax in seg.get("passengers") or []:
                cabin = obj(pax).get("cabin_class")
                if isinstance(cabin, str) and cabin.upper() in CABINS:
                    return cabin.upper()
    return asked


def _list(value: Any) -> list[Any]:
    """A list inside one offer; anything else costs that offer only (TypeError is dropped by ``each``)."""
    if not isinstance(value, list):
        raise TypeError(f"expected a list, got {type(value).__name__}")
    return value


def _unique(offers: list[FlightOffer]) -> list[FlightOffer]:
    """The cheapest offer of each flight combination: Duffel sends one per fare brand."""
    seen: set[str] = set()
    out = []
    for o in offers:
        if o.identity not in seen:
            seen.add(o.identity)
            out.append(o)
    return out


def _build(ctx: BuildContext) -> DuffelConnector:
    base, token = ctx.credentials("duffel_token", "duffel_base_url", SANDBOX_KEY)
    return DuffelConnector(
        ctx.session, base, token, policy=ctx.policy, sandbox=ctx.sandbox, max_bytes=ctx.max_bytes
    )


PROVIDER = ProviderSpec(
    name="duffel",
    tools=DuffelConnector.tools,
    build=_build,
    keys=("duffel_token",),
    settings=("duffel_base_url",),
    signup="https://app.duffel.com/join (test-mode tokens are free)",
    about="flight offers from airlines (NDC and GDS), bookable",
)
