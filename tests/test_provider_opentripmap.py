"""OpenTripMap (activity_search) through the real sandbox over HTTP: places, identities, errors."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator, Callable
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from connectors.http import RetryPolicy
from connectors.locations import LocationCatalogue
from connectors.models import Activity
from connectors.opentripmap import OpenTripMapConnector, describe_error
from connectors.params import ActivitySearchParams, LocationSearchParams
from connectors.sandbox.app import create_sandbox_app
from connectors.sandbox.keys import FAULTS
from connectors.sandbox.opentripmap_api import API_KEY
from rag.errors import (
    ProviderAuthError,
    ProviderRateLimitedError,
    ProviderRejectedError,
    ProviderResponseError,
    ProviderUnavailableError,
)

POLICY = RetryPolicy(retries=2, backoff=0.01, timeout=30.0, max_backoff=0.05)


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as s:
        yield s


@pytest.fixture
async def sandbox(aiohttp_server: Any) -> Any:
    return await aiohttp_server(create_sandbox_app())


@pytest.fixture
def connector(sandbox: Any, session: aiohttp.ClientSession) -> Callable[..., OpenTripMapConnector]:
    def make(key: str = API_KEY, base_url: str | None = None, **kw: Any) -> OpenTripMapConnector:
        url = base_url or str(sandbox.make_url(""))
        return OpenTripMapConnector(session, url, key, policy=POLICY, sandbox=True, **kw)

    return make


def where(**values: Any) -> ActivitySearchParams:
    ctx = {"catalogue": LocationCatalogue.load(), "today": dt.date.today()}
    return ActivitySearchParams.model_validate({"city": "Barcelona"} | values, context=ctx)


async def activities(c: OpenTripMapConnector, p: ActivitySearchParams, limit: int = 10) -> list[Activity]:
    found = await c.call("activity_search", p, limit)
    assert all(isinstance(a, Activity) for a in found)
    return [a for a in found if isinstance(a, Activity)]


async def test_places_around_a_city(connector: Callable[..., OpenTripMapConnector]) -> None:
    found = await activities(connector(), where())
    assert 3 <= len(found) <= 10
    for a in found:
        assert a.provider == "opentripmap" and a.sandbox and a.activity_id.startswith("N")
        assert a.latitude is not None and abs(a.latitude - 41.39) < 0.1
        assert a.price is None and a.currency is None  # OpenTripMap lists sights, not priced tours
        assert a.render().startswith(a.name)
    # The first three carry their card's description and link; the rest only the listing's fields.
    assert all(a.description and "Barcelona" in a.description and a.booking_link for a in found[:3])
    assert all(a.description is None for a in found[3:])
    assert len(await activities(connector(), where(), limit=2)) == 2
    nothing = await activities(connector(), where(city=None, latitude=0.5, longitude=-30.0, radius_km=1))
    assert nothing == []  # the middle of the Atlantic


async def test_identities_are_stable(connector: Callable[..., OpenTripMapConnector]) -> None:
    first = await activities(connector(), where(city="Lisbon"))
    second = await activities(connector(), where(city="Lisbon"))
    assert [a.identity for a in first] == [a.identity for a in second]
    assert all(a.identity == f"activity:{a.activity_id}" for a in first)


async def test_wrong_key(connector: Callable[..., OpenTripMapConnector]) -> None:
    c = connector(key="not-a-key")
    with pytest.raises(ProviderAuthError, match="Unknown API key"):
        await c.call("activity_search", where(), 5)
    assert c.attempts == 1  # never retried


async def test_429_then_success(sandbox: Any, connector: Callable[..., OpenTripMapConnector]) -> None:
    sandbox.app[FAULTS].too_many_requests = 2
    c = connector(cards=0)
    assert await activities(c, where())
    assert c.attempts == 3 and sandbox.app[FAULTS].too_many_requests == 0


async def test_429_storm_and_quota(sandbox: Any, connector: Callable[..., OpenTripMapConnector]) -> None:
    sandbox.app[FAULTS].too_many_requests = 10
    with pytest.raises(ProviderRateLimitedError, match="Too Many Requests"):
        await connector().call("activity_search", where(), 5)
    sandbox.app[FAULTS].too_many_requests = 0
    sandbox.app[FAULTS].quota_exceeded = True
    c = connector()
    with pytest.raises(ProviderRateLimitedError, match="limit"):
        await c.call("activity_search", where(), 5)
    assert c.attempts == 1  # a spent daily allowance is not retried
    assert describe_error(429, {"error": "Daily limit reached"}).quota


async def test_server_errors(sandbox: Any, connector: Callable[..., OpenTripMapConnector]) -> None:
    sandbox.app[FAULTS].error_rate = 1.0
    c = connector()
    with pytest.raises(ProviderUnavailableError, match="Internal Server Error"):
        await c.call("activity_search", where(), 5)
    assert c.attempts == 3


async def test_malformed_bodies(sandbox: Any, connector: Callable[..., OpenTripMapConnector]) -> None:
    sandbox.app[FAULTS].malformed_rate = 1.0
    with pytest.raises(ProviderResponseError):
        await connector().call("activity_search", where(), 5)
    sandbox.app[FAULTS].malformed_rate = 0.0
    sandbox.app[FAULTS].body_shape = "nested"
    with pytest.raises(ProviderResponseError):
        await connector().call("activity_search", where(), 5)
    sandbox.app[FAULTS].body_shape = None
    sandbox.app[FAULTS].rewrite = {"coordinates": "junk"}  # every place unreadable
    with pytest.raises(ProviderResponseError):
        await connector().call("activity_search", where(), 5)
    sandbox.app[FAULTS].rewrite = {"wikipedia_extracts": 42, "url": "javascript:alert(1)", "otm": None}
    found = await activities(connector(), where())  # a broken card costs its text and link only
    assert found and all(a.description is None and a.booking_link is None for a in found)


async def test_refused_params(connector: Callable[..., OpenTripMapConnector]) -> None:
    with pytest.raises(ProviderRejectedError, match="Unsupported language 'xx'"):
        await connector(lang="xx").call("activity_search", where(), 5)
    with pytest.raises(ProviderUnavailableError):
        await connector().call("location_search", LocationSearchParams(keyword="Paris"), 5)


async def test_hostile_bodies(aiohttp_server: Any, connector: Callable[..., OpenTripMapConnector]) -> None:
    async def html(request: web.Request) -> web.Response:
        return web.Response(text="<html><body>Bad gateway</body></html>", content_type="text/html")

    async def listing(request: web.Request) -> web.Response:
        return web.Response(text='[{"xid": "N1"}]', content_type="text/plain")

    async def huge(request: web.Request) -> web.Response:
        return web.json_response({"type": "FeatureCollection", "features": [], "pad": "x" * 200_000})

    app = web.Application()
    app.router.add_get("/html/0.1/en/places/radius", html)
    app.router.add_get("/list/0.1/en/places/radius", listing)
    app.router.add_get("/huge/0.1/en/places/radius", huge)
    server = await aiohttp_server(app)
    for prefix in ("html", "list", "huge"):
        c = connector(base_url=str(server.make_url(f"/{prefix}")), max_bytes=100_000)
        with pytest.raises(ProviderResponseError):
            await c.call("activity_search", where(), 5)
