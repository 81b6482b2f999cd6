"""Rate limits as a client meets them: a sliding window (no burst of twice the limit across a minute's
edge), a bound per client address whatever user ids it sends, and X-Forwarded-For only from trusted
proxies. The real app on a real port with real SQLite; the two-replica case on real Redis. The limits
count by a clock the test holds, so nothing here depends on when it runs or how fast."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient, TestServer

from rag.errors import RateLimitedError
from rag.kv.redis import RedisKV
from rag.kv.sqlite import SQLiteKV
from rag.limits.address import client_address
from rag.limits.callers import CallerLimits, Rate
from rag.web.app import caller_limits, create_app
from tests.conftest import env_settings, redis_url

pytestmark = pytest.mark.asyncio(loop_scope="module")

ROUTE, TOOLS, CHAT, MULTIPLE = 5, 3, 2, 2  # per user (or anonymous address) per minute; per address x2
EDGE = 1_800_000_000.0  # a clock minute's edge (a multiple of 60 s)


class Clock:
    """The wall clock the app's rate limits read: moved by the tests, never by time passing."""

    def __init__(self) -> None:
        self.now = EDGE

    def __call__(self) -> float:
        return self.now


CLOCK = Clock()


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def app(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[TestClient]:
    """One app for the module, behind a trusted proxy at 127.0.0.1. Each test counts against client
    addresses and user ids of its own."""
    tmp = tmp_path_factory.mktemp("caller-limits")
    settings = env_settings(
        tmp,
        WAYFARER_INDEX__SEED_ON_START="false",
        WAYFARER_SCHEDULER__ENABLED="false",
        WAYFARER_SERVER__ROUTE_RATE_LIMIT=str(ROUTE),
        WAYFARER_SERVER__TOOL_RATE_LIMIT=str(TOOLS),
        WAYFARER_SERVER__CHAT_RATE_LIMIT=str(CHAT),
        WAYFARER_SERVER__ADDRESS_LIMIT_MULTIPLE=str(MULTIPLE),
        WAYFARER_SERVER__TRUSTED_PROXIES='["127.0.0.1"]',
    )
    assert settings.chat_secret is None
    async with TestClient(TestServer(create_app(settings, clock=CLOCK))) as client:
        yield client


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def untrusted(app: TestClient) -> AsyncIterator[aiohttp.ClientSession]:
    """A client whose connections come from 127.0.0.2: a peer that is no trusted proxy."""
    connector = aiohttp.TCPConnector(local_addr=("127.0.0.2", 0))
    async with aiohttp.ClientSession(connector=connector) as session:
        yield session


def users(prefix: str, n: int) -> list[str]:
    """``n`` new user ids: what a client does when nothing checks them."""
    return [f"{prefix}-{uuid.uuid4().hex[:8]}" for _ in range(n)]


async def route(client: TestClient, user: str | None, forwarded: str | None = None) -> aiohttp.ClientResponse:
    body: dict[str, Any] = {"message": "hotels in Lisbon"}
    if user is not None:
        body["user_id"] = user
    headers = {"X-Forwarded-For": forwarded} if forwarded else {}
    return await client.post("/v1/route", json=body, headers=headers)


async def statuses(responses: Iterable[aiohttp.ClientResponse]) -> list[int]:
    out = []
    for resp in responses:
        body = await resp.json()
        if resp.status == 429:
            assert body["error"]["code"] == "rate_limited", body
            assert int(resp.headers["Retry-After"]) >= 1, resp.headers
        else:
            assert resp.status == 200, body
        out.append(resp.status)
    return out


async def test_a_burst_across_a_minute_s_edge_gets_the_limit_not_twice_it(app: TestClient) -> None:
    """Measured before: 120 route answers in 3.8 s across a minute's edge at a limit of 60."""
    CLOCK.now = EDGE - 0.1
    before = await statuses(await asyncio.gather(*(route(app, "edge", "198.51.100.1") for _ in range(8))))
    CLOCK.now = EDGE + 0.1
    after = [await route(app, "edge", "198.51.100.1") for _ in range(8)]
    assert before.count(200) == ROUTE and (await statuses(after)).count(200) == 0
    # The first five leave the window 60 s after they came, and not before: that is how long to wait.
    assert after[0].headers["Retry-After"] == "60"
    err = (await after[0].json())["error"]
    assert f"at most {ROUTE} route requests per 60 s" in err["message"], err
    CLOCK.now = EDGE - 0.1 + 59.9
    assert await statuses([await route(app, "edge", "198.51.100.1")]) == [429]
    CLOCK.now = EDGE - 0.1 + 60
    again = await statuses([await route(app, "edge", "198.51.100.1") for _ in range(8)])
    assert again.count(200) == ROUTE


async def test_new_user_ids_from_one_address_are_bounded(app: TestClient) -> None:
    """Measured before: a new user_id per request passed 300 of 300."""
    CLOCK.now = EDGE + 1000
    answers = [await route(app, user, "198.51.100.2") for user in users("rotating", 4 * ROUTE)]
    assert (await statuses(answers)).count(200) == ROUTE * MULTIPLE
    refused = (await answers[-1].json())["error"]["message"]
    assert f"at most {ROUTE * MULTIPLE} route requests from one address per 60 s" in refused
    # Anonymous calls count against the same address; another address has a count of its own.
    assert await statuses([await route(app, None, "198.51.100.2")]) == [429]
    assert await statuses([await route(app, users("elsewhere", 1)[0], "198.51.100.3")]) == [200]
    # Tool calls the same way, at their own limit.
    calls = [
        await app.post(
            "/v1/tools/location_search",
            params={"user_id": user},
            json={"keyword": "Lisbon"},
            headers={"X-Forwarded-For": "198.51.100.4"},
        )
        for user in users("tools", 4 * TOOLS)
    ]
    assert (await statuses(calls)).count(200) == TOOLS * MULTIPLE
    # Chat messages too, over REST and over the WebSocket, from the same address.
    headers = {"X-Forwarded-For": "198.51.100.5"}
    chats = [
        await app.post("/v1/chat", json={"user_id": user, "message": "hello"}, headers=headers)
        for user in users("chat", CHAT * MULTIPLE + 1)
    ]
    assert (await statuses(chats)).count(200) == CHAT * MULTIPLE
    async with app.ws_connect(f"/v1/ws?user_id={users('ws', 1)[0]}", headers=headers) as ws:
        await ws.send_json({"type": "message", "text": "hello"})
        frame = await ws.receive_json(timeout=30)
        assert frame["error"]["code"] == "rate_limited", frame


async def test_one_user_over_its_limit_takes_nothing_from_the_address(app: TestClient) -> None:
    CLOCK.now = EDGE + 2000
    one = await statuses([await route(app, "greedy", "198.51.100.6") for _ in range(3 * ROUTE)])
    assert one.count(200) == ROUTE  # refused by its own limit: not counted against the address
    others = await statuses(
        [await route(app, user, "198.51.100.6") for user in users("neighbour", ROUTE * MULTIPLE)]
    )
    assert others.count(200) == ROUTE * MULTIPLE - ROUTE


async def test_forwarded_addresses_count_only_from_a_trusted_proxy(
    app: TestClient, untrusted: aiohttp.ClientSession
) -> None:
    CLOCK.now = EDGE + 3000
    url = str(app.make_url("/v1/route"))

    async def direct(user: str, forwarded: str) -> aiohttp.ClientResponse:
        body = {"message": "hotels in Lisbon", "user_id": user}
        return await untrusted.post(url, json=body, headers={"X-Forwarded-For": forwarded})

    # From a peer that is no proxy of ours, X-Forwarded-For is the client's own claim: ignored.
    claimed = [await direct(user, f"203.0.113.{i}") for i, user in enumerate(users("spoof", 15))]
    assert (await statuses(claimed)).count(200) == ROUTE * MULTIPLE
    # From the trusted proxy, each forwarded-for address is a client of its own.
    proxied = [await route(app, user, f"203.0.113.{i}") for i, user in enumerate(users("proxied", 15))]
    assert (await statuses(proxied)).count(200) == 15
    # Read from the right: addresses a client put before the proxy's own entry gain it nothing, and a
    # second trusted proxy in the chain is looked past.
    chained = [
        await route(app, user, f"192.0.2.{i}, 198.51.100.7, 127.0.0.1")
        for i, user in enumerate(users("chained", 15))
    ]
    assert (await statuses(chained)).count(200) == ROUTE * MULTIPLE


@pytest.mark.parametrize(
    ("peer", "forwarded", "counted"),
    [
        ("198.51.100.1", ["203.0.113.5"], "198.51.100.1"),  # not a trusted peer: its header is ignored
        ("10.0.0.2", ["203.0.113.5"], "203.0.113.5"),
        ("10.0.0.2", ["203.0.113.5, 10.0.0.9"], "203.0.113.5"),  # past another trusted proxy
        ("10.0.0.2", ["192.0.2.1", "203.0.113.5"], "203.0.113.5"),  # two header lines: one list
        ("10.0.0.2", ["203.0.113.5:4711"], "203.0.113.5"),
        ("10.0.0.2", ["[2001:db8:1:2::7]:443"], "2001:db8:1:2::/64"),
        ("10.0.0.2", ["not-an-address, 203.0.113.5"], "203.0.113.5"),
        ("10.0.0.2", ["203.0.113.5, garbage"], "10.0.0.2"),  # the proxy that passed it on
        ("10.0.0.2", [], "10.0.0.2"),
        ("10.0.0.2", ["10.0.0.7"], "10.0.0.7"),  # only proxies: the farthest
        ("2001:db8:aa:bb:1:2:3:4", [], "2001:db8:aa:bb::/64"),  # an IPv6 client counts by its /64
        ("::ffff:198.51.100.8", [], "198.51.100.8"),
        (None, ["203.0.113.5"], "unknown"),
    ],
)
def test_the_address_a_limit_counts(peer: str | None, forwarded: list[str], counted: str) -> None:
    import ipaddress

    assert client_address(peer, forwarded, [ipaddress.ip_network("10.0.0.0/8")]) == counted


async def test_with_a_chat_secret_many_users_may_share_an_address(tmp_path: Path) -> None:
    """A chat secret proves each user id: an office behind one address is many users, not one client."""
    sqlite = SQLiteKV(tmp_path / "kv.sqlite3")
    await sqlite.open()
    refused: list[int] = []
    for secret in ({}, {"WAYFARER_CHAT_SECRET": "s"}):
        settings = env_settings(
            tmp_path,
            WAYFARER_SERVER__ROUTE_RATE_LIMIT=str(ROUTE),
            WAYFARER_SERVER__ADDRESS_LIMIT_MULTIPLE=str(MULTIPLE),
            **secret,
        )
        limits = caller_limits(settings, sqlite, Clock(), lambda: refused.append(1))
        taken = 0
        for user in users("office" if secret else "open", 30):
            try:
                await limits.check("route", user, "192.0.2.50" if secret else "192.0.2.51")
                taken += 1
            except RateLimitedError:
                pass
        assert taken == (30 if secret else ROUTE * MULTIPLE)
    await sqlite.close()
    assert len(refused) == 30 - ROUTE * MULTIPLE  # each refusal counted once (the metric)


async def test_replicas_sharing_redis_share_the_window() -> None:
    """Two replicas (two connections to one Redis): a burst across a minute's edge, split between them,
    with a new user id each time, still gets the address's limit in any window, no more."""
    url = redis_url()
    if not url:
        pytest.skip("no Redis: set WAYFARER_TEST_REDIS_URL")
    namespace = f"test-{uuid.uuid4().hex}"
    replicas = [RedisKV(url, namespace), RedisKV(url, namespace)]
    clock = Clock()
    for kv in replicas:
        await kv.open()
    try:
        limits = [
            CallerLimits(
                kv, {"route": Rate(ROUTE, 60, "route requests")}, address_multiple=MULTIPLE, clock=clock
            )
            for kv in replicas
        ]

        async def burst(n: int) -> int:
            async def one(i: int, user: str) -> bool:
                try:
                    await limits[i % 2].check("route", user, "198.51.100.20")
                except RateLimitedError:
                    return False
                return True

            return sum(await asyncio.gather(*(one(i, u) for i, u in enumerate(users("replica", n)))))

        clock.now = EDGE - 0.1
        assert await burst(3 * ROUTE * MULTIPLE) == ROUTE * MULTIPLE
        clock.now = EDGE + 0.1
        assert await burst(3 * ROUTE * MULTIPLE) == 0
        clock.now = EDGE + 59.9
        assert await burst(3 * ROUTE * MULTIPLE) == ROUTE * MULTIPLE
    finally:
        for kv in replicas:
            await kv.close()
