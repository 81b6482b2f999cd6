"""One contract, two backends: SQLite and Redis pass the very same tests."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from rag.errors import KVUnavailableError
from rag.kv.base import KVStore
from rag.kv.redis import RedisKV
from rag.kv.sqlite import SQLiteKV
from tests.conftest import redis_url


class KVContract:
    @pytest.fixture
    async def kv(self) -> AsyncIterator[KVStore]:
        raise NotImplementedError

    async def test_set_get_delete(self, kv: KVStore) -> None:
        assert await kv.get("a") is None
        await kv.set("a", "1")
        assert await kv.get("a") == "1"
        await kv.set("a", "2")
        assert await kv.get("a") == "2"
        assert await kv.delete("a") is True
        assert await kv.get("a") is None
        assert await kv.delete("a") is False

    async def test_set_if_absent_only_first_wins(self, kv: KVStore) -> None:
        assert await kv.set_if_absent("lock", "me", ttl=30) is True
        assert await kv.set_if_absent("lock", "you", ttl=30) is False
        assert await kv.get("lock") == "me"

    async def test_set_if_absent_is_atomic_under_concurrency(self, kv: KVStore) -> None:
        results = await asyncio.gather(*(kv.set_if_absent("race", str(i), ttl=30) for i in range(50)))
        assert sum(results) == 1
        winner = results.index(True)
        assert await kv.get("race") == str(winner)

    async def test_many_concurrent_mixed_operations_all_succeed(self, kv: KVStore) -> None:
        # Chat under load: rate-limit counters, claims, sessions and locks all at once on one store.
        n = 300
        await asyncio.gather(*(kv.set(f"del:{i}", "x") for i in range(n)))
        await kv.set_if_absent("lock", "owner", ttl=30)
        ops = []
        for i in range(n):
            ops += [
                kv.incr("counter", ttl=30),
                kv.set_if_absent(f"claim:{i % 50}", str(i), ttl=30),
                kv.set(f"set:{i}", str(i), ttl=30),
                kv.delete(f"del:{i}"),
                kv.renew("lock", "owner", ttl=30),
                kv.get(f"set:{i}"),
            ]
        results = await asyncio.gather(*ops, return_exceptions=True)
        failures = [r for r in results if isinstance(r, BaseException)]
        assert failures == []
        counts = results[0::6]
        assert sorted(counts) == list(range(1, n + 1))  # type: ignore[type-var]
        assert sum(bool(r) for r in results[1::6]) == 50  # one winner per claim key
        assert all(r is True for r in results[3::6])  # each key existed, so each delete removed it
        assert all(r is True for r in results[4::6])
        assert await kv.get("counter") == str(n)
        assert await kv.scan_prefix("del:") == {}
        assert len(await kv.scan_prefix("set:")) == n

    async def test_ttl_expires(self, kv: KVStore) -> None:
        await kv.set("short", "x", ttl=0.2)
        assert await kv.set_if_absent("gone", "1", ttl=0.2) is True
        assert await kv.get("short") == "x"
        await asyncio.sleep(0.35)
        assert await kv.get("short") is None
        assert "short" not in await kv.scan_prefix("sh")
        # An expired holder no longer blocks: a crashed lock frees itself.
        assert await kv.set_if_absent("gone", "2", ttl=5) is True
        assert await kv.get("gone") == "2"

    async def test_incr_counts_within_its_window(self, kv: KVStore) -> None:
        counts = await asyncio.gather(*(kv.incr("hits", ttl=0.3) for _ in range(20)))
        assert sorted(counts) == list(range(1, 21))
        await asyncio.sleep(0.45)
        assert await kv.incr("hits", ttl=0.3) == 1  # the window expired: a new count

    async def test_slide_takes_the_limit_in_any_window_and_says_how_long_to_wait(self, kv: KVStore) -> None:
        # The caller's clock, not the store's: any times will do, and none of this waits.
        assert [await kv.slide("log", t, 10, 3) for t in (100.0, 101.0, 102.0)] == [0, 0, 0]
        assert await kv.slide("log", 103.0, 10, 3) == pytest.approx(7.0)  # until 100 leaves the window
        assert await kv.slide("log", 109.5, 10, 3) == pytest.approx(0.5)  # refused calls are not counted
        assert await kv.slide("log", 110.0, 10, 3) == 0  # 100 is exactly a window ago: out
        assert await kv.slide("log", 110.5, 10, 3) == pytest.approx(0.5)  # 101, 102, 110 are in it
        assert await kv.slide("other", 110.5, 10, 3) == 0  # another key, another log
        assert await kv.slide("log", 110.5, 10, 4) == 0  # the limit is the caller's to say

    async def test_slide_never_takes_more_than_the_limit_at_once(self, kv: KVStore) -> None:
        waits = await asyncio.gather(*(kv.slide("burst", 500.0, 60, 10) for _ in range(50)))
        assert sum(w == 0 for w in waits) == 10
        assert all(w == pytest.approx(60.0) for w in waits if w)

    async def test_slide_bounds_every_window_not_each_clock_minute(self, kv: KVStore) -> None:
        """The old per-minute count let 2x the limit through across a minute's edge: 60 at :59.9 and
        60 more at :00.1. A sliding window takes 60 in any 60 seconds, wherever they fall."""
        edge = 60.0 * 1000
        before = [await kv.slide("edge", edge - 0.1, 60, 60) for _ in range(80)]
        after = [await kv.slide("edge", edge + 0.1, 60, 60) for _ in range(80)]
        assert sum(w == 0 for w in before) == 60 and sum(w == 0 for w in after) == 0
        assert min(after) == pytest.approx(59.8)
        later = [await kv.slide("edge", edge + 59.9, 60, 60) for _ in range(80)]
        assert sum(w == 0 for w in later) == 60  # a whole window after the first ones

    async def test_slides_cancelled_mid_way_leave_the_store_usable(self, kv: KVStore) -> None:
        """A chat message stopped at once cancels its rate check wherever it is."""
        for turn in range(20):
            task = asyncio.ensure_future(kv.slide("cancelled", 1000.0 + turn, 60, 100))
            for _ in range(turn % 4):
                await asyncio.sleep(0)
            task.cancel()
        assert await kv.slide("after", 2000.0, 60, 1) == 0
        await kv.set("still", "writable")
        assert await kv.get("still") == "writable"

    async def test_lock_renew_and_release_only_by_owner(self, kv: KVStore) -> None:
        assert await kv.set_if_absent("job", "owner-a", ttl=0.3) is True
        assert await kv.renew("job", "owner-b", ttl=5) is False
        assert await kv.delete_if("job", "owner-b") is False
        assert await kv.renew("job", "owner-a", ttl=5) is True
        await asyncio.sleep(0.45)
        assert await kv.get("job") == "owner-a"  # renewed past its first TTL
        assert await kv.delete_if("job", "owner-a") is True
        assert await kv.get("job") is None
        assert await kv.renew("job", "owner-a", ttl=5) is False  # released locks are not revived

    async def test_scan_prefix(self, kv: KVStore) -> None:
        await kv.set("doc:a", "1")
        await kv.set("doc:b", "2")
        await kv.set("doc%_x", "literal")  # LIKE/glob characters are not wildcards
        await kv.set("other", "3")
        assert await kv.scan_prefix("doc:") == {"doc:a": "1", "doc:b": "2"}
        assert await kv.scan_prefix("doc%_") == {"doc%_x": "literal"}
        assert await kv.scan_prefix("nothing") == {}

    async def test_unicode_and_large_values(self, kv: KVStore) -> None:
        value = "Zürich → 東京 " * 20000
        await kv.set("ключ", value)
        assert await kv.get("ключ") == value

    async def test_ping(self, kv: KVStore) -> None:
        assert await kv.ping() is True


class TestSQLiteKV(KVContract):
    @pytest.fixture
    async def kv(self, tmp_path: Path) -> AsyncIterator[KVStore]:
        store = SQLiteKV(tmp_path / "kv.sqlite3")
        await store.open()
        yield store
        await store.close()

    async def test_survives_reopen(self, tmp_path: Path) -> None:
        first = SQLiteKV(tmp_path / "k.db")
        await first.open()
        await first.set("k", "v")
        await first.close()
        second = SQLiteKV(tmp_path / "k.db")
        await second.open()
        assert await second.get("k") == "v"
        await second.close()

    async def test_unusable_path_is_a_clear_error(self, tmp_path: Path) -> None:
        (tmp_path / "file").write_text("x")
        with pytest.raises(KVUnavailableError):
            await SQLiteKV(tmp_path / "file" / "kv.db").open()


class TestRedisKV(KVContract):
    @pytest.fixture
    async def kv(self) -> AsyncIterator[KVStore]:
        url = redis_url()
        if not url:
            pytest.skip("no Redis: set WAYFARER_TEST_REDIS_URL")
        store = RedisKV(url, f"test-{uuid.uuid4().hex}")
        await store.open()
        yield store
        await store.close()

    async def test_unreachable_redis_is_a_clear_error(self) -> None:
        with pytest.raises(KVUnavailableError, match="cannot reach Redis"):
            await RedisKV("redis://127.0.0.1:1/0", "x").open()


async def test_sqlite_deletes_expired_rows(tmp_path: Path) -> None:
    import sqlite3

    kv = SQLiteKV(tmp_path / "kv.db")
    await kv.open()
    kv.SWEEP_EVERY = 10
    for i in range(9):
        await kv.set(f"rate:{i}", "1", ttl=0.05)
    await asyncio.sleep(0.1)
    await kv.set("kept", "x")  # the tenth write sweeps
    await kv.close()
    rows = sqlite3.connect(tmp_path / "kv.db").execute("SELECT key FROM kv").fetchall()
    assert rows == [("kept",)]


async def test_sqlite_operations_queued_together_each_get_their_own_answer(tmp_path: Path) -> None:
    """Operations that queue while the store's thread is busy run in order and are answered together;
    each caller gets its own result or error, and a cancelled caller's write still happens."""
    kv = SQLiteKV(tmp_path / "kv.db")
    await kv.open()
    try:
        order: list[int] = []

        def op(i: int) -> int:
            order.append(i)
            if i % 7 == 3:
                raise KVUnavailableError(f"operation {i} failed")
            return i * i

        calls = [asyncio.ensure_future(kv._call(lambda i=i: op(i))) for i in range(50)]  # type: ignore[misc]
        cancelled = asyncio.ensure_future(kv.set("late", "written"))
        await asyncio.sleep(0)
        cancelled.cancel()
        outcomes = await asyncio.gather(*calls, return_exceptions=True)
        assert order == list(range(50))
        for i, got in enumerate(outcomes):
            if i % 7 == 3:
                assert isinstance(got, KVUnavailableError) and str(got) == f"operation {i} failed"
            else:
                assert got == i * i
        assert await kv.get("late") == "written"
    finally:
        await kv.close()
