"""Duffel for flight_search through the offline sandbox over real HTTP: what is Duffel's alone.

Offers of round trips, cabins, ceilings and airlines, ids that change per search while identities do not, the
wire format (gzip, headers, error bodies), unreadable offers. The failures every provider shares are
tests/test_provider_contract.py.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from connectors.duffel import DuffelConnector
from connectors.http import RetryPolicy
from connectors.models import FlightOffer
from connectors.params import FlightSearchParams
from connectors.sandbox import FAULTS, create_sandbox_app
from connectors.sandbox.duffel_api import SANDBOX_TOKEN
from rag.errors import ProviderResponseError
from tests.provider_contract import CATALOGUE, POLICY, TODAY, ahead, ahead_on

LONDON = {"LHR", "LGW", "STN", "LTN", "LCY", "SEN"}
TOKYO = {"NRT", "HND"}
Connect = Callable[..., DuffelConnector]


# The searches' day: a Thursday about 40 days ahead, on which the sandbox's Japan Airlines flies London-
# Tokyo (its timetables differ by weekday), so the tests do not move with today's date.
DEPARTS = ahead_on(40, 3)


def flight(**fields: Any) -> FlightSearchParams:
    values = {"origin": "London", "destination": "Tokyo", "departure_date": DEPARTS} | fields
    return FlightSearchParams.model_validate(values, context={"catalogue": CATALOGUE, "today": TODAY})


@pytest.fixture
async def sandbox(aiohttp_server: Any) -> TestServer:
    server: TestServer = await aiohttp_server(create_sandbox_app())
    return server


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as s:
        yield s


@pytest.fixture
def connect(sandbox: TestServer, session: aiohttp.ClientSession) -> Connect:
    def make(
        token: str = SANDBOX_TOKEN, policy: RetryPolicy = POLICY, base: str | None = None, **kw: Any
    ) -> DuffelConnector:
        url = base or str(sandbox.make_url(""))
        return DuffelConnector(session, url, token, policy=policy, sandbox=True, **kw)

    return make


def faults(sandbox: TestServer, **values: Any) -> None:
    live = sandbox.app[FAULTS]
    for name, value in values.items():
        setattr(live, name, value)


async def offers(
    connector: DuffelConnector, params: FlightSearchParams, limit: int = 10
) -> list[FlightOffer]:
    results = await connector.call("flight_search", params, limit)
    assert all(isinstance(r, FlightOffer) for r in results)
    return [r for r in results if isinstance(r, FlightOffer)]


async def test_round_trip_offers(connect: Connect) -> None:
    found = await offers(connect(), flight(return_date=ahead(50), adults=2, children=1, infants=1), 5)
    assert 1 <= len(found) <= 5
    for offer in found:
        assert offer.provider == "duffel" and offer.sandbox and offer.cabin == "ECONOMY" and offer.adults == 2
        out, back = offer.itineraries
        assert out.segments[0].origin in LONDON and out.segments[-1].destination in TOKYO
        assert out.segments[0].departure.date().isoformat() == DEPARTS
        assert back.segments[0].origin == out.segments[-1].destination
        assert back.segments[0].departure.date().isoformat() == ahead(50)
        assert offer.currency == "EUR" and offer.price > 0
        assert out.segments[0].carrier_name and out.duration_minutes
        assert f"{offer.price:,.2f} EUR" in offer.render()
    assert [o.price for o in found] == sorted(o.price for o in found)


async def test_one_way_cabin_nonstop_and_price_ceiling(connect: Connect) -> None:
    duffel = connect()
    business = await offers(duffel, flight(cabin="BUSINESS", nonstop=True))
    assert business and all(o.cabin == "BUSINESS" and len(o.itineraries) == 1 for o in business)
    assert all(it.stops == 0 for o in business for it in o.itineraries)
    economy = await offers(duffel, flight())
    ceiling = int(economy[0].price) + 1
    cheap = await offers(duffel, flight(max_price=ceiling))
    assert cheap and all(o.price <= ceiling for o in cheap)
    assert len(cheap) < len(economy) or economy[-1].price <= ceiling


async def test_identities_stable_though_duffel_ids_change(
    connect: Connect, sandbox: TestServer, session: aiohttp.ClientSession
) -> None:
    duffel = connect()
    params = flight(return_date=ahead(47))
    first, second = await offers(duffel, params), await offers(duffel, params)
    assert [o.identity for o in first] == [o.identity for o in second]
    assert len({o.identity for o in first}) == len(first)
    for offer in first:
        legs = [s for it in offer.itineraries for s in it.segments]
        assert (
            offer.identity
            == "flight:"
            + "|".join(f"{s.carrier}{s.number}@{s.departure:%Y-%m-%dT%H:%M}" for s in legs)
            + f":{offer.cabin}"
        )
        assert "off_" not in offer.identity and str(offer.price) not in offer.identity
    # The same search twice on the wire: the same flights, under new offer ids.
    ids = []
    for _ in range(2):
        body = await _post(session, sandbox, _search_body())
        ids.append([o["id"] for o in body["data"]["offers"]])
    assert ids[0] and not set(ids[0]) & set(ids[1])


def _search_body() -> dict[str, Any]:
    slices = [{"origin": "LON", "destination": "TYO", "departure_date": DEPARTS}]
    return {"data": {"slices": slices, "passengers": [{"type": "adult"}], "cabin_class": "economy"}}


async def _post(
    session: aiohttp.ClientSession,
    sandbox: TestServer,
    body: dict[str, Any],
    headers: dict[str, str] | None = None,
    status: int = 201,
) -> Any:
    sent = {
        "Authorization": f"Bearer {SANDBOX_TOKEN}",
        "Duffel-Version": "v2",
        "Content-Type": "application/json",
    } | (headers or {})
    url = sandbox.make_url("/air/offer_requests").with_query(return_offers="true")
    async with session.post(url, data=json.dumps(body), headers=sent) as resp:
        assert resp.status == status, (await resp.text())[:500]
        for name in ("ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"):
            assert resp.headers.get(name), name
        return await resp.json()


async def test_wire_format_gzip_and_error_bodies(sandbox: TestServer, session: aiohttp.ClientSession) -> None:
    url = sandbox.make_url("/air/offer_requests")
    headers = {
        "Authorization": f"Bearer {SANDBOX_TOKEN}",
        "Duffel-Version": "v2",
        "Accept-Encoding": "gzip",
        "Content-Type": "application/json",
    }
    async with session.post(
        url, data=json.dumps(_search_body()), headers=headers, auto_decompress=False
    ) as r:
        assert r.status == 201 and r.headers.get("Content-Encoding") == "gzip"
        body = json.loads(gzip.decompress(await r.read()))
    offer = body["data"]["offers"][0]
    assert offer["id"].startswith("off_") and body["data"]["id"].startswith("orq_")
    segment = offer["slices"][0]["segments"][0]
    assert segment["marketing_carrier"]["iata_code"] and segment["marketing_carrier_flight_number"]
    assert float(offer["total_amount"]) > 0 and offer["total_currency"] == "EUR"

    missing_version = await _post(session, sandbox, _search_body(), {"Duffel-Version": ""}, 400)
    assert missing_version["errors"][0]["type"] == "invalid_request_error"
    bad = _search_body()
    bad["data"]["passengers"] = [{"type": "child"}]
    rejected = await _post(session, sandbox, bad, status=422)
    error = rejected["errors"][0]
    assert error["type"] == "validation_error" and error["source"]["pointer"] == "/data/passengers/0/type"
    assert rejected["meta"]["status"] == 422 and rejected["meta"]["request_id"]


async def test_unreadable_offers(connect: Connect, sandbox: TestServer) -> None:
    duffel = connect()
    faults(sandbox, rewrite={"total_amount": "NaN"})
    with pytest.raises(ProviderResponseError, match="cannot read"):
        await duffel.call("flight_search", flight(), 5)
    faults(sandbox, rewrite={"cabin_class": "spaceship", "marketing_carrier_flight_number": "<b>1</b>"})
    with pytest.raises(ProviderResponseError, match="cannot read"):
        await duffel.call("flight_search", flight(), 5)


async def test_an_airline_keeps_its_own_offers(connect: Connect) -> None:
    """Duffel takes no airline: the connector keeps the offers whose every flight the airline markets."""
    c = connect()
    everyone = await offers(c, flight(), 50)
    japan = await offers(c, flight(airline="Japan Airlines"), 50)
    assert japan and all(o.carriers == {"JL"} for o in japan)
    assert {o.identity for o in japan} < {o.identity for o in everyone}
    assert await offers(c, flight(airline="JetBlue"), 50) == []  # no JetBlue flight to Tokyo
