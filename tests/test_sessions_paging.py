"""GET /v1/sessions/{user_id} pages a conversation backwards with a stable cursor: each turn's ``seq``.

Through the real app (one for the module; each test has its own users), with turns added by /v1/chat or
by the app's own SessionStore on its real KV store; the store itself on SQLite and on Redis.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from hypothesis import given
from hypothesis import strategies as st

from rag.chat.sessions import HISTORY_LIMIT, SessionStore, numbered, page
from rag.kv.base import KVStore
from rag.kv.redis import RedisKV
from rag.kv.sqlite import SQLiteKV
from rag.web import keys
from tests.conftest import redis_url

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def get_page(client: Any, user: str, query: str = "") -> dict[str, Any]:
    resp = await client.get(f"/v1/sessions/{user}{query}")
    assert resp.status == 200, await resp.text()
    return await resp.json()  # type: ignore[no-any-return]


async def all_pages(client: Any, user: str, limit: int | None = None) -> list[dict[str, Any]]:
    """Every page from the latest back to the first, as the page asks for them."""
    size = f"limit={limit}" if limit else ""
    pages = [await get_page(client, user, f"?{size}" if size else "")]
    while pages[-1]["more"]:
        before = pages[-1]["before"]
        pages.append(await get_page(client, user, f"?before={before}" + (f"&{size}" if size else "")))
        assert len(pages) <= HISTORY_LIMIT, "the pages never end"
    return pages


def joined(pages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [turn for p in reversed(pages) for turn in p["history"]]


async def add_turns(client: Any, user: str, count: int, start: int = 0) -> None:
    sessions = client.app[keys.CHAT].sessions
    for i in range(start, start + count):
        await sessions.append(user, "user" if i % 2 == 0 else "assistant", f"turn {i}", id=f"a{i // 2}")


async def test_pages_join_back_to_the_first_turn_without_gaps_or_duplicates(shared_client) -> None:  # type: ignore[no-untyped-def]
    user = "paging-" + uuid.uuid4().hex[:8]
    await add_turns(shared_client, user, 60)  # past the 50 the store keeps: the first and the latest 49
    kept = await shared_client.app[keys.CHAT].sessions.history(user)
    assert len(kept) == HISTORY_LIMIT and kept[0]["text"] == "turn 0" and kept[-1]["text"] == "turn 59"

    latest = await get_page(shared_client, user)
    assert [t["text"] for t in latest["history"]] == [f"turn {i}" for i in range(40, 60)]  # 20 by default
    assert latest["more"] is True and latest["before"] == latest["history"][0]["seq"]
    assert latest["user_id"] == user and latest["trip"] == {}  # the old fields are all still there

    for limit in (None, 7, 1, 50):
        pages = await all_pages(shared_client, user, limit)
        turns = joined(pages)
        assert [t["text"] for t in turns] == [t["text"] for t in kept], limit  # no gap, no duplicate
        assert [t["seq"] for t in turns] == sorted({t["seq"] for t in turns})
        assert turns[0]["seq"] == 0 and turns[0]["text"] == "turn 0"
        for p in pages[:-1]:
            assert p["more"] is True and p["before"] == p["history"][0]["seq"]
            assert len(p["history"]) == (limit or 20)
        assert pages[-1]["more"] is False and pages[-1]["before"] is None
    # A question and its answer share an id; their seqs tell them apart.
    assert kept[-2]["id"] == kept[-1]["id"] and kept[-2]["seq"] + 1 == kept[-1]["seq"]


async def test_a_cursor_stays_good_while_the_conversation_goes_on(shared_client) -> None:  # type: ignore[no-untyped-def]
    user = "paging-live-" + uuid.uuid4().hex[:8]
    await add_turns(shared_client, user, 30)
    first = await get_page(shared_client, user, "?limit=10")
    before = first["before"]
    expected = await get_page(shared_client, user, f"?before={before}&limit=10")
    # A real chat message arrives (its question and answer are stored) before the reader asks for more.
    resp = await shared_client.post("/v1/chat", json={"user_id": user, "message": "What to pack for Lisbon?"})
    assert resp.status == 200
    latest = await get_page(shared_client, user, "?limit=2")
    question, answer = latest["history"]
    assert (question["role"], answer["role"]) == ("user", "assistant")
    assert question["id"] == answer["id"] and [question["seq"], answer["seq"]] == [30, 31]
    again = await get_page(shared_client, user, f"?before={before}&limit=10")
    assert [again[k] for k in ("history", "more", "before")] == [
        expected[k] for k in ("history", "more", "before")
    ]
    assert [t["text"] for t in expected["history"]] == [f"turn {i}" for i in range(10, 20)]


async def test_the_first_page_of_a_short_conversation_has_nothing_before_it(shared_client) -> None:  # type: ignore[no-untyped-def]
    user = "paging-short-" + uuid.uuid4().hex[:8]
    empty = await get_page(shared_client, user)
    assert empty["history"] == [] and empty["more"] is False and empty["before"] is None
    await add_turns(shared_client, user, 4)
    only = await get_page(shared_client, user)
    assert [t["seq"] for t in only["history"]] == [0, 1, 2, 3] and only["more"] is False
    assert only["before"] is None
    # Before the first turn there is nothing; a cursor past the end is the latest page.
    assert (await get_page(shared_client, user, "?before=0"))["history"] == []
    assert (await get_page(shared_client, user, "?before=999&limit=50"))["history"] == only["history"]


async def test_a_history_stored_before_turns_had_a_seq_is_numbered_by_position(shared_client) -> None:  # type: ignore[no-untyped-def]
    user = "paging-old-" + uuid.uuid4().hex[:8]
    old = [
        {"role": "user" if i % 2 == 0 else "assistant", "text": f"old {i}", "at": "2026-01-01T10:00:00+00:00"}
        for i in range(25)
    ]
    await shared_client.app[keys.KV].set(f"session:{user}:history", json.dumps(old))
    latest = await get_page(shared_client, user)
    assert [t["seq"] for t in latest["history"]] == list(range(5, 25)) and latest["before"] == 5
    earlier = await get_page(shared_client, user, "?before=5")
    assert [t["text"] for t in earlier["history"]] == [f"old {i}" for i in range(5)]
    # The next turn stores the numbering the pages gave out, and follows it.
    await add_turns(shared_client, user, 1, start=25)
    raw = json.loads(await shared_client.app[keys.KV].get(f"session:{user}:history"))
    assert [t["seq"] for t in raw] == list(range(26)) and raw[-1]["text"] == "turn 25"
    assert (await get_page(shared_client, user, "?before=5"))["history"] == earlier["history"]


BAD_QUERIES = [
    "before=-1",
    "before=abc",
    "before=1.5",
    "before=",
    "before=%20",
    "before=%2B3",
    "before=%D9%A3",  # an Arabic-Indic three: a digit to str.isdigit, not to the API
    "before=9007199254740992",
    pytest.param("before=" + "9" * 400, id="before=400-digits"),
    "before=1&before=2",
    "limit=0",
    "limit=51",
    "limit=-5",
    "limit=x",
    "limit=",
    "limit=1e1",
    "limit=%C2%B2",  # "²"
    "limit=5&limit=6",
]


@pytest.mark.parametrize("query", BAD_QUERIES)
async def test_a_bad_cursor_or_limit_is_a_validation_error(shared_client, query: str) -> None:  # type: ignore[no-untyped-def]
    resp = await shared_client.get(f"/v1/sessions/paging-bad?{query}")
    assert resp.status == 422, (query, await resp.text())
    assert resp.headers["Content-Type"].startswith("application/json")
    error = (await resp.json())["error"]
    assert error["code"] == "validation_error"
    assert error["message"].startswith(query.split("=", 1)[0] + ":"), error


async def test_the_api_description_says_how_to_page(shared_client) -> None:  # type: ignore[no-untyped-def]
    doc = await (await shared_client.get("/openapi.json")).json()
    op = doc["paths"]["/v1/sessions/{user_id}"]["get"]
    params = {p["name"]: p for p in op["parameters"]}
    assert params["before"]["in"] == "query" and params["before"]["schema"]["type"] == "integer"
    assert params["limit"]["schema"] == {"type": "integer", "minimum": 1, "maximum": 50, "default": 20}
    assert "validation_error" in op["responses"]["422"]["description"]
    schemas = doc["components"]["schemas"]
    assert {"user_id", "trip", "history", "more", "before"} <= set(schemas["SessionView"]["required"])
    assert "seq" in schemas["Turn"]["required"]


# --- the store and the pure paging, on each real KV backend --------------------------------------------


@given(st.integers(min_value=0, max_value=120), st.integers(min_value=1, max_value=60))
def test_paging_back_from_the_latest_page_yields_every_turn_once(count: int, limit: int) -> None:
    turns = [{"role": "user", "text": str(i)} for i in range(count)]
    kept = numbered(turns[:1] + turns[-(HISTORY_LIMIT - 1) :] if count > HISTORY_LIMIT else turns)
    seen: list[dict[str, Any]] = []
    shown = page(kept, None, limit)
    while True:
        assert len(shown.turns) <= limit and shown.more == (shown.before is not None)
        seen[:0] = shown.turns
        if not shown.more:
            break
        assert shown.before == shown.turns[0]["seq"]
        shown = page(kept, shown.before, limit)
    assert seen == kept


class StoreContract:
    """The store's numbering, on each backend (fixtures on the module's loop, as its tests run there)."""

    @pytest_asyncio.fixture(loop_scope="module")
    async def kv(self) -> AsyncIterator[KVStore]:
        raise NotImplementedError
        yield

    async def test_seq_survives_trimming_and_old_histories_join_the_numbering(self, kv: KVStore) -> None:
        store = SessionStore(kv)
        for i in range(HISTORY_LIMIT + 3):
            await store.append("u", "user", f"t{i}")
        seqs = [t["seq"] for t in await store.history("u")]
        assert seqs == [0, *range(4, HISTORY_LIMIT + 3)]  # the first turn, then the latest
        await kv.set("session:old:history", json.dumps([{"role": "user", "text": "x", "at": "a"}] * 3))
        await store.append("old", "assistant", "y")
        assert [t["seq"] for t in json.loads(await kv.get("session:old:history") or "[]")] == [0, 1, 2, 3]
        await store.forget("old")
        await store.append("old", "user", "again")
        assert [t["seq"] for t in await store.history("old")] == [0]


class TestSQLiteStore(StoreContract):
    @pytest_asyncio.fixture(loop_scope="module")
    async def kv(self, tmp_path: Path) -> AsyncIterator[KVStore]:
        store = SQLiteKV(tmp_path / "kv.sqlite3")
        await store.open()
        yield store
        await store.close()


@pytest.mark.redis
class TestRedisStore(StoreContract):
    @pytest_asyncio.fixture(loop_scope="module")
    async def kv(self) -> AsyncIterator[KVStore]:
        url = redis_url()
        if not url:
            pytest.skip("no Redis: set WAYFARER_TEST_REDIS_URL")
        store = RedisKV(url, f"test-{uuid.uuid4().hex}")
        await store.open()
        yield store
        await store.close()
