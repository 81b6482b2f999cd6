"""Providers that misbehave: wrong JSON shapes, stalls, oversized bodies, NaN prices.

The connectors are built by the real factory (open_tools) and talk over real HTTP either to the offline
sandbox with a fault set, or to a tiny loopback server that speaks just enough of the provider's API to
misbehave in one way (hang, send too much, send NaN).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import math
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiohttp import web

from connectors.amadeus import AmadeusConnector
from connectors.factory import ToolSession, open_tools
from connectors.sandbox.app import FAULTS
from connectors.sandbox.faults import SandboxFaults
from rag.errors import ProviderResponseError, ProviderTimeoutError
from rag.settings import Settings
from rag.tools.catalog import ToolCatalogue

TOOLS = ToolCatalogue.builtin()

SHAPES = ["list", "string", "number", "null", "nested"]


def ahead(days: int) -> str:
    return (dt.datetime.now(dt.UTC).date() + dt.timedelta(days=days)).isoformat()


def fast(**env: str) -> dict[str, str]:
    """Quick retries, no client-side spacing, and the Amadeus dialect these shapes and tokens are of."""
    return {
        "WAYFARER_CONNECTORS__PROVIDERS": json.dumps(dict.fromkeys(AmadeusConnector.tools, "amadeus")),
        "WAYFARER_CONNECTORS__MIN_INTERVAL_MS": "0",
        "WAYFARER_CONNECTORS__RATE_LIMIT_PER_SECOND": "1000",
        "WAYFARER_CONNECTORS__BACKOFF_SECONDS": "0.01",
        **env,
    }


def set_faults(session: ToolSession, **faults: Any) -> None:
    assert session.sandbox_runner is not None
    live = session.sandbox_runner.app[FAULTS]
    for name, value in SandboxFaults(**faults).model_dump().items():
        setattr(live, name, value)


# --- the sandbox answering in the wrong shape -------------------------------------------------------


@pytest.fixture
async def sandbox_tools(make_settings: Callable[..., Settings]) -> AsyncIterator[ToolSession]:
    async with open_tools(make_settings(**fast()), TOOLS.params_models()) as session:
        yield session


@pytest.mark.parametrize("shape", SHAPES)
async def test_any_json_shape_is_a_bad_response_never_a_crash(sandbox_tools: ToolSession, shape: str) -> None:
    tools = sandbox_tools.tools
    await tools.call("location_search", {"keyword": "par"})  # the token is fetched while all is well
    set_faults(sandbox_tools, body_shape=shape)
    for name, params in (
        ("location_search", {"keyword": "par"}),
        ("flight_search", {"origin": "Paris", "destination": "Rome", "departure_date": ahead(30)}),
        ("hotel_search", {"city": "Rome", "check_in": ahead(30)}),
        ("activity_search", {"city": "Rome"}),
        ("cheapest_dates", {"origin": "Paris", "destination": "Rome"}),
        ("weather_forecast", {"city": "Oslo", "days": 2}),
    ):
        with pytest.raises(ProviderResponseError):
            await tools.call(name, params)


@pytest.mark.parametrize("shape", ["list", "nested"])
async def test_a_misshapen_token_answer_is_a_bad_response(sandbox_tools: ToolSession, shape: str) -> None:
    set_faults(sandbox_tools, body_shape=shape)
    with pytest.raises(ProviderResponseError):
        await sandbox_tools.tools.call("location_search", {"keyword": "par"})


async def test_nan_prices_never_reach_results(sandbox_tools: ToolSession) -> None:
    params = {"origin": "Paris", "destination": "Rome", "departure_date": ahead(30)}
    set_faults(sandbox_tools, rewrite={"grandTotal": "NaN", "total": "NaN"})
    with pytest.raises(ProviderResponseError, match="cannot read"):
        await sandbox_tools.tools.call("flight_search", params)
    set_faults(sandbox_tools, rewrite={"total": math.inf, "amount": "Infinity"})  # a JSON literal, a string
    with pytest.raises(ProviderResponseError):
        await sandbox_tools.tools.call("hotel_search", {"city": "Rome", "check_in": ahead(30)})
    activities = await sandbox_tools.tools.call("activity_search", {"city": "Rome"})
    assert activities.results and all(a.price is None for a in activities.results)  # type: ignore[attr-defined]
    json.dumps(activities.to_json(), allow_nan=False)


# --- a loopback provider that stalls, floods or sends NaN --------------------------------------------


@dataclass
class Upstream:
    """Amadeus and Open-Meteo paths whose behaviour a test sets: "ok", "hang", or a body to send."""

    token: str = "ok"
    api: str = "hang"
    fares: Any = None
    geocoding: bytes = b'{"results": []}'
    chunked: bool = False
    release: asyncio.Event = field(default_factory=asyncio.Event)
    requests: int = 0

    async def _hang(self) -> None:
        await self.release.wait()  # set at teardown, so the server closes at once

    async def handle_token(self, request: web.Request) -> web.Response:
        self.requests += 1
        if self.token == "hang":
            await self._hang()
        return web.json_response({"access_token": "t0k3n", "expires_in": 1799, "token_type": "Bearer"})

    async def handle_api(self, request: web.Request) -> web.Response:
        self.requests += 1
        if self.fares is not None:
            return web.Response(text=json.dumps(self.fares), content_type="application/json")
        await self._hang()
        return web.json_response({"data": []})

    async def handle_geocoding(self, request: web.Request) -> web.StreamResponse:
        self.requests += 1
        if not self.chunked:
            return web.Response(body=self.geocoding, content_type="application/json")
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        response.enable_chunked_encoding()
        await response.prepare(request)
        try:
            for start in range(0, len(self.geocoding), 16 * 1024):
                await response.write(self.geocoding[start : start + 16 * 1024])
            await response.write_eof()
        except ConnectionError:
            pass  # the client stopped reading: what the cap is for
        return response


@pytest.fixture
async def upstream(aiohttp_server: Any) -> AsyncIterator[tuple[Upstream, str]]:
    up = Upstream()
    app = web.Application()
    app.router.add_post("/v1/security/oauth2/token", up.handle_token)
    app.router.add_get("/v1/reference-data/locations", up.handle_api)
    app.router.add_get("/v1/shopping/flight-dates", up.handle_api)
    app.router.add_get("/v1/search", up.handle_geocoding)
    server = await aiohttp_server(app)
    yield up, str(server.make_url("")).rstrip("/")
    up.release.set()


def against(url: str, make_settings: Callable[..., Settings], **env: str) -> Settings:
    return make_settings(
        **fast(
            WAYFARER_CONNECTORS__MODE="real",
            WAYFARER_CONNECTORS__AMADEUS_CLIENT_ID="id",
            WAYFARER_CONNECTORS__AMADEUS_CLIENT_SECRET="secret",
            WAYFARER_CONNECTORS__AMADEUS_BASE_URL=url,
            WAYFARER_CONNECTORS__OPEN_METEO_GEOCODING_URL=url,
            WAYFARER_CONNECTORS__OPEN_METEO_FORECAST_URL=url,
            **env,
        )
    )


async def test_a_stalled_provider_fails_the_call_at_its_deadline(
    upstream: tuple[Upstream, str], make_settings: Callable[..., Settings]
) -> None:
    _, url = upstream
    settings = against(url, make_settings, WAYFARER_LIMITS__TOOL_DEADLINE_SECONDS="1")
    async with open_tools(settings, TOOLS.params_models()) as session:
        with pytest.raises(ProviderTimeoutError, match="location_search") as caught:
            await session.tools.call("location_search", {"keyword": "lis"})
    assert caught.value.code == "provider_timeout" and caught.value.status == 504


async def test_a_stalled_token_endpoint_fails_each_waiting_call_by_its_own_deadline(
    upstream: tuple[Upstream, str], make_settings: Callable[..., Settings]
) -> None:
    up, url = upstream
    up.token = "hang"
    settings = against(url, make_settings, WAYFARER_LIMITS__TOOL_DEADLINE_SECONDS="1")
    async with open_tools(settings, TOOLS.params_models()) as session:
        outcomes = await asyncio.gather(
            *(session.tools.call("location_search", {"keyword": f"l{i}x"}) for i in range(5)),
            return_exceptions=True,
        )
    assert all(isinstance(o, ProviderTimeoutError) for o in outcomes), outcomes


async def test_a_body_past_the_cap_is_refused(
    upstream: tuple[Upstream, str], make_settings: Callable[..., Settings]
) -> None:
    up, url = upstream
    up.geocoding = json.dumps({"results": [], "padding": "x" * (1024 * 1024)}).encode()
    settings = against(url, make_settings, WAYFARER_LIMITS__PROVIDER_MAX_BYTES=str(64 * 1024))
    async with open_tools(settings, TOOLS.params_models()) as session:
        for chunked in (False, True):  # announced in Content-Length, and streamed without one
            up.chunked = chunked
            with pytest.raises(ProviderResponseError, match="larger than 65536 bytes"):
                await session.tools.call("weather_forecast", {"city": "Oslo"})


async def test_an_offer_with_a_nan_price_is_dropped_and_the_rest_kept(
    upstream: tuple[Upstream, str], make_settings: Callable[..., Settings]
) -> None:
    up, url = upstream

    def fare(day: int, total: Any) -> dict[str, Any]:
        return {
            "type": "flight-date",
            "origin": "PAR",
            "destination": "ROM",
            "departureDate": ahead(day),
            "price": {"total": total},
        }

    up.fares = {
        "data": [fare(10, "NaN"), fare(11, math.nan), fare(12, "120.50"), fare(13, "-Infinity")],
        "meta": {"currency": "EUR"},
    }
    async with open_tools(against(url, make_settings), TOOLS.params_models()) as session:
        call = await session.tools.call("cheapest_dates", {"origin": "Paris", "destination": "Rome"})
    assert [r.price for r in call.results] == [120.5]  # type: ignore[attr-defined]
    json.dumps(call.to_json(), allow_nan=False)
