"""Every connector against the offline sandbox over real HTTP, and every injected fault handled."""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from connectors.factory import ToolSession, open_tools
from connectors.http import RateLimiter
from connectors.models import FlightOffer, HotelOffer, WeatherDay
from connectors.sandbox.app import FAULTS
from connectors.sandbox.faults import SandboxFaults
from rag.errors import (
    ProviderRateLimitedError,
    ProviderRejectedError,
    ProviderResponseError,
    ProviderUnavailableError,
    UnknownLocationError,
)
from rag.settings import Settings

TODAY = dt.datetime.now(dt.UTC).date()


def ahead(days: int) -> str:
    return (TODAY + dt.timedelta(days=days)).isoformat()


@pytest.fixture
async def tools(make_settings: Callable[..., Settings]) -> AsyncIterator[ToolSession]:
    settings = make_settings(
        WAYFARER_CONNECTORS__MIN_INTERVAL_MS="0",
        WAYFARER_CONNECTORS__RATE_LIMIT_PER_SECOND="1000",
        WAYFARER_CONNECTORS__BACKOFF_SECONDS="0.01",
        WAYFARER_CONNECTORS__TIMEOUT_SECONDS="1",
    )
    async with open_tools(settings) as session:
        assert session.sandbox_url and session.sandbox_url.startswith("http://127.0.0.1:")
        yield session


def set_faults(session: ToolSession, **faults: Any) -> None:
    """Faults are changed on the live object (a running aiohttp app is frozen)."""
    assert session.sandbox_runner is not None
    live = session.sandbox_runner.app[FAULTS]
    for name, value in SandboxFaults(**faults).model_dump().items():
        setattr(live, name, value)


def amadeus_attempts(session: ToolSession) -> int:
    return int(session.tools._providers["flight_search"].attempts)  # type: ignore[attr-defined]


async def test_flight_search(tools: ToolSession) -> None:
    params = {
        "origin": "London",
        "destination": "Tokyo",
        "departure_date": ahead(40),
        "return_date": ahead(50),
        "adults": 2,
    }
    call = await tools.tools.call("flight_search", params)
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
        assert offer.identity.startswith("flight:") and str(offer.price) not in offer.identity
    prices = [o.price for o in call.results]  # type: ignore[attr-defined]
    assert prices == sorted(prices)
    again = await tools.tools.call("flight_search", params)
    assert [r.identity for r in again.results] == [r.identity for r in call.results]  # deterministic


async def test_hotel_search(tools: ToolSession) -> None:
    call = await tools.tools.call("hotel_search", {"city": "Lisbon", "check_in": ahead(20), "nights": 3})
    assert call.results
    for h in call.results:
        assert isinstance(h, HotelOffer) and h.city_code == "LIS" and h.nights == 3
        assert h.identity == f"hotel:{h.hotel_id}:{ahead(20)}:{ahead(23)}:{h.room or '-'}:1"
        assert "3 nights" in h.render()
    cheap = await tools.tools.call(
        "hotel_search", {"city": "Lisbon", "check_in": ahead(20), "nights": 3, "max_price": 300}
    )
    assert all(h.price <= 300 for h in cheap.results)  # type: ignore[attr-defined]


async def test_activities_locations_inspiration_dates(tools: ToolSession) -> None:
    acts = await tools.tools.call("activity_search", {"city": "Barcelona"})
    assert acts.results and all(
        a.kind == "activity" and a.identity.startswith("activity:") for a in acts.results
    )
    locs = await tools.tools.call("location_search", {"keyword": "lis"})
    assert "LIS" in {r.iata for r in locs.results}  # type: ignore[attr-defined]
    ideas = await tools.tools.call("flight_inspiration", {"origin": "Madrid", "max_price": 400})
    assert ideas.results and all(r.price <= 400 and r.origin == "MAD" for r in ideas.results)  # type: ignore[attr-defined]
    assert "indicative" in ideas.results[0].render()
    dates = await tools.tools.call("cheapest_dates", {"origin": "PAR", "destination": "Rome"})
    assert dates.results and all(r.kind == "cheapest_date" for r in dates.results)


async def test_weather_forecast(tools: ToolSession) -> None:
    call = await tools.tools.call("weather_forecast", {"city": "Oslo", "days": 5})
    assert call.provider == "open_meteo" and len(call.results) == 5
    day = call.results[0]
    assert isinstance(day, WeatherDay) and day.date == TODAY and "Oslo" in day.place
    assert day.temperature_min is not None and day.temperature_max is not None
    assert day.temperature_min <= day.temperature_max
    assert "°C" in day.render()
    with pytest.raises(UnknownLocationError):
        await tools.tools.call("weather_forecast", {"city": "Qwzxqv"})


