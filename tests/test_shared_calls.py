"""Identical provider calls share one, in flight and for a short while after the answer: a burst of the
same search from many users pays the provider once, and each user's results are still stored as
theirs alone. The real app with the sandbox over real HTTP; provider calls counted as the provider's
HTTP client makes them. The sharing window's own rules (terms, expiry) on SharedCalls with a clock the
test holds."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient

from connectors.base import Terms
from connectors.errors import ProviderUnavailableError
from connectors.params import LocationSearchParams
from connectors.tools import ToolCall
from rag.live.share import SharedCalls
from rag.store.base import Filter
from rag.web import keys
from tests.conftest import env_settings, serve

pytestmark = pytest.mark.asyncio(loop_scope="module")


def ahead(days: int) -> str:
    return (dt.datetime.now(dt.UTC).date() + dt.timedelta(days=days)).isoformat()


HOTEL = {"city": "Lisbon", "check_in": ahead(20), "nights": 2}


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def app(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[TestClient]:
    """The service at its defaults (shared answers kept 30 s), with the sandbox and nothing seeded."""
    tmp = tmp_path_factory.mktemp("shared-calls")
    settings = env_settings(
        tmp,
        WAYFARER_INDEX__SEED_ON_START="false",
        WAYFARER_SCHEDULER__ENABLED="false",
        WAYFARER_CONNECTORS__MIN_INTERVAL_MS="0",
    )
    assert settings.live.share_seconds == 30
    async with serve(settings) as client:
        yield client


async def hotels(app: TestClient, user: str) -> dict[str, object]:
    resp = await app.post("/v1/tools/hotel_search", params={"user_id": user}, json=HOTEL)
    body = await resp.json()
    assert resp.status == 200, body
    return dict(body)


async def test_fifty_users_searching_the_same_hotels_make_one_provider_call(app: TestClient) -> None:
    """Measured before: 50 identical hotel searches from 50 users made 26 provider calls, as sharing
    covered only calls still in flight."""
    provider = app.app[keys.TOOLS].tools.provider("hotel_search")
    service = app.app[keys.TOOL_SERVICE]
    attempts, calls = provider.attempts, service.provider_calls  # type: ignore[attr-defined]
    users = [f"guest-{i}" for i in range(50)]
    answers = await asyncio.gather(*(hotels(app, user) for user in users))
    # One hotel search is two requests to the provider: the hotels of the city, then their offers.
    assert provider.attempts - attempts == 2  # type: ignore[attr-defined]
    assert service.provider_calls - calls == 1
    ids = [r["id"] for r in answers[0]["results"]]  # type: ignore[attr-defined]
    assert ids and all([r["id"] for r in a["results"]] == ids for a in answers)  # type: ignore[attr-defined]
    assert all(a["from_index"] is False and a["ingesting"] == 5 for a in answers)

    # Within the window, the same search from users who never made it pays nothing more.
    again = await asyncio.gather(*(hotels(app, f"latecomer-{i}") for i in range(10)))
    assert provider.attempts - attempts == 2 and service.provider_calls - calls == 1  # type: ignore[attr-defined]
    assert all([r["id"] for r in a["results"]] == ids for a in again)  # type: ignore[attr-defined]

    # Each caller's results are stored as its own, as before sharing: 5 for each, none for others.
    await app.app[keys.TASKS].drain()
    store = app.app[keys.STORE]
    for user in ("guest-0", "guest-49", "latecomer-3"):
        assert await store.count(Filter(equals={"source": "live", "user_scope": user})) == 5, user
    assert await store.count(Filter(equals={"source": "live", "user_scope": "nobody"})) == 0
    recall = await app.post("/v1/recall", json={"user_id": "nobody", "message": "what hotels did you find?"})
    assert (await recall.json())["results"] == []


async def test_another_search_is_not_shared(app: TestClient) -> None:
    provider = app.app[keys.TOOLS].tools.provider("hotel_search")
    attempts = provider.attempts  # type: ignore[attr-defined]
    body = {**HOTEL, "nights": 3}
    resp = await app.post("/v1/tools/hotel_search", params={"user_id": "other-stay"}, json=body)
    assert resp.status == 200
    assert provider.attempts - attempts == 2  # type: ignore[attr-defined]


# --- the window's rules -------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Provider:
    """Counts its calls; answers with ``terms``, or fails while ``failing``."""

    def __init__(self, terms: Terms | None = None) -> None:
        self.calls = 0
        self.terms = terms or Terms()
        self.failing = False

    async def __call__(self) -> ToolCall:
        self.calls += 1
        await asyncio.sleep(0)
        if self.failing:
            raise ProviderUnavailableError("down")
        return ToolCall(
            "location_search", "p", False, LocationSearchParams(keyword="Lisbon"), [], 1.0, self.terms
        )


async def test_an_answer_is_shared_for_its_window_and_then_fetched_again() -> None:
    clock, provider = Clock(), Provider()
    shared = SharedCalls(30, clock=clock)
    first, joined = await shared.call("k", provider)
    assert not joined and provider.calls == 1
    clock.now += 29.9
    again, joined = await shared.call("k", provider)
    assert joined and again is first and provider.calls == 1
    await shared.call("another", provider)
    assert provider.calls == 2
    clock.now += 0.1
    _, joined = await shared.call("k", provider)
    assert not joined and provider.calls == 3


async def test_the_provider_s_terms_bound_the_window() -> None:
    clock = Clock()
    short, forbidden = Provider(Terms(max_age=5)), Provider(Terms(store=False))
    shared = SharedCalls(30, clock=clock)
    await shared.call("short", short)
    clock.now += 4.9
    await shared.call("short", short)
    assert short.calls == 1
    clock.now += 0.1
    await shared.call("short", short)
    assert short.calls == 2
    # Terms that forbid keeping results: shared only while in flight.
    together = await asyncio.gather(*(shared.call("forbidden", forbidden) for _ in range(5)))
    assert forbidden.calls == 1 and sum(joined for _, joined in together) == 4
    await shared.call("forbidden", forbidden)
    assert forbidden.calls == 2


async def test_a_failure_is_shared_in_flight_and_never_kept() -> None:
    provider = Provider()
    provider.failing = True
    shared = SharedCalls(30, clock=Clock())
    outcomes = await asyncio.gather(*(shared.call("k", provider) for _ in range(5)), return_exceptions=True)
    assert provider.calls == 1 and all(isinstance(o, ProviderUnavailableError) for o in outcomes)
    provider.failing = False
    _, joined = await shared.call("k", provider)
    assert not joined and provider.calls == 2


async def test_the_oldest_answers_go_first_past_the_most_kept() -> None:
    provider = Provider()
    shared = SharedCalls(30, clock=Clock(), max_answers=3)
    for key in ("a", "b", "c", "d"):
        await shared.call(key, provider)
    await shared.call("d", provider)
    await shared.call("b", provider)
    assert provider.calls == 4
    await shared.call("a", provider)  # dropped for "d"
    assert provider.calls == 5
