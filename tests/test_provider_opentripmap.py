"""OpenTripMap (activity_search) through the real sandbox over HTTP: what is OpenTripMap's alone.

Places around a point with the first few cards, a spent daily allowance, broken cards, an unsupported
language. The failures every provider shares are tests/test_provider_contract.py.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator, Callable
from typing import Any

import aiohttp
import pytest

from connectors.http import RetryPolicy
from connectors.locations import LocationCatalogue
from connectors.models import Activity
from connectors.opentripmap import OpenTripMapConnector, describe_error
from connectors.params import ActivitySearchParams
from connectors.sandbox.app import create_sandbox_app
from connectors.sandbox.keys import FAULTS
from connectors.sandbox.opentripmap_api import API_KEY
from rag.errors import (
    ProviderRateLimitedError,
    ProviderRejectedError,
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


async def test_a_spent_daily_allowance_is_not_retried(
    sandbox: Any, connector: Callable[..., OpenTripMapConnector]
) -> None:
    sandbox.app[FAULTS].quota_exceeded = True
    c = connector()
    with pytest.raises(ProviderRateLimitedError, match="limit"):
        await c.call("activity_search", where(), 5)
    assert c.attempts == 1
    assert describe_error(429, {"error": "Daily limit reached"}).quota


async def test_a_broken_card_costs_its_text_and_link_only(
    sandbox: Any, connector: Callable[..., OpenTripMapConnector]
) -> None:
    sandbox.app[FAULTS].rewrite = {"wikipedia_extracts": 42, "url": "javascript:alert(1)", "otm": None}
    found = await activities(connector(), where())
    assert found and all(a.description is None and a.booking_link is None for a in found)


async def test_an_unsupported_language_is_refused(connector: Callable[..., OpenTripMapConnector]) -> None:
    with pytest.raises(ProviderRejectedError, match="Unsupported language 'xx'"):
        await connector(lang="xx").call("activity_search", where(), 5)
