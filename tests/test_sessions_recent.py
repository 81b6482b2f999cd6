"""A history is written to its small ``recent`` key turn by turn and to its ``history`` key only now and
then, and reads exactly as a history rewritten whole at every turn. On the real stores (SQLite; Redis
when configured), each wrapped only to count its writes."""

from __future__ import annotations

import json
import random
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from rag.chat.sessions import HISTORY_LIMIT, RECENT_TURNS, SessionStore
from rag.kv.base import KVStore
from rag.kv.redis import RedisKV
from rag.kv.sqlite import SQLiteKV
from tests.conftest import redis_url

pytestmark = pytest.mark.asyncio(loop_scope="function")


class Written:
    """A real store, the keys it writes counted by their last part (``history``, ``recent``)."""

    def __init__(self, kv: KVStore) -> None:
        self.kv = kv
        self.sets: Counter[str] = Counter()

    @property
    def replicated(self) -> bool:
        return self.kv.replicated

    async def set(self, key: str, value: str, ttl: float | None = None) -> None:
        self.sets[key.rsplit(":", 1)[-1]] += 1
        await self.kv.set(key, value, ttl)

    def __getattr__(self, name: str) -> object:
        return getattr(self.kv, name)


@pytest_asyncio.fixture(params=["sqlite", pytest.param("redis", marks=pytest.mark.redis)])
async def kv(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[KVStore]:
    store: SQLiteKV | RedisKV
    if request.param == "sqlite":
        store = SQLiteKV(tmp_path / "kv.sqlite3")
    else:
        url = redis_url()
        if not url:
            pytest.skip("no Redis: set WAYFARER_TEST_REDIS_URL")
        store = RedisKV(url, f"test-{uuid.uuid4().hex}")
    await store.open()
    yield store
    await store.close()


def shown(turns: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(t["seq"], t["role"], t["text"], t.get("id")) for t in turns]


async def test_turns_go_to_recent_and_join_the_history_when_it_is_full(kv: KVStore) -> None:
    written = Written(kv)
    store = SessionStore(written)  # type: ignore[arg-type]
    for i in range(20):
        place = await store.ask("u", f"question {i}")
        await store.answer("u", place, f"answer {i}")
    turns = 40
    assert written.sets["recent"] == turns  # one small write a turn
    # The whole history now and then: when ``recent`` is full, each time after a question, which stays
    # in ``recent`` for its answer.
    assert written.sets["history"] == (turns - 1) // RECENT_TURNS
    assert [t["text"] for t in await store.history("u")][-2:] == ["question 19", "answer 19"]
    fresh = SessionStore(kv)  # what another process reads from the store
    assert shown(await fresh.history("u")) == shown(await store.history("u"))


@pytest.mark.parametrize("seed", range(6))
async def test_a_history_reads_as_one_rewritten_whole_at_every_turn(kv: KVStore, seed: int) -> None:
    """Questions, answers in any order, other turns and forgetting, past the history's limit: the same
    turns, numbers and pages as with a store that rewrites ``history`` at every turn."""
    rng = random.Random(seed)
    split = SessionStore(kv)
    whole = SessionStore(kv, recent_turns=0)
    waiting: list[tuple[int, int]] = []  # (place in the split store, place in the whole one)
    for step in range(2 * HISTORY_LIMIT):
        roll = rng.random()
        if roll < 0.4 or not waiting:
            waiting.append((await split.ask("s", f"q{step}"), await whole.ask("w", f"q{step}")))
        elif roll < 0.8:
            a, b = waiting.pop(rng.randrange(len(waiting)))
            await split.answer("s", a, f"a{step}")
            await whole.answer("w", b, f"a{step}")
        elif roll < 0.97:
            await split.append("s", "assistant", f"note {step}")
            await whole.append("w", "assistant", f"note {step}")
        else:
            assert await split.forget("s") == await whole.forget("w")
        assert shown(await split.history("s")) == shown(await whole.history("w")), step
    assert shown((await split.page("s", limit=7)).turns) == shown((await whole.page("w", limit=7)).turns)


async def test_a_write_stopped_between_the_two_keys_reads_each_turn_once(kv: KVStore) -> None:
    turns = [{"role": "user", "text": f"t{i}", "at": "a", "seq": i} for i in range(10)]
    await kv.set("session:u:history", json.dumps(turns))  # written; ``recent`` not emptied after it
    await kv.set("session:u:recent", json.dumps({"since": time.time(), "turns": turns[6:]}))
    store = SessionStore(kv)
    assert [t["seq"] for t in await store.history("u")] == list(range(10))
    await store.append("u", "user", "next")
    assert [t["seq"] for t in await store.history("u")] == list(range(11))


async def test_a_history_written_long_ago_is_written_again_with_the_next_turn(kv: KVStore) -> None:
    store = SessionStore(kv, ttl=100.0)
    await store.append("u", "user", "first")
    assert await kv.get("session:u:history") is None  # a new conversation starts in ``recent``
    recent = json.loads(await kv.get("session:u:recent") or "{}")
    await kv.set("session:u:recent", json.dumps({**recent, "since": time.time() - 11}))  # > a thirtieth
    await SessionStore(kv, ttl=100.0).append("u", "assistant", "second")
    settled = json.loads(await kv.get("session:u:history") or "[]")
    assert [t["text"] for t in settled] == ["first", "second"]
    assert json.loads(await kv.get("session:u:recent") or "{}")["turns"] == []


async def test_forgetting_a_history_forgets_both_keys(kv: KVStore) -> None:
    store = SessionStore(kv)
    for i in range(RECENT_TURNS + 3):
        await store.append("u", "user", f"t{i}")
    assert await kv.get("session:u:history") and await kv.get("session:u:recent")
    assert await store.forget("u")
    assert await kv.get("session:u:history") is None and await kv.get("session:u:recent") is None
    assert await SessionStore(kv).history("u") == []
