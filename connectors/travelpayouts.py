"""Travelpayouts (Aviasales Data API) for flight_inspiration and cheapest_dates: cached, indicative fares.

The Data API answers from a cache of what Aviasales users found in their recent searches (2 to 7 days
old), so every result is indicative and carries its age: ``fetched_at`` is the fare's ``found_at``, not
the time we asked, and a fare past its ``expires_at`` is dropped, as the docs advise.

Followed:
- https://support.travelpayouts.com/hc/en-us/articles/203956163-Aviasales-Data-API: the token in the
  ``X-Access-Token`` header; every answer is ``{"success": bool, "data": ..., "error": str | null}``;
  dates in UTC, ISO 8601; ``/aviasales/v3/get_latest_prices`` (prices found in the last 48 hours, by
  ``origin``, ``period_type``/``beginning_of_period``, ``one_way``, ``sorting``, ``limit``,
  ``trip_duration`` in weeks) and ``/v2/prices/month-matrix`` (prices for each day of a ``month`` on
  one route); items ``{origin, destination, depart_date, return_date, value, number_of_changes,
  found_at, ...}``.
- https://support.travelpayouts.com/hc/en-us/articles/4402565416594-API-rate-limits: per-minute limits
  per method, answered with 429 until the minute is over (a pause, never a quota: retried).

flight_inspiration -> get_latest_prices for the origin alone, the cheapest fare per destination within
the budget; cheapest_dates -> month-matrix for the route, the cheapest fare per departure day. Identity
is the FarePoint one: origin, destination, departure and return dates, never the price.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

import aiohttp

from connectors.base import Terms
from connectors.errors import ProviderRejectedError, ProviderResponseError, ProviderUnavailableError
from connectors.http import ErrorInfo, JsonHttp, RateLimiter, RetryPolicy
from connectors.models import CheapestDate, FarePoint, Inspiration, Result
from connectors.params import CheapestDatesParams, FlightInspirationParams, ToolParams
from connectors.providers import BuildContext, ProviderSpec
from connectors.shapes import UNREADABLE, each, items

logger = logging.getLogger(__name__)

# The key the offline sandbox accepts for this dialect (connectors/sandbox/ imports it).
SANDBOX_KEY = "sandbox-travelpayouts-token"
LATEST_PATH = "/aviasales/v3/get_latest_prices"
MONTH_MATRIX_PATH = "/v2/prices/month-matrix"
MAX_LIMIT = 1000  # the Data API's largest page


def describe_error(status: int, body: Any) -> ErrorInfo:
    """Data API errors: {"success": false, "data": null, "error": "..."} (some gateways say "message")."""
    if isinstance(body, dict):
        text = body.get("error") or body.get("message")
        if isinstance(text, str) and text.strip():
            return ErrorInfo("", text.strip())
    return ErrorInfo("", f"HTTP {status}")


def weeks(days: int) -> int:
    """The Data API's trip_duration is in weeks: the nearest whole number of weeks, at least one."""
    return max(1, round(days / 7))


def parse_time(value: Any) -> dt.datetime | None:
    """An ISO 8601 time as an aware UTC datetime; a naive one is UTC (the docs give every time in UTC)."""
    if not isinstance(value, str) or not value:
        return None
    parsed = dt.datetime.fromisoformat(value)
    return parsed.replace(tzinfo=dt.UTC) if parsed.tzinfo is None else parsed.astimezone(dt.UTC)


# Cached fares found by other travellers' searches, indicative and ageing by the hour: answer from a
# stored one for three hours after it was found at most (its ``fetched_at`` is when it was found).
TERMS = Terms(max_age=3 * 3600)


