"""Embedded default: one SQLite file (WAL mode) under the data directory."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from rag.errors import KVUnavailableError

logger = logging.getLogger(__name__)
T = TypeVar("T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS kv (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    expires_at REAL
)
"""

_SWEEP = "DELETE FROM kv WHERE expires_at IS NOT NULL AND expires_at <= ?"
_LIVE = "(expires_at IS NULL OR expires_at > ?)"


class SQLiteKV:
    """One connection in autocommit mode, owned by one thread of its own: every operation is one call on
    that thread, whole (a statement executed, its rows read; a sliding window's read and write in one
    transaction), so operations never interleave and need no lock in the event loop. Operations queue
    for the thread and run back to back; those that queued while the thread was busy are answered
    together, with one wake-up of the event loop (under load, a message's three history and trip writes
    and everyone else's share them instead of paying a thread hand-over each). A caller cancelled while
    its operation waits or runs does not stop it: it finishes (or rolls back) on the thread, so nothing
    is left half done on the connection.
    """

    # Expired rows are invisible at once, and deleted every this many writes (Redis expires them itself).
    SWEEP_EVERY = 1000

    replicated = False

    def __init__(self, path: Path) -> None:
        self._path = path
        self._db: sqlite3.Connection | None = None
        self._thread: ThreadPoolExecutor | None = None
        self._writes = 0
        self._queue: list[tuple[Callable[[], Any], asyncio.Future[Any]]] = []  # waiting for the thread
        self._draining = False  # the thread has been asked to run the queue
        self._lock = threading.Lock()  # over the queue and that flag, shared with the thread

    async def open(self) -> None:
        """Open the database; a cancelled open (Ctrl-C while the service starts) still finishes and
        closes, so the store's thread does not outlive the event loop."""
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="kv-sqlite")
        opening = asyncio.ensure_future(self._call(self._open))
        try:
            await asyncio.shield(opening)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await opening
            await self.close()
            raise
        except KVUnavailableError:
            await self.close()  # a file it cannot use: its thread must end too
            raise

    def _open(self) -> None:
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: autocommit, so each single-statement operation is its own transaction.
            # check_same_thread=False only so that close() can run where open() did not: on this thread.
            db = sqlite3.connect(self._path, timeout=30, isolation_level=None, check_same_thread=False)
            try:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
                db.execute(_SCHEMA)
                db.execute(_SWEEP, (time.time(),))
            except sqlite3.Error:
                db.close()
                raise
            self._db = db
        except (sqlite3.Error, OSError) as exc:
            raise KVUnavailableError(
                f"cannot open the key-value store at {self._path}: {exc}; move the file away to start "
                "afresh, or pick another data directory with --data-dir"
            ) from exc

    async def _call(self, fn: Callable[[], T]) -> T:
        """``fn`` on the store's thread. Not cancellable once queued: a cancel reaches the caller only."""
        if self._thread is None:
            raise KVUnavailableError("the key-value store is not open")
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[T] = loop.create_future()
        answer.add_done_callback(lambda done: done.cancelled() or done.exception())  # a cancelled caller's
        with self._lock:
            self._queue.append((fn, answer))
            start, self._draining = not self._draining, True
        if start:
            self._thread.submit(self._drain, loop)
        return await asyncio.shield(answer)

    def _drain(self, loop: asyncio.AbstractEventLoop) -> None:
        """On the store's thread: the queued operations, in order, until none is left; each round's
        answers go to the event loop at once."""
        while True:
            with self._lock:
                jobs, self._queue = self._queue, []
                if not jobs:
                    self._draining = False
                    return
            done: list[tuple[asyncio.Future[Any], Any, BaseException | None]] = []
            for fn, answer in jobs:
                try:
                    done.append((answer, fn(), None))
                except Exception as exc:
                    done.append((answer, None, exc))
            with contextlib.suppress(RuntimeError):  # the event loop closed: no one waits for these
                loop.call_soon_threadsafe(_settle, done)

    @property
    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise KVUnavailableError("the key-value store is not open")
        return self._db

    def _counted(self, db: sqlite3.Connection) -> None:
        """A write done: every SWEEP_EVERY-th also deletes expired rows."""
        self._writes += 1
        if self._writes % self.SWEEP_EVERY == 0:
            db.execute(_SWEEP, (time.time(),))

    async def _run(self, what: str, sql: str, args: tuple[object, ...], *, write: bool = True) -> list[Any]:
        """Run one statement to completion on the store's thread; return its rows. Writes that must say
        whether they changed a row say it with ``RETURNING``."""

        def run() -> list[Any]:
            db = self._conn
            try:
                rows = db.execute(sql, args).fetchall()
                if write:
                    self._counted(db)
            except sqlite3.Error as exc:
                raise KVUnavailableError(f"key-value {what} failed: {exc}") from exc
            return rows

        return await self._call(run)

    async def set_if_absent(self, key: str, value: str, ttl: float | None = None) -> bool:
        now = time.time()
        expires = now + ttl if ttl is not None else None
        # One statement: insert, or take over a key whose value has expired.
        rows = await self._run(
            "write",
            "INSERT INTO kv (key, value, expires_at) VALUES (?, ?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at "
            "WHERE kv.expires_at IS NOT NULL AND kv.expires_at <= ? RETURNING 1",
            (key, value, expires, now),
        )
        return len(rows) == 1

    async def set(self, key: str, value: str, ttl: float | None = None) -> None:
        expires = time.time() + ttl if ttl is not None else None
        await self._run(
            "write",
            "INSERT OR REPLACE INTO kv (key, value, expires_at) VALUES (?, ?, ?)",
            (key, value, expires),
        )

    async def get(self, key: str) -> str | None:
        rows = await self._run(
            "read", f"SELECT value FROM kv WHERE key = ? AND {_LIVE}", (key, time.time()), write=False
        )
        return str(rows[0][0]) if rows else None

    async def delete(self, key: str) -> bool:
        # One statement removes the row, expired or not; only a live one counts as deleted.
        now = time.time()
        rows = await self._run("delete", "DELETE FROM kv WHERE key = ? RETURNING expires_at", (key,))
        return any(expires is None or expires > now for (expires,) in rows)

    async def incr(self, key: str, ttl: float) -> int:
        now = time.time()
        rows = await self._run(
            "write",
            "INSERT INTO kv (key, value, expires_at) VALUES (?, '1', ?) "
            "ON CONFLICT(key) DO UPDATE SET "
            "value = CASE WHEN kv.expires_at IS NOT NULL AND kv.expires_at <= ? THEN '1' "
            "ELSE CAST(CAST(kv.value AS INTEGER) + 1 AS TEXT) END, "
            "expires_at = CASE WHEN kv.expires_at IS NOT NULL AND kv.expires_at <= ? "
            "THEN excluded.expires_at ELSE kv.expires_at END "
            "RETURNING value",
            (key, now + ttl, now, now),
        )
        return int(rows[0][0]) if rows else 1

    async def slide(self, key: str, now: float, window: float, limit: int) -> float:
        # The log is the hits' times in the value, read and written in one IMMEDIATE transaction on the
        # store's thread: a second process on the same file waits for it.
        def run() -> float:
            db = self._conn
            try:
                db.execute("BEGIN IMMEDIATE")
                try:
                    wait = self._slide(db, key, now, window, limit)
                    db.execute("COMMIT")
                except BaseException:
                    with contextlib.suppress(sqlite3.Error):
                        db.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise KVUnavailableError(f"key-value write failed: {exc}") from exc
            return wait

        return await self._call(run)

    def _slide(self, db: sqlite3.Connection, key: str, now: float, window: float, limit: int) -> float:
        row = db.execute(f"SELECT value FROM kv WHERE key = ? AND {_LIVE}", (key, time.time())).fetchone()
        hits = [t for t in _times(str(row[0]) if row else "") if t > now - window]
        if len(hits) >= limit:
            return min(hits) + window - now
        hits.append(now)
        db.execute(
            "INSERT OR REPLACE INTO kv (key, value, expires_at) VALUES (?, ?, ?)",
            (key, " ".join(map(repr, hits)), time.time() + window),
        )
        self._counted(db)
        return 0.0

    async def renew(self, key: str, value: str, ttl: float) -> bool:
        now = time.time()
        rows = await self._run(
            "write",
            f"UPDATE kv SET expires_at = ? WHERE key = ? AND value = ? AND {_LIVE} RETURNING 1",
            (now + ttl, key, value, now),
        )
        return len(rows) == 1

    async def delete_if(self, key: str, value: str) -> bool:
        rows = await self._run(
            "write",
            f"DELETE FROM kv WHERE key = ? AND value = ? AND {_LIVE} RETURNING 1",
            (key, value, time.time()),
        )
        return len(rows) == 1

    async def scan_prefix(self, prefix: str) -> dict[str, str]:
        # Range scan on the primary key; no LIKE, so '%' and '_' in keys are literal.
        upper = prefix + "\U0010ffff"
        rows = await self._run(
            "scan",
            f"SELECT key, value FROM kv WHERE key >= ? AND key < ? AND {_LIVE}",
            (prefix, upper, time.time()),
            write=False,
        )
        return {str(k): str(v) for k, v in rows}

    async def ping(self) -> bool:
        try:
            await self._run("ping", "SELECT 1", (), write=False)
        except KVUnavailableError:
            return False
        return True

    async def close(self) -> None:
        """Close the connection on its thread (after every operation queued before), then end the
        thread."""
        thread, self._thread = self._thread, None
        if thread is None:
            return

        def shut() -> None:
            db, self._db = self._db, None
            if db is not None:
                db.close()

        try:
            await asyncio.get_running_loop().run_in_executor(thread, shut)
        finally:
            thread.shutdown(wait=True)


def _settle(done: list[tuple[asyncio.Future[Any], Any, BaseException | None]]) -> None:
    """In the event loop: each operation's answer to its caller."""
    for answer, value, exc in done:
        if answer.done():  # the loop is closing
            continue
        if exc is not None:
            answer.set_exception(exc)
        else:
            answer.set_result(value)


def _times(value: str) -> list[float]:
    """The hit times a sliding-window log holds; none if the value is not one."""
    try:
        return [float(t) for t in value.split()]
    except ValueError:
        return []
