"""Travelpayouts (Aviasales Data API) through the real sandbox over HTTP: what is the Data API's alone.

Cached, indicative fares with their age, the cheapest per destination or per day, identities that
ignore the price and currency, unreadable fares, errors inside a 200 and refused months. The failures
every provider shares are tests/test_provider_contract.py.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator, Callable
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from connectors.http import RetryPolicy
from connectors.models import CheapestDate, FarePoint, Inspiration
from connectors.params import CheapestDatesParams, FlightInspirationParams, ToolParams
from connectors.places import LocationCatalogue
from connectors.sandbox.app import create_sandbox_app
from connectors.sandbox.keys import FAULTS
from connectors.sandbox.travelpayouts_api import SANDBOX_TOKEN
from connectors.travelpayouts import TravelpayoutsConnector
from rag.errors import (
    ProviderRejectedError,
    ProviderResponseError,
)

POLICY = RetryPolicy(retries=2, backoff=0.01, timeout=30.0, max_backoff=0.05)
TODAY = dt.date.today()


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as s:
        yield s


@pytest.fixture
async def sandbox(aiohttp_server: Any) -> Any:
    return await aiohttp_server(create_sandbox_app())


@pytest.fixture
def connector(sandbox: Any, session: aiohttp.ClientSession) -> Callable[..., TravelpayoutsConnector]:
    def make(token: str = SANDBOX_TOKEN, base_url: str | None = None, **kw: Any) -> TravelpayoutsConnector:
        url = base_url or str(sandbox.make_url(""))
        return TravelpayoutsConnector(session, url, token, policy=POLICY, sandbox=True, **kw)

    return make


def params(model: type[ToolParams], **values: Any) -> Any:
    ctx = {"catalogue": LocationCatalogue.load(), "today": TODAY}
    return model.model_validate(values, context=ctx)


def inspiration(**kw: Any) -> FlightInspirationParams:
    return params(FlightInspirationParams, **({"origin": "London"} | kw))  # type: ignore[no-any-return]


def dates(**kw: Any) -> CheapestDatesParams:
    values = {"origin": "Paris", "destination": "Rome", "departure_date": str(TODAY + dt.timedelta(days=40))}
    return params(CheapestDatesParams, **(values | kw))  # type: ignore[no-any-return]


async def fares(tp: TravelpayoutsConnector, tool: str, p: ToolParams, limit: int) -> list[FarePoint]:
    out = await tp.call(tool, p, limit)
    assert all(isinstance(r, FarePoint) for r in out)
    return [r for r in out if isinstance(r, FarePoint)]


def assert_cached_and_aged(results: list[Any]) -> None:
    now = dt.datetime.now(dt.UTC)
    for r in results:
        assert r.indicative and r.sandbox and r.provider == "travelpayouts"
        # fetched_at is the price's found_at: hours old, within the Data API's 48-hour window.
        assert now - dt.timedelta(hours=49) <= r.fetched_at <= now - dt.timedelta(minutes=1)
        assert "indicative" in r.render()


async def test_inspiration_is_cheapest_per_destination_within_budget(
    connector: Callable[..., TravelpayoutsConnector],
) -> None:
    everything = await fares(connector(), "flight_inspiration", inspiration(), 200)
    assert len(everything) > 20
    assert all(isinstance(r, Inspiration) and r.origin == "LON" for r in everything)
    assert len({r.destination for r in everything}) == len(everything)  # one fare a destination
    assert [r.price for r in everything] == sorted(r.price for r in everything)
    assert all(r.currency == "EUR" and r.return_date and r.return_date > r.departure_date for r in everything)
    assert_cached_and_aged(everything)

    budget = int(everything[len(everything) // 2].price)
    cheap = await fares(connector(), "flight_inspiration", inspiration(max_price=budget), 5)
    assert 0 < len(cheap) <= 5 and all(r.price <= budget for r in cheap)

    one_way = await fares(connector(), "flight_inspiration", inspiration(one_way=True, nonstop=True), 10)
    assert one_way and all(r.return_date is None for r in one_way)


async def test_inspiration_from_a_month_and_a_trip_length(
    connector: Callable[..., TravelpayoutsConnector],
) -> None:
    start = TODAY + dt.timedelta(days=60)
    found = await fares(
        connector(), "flight_inspiration", inspiration(departure_date=str(start), duration_days=7), 50
    )
    assert found
    for r in found:
        assert r.departure_date >= start and r.departure_date.month == start.month
        assert r.return_date == r.departure_date + dt.timedelta(days=7)


async def test_cheapest_dates_one_fare_a_day(connector: Callable[..., TravelpayoutsConnector]) -> None:
    start = TODAY + dt.timedelta(days=40)
    found = await fares(connector(), "cheapest_dates", dates(duration_days=14), 40)
    assert found and all(isinstance(r, CheapestDate) for r in found)
    assert all((r.origin, r.destination) == ("PAR", "ROM") for r in found)
    assert len({r.departure_date for r in found}) == len(found)
    assert all(r.departure_date >= start and r.departure_date.month == start.month for r in found)
    assert all(r.return_date == r.departure_date + dt.timedelta(days=14) for r in found)
    assert [r.price for r in found] == sorted(r.price for r in found)
    assert_cached_and_aged(found)

    one_way = await fares(connector(currency="USD"), "cheapest_dates", dates(one_way=True), 3)
    assert len(one_way) == 3 and all(r.return_date is None and r.currency == "USD" for r in one_way)


async def test_identities_are_stable_and_priceless(connector: Callable[..., TravelpayoutsConnector]) -> None:
    """An identity names the route and the dates, never the price: the same call gives the same ones.

    Every fare is asked for (the Data API's largest page), so no cut by price decides which come back.
    Across currencies the dates of cheapest_dates (one fare a day) are the same; inspiration keeps the
    cheapest fare of each destination, which rounding in another currency may move to another day, so
    there only the destinations are compared.
    """
    for tool, p in (("flight_inspiration", inspiration()), ("cheapest_dates", dates())):
        first = await fares(connector(), tool, p, 1000)
        again = await fares(connector(), tool, p, 1000)
        other = await fares(connector(currency="GBP"), tool, p, 1000)
        ids = [r.identity for r in first]
        assert len(set(ids)) == len(ids)
        assert ids == [r.identity for r in again]
        if tool == "cheapest_dates":
            assert sorted(ids) == sorted(r.identity for r in other)
        else:
            assert sorted(r.destination for r in first) == sorted(r.destination for r in other)
        for r in first:
            assert (
                r.identity == f"{r.kind}:{r.origin}-{r.destination}:{r.departure_date}:{r.return_date or '-'}"
            )


@pytest.mark.parametrize("faults", [{"rewrite": {"value": "NaN"}}, {"rewrite": {"depart_date": "soon"}}])
async def test_unreadable_fares_are_bad_responses(
    sandbox: Any, connector: Callable[..., TravelpayoutsConnector], faults: dict[str, Any]
) -> None:
    for key, value in faults.items():
        setattr(sandbox.app[FAULTS], key, value)
    with pytest.raises(ProviderResponseError):
        await fares(connector(), "cheapest_dates", dates(), 5)


async def test_an_error_inside_a_200_is_a_refusal(
    aiohttp_server: Any, connector: Callable[..., TravelpayoutsConnector]
) -> None:
    """The Data API's envelope says success: false with a 200, as a misconfigured gateway does too."""

    async def refused(request: web.Request) -> web.Response:
        return web.json_response({"success": False, "data": None, "error": "origin is not supported"})

    app = web.Application()
    app.router.add_get("/refused/v2/prices/month-matrix", refused)
    server = await aiohttp_server(app)
    with pytest.raises(ProviderRejectedError) as caught:
        await connector(base_url=str(server.make_url("/refused"))).call("cheapest_dates", dates(), 5)
    assert (
        "origin is not supported" in caught.value.detail
        and "origin is not supported" not in caught.value.message
    )


async def test_a_month_too_far_ahead_is_refused_with_the_providers_detail(
    connector: Callable[..., TravelpayoutsConnector],
) -> None:
    far = CheapestDatesParams.model_construct(
        origin="PAR",
        destination="ROM",
        departure_date=TODAY + dt.timedelta(days=400),
        one_way=True,
        duration_days=None,
        nonstop=False,
    )
    with pytest.raises(ProviderRejectedError) as caught:
        await fares(connector(), "cheapest_dates", far, 5)
    assert "too far ahead" in caught.value.detail and "too far ahead" not in caught.value.message
