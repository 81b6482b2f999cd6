"""The real app under concurrent chat: many users at once over REST and WebSocket, the rate limit on.

Every message is counted by the rate limiter (a KV ``incr``), read and written in the session store and
often ingested as tool results, all on the one SQLite KV connection: before the KV serialised its
operations, a fifth of these messages failed with ``kv_unavailable``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any

import pytest
from aiohttp import web

from rag.web.app import create_app

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

CITIES = ["Lisbon", "Paris", "Tokyo"]
ORIGINS = ["London", "Madrid", "New York"]


def conversation(user: int) -> list[str]:
    city, origin = CITIES[user % len(CITIES)], ORIGINS[user % len(ORIGINS)]
    day = (dt.date.today() + dt.timedelta(days=20 + user % 30)).isoformat()
    return [
        f"What is the best time of year to visit {city}? (from user {user})",
        f"Find flights from {origin} to {city} on {day}",
        "and a hotel there for 2 nights",
        "what hotels did you find?",
        f"How do I get around {city}?",
    ]


@pytest.fixture
async def loaded_client(aiohttp_client, make_settings, small_seed):  # type: ignore[no-untyped-def]
    settings = make_settings(
        WAYFARER_INDEX__SEED_DIR=str(small_seed),
        # The default per-user limit (30 a minute) stays on: every message is counted.
        WAYFARER_CONNECTORS__MIN_INTERVAL_MS="0",  # the client's provider pacing would only slow the test
        WAYFARER_CONNECTORS__RATE_LIMIT_PER_SECOND="100000",
        # Admission stays on (8 at once) but every message may queue for its turn: what is tested here
        # is the store under concurrency, not refusals for load (tests/test_saturation.py).
        WAYFARER_LIMITS__ADMISSION_WAIT_SECONDS="200",
    )
    assert settings.server.chat_rate_limit > len(conversation(0))
    app: web.Application = create_app(settings)
    return await aiohttp_client(app)


async def rest_user(client: Any, user: str, messages: list[str]) -> list[str]:
    failures = []
    for text in messages:
        resp = await client.post("/v1/chat", json={"user_id": user, "message": text})
        body = await resp.json()
        if resp.status != 200 or not body.get("complete"):
            failures.append(f"{user} {text!r}: {resp.status} {body}")
    return failures


async def ws_user(client: Any, user: str, messages: list[str]) -> list[str]:
    failures = []
    async with client.ws_connect(f"/v1/ws?user_id={user}") as ws:
        for text in messages:
            await ws.send_json({"type": "message", "text": text})
            while True:
                frame = await ws.receive_json(timeout=120)
                if frame.get("type") == "error":
                    failures.append(f"{user} {text!r}: {frame}")
                    break
                if frame.get("complete"):
                    break
    return failures


async def test_concurrent_chat_over_rest_and_websocket_never_fails_and_keeps_each_history(
    loaded_client,
) -> None:  # type: ignore[no-untyped-def]
    client = loaded_client
    rest = {f"rest-{u}": conversation(u) for u in range(20)}  # 100 messages
    ws = {f"ws-{u}": conversation(u) for u in range(20, 30)}  # 50 messages
    results = await asyncio.gather(
        *(rest_user(client, user, msgs) for user, msgs in rest.items()),
        *(ws_user(client, user, msgs) for user, msgs in ws.items()),
    )
    assert [f for r in results for f in r] == []
    for user, sent in {**rest, **ws}.items():
        resp = await client.get(f"/v1/sessions/{user}")
        history = (await resp.json())["history"]
        assert [t["text"] for t in history if t["role"] == "user"] == sent, user
        assert [t["role"] for t in history] == ["user", "assistant"] * len(sent), user
    metrics = await (await client.get("/metrics")).text()
    assert "kv_unavailable" not in metrics


async def test_one_user_s_messages_at_once_all_stay_in_the_history(loaded_client) -> None:  # type: ignore[no-untyped-def]
    """Two tabs (or two replicas) answering one user at the same time: no turn may overwrite another."""
    client = loaded_client
    sent = [f"How do I get around Lisbon? (tab {i})" for i in range(8)]  # 16 turns: the endpoint shows 20
    failures = await asyncio.gather(*(rest_user(client, "two-tabs", [text]) for text in sent))
    assert [f for r in failures for f in r] == []
    history = (await (await client.get("/v1/sessions/two-tabs")).json())["history"]
    assert sorted(t["text"] for t in history if t["role"] == "user") == sorted(sent)
    assert sum(t["role"] == "assistant" for t in history) == len(sent)