class TravelpayoutsConnector:
    """The Aviasales Data API behind the Provider Protocol: cheap, cached fares, never bookable offers."""

    name = "travelpayouts"
    terms = TERMS
    tools = frozenset({"flight_inspiration", "cheapest_dates"})

    def __init__(
        self,
        session: aiohttp.ClientSession,
        base_url: str,
        token: str,
        *,
        policy: RetryPolicy,
        limiter: RateLimiter | None = None,
        sandbox: bool = False,
        currency: str = "EUR",
        max_bytes: int = 8 * 1024 * 1024,
    ) -> None:
        self._base = base_url.rstrip("/")
        self._token = token
        self._currency = currency.upper()
        self._http = JsonHttp(session, "Travelpayouts", policy, describe_error, limiter, max_bytes=max_bytes)
        self.sandbox = sandbox

    @property
    def attempts(self) -> int:
        return self._http.attempts

    async def call(self, tool: str, params: ToolParams, limit: int) -> list[Result]:
        try:
            if isinstance(params, FlightInspirationParams):
                return list(await self._inspiration(params, limit))
            if isinstance(params, CheapestDatesParams):
                return list(await self._cheapest_dates(params, limit))
        except UNREADABLE as exc:
            raise ProviderResponseError(
                f"Travelpayouts sent a response we cannot read: {exc!r}"[:500]
            ) from exc
        raise ProviderUnavailableError(f"Travelpayouts does not serve {tool}")

    async def _inspiration(self, p: FlightInspirationParams, limit: int) -> list[FarePoint]:
        q = {
            "origin": p.origin,
            "currency": self._currency.lower(),
            "one_way": _bool(p.one_way),
            "sorting": "price",
            "trip_class": "0",
            "show_to_affiliates": "true",
            "limit": str(MAX_LIMIT),  # many fares per destination: we keep the cheapest of each
        }
        if p.departure_date:
            q |= {"period_type": "month", "beginning_of_period": p.departure_date.replace(day=1).isoformat()}
        else:
            q["period_type"] = "year"
        if p.duration_days and not p.one_way:
            q["trip_duration"] = str(weeks(p.duration_days))
        fares = await self._fares(LATEST_PATH, q, Inspiration, p.departure_date, p.nonstop)
        cheapest: dict[str, FarePoint] = {}
        for fare in fares:
            if p.max_price is None or fare.price <= p.max_price:
                cheapest.setdefault(fare.destination, fare)
        return list(cheapest.values())[:limit]

    async def _cheapest_dates(self, p: CheapestDatesParams, limit: int) -> list[FarePoint]:
        month = (p.departure_date or dt.datetime.now(dt.UTC).date()).replace(day=1)
        q = {
            "origin": p.origin,
            "destination": p.destination,
            "month": month.isoformat(),
            "currency": self._currency.lower(),
            "one_way": _bool(p.one_way),
            "show_to_affiliates": "true",
        }
        if p.duration_days and not p.one_way:
            q["trip_duration"] = str(weeks(p.duration_days))
        fares = await self._fares(MONTH_MATRIX_PATH, q, CheapestDate, p.departure_date, p.nonstop)
        cheapest: dict[dt.date, FarePoint] = {}
        for fare in fares:
            cheapest.setdefault(fare.departure_date, fare)
        return list(cheapest.values())[:limit]

    async def _fares(
        self,
        path: str,
        q: dict[str, str],
        model: type[Inspiration] | type[CheapestDate],
        earliest: dt.date | None,
        nonstop: bool,
    ) -> list[FarePoint]:
        """Both endpoints answer in the same item shape; cheapest first, then earliest departure."""
        body = await self._http.request(
            "GET", self._base + path, params=q, headers={"X-Access-Token": self._token}
        )
        if body.get("success") is False:  # an error inside a 200: the envelope is what counts
            info = describe_error(200, body)
            raise ProviderRejectedError("Travelpayouts refused the request", info.message)
        currency = body.get("currency")
        currency = currency.upper() if isinstance(currency, str) and currency else self._currency
        now = dt.datetime.now(dt.UTC)

        def fare(d: dict[str, Any]) -> list[FarePoint]:
            # Read the whole item first: a filter must not hide an unreadable one.
            expires = parse_time(d.get("expires_at"))
            found = parse_time(d.get("found_at"))
            changes = int(d.get("number_of_changes") or 0)
            ret = d.get("return_date")
            point = model(
                provider=self.name,
                sandbox=self.sandbox,
                # The price's age: when a traveller found it, not when we asked (never in the future).
                fetched_at=min(found, now) if found is not None else now,
                origin=d["origin"],
                destination=d["destination"],
                departure_date=dt.date.fromisoformat(str(d["depart_date"])),
                return_date=dt.date.fromisoformat(ret) if isinstance(ret, str) and ret else None,
                price=float(d["value"]),
                currency=currency,
                indicative=True,
            )
            if expires is not None and expires <= now:
                return []  # an expired cached price: the docs advise against showing it
            if (nonstop and changes > 0) or (earliest is not None and point.departure_date < earliest):
                return []
            return [point]

        out = each(items(body.get("data"), "Travelpayouts", "fares"), fare, "Travelpayouts", "fares")
        out.sort(key=lambda x: (x.price, x.departure_date, x.destination))
        return out


def _bool(value: bool) -> str:
    return "true" if value else "false"


def _build(ctx: BuildContext) -> TravelpayoutsConnector:
    base, token = ctx.credentials("travelpayouts_token", "travelpayouts_base_url", SANDBOX_KEY)
    return TravelpayoutsConnector(
        ctx.session, base, token, policy=ctx.policy, sandbox=ctx.sandbox, max_bytes=ctx.max_bytes
    )


PROVIDER = ProviderSpec(
    name="travelpayouts",
    tools=TravelpayoutsConnector.tools,
    build=_build,
    keys=("travelpayouts_token",),
    settings=("travelpayouts_base_url",),
    signup="https://www.travelpayouts.com (free affiliate account; Data API token in its dashboard)",
    about="cached, indicative fares (Aviasales Data API), not bookable offers",
)
