"""Amadeus and Open-Meteo against the offline sandbox over real HTTP: what is theirs alone.

What every provider does (results, identities, limits, keys, 429s, 5xx, timeouts, hostile bodies) is
tests/test_provider_contract.py; here are the answers' details, Amadeus's quota and its OAuth2 tokens.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from connectors.amadeus import SANDBOX_CLIENT, AmadeusConnector
from connectors.http import RateLimiter, RetryPolicy
from connectors.models import FlightOffer, HotelOffer, WeatherDay
from connectors.open_meteo import OpenMeteoConnector
from connectors.places import LocationCatalogue
from connectors.sandbox import FAULTS, SandboxFaults, create_sandbox_app
from connectors.sandbox.keys import TOKENS
from connectors.tools import ToolRunner
from rag.errors import ProviderAuthError, ProviderRateLimitedError, UnknownLocationError
from rag.tools.catalog import ToolCatalogue

TOOLS = ToolCatalogue.builtin()

TODAY = dt.datetime.now(dt.UTC).date()
POLICY = RetryPolicy(retries=2, backoff=0.01, timeout=10.0, max_backoff=0.05)
CATALOGUE = LocationCatalogue.load()


def ahead(days: int) -> str:
    return (TODAY + dt.timedelta(days=days)).isoformat()


@pytest.fixture
async def sandbox(aiohttp_server: Any) -> TestServer:
    server: TestServer = await aiohttp_server(create_sandbox_app())
    return server


@pytest.fixture
def faults(sandbox: TestServer) -> SandboxFaults:
    return sandbox.app[FAULTS]


@pytest.fixture
async def amadeus(sandbox: TestServer) -> AsyncIterator[AmadeusConnector]:
    async with aiohttp.ClientSession() as session:
        yield AmadeusConnector(
            session, str(sandbox.make_url("")), *SANDBOX_CLIENT, policy=POLICY, limiter=None, sandbox=True
        )


@pytest.fixture
async def tools(sandbox: TestServer, amadeus: AmadeusConnector) -> AsyncIterator[ToolRunner]:
    """Amadeus for its six tools, Open-Meteo for the weather, validating as the service does."""
    async with aiohttp.ClientSession() as session:
        base = str(sandbox.make_url(""))
        weather = OpenMeteoConnector(session, base, base, policy=POLICY, sandbox=True)
        providers = {tool: amadeus if tool in amadeus.tools else weather for tool in TOOLS}
        yield ToolRunner(providers, CATALOGUE, TOOLS.params_models(), today=lambda: TODAY)  # type: ignore[arg-type]


async def test_flight_search(tools: ToolRunner) -> None:
    params = {
        "origin": "London",
        "destination": "Tokyo",
        "departure_date": ahead(40),
        "return_date": ahead(50),
        "adults": 2,
    }
    call = await tools.call("flight_search", params)
    assert call.sandbox and call.provider == "amadeus" and call.results
    for offer in call.results:
        assert isinstance(offer, FlightOffer) and offer.sandbox
        out, back = offer.itineraries
        assert out.segments[0].departure.date().isoformat() == ahead(40)
        assert out.segments[0].origin in {"LHR", "LGW", "STN", "LTN", "LCY", "SEN"}
        assert out.segments[-1].destination in {"NRT", "HND"}
        assert back.segments[0].origin == out.segments[-1].destination
        text = offer.render()
        assert out.segments[0].origin in text and out.segments[-1].destination in text
        assert ("nonstop" in text) == (out.stops == 0) and f"{offer.price:,.2f} {offer.currency}" in text
        assert offer.identity.startswith("flight:")
    prices = [o.price for o in call.results]  # type: ignore[attr-defined]
    assert prices == sorted(prices)


async def test_hotel_search(tools: ToolRunner) -> None:
    call = await tools.call("hotel_search", {"city": "Lisbon", "check_in": ahead(20), "nights": 3})
    assert call.results
    for h in call.results:
        assert isinstance(h, HotelOffer) and h.city_code == "LIS" and h.nights == 3
        assert h.identity == f"hotel:{h.hotel_id}:{ahead(20)}:{ahead(23)}:{h.room or '-'}:1"
        assert "3 nights" in h.render()
    cheap = await tools.call(
        "hotel_search", {"city": "Lisbon", "check_in": ahead(20), "nights": 3, "max_price": 300}
    )
    assert all(h.price <= 300 for h in cheap.results)  # type: ignore[attr-defined]


async def test_activities_locations_inspiration_dates(tools: ToolRunner) -> None:
    acts = await tools.call("activity_search", {"city": "Barcelona"})
    assert acts.results and all(
        a.kind == "activity" and a.identity.startswith("activity:") for a in acts.results
    )
    locs = await tools.call("location_search", {"keyword": "lis"})
    assert "LIS" in {r.iata for r in locs.results}  # type: ignore[attr-defined]
    ideas = await tools.call("flight_inspiration", {"origin": "Madrid", "max_price": 400})
    assert ideas.results and all(r.price <= 400 and r.origin == "MAD" for r in ideas.results)  # type: ignore[attr-defined]
    assert "indicative" in ideas.results[0].render()
    dates = await tools.call("cheapest_dates", {"origin": "PAR", "destination": "Rome"})
    assert dates.results and all(r.kind == "cheapest_date" for r in dates.results)


async def test_weather_forecast(tools: ToolRunner) -> None:
    call = await tools.call("weather_forecast", {"city": "Oslo", "days": 5})
    assert call.provider == "open_meteo" and len(call.results) == 5
    day = call.results[0]
    assert isinstance(day, WeatherDay) and day.date == TODAY and "Oslo" in day.place
    assert day.temperature_min is not None and day.temperature_max is not None
    assert day.temperature_min <= day.temperature_max
    assert "°C" in day.render()
    with pytest.raises(UnknownLocationError):
        await tools.call("weather_forecast", {"city": "Qwzxqv"})


async def test_places_anywhere_reach_the_providers(tools: ToolRunner) -> None:
    # Cities outside the destination list of cities.json, named as a traveller names them.
    hotels = await tools.call("hotel_search", {"city": "Kansas City", "check_in": ahead(20), "nights": 2})
    assert hotels.results and all(
        isinstance(h, HotelOffer) and h.city_code == "MCI" and h.currency == "USD" for h in hotels.results
    )
    flights = await tools.call(
        "flight_search", {"origin": "Boston", "destination": "Salt Lake City", "departure_date": ahead(30)}
    )
    assert flights.results
    for offer in flights.results:
        assert isinstance(offer, FlightOffer)
        (leg,) = offer.itineraries
        assert leg.segments[0].origin == "BOS" and leg.segments[-1].destination == "SLC"
    far = await tools.call(
        "flight_search", {"origin": "Lisboa", "destination": "Kansas City", "departure_date": ahead(30)}
    )
    assert far.results and all(o.itineraries[0].segments[-1].destination == "MCI" for o in far.results)  # type: ignore[attr-defined]
    acts = await tools.call("activity_search", {"city": "Köln"})
    assert acts.results and all("Köln" in a.render() for a in acts.results)


async def test_quota_exceeded_is_not_retried(
    tools: ToolRunner, amadeus: AmadeusConnector, faults: SandboxFaults
) -> None:
    await tools.call("location_search", {"keyword": "ber"})
    faults.quota_exceeded = True
    before = amadeus.attempts
    with pytest.raises(ProviderRateLimitedError) as caught:
        await tools.call("location_search", {"keyword": "ber"})
    assert (
        "Quota limit exceeded" in caught.value.detail and "Quota limit exceeded" not in caught.value.message
    )
    assert amadeus.attempts - before == 1


async def test_an_expired_token_is_refreshed(
    tools: ToolRunner, amadeus: AmadeusConnector, faults: SandboxFaults, sandbox: TestServer
) -> None:
    faults.token_ttl_seconds = 1
    await tools.call("location_search", {"keyword": "lon"})
    # Until the sandbox holds every token it issued expired (its second passed on its own clock).
    expiries = sandbox.app[TOKENS].expiries
    deadline = time.monotonic() + 30
    while any(time.monotonic() < until for until in expiries.values()):
        assert time.monotonic() < deadline, "the sandbox's tokens never expired"
        await asyncio.sleep(0.05)
    assert (await tools.call("location_search", {"keyword": "lon"})).results
    assert amadeus.token_fetches >= 2


async def test_a_token_revoked_mid_session_is_replaced_once(
    tools: ToolRunner, amadeus: AmadeusConnector, sandbox: TestServer
) -> None:
    await tools.call("location_search", {"keyword": "osl"})
    sandbox.app[TOKENS].expiries.clear()  # the provider forgot every token it issued
    before = amadeus.attempts
    assert (await tools.call("location_search", {"keyword": "osl"})).results
    assert amadeus.token_fetches == 2 and amadeus.attempts - before == 3  # refused, new token, again


async def test_tokens_that_are_always_expired_fail_once_not_forever(
    tools: ToolRunner, amadeus: AmadeusConnector, faults: SandboxFaults
) -> None:
    faults.token_ttl_seconds = 0  # every token is born expired
    with pytest.raises(ProviderAuthError) as caught:
        await tools.call("location_search", {"keyword": "rom"})
    assert (
        "Access token expired" in caught.value.detail and "Access token expired" not in caught.value.message
    )
    assert amadeus.token_fetches == 2 and amadeus.attempts == 4  # token, refused, new token, refused


async def test_rate_limiter_spaces_requests() -> None:
    limiter = RateLimiter(per_second=10, min_interval=0.1)
    stamps = []
    for _ in range(5):
        await limiter.wait()
        stamps.append(time.monotonic())
    gaps = [b - a for a, b in zip(stamps, stamps[1:], strict=False)]
    assert min(gaps) >= 0.095
