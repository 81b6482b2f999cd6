"""OpenTripMap (activity_search) through the real sandbox over HTTP: what is OpenTripMap's alone.

Places around a point with the first few cards, a category as OpenTripMap's kinds, a spent daily
allowance, broken cards, an unsupported language. The failures every provider shares are tests/test_provider_contract.py.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import AsyncIterator, Callable
from typing import Any, get_args

import aiohttp
import pytest

from connectors.http import RetryPolicy
from connectors.models import Activity
from connectors.opentripmap import CATEGORY_KINDS, OpenTripMapConnector, describe_error
from connectors.params import ActivityCategory, ActivitySearchParams
from connectors.places import LocationCatalogue
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
    with pytest.raises(ProviderRateLimitedError) as caught:
        await c.call("activity_search", where(), 5)
    assert "limit" in caught.value.detail and "limit" not in caught.value.message
    assert c.attempts == 1
    assert describe_error(429, {"error": "Daily limit reached"}).quota


async def test_a_broken_card_costs_its_text_and_link_only(
    sandbox: Any, connector: Callable[..., OpenTripMapConnector]
) -> None:
    sandbox.app[FAULTS].rewrite = {"wikipedia_extracts": 42, "url": "javascript:alert(1)", "otm": None}
    found = await activities(connector(), where())
    assert found and all(a.description is None and a.booking_link is None for a in found)


async def test_an_unsupported_language_is_refused(connector: Callable[..., OpenTripMapConnector]) -> None:
    with pytest.raises(ProviderRejectedError) as caught:
        await connector(lang="xx").call("activity_search", where(), 5)
    assert (
        "Unsupported language 'xx'" in caught.value.detail
        and "Unsupported language 'xx'" not in caught.value.message
    )


def test_every_category_is_a_branch_of_opentripmaps_tree() -> None:
    assert set(CATEGORY_KINDS) == set(get_args(ActivityCategory))
    assert all(re.fullmatch(r"[a-z_]+(,[a-z_]+)*", kinds) for kinds in CATEGORY_KINDS.values())


async def test_a_category_asks_for_its_kinds(
    sandbox: Any, connector: Callable[..., OpenTripMapConnector], session: aiohttp.ClientSession
) -> None:
    c = connector()
    everything = await activities(c, where(), 50)
    churches = await activities(c, where(category="religious"), 50)
    assert churches and {a.activity_id for a in churches} < {a.activity_id for a in everything}
    assert all("Cathedral" in a.name or "worship" in a.name for a in churches)
    assert churches[0].description and churches[0].booking_link  # the card, as for any place
    # Amusements and sport are no branch of interesting_places: asked for by name, they are found.
    assert await activities(c, where(category="sports"), 50)
    assert not any("stadium" in a.name for a in everything)
    # What the sandbox serves: each place's branch, and only the places under the kinds asked for.
    url = sandbox.make_url("/0.1/en/places/radius")
    query = {"radius": "5000", "lon": "2.17", "lat": "41.39", "apikey": API_KEY, "kinds": "religion,museums"}
    async with session.get(url, params=query) as resp:
        features = (await resp.json())["features"]
    kinds = [set(f["properties"]["kinds"].split(",")) for f in features]
    assert kinds and all(k & {"religion", "museums"} and "interesting_places" in k for k in kinds)
    async with session.get(url, params=query | {"kinds": "Museums!"}) as resp:
        assert resp.status == 400 and (await resp.json())["error"] == "Unknown category name: Museums!"


async def test_an_xid_not_shaped_like_one_never_goes_into_a_cards_url(
    aiohttp_server: Any, session: aiohttp.ClientSession
) -> None:
    """The xid OpenTripMap sent is a path segment of the card's URL: "../" or a query in it is not asked."""
    from aiohttp import web

    asked: list[str] = []

    def feature(xid: str, name: str) -> dict[str, Any]:
        props = {"xid": xid, "name": name, "rate": 3, "dist": 10.0, "kinds": "museums"}
        return {
            "type": "Feature",
            "properties": props,
            "geometry": {"type": "Point", "coordinates": [2.17, 41.39]},
        }

    async def radius(request: web.Request) -> web.Response:
        hostile = ["../../admin", "N1?apikey=stolen", "Q 1", "N7"]
        return web.json_response({"type": "FeatureCollection", "features": [feature(x, x) for x in hostile]})

    async def card(request: web.Request) -> web.Response:
        asked.append(request.match_info["xid"])
        return web.json_response({"xid": request.match_info["xid"], "info": {"descr": "A museum."}})

    app = web.Application()
    app.router.add_get("/0.1/{lang}/places/radius", radius)
    app.router.add_get("/0.1/{lang}/places/xid/{xid}", card)
    server = await aiohttp_server(app)
    c = OpenTripMapConnector(session, str(server.make_url("")), API_KEY, policy=POLICY, sandbox=True, cards=4)
    found = await activities(c, where())
    assert asked == ["N7"] and len(found) == 4  # every place kept; only the well-formed id's card asked for
    assert [a.description for a in found if a.activity_id == "N7"] == ["A museum."]