async def test_places_anywhere_reach_the_providers(tools: ToolSession) -> None:
    # Cities outside the destination list of cities.json, named as a traveller names them.
    hotels = await tools.tools.call(
        "hotel_search", {"city": "Kansas City", "check_in": ahead(20), "nights": 2}
    )
    assert hotels.results and all(
        isinstance(h, HotelOffer) and h.city_code == "MCI" and h.currency == "USD" for h in hotels.results
    )
    flights = await tools.tools.call(
        "flight_search", {"origin": "Boston", "destination": "Salt Lake City", "departure_date": ahead(30)}
    )
    assert flights.results
    for offer in flights.results:
        assert isinstance(offer, FlightOffer)
        (leg,) = offer.itineraries
        assert leg.segments[0].origin == "BOS" and leg.segments[-1].destination == "SLC"
    far = await tools.tools.call(
        "flight_search", {"origin": "Lisboa", "destination": "Kansas City", "departure_date": ahead(30)}
    )
    assert far.results and all(o.itineraries[0].segments[-1].destination == "MCI" for o in far.results)  # type: ignore[attr-defined]
    acts = await tools.tools.call("activity_search", {"city": "Köln"})
    assert acts.results and all("Köln" in a.render() for a in acts.results)


async def test_provider_rejections_are_clear(tools: ToolSession) -> None:
    # Valid for us, refused upstream (a village with an airport but no hotel list): the provider's 4xx detail.
    with pytest.raises(ProviderRejectedError, match="NOTHING FOUND FOR REQUESTED CITY"):
        await tools.tools.call("hotel_search", {"city": "Lukla", "check_in": ahead(5)})


async def test_server_errors_retry_a_bounded_number_of_times(tools: ToolSession) -> None:
    await tools.tools.call("location_search", {"keyword": "par"})  # token fetched
    set_faults(tools, error_rate=1.0)
    before = amadeus_attempts(tools)
    with pytest.raises(ProviderUnavailableError):
        await tools.tools.call("location_search", {"keyword": "par"})
    assert amadeus_attempts(tools) - before == 3  # one try and two retries
    set_faults(tools)
    assert (await tools.tools.call("location_search", {"keyword": "par"})).results


async def test_too_many_requests_backs_off_and_succeeds(tools: ToolSession) -> None:
    await tools.tools.call("location_search", {"keyword": "rom"})
    set_faults(tools, too_many_requests=2)
    before = amadeus_attempts(tools)
    call = await tools.tools.call("location_search", {"keyword": "rom"})
    assert call.results and amadeus_attempts(tools) - before == 3


async def test_quota_exceeded_is_not_retried(tools: ToolSession) -> None:
    await tools.tools.call("location_search", {"keyword": "ber"})
    set_faults(tools, quota_exceeded=True)
    before = amadeus_attempts(tools)
    with pytest.raises(ProviderRateLimitedError):
        await tools.tools.call("location_search", {"keyword": "ber"})
    assert amadeus_attempts(tools) - before == 1


async def test_malformed_bodies_are_a_clear_error(tools: ToolSession) -> None:
    await tools.tools.call("location_search", {"keyword": "mad"})
    set_faults(tools, malformed_rate=1.0)
    with pytest.raises(ProviderResponseError):
        await tools.tools.call("location_search", {"keyword": "mad"})
    with pytest.raises(ProviderResponseError):
        await tools.tools.call("weather_forecast", {"city": "Madrid"})


async def test_slow_upstream_times_out_boundedly(tools: ToolSession) -> None:
    await tools.tools.call("location_search", {"keyword": "osl"})
    set_faults(tools, latency_ms=3000)
    with pytest.raises(ProviderUnavailableError, match="did not answer"):
        await tools.tools.call("location_search", {"keyword": "osl"})


async def test_expired_token_is_refreshed(tools: ToolSession) -> None:
    set_faults(tools, token_ttl_seconds=1)
    provider = tools.tools._providers["flight_search"]
    await tools.tools.call("location_search", {"keyword": "lon"})
    await asyncio.sleep(1.2)
    assert (await tools.tools.call("location_search", {"keyword": "lon"})).results
    assert provider.token_fetches >= 2  # type: ignore[attr-defined]


async def test_rate_limiter_spaces_requests() -> None:
    limiter = RateLimiter(per_second=10, min_interval=0.1)
    stamps = []
    for _ in range(5):
        await limiter.wait()
        stamps.append(time.monotonic())
    gaps = [b - a for a, b in zip(stamps, stamps[1:], strict=False)]
    assert min(gaps) >= 0.095
