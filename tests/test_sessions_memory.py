"""A single-process store (SQLite) remembers the conversations it read and wrote, so a message reads its
history and trip from memory; replicas (Redis) read the store every time. On the real stores, each
wrapped only to count (and, for one test, to hold) its operations."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from rag.chat.memory import Parsed, Remembered
from rag.chat.sessions import SessionStore
from rag.dialogue.trip import TripState
from rag.kv.base import KVStore
from rag.kv.redis import RedisKV
from rag.kv.sqlite import SQLiteKV
from tests.conftest import redis_url

pytestmark = pytest.mark.asyncio(loop_scope="function")


class Counted:
    """A real store, its reads counted; a read of ``held`` waits for ``release`` after the store
    answered it (so a write can happen meanwhile)."""

    def __init__(self, kv: KVStore) -> None:
        self.kv = kv
        self.gets = 0
        self.held: str | None = None
        self.read = asyncio.Event()
        self.release = asyncio.Event()

    @property
    def replicated(self) -> bool:
        return self.kv.replicated

    async def get(self, key: str) -> str | None:
        self.gets += 1
        value = await self.kv.get(key)
        if key == self.held:
            self.read.set()
            await self.release.wait()
        return value

    def __getattr__(self, name: str) -> object:
        return getattr(self.kv, name)


@pytest_asyncio.fixture
async def sqlite(tmp_path: Path) -> AsyncIterator[Counted]:
    kv = SQLiteKV(tmp_path / "kv.sqlite3")
    await kv.open()
    yield Counted(kv)
    await kv.close()


async def message(store: SessionStore, user: str, text: str) -> None:
    """What the chat does with the store for one message."""
    trip = await store.trip(user)
    place = await store.ask(user, text)
    await store.save_trip(user, trip.model_copy(update={"destination": "Lisbon"}))
    await store.answer(user, place, f"answer to {text}")


async def test_a_conversation_is_read_from_memory_after_its_first_message(sqlite: Counted) -> None:
    store = SessionStore(sqlite)  # type: ignore[arg-type]
    await message(store, "u", "first")
    assert sqlite.gets == 3  # the trip and the history's two keys, once: a new user's
    await message(store, "u", "second")
    assert sqlite.gets == 3
    assert [t["text"] for t in await store.history("u")] == [
        "first",
        "answer to first",
        "second",
        "answer to second",
    ]
    # What memory holds is what the store holds: a second store on the same file reads the same.
    fresh = SessionStore(sqlite.kv)
    assert await fresh.history("u") == await store.history("u")
    assert (await fresh.trip("u")).destination == "Lisbon"


async def test_forgetting_a_conversation_forgets_it_in_memory_too(sqlite: Counted) -> None:
    store = SessionStore(sqlite)  # type: ignore[arg-type]
    await message(store, "u", "hello")
    assert await store.forget("u")
    assert await store.history("u") == [] and await store.trip("u") == TripState()


async def test_a_read_that_overlaps_a_write_does_not_remember_the_old_value(sqlite: Counted) -> None:
    store = SessionStore(sqlite)  # type: ignore[arg-type]
    sqlite.held = "session:u:trip"
    reading = asyncio.create_task(store.trip("u"))  # reads "no trip", then waits
    await sqlite.read.wait()
    await store.save_trip("u", TripState(destination="Rome"))
    sqlite.release.set()
    assert (await reading).destination is None  # it began before the write
    assert (await store.trip("u")).destination == "Rome"


async def test_memory_is_bounded_by_characters_least_recently_used_first() -> None:
    kept = Remembered(chars=10)
    kept.put("a", "xxxx", None)
    kept.put("b", "yyyy", None)
    assert kept.get("a") == (True, "xxxx")  # a is now the more recently used
    kept.put("c", "zzzz", None)
    assert kept.get("b") == (False, None) and kept.get("a") == (True, "xxxx") and len(kept) == 2
    kept.put("d", "w" * 11, None)  # more than the whole budget: nothing else fits, nor does it
    assert len(kept) == 0


async def test_a_history_read_again_unchanged_is_not_parsed_again() -> None:
    parsed = Parsed(chars=20)
    first = parsed.loads("a", '[{"x": 1}]')
    assert parsed.loads("a", '[{"x": 1}]') is first  # the same text: the same value, shared
    changed = parsed.loads("a", '[{"x": 2}]')
    assert changed == [{"x": 2}] and changed is not first
    parsed.loads("b", '[{"y": 1}]')
    parsed.loads("c", '[{"z": 1}]')  # 30 characters held: "a", the least recently used, goes
    assert parsed.loads("a", '[{"x": 2}]') is not changed


@pytest.mark.redis
async def test_replicas_read_the_store_every_time() -> None:
    url = redis_url()
    if not url:
        pytest.skip("no Redis: set WAYFARER_TEST_REDIS_URL")
    kv = RedisKV(url, f"test-{uuid.uuid4().hex}")
    await kv.open()
    try:
        counted = Counted(kv)
        store = SessionStore(counted)  # type: ignore[arg-type]
        assert store.remembered is None
        await message(store, "u", "first")
        await message(store, "u", "second")
        # the trip, the history's two keys for the question and again for the answer; twice
        assert counted.gets == 10
        other = SessionStore(kv)  # another replica's write is seen at once
        await other.save_trip("u", TripState(destination="Oslo"))
        assert (await store.trip("u")).destination == "Oslo"
    finally:
        await kv.close()
