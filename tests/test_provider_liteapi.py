"""LiteAPI for hotel_search, through the sandbox's LiteAPI dialect over real HTTP: what is LiteAPI's alone.

Priced rooms from the two-step search (the city's hotels, then their rates), the price ceiling,
identities that survive LiteAPI's per-search offer ids, its dialect and error bodies. The failures
every provider shares are tests/test_provider_contract.py.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from connectors.http import RetryPolicy
from connectors.liteapi import LiteApiConnector, describe_error
from connectors.models import HotelOffer
from connectors.params import HotelSearchParams
from connectors.places import LocationCatalogue
from connectors.sandbox import FAULTS, SandboxFaults, create_sandbox_app
from connectors.sandbox.liteapi_api import API_KEY, HOTELS_PATH, RATES_PATH

POLICY = RetryPolicy(retries=2, backoff=0.01, timeout=10.0, max_backoff=0.05)
Server = Callable[..., Awaitable[TestServer]]


@pytest.fixture(scope="module")
def places() -> LocationCatalogue:
    return LocationCatalogue.load()


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as s:
        yield s


@pytest.fixture
async def sandbox(aiohttp_server: Server) -> TestServer:
    return await aiohttp_server(create_sandbox_app(SandboxFaults()))


def connector(
    server: TestServer,
    session: aiohttp.ClientSession,
    places: LocationCatalogue,
    key: str = API_KEY,
    **kwargs: Any,
) -> LiteApiConnector:
    return LiteApiConnector(
        session, str(server.make_url("")), key, policy=POLICY, sandbox=True, places=places, **kwargs
    )


def params(places: LocationCatalogue, **values: Any) -> HotelSearchParams:
    today = dt.date.today()
    raw = {"city": "Paris", "check_in": (today + dt.timedelta(days=40)).isoformat(), "nights": 3, **values}
    return HotelSearchParams.model_validate(raw, context={"catalogue": places, "today": today})


def faults(server: TestServer) -> SandboxFaults:
    return server.app[FAULTS]


async def test_hotel_search_returns_priced_rooms(
    sandbox: TestServer, session: aiohttp.ClientSession, places: LocationCatalogue
) -> None:
    p = params(places, adults=2, currency="USD")
    offers = await connector(sandbox, session, places).call("hotel_search", p, 8)
    assert 0 < len(offers) <= 8
    assert all(isinstance(o, HotelOffer) for o in offers)
    hotels = [o for o in offers if isinstance(o, HotelOffer)]
    assert [o.price for o in hotels] == sorted(o.price for o in hotels)
    for o in hotels:
        assert o.provider == "liteapi" and o.sandbox
        assert o.city_code == "PAR" and o.currency == "USD" and o.adults == 2
        assert o.check_in == p.check_in and o.check_out == p.check_out and o.nights == 3
        assert o.hotel_id.startswith("lp") and o.name != o.hotel_id
        assert o.latitude is not None and o.longitude is not None
        assert o.room and "/" in o.room and o.room_description
        assert o.cancellation in ("non-refundable",) or (o.cancellation or "").startswith("free cancellation")
    assert len({o.identity for o in hotels}) == len(hotels)


async def test_max_price_filters(
    sandbox: TestServer, session: aiohttp.ClientSession, places: LocationCatalogue
) -> None:
    conn = connector(sandbox, session, places)
    one = await conn.call("hotel_search", params(places, currency="EUR"), 50)
    cap = sorted(o.price for o in one if isinstance(o, HotelOffer))[len(one) // 2]
    capped = await conn.call("hotel_search", params(places, currency="EUR", max_price=int(cap)), 50)
    assert capped and all(isinstance(o, HotelOffer) and o.price <= int(cap) for o in capped)


async def test_identities_are_stable_though_offer_ids_change(
    sandbox: TestServer, session: aiohttp.ClientSession, places: LocationCatalogue
) -> None:
    conn = connector(sandbox, session, places)
    p = params(places, adults=2)
    first = await conn.call("hotel_search", p, 20)
    second = await conn.call("hotel_search", p, 20)
    assert first and [o.identity for o in first] == [o.identity for o in second]
    # ...while the provider's own offer ids differ on every search, so they cannot be the identity.
    body = {
        "hotelIds": [first[0].identity.split(":")[1]],
        "occupancies": [{"adults": 2}],
        "currency": "EUR",
        "guestNationality": "US",
        "checkin": p.check_in.isoformat(),
        "checkout": str(p.check_out),
    }
    headers = {"X-API-Key": API_KEY}
    ids = []
    for _ in range(2):
        async with session.post(sandbox.make_url(RATES_PATH), json=body, headers=headers) as resp:
            assert resp.status == 200
            ids.append([rt["offerId"] for rt in (await resp.json())["data"][0]["roomTypes"]])
    assert ids[0] and set(ids[0]).isdisjoint(ids[1])


async def test_the_dialect_speaks_liteapi(sandbox: TestServer, session: aiohttp.ClientSession) -> None:
    url = sandbox.make_url(HOTELS_PATH)
    async with session.get(url, params={"countryCode": "FR", "cityName": "Paris"}) as resp:
        assert resp.status == 401
        assert (await resp.json())["error"]["code"] == 401
    headers = {"X-API-Key": API_KEY}
    async with session.get(url, params={"cityName": "Paris"}, headers=headers) as resp:
        assert resp.status == 400
        error = (await resp.json())["error"]
        assert error["code"] == 4002 and "countryCode" in error["description"]
    near = {"latitude": "48.8566", "longitude": "2.3522", "radius": "3000"}
    async with session.get(url, params=near, headers=headers) as resp:
        body = await resp.json()
        assert resp.status == 200 and body["data"] and body["hotelIds"] == [h["id"] for h in body["data"]]
    faults(sandbox).too_many_requests = 1
    async with session.get(url, params=near, headers=headers) as resp:
        assert resp.status == 429 and resp.headers["Retry-After"] == "1"
    rates = {"hotelIds": ["lpnothere"], "occupancies": [{"adults": 1}], "currency": "EUR",
             "guestNationality": "US", "checkin": str(dt.date.today() + dt.timedelta(days=9)),
             "checkout": str(dt.date.today() + dt.timedelta(days=10))}  # fmt: skip
    async with session.post(sandbox.make_url(RATES_PATH), json=rates, headers=headers) as resp:
        assert (await resp.json())["error"]["code"] == 2001


def test_describe_error_reads_liteapi_bodies() -> None:
    body = {"error": {"code": 4002, "description": "checkin is required", "message": "missing input"}}
    info = describe_error(400, body)
    assert (info.code, info.message, info.quota) == ("4002", "missing input; checkin is required", False)
    assert describe_error(429, {"error": {"code": 429, "message": "request quota exceeded"}}).quota
    assert describe_error(502, "<html>").message == "HTTP 502"
    assert describe_error(403, {"message": "Forbidden"}).message == "Forbidden"


async def test_values_liteapi_sent_are_checked_before_they_go_back_to_it(
    aiohttp_server: Server, session: aiohttp.ClientSession, places: LocationCatalogue
) -> None:
    """Hotel ids and the currency of its hotel list are sent back in the rates request: an id or a
    currency not shaped like one never is."""
    from aiohttp import web

    sent: list[Any] = []

    async def hotels(request: web.Request) -> web.Response:
        listing = [
            {"id": "lp1beec", "name": "Good", "currency": "EUR\r\nX-Evil: 1"},
            {"id": "x' OR 1=1 --", "name": "Bad"},
            {"id": "a" * 65, "name": "Too long"},
            {"id": "lp\u202e2", "name": "Bidi"},
            {"id": "lp_ok-2", "name": "Also good"},
        ]
        return web.json_response({"data": listing})

    async def rates(request: web.Request) -> web.Response:
        sent.append(await request.json())
        return web.json_response({"data": []})

    app = web.Application()
    app.router.add_get(HOTELS_PATH, hotels)
    app.router.add_post(RATES_PATH, rates)
    server = await aiohttp_server(app)
    await connector(server, session, places).call("hotel_search", params(places), 5)
    [request] = sent
    assert request["hotelIds"] == ["lp1beec", "lp_ok-2"]
    assert request["currency"] == "USD"  # the listing's was not a currency code: ours instead
