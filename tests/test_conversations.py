"""A user's several conversations: each with its own trip and history, listed (titled by its first
message, the one written last first), reopened and deleted; clients that name none keep the main one.

Through the real app (one for the module; each test has its own users) over HTTP and the WebSocket, and
the store's own index on SQLite and on Redis.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from rag.chat.sessions import MAIN, MAX_CONVERSATIONS, SessionStore, conversation_key, title
from rag.kv.base import KVStore
from rag.kv.redis import RedisKV
from rag.kv.sqlite import SQLiteKV
from tests.conftest import redis_url

pytestmark = pytest.mark.asyncio(loop_scope="module")


def new_user() -> str:
    return "conv-" + uuid.uuid4().hex[:8]


async def chat(client: Any, user: str, message: str, conversation: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"user_id": user, "message": message}
    if conversation is not None:
        body["conversation_id"] = conversation
    resp = await client.post("/v1/chat", json=body)
    assert resp.status == 200, await resp.text()
    return await resp.json()  # type: ignore[no-any-return]


async def session(client: Any, user: str, conversation: str | None = None) -> dict[str, Any]:
    query = f"?conversation_id={conversation}" if conversation is not None else ""
    resp = await client.get(f"/v1/sessions/{user}{query}")
    assert resp.status == 200, await resp.text()
    return await resp.json()  # type: ignore[no-any-return]


async def listed(client: Any, user: str) -> list[dict[str, Any]]:
    resp = await client.get(f"/v1/sessions/{user}/conversations")
    assert resp.status == 200, await resp.text()
    body = await resp.json()
    assert body["user_id"] == user
    return body["conversations"]  # type: ignore[no-any-return]


def questions(view: dict[str, Any]) -> list[str]:
    return [t["text"] for t in view["history"] if t["role"] == "user"]


async def test_each_conversation_keeps_its_own_trip_and_history(shared_client) -> None:  # type: ignore[no-untyped-def]
    user = new_user()
    await chat(shared_client, user, "What's the weather in Lisbon?", "lisbon")
    await chat(shared_client, user, "What's the weather in Tokyo?", "tokyo")
    await chat(shared_client, user, "And tomorrow?", "lisbon")  # a follow-up in the first one

    lisbon, tokyo = await session(shared_client, user, "lisbon"), await session(shared_client, user, "tokyo")
    assert questions(lisbon) == ["What's the weather in Lisbon?", "And tomorrow?"]
    assert questions(tokyo) == ["What's the weather in Tokyo?"]
    assert lisbon["conversation_id"] == "lisbon" and tokyo["conversation_id"] == "tokyo"
    assert lisbon["trip"]["destination_name"] == "Lisbon", lisbon["trip"]
    assert tokyo["trip"]["destination_name"] == "Tokyo", tokyo["trip"]
    # The main conversation (what old clients see) has none of it.
    main = await session(shared_client, user)
    assert main["conversation_id"] == MAIN and main["history"] == [] and main["trip"] == {}

    # Listed with their first messages as titles, the one written last first.
    shown = await listed(shared_client, user)
    assert [(c["id"], c["title"]) for c in shown] == [
        ("lisbon", "What's the weather in Lisbon?"),
        ("tokyo", "What's the weather in Tokyo?"),
    ]
    assert all(c["started"] <= c["updated"] for c in shown)
    await chat(shared_client, user, "What about the day after?", "tokyo")
    assert [c["id"] for c in await listed(shared_client, user)] == ["tokyo", "lisbon"]

    # Clearing one trip leaves the other's.
    resp = await shared_client.delete(f"/v1/sessions/{user}/trip?conversation_id=tokyo")
    assert (await resp.json()) == {"forgotten": True}
    assert (await session(shared_client, user, "tokyo"))["trip"] == {}
    assert (await session(shared_client, user, "lisbon"))["trip"]["destination_name"] == "Lisbon"


async def test_deleting_a_conversation_forgets_it_and_only_it(shared_client) -> None:  # type: ignore[no-untyped-def]
    user = new_user()
    await chat(shared_client, user, "Weather in Porto?", "a")
    await chat(shared_client, user, "Weather in Madrid?", "b")
    resp = await shared_client.delete(f"/v1/sessions/{user}?conversation_id=a")
    assert resp.status == 200 and (await resp.json()) == {"forgotten": True}
    assert [c["id"] for c in await listed(shared_client, user)] == ["b"]
    gone = await session(shared_client, user, "a")
    assert gone["history"] == [] and gone["trip"] == {}
    assert questions(await session(shared_client, user, "b")) == ["Weather in Madrid?"]
    resp = await shared_client.delete(f"/v1/sessions/{user}?conversation_id=a")
    assert (await resp.json()) == {"forgotten": False}
    # Reused, the id starts a new conversation, titled by its new first message.
    await chat(shared_client, user, "Weather in Rome?", "a")
    assert [(c["id"], c["title"]) for c in await listed(shared_client, user)][0] == ("a", "Weather in Rome?")


async def test_clients_that_name_no_conversation_keep_the_main_one(shared_client) -> None:  # type: ignore[no-untyped-def]
    user = new_user()
    await chat(shared_client, user, "Weather in Lisbon?")
    await chat(shared_client, user, "And in Porto?", MAIN)  # naming it is the same conversation
    assert questions(await session(shared_client, user)) == ["Weather in Lisbon?", "And in Porto?"]
    assert (await session(shared_client, user, MAIN))["history"] == (await session(shared_client, user))[
        "history"
    ]
    assert [(c["id"], c["title"]) for c in await listed(shared_client, user)] == [
        (MAIN, "Weather in Lisbon?")
    ]
    # A main conversation from before the index: listed from its history.
    older = new_user()
    sessions = _sessions(shared_client)
    await sessions.append(older, "user", "Museums   in\nParis?")
    assert [(c["id"], c["title"]) for c in await listed(shared_client, older)] == [
        (MAIN, "Museums in Paris?")
    ]
    # DELETE without a conversation forgets the main one, as it always did.
    resp = await shared_client.delete(f"/v1/sessions/{user}")
    assert (await resp.json()) == {"forgotten": True}
    assert await listed(shared_client, user) == []


def _sessions(client: Any) -> SessionStore:
    from rag.web import keys

    return client.app[keys.CHAT].sessions  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    "query",
    [
        "?conversation_id=a%20b",
        "?conversation_id=" + "x" * 65,
        "?conversation_id=",
        "?conversation_id=a&conversation_id=b",
    ],
)
async def test_a_bad_conversation_id_is_a_validation_error(shared_client, query: str) -> None:  # type: ignore[no-untyped-def]
    user = new_user()
    for method, path in (
        ("GET", f"/v1/sessions/{user}{query}"),
        ("DELETE", f"/v1/sessions/{user}{query}"),
        ("DELETE", f"/v1/sessions/{user}/trip{query}"),
        ("GET", f"/v1/ws{query}&user_id={user}"),
    ):
        resp = await shared_client.request(method, path)
        assert resp.status == 422, (method, path)
        body = await resp.json()
        assert body["error"]["code"] == "validation_error" and "conversation_id" in body["error"]["message"]
    for bad in ("a b", "", "x" * 65, 7):
        resp = await shared_client.post(
            "/v1/chat", json={"user_id": user, "message": "hi", "conversation_id": bad}
        )
        assert resp.status == 422 and (await resp.json())["error"]["code"] == "validation_error"
    assert await listed(shared_client, user) == []  # nothing was stored


async def test_a_websocket_talks_in_the_conversation_it_names(shared_client) -> None:  # type: ignore[no-untyped-def]
    user = new_user()
    async with shared_client.ws_connect(f"/v1/ws?user_id={user}&conversation_id=trip2") as ws:
        await ws.send_json({"type": "message", "text": "Weather in Lisbon?", "id": "q1"})
        while not (frame := await ws.receive_json()).get("complete"):
            assert frame["type"] in ("progress", "response"), frame
    assert questions(await session(shared_client, user, "trip2")) == ["Weather in Lisbon?"]
    assert (await session(shared_client, user))["history"] == []
    # Its answers are the conversation's: another conversation's connection does not know them.
    async with shared_client.ws_connect(f"/v1/ws?user_id={user}") as ws:
        await ws.send_json({"type": "resume", "id": "q1"})
        assert (await ws.receive_json())["error"]["code"] == "unknown_answer"
    async with shared_client.ws_connect(f"/v1/ws?user_id={user}&conversation_id=trip2") as ws:
        await ws.send_json({"type": "resume", "id": "q1"})
        frame = await ws.receive_json()
        assert frame["complete"] is True and frame["id"] == "q1"


def test_a_title_is_the_first_message_on_one_line_cut_to_eighty_characters() -> None:
    assert title("  Hotels\n in   Lisbon ") == "Hotels in Lisbon"
    long = title("word " * 40)
    assert len(long) == 80 and long.endswith("…")
    assert title("x" * 80) == "x" * 80


@pytest_asyncio.fixture(
    params=["sqlite", pytest.param("redis", marks=pytest.mark.redis)], loop_scope="module"
)
async def kv(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[KVStore]:
    if request.param == "sqlite":
        store: KVStore = SQLiteKV(tmp_path / "kv.sqlite3")
    else:
        url = redis_url()
        if url is None:
            pytest.skip("no Redis: set WAYFARER_TEST_REDIS_URL")
        store = RedisKV(url, f"test-conv-{uuid.uuid4().hex[:8]}")
    await store.open()
    yield store
    await store.close()


async def test_past_the_cap_the_conversation_written_longest_ago_is_forgotten(kv: KVStore) -> None:
    sessions = SessionStore(kv)
    user = new_user()
    for i in range(MAX_CONVERSATIONS + 1):
        await sessions.ask(conversation_key(user, f"c{i}"), f"question {i}")
        await sessions.started(user, f"c{i}", f"question {i}")
    ids = {c.id for c in await sessions.conversations(user)}
    assert len(ids) == MAX_CONVERSATIONS and "c0" not in ids and f"c{MAX_CONVERSATIONS}" in ids
    assert await sessions.history(conversation_key(user, "c0")) == []  # forgotten, not only unlisted
    assert len(await sessions.history(conversation_key(user, "c1"))) == 1
    # Each user's list is their own.
    assert await sessions.conversations(new_user()) == []
